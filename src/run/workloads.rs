//! The workloads a run is made on: a trace (or the built-in model), then
//! the transforms in a fixed order (first jobs, the standard machine, exact
//! estimates, window or calendar months, load, load factors). `goalc simulate` and `goalc bench`
//! share this one pipeline.

use super::parallel::try_map;
use super::scale::{scale_to_machine, ScaleSpec};
use super::RunError;
use crate::units::parse_duration;
use crate::workload::model::{self, ModelParams};
use crate::workload::swf::{self, ReadOptions};
use crate::workload::transform::{self, Window};
use crate::workload::{Time, Workload};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How `load` scales a workload's offered load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadBy {
    /// Shrink inter-arrival times (the GOAL paper).
    #[default]
    Arrivals,
    /// Stretch run times and estimates (the MOLD paper).
    Runtimes,
}

/// How QOPS's load factors add load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FactorBy {
    /// Duplicated jobs at random times, each higher factor a superset.
    #[default]
    Duplication,
    /// Expanded run times.
    Expansion,
}

impl LoadBy {
    pub const NAMES: [&'static str; 2] = ["arrivals", "runtimes"];
}

impl FactorBy {
    pub const NAMES: [&'static str; 2] = ["duplication", "expansion"];
}

impl FromStr for LoadBy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "arrivals" => Ok(LoadBy::Arrivals),
            "runtimes" => Ok(LoadBy::Runtimes),
            _ => Err(format!("`{s}` is not arrivals or runtimes")),
        }
    }
}

impl FromStr for FactorBy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "duplication" => Ok(FactorBy::Duplication),
            "expansion" => Ok(FactorBy::Expansion),
            _ => Err(format!("`{s}` is not duplication or expansion")),
        }
    }
}

/// A measured window as a user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSpec {
    /// Offsets from the first submit.
    Offsets(Time, Time),
    /// UTC calendar dates, the end exclusive.
    Dates(chrono::NaiveDate, chrono::NaiveDate),
}

impl FromStr for WindowSpec {
    type Err = String;

    /// `30d..60d` (offsets) or `2002-12-01..2003-07-14` (dates).
    fn from_str(s: &str) -> Result<Self, String> {
        let (a, b) = s.split_once("..").ok_or_else(|| {
            format!("window `{s}` must be START..END, e.g. 30d..60d or 2002-12-01..2003-07-14")
        })?;
        // A date is YYYY-MM-DD; anything else of that shape is a bad date,
        // not a duration with an unknown unit.
        let date = |x: &str| {
            let x = x.trim();
            let b = x.as_bytes();
            let shaped = b.len() > 4 && b[4] == b'-' && b[..4].iter().all(u8::is_ascii_digit);
            shaped.then(|| {
                chrono::NaiveDate::parse_from_str(x, "%Y-%m-%d")
                    .map_err(|e| format!("window `{s}`: `{x}` is not a date (YYYY-MM-DD): {e}"))
            })
        };
        let backwards = |same: bool| {
            if same {
                format!("window `{s}` is empty: it must end after it starts")
            } else {
                format!("window `{s}` ends before it starts")
            }
        };
        match (date(a), date(b)) {
            (Some(Err(e)), _) | (_, Some(Err(e))) => return Err(e),
            (Some(Ok(from)), Some(Ok(to))) if to <= from => return Err(backwards(to == from)),
            (Some(Ok(from)), Some(Ok(to))) => return Ok(WindowSpec::Dates(from, to)),
            (Some(_), None) | (None, Some(_)) => {
                return Err(format!(
                    "window `{s}` mixes a date and an offset: give two dates \
                     (2002-12-01..2003-07-14) or two offsets (30d..60d)"
                ))
            }
            (None, None) => {}
        }
        let start = parse_duration(a).map_err(|e| e.to_string())?;
        let end = parse_duration(b).map_err(|e| e.to_string())?;
        if end <= start {
            return Err(backwards(end == start));
        }
        Ok(WindowSpec::Offsets(start, end))
    }
}

/// The share of a workload's work past its last submit (with no waiting)
/// above which a requested load is warned about: a quarter of the work
/// outside the span means the span no longer describes the load.
pub const SPARSE_SHARE: f64 = 0.25;

/// Everything that makes the workloads of a run, as plain data; the
/// default is the built-in model as it is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WorkloadPlan {
    /// Machine size overriding the traces' headers.
    pub procs: Option<u32>,
    /// The built-in model, used when there is no trace.
    pub model: ModelParams,
    /// Keep only the first N jobs of each trace.
    pub first_jobs: Option<usize>,
    /// Move each trace to a standard machine (Ernemann, Song and Yahyapour),
    /// before windows and loads: those apply to the scaled workload.
    pub scale: Option<ScaleSpec>,
    /// Tell the scheduler exact run times instead of the users' estimates.
    pub exact_estimates: bool,
    pub window: Option<WindowSpec>,
    /// Calendar months as measured windows: `all`, or 1-based numbers and
    /// `YYYY-MM`, comma-separated.
    pub months: Option<String>,
    pub warmup: Time,
    pub cooldown: Time,
    /// Target offered load.
    pub load: Option<f64>,
    pub load_by: LoadBy,
    /// QOPS load factors: one workload per factor.
    pub load_factors: Vec<f64>,
    pub factor_by: FactorBy,
    /// Keep each trace job's SWF record, for writing a schedule as SWF;
    /// a run that writes none reads faster without them.
    pub records: bool,
}

impl WorkloadPlan {
    /// Every workload of the plan: for each trace in order (the built-in
    /// model when `traces` is empty), each month, each load factor. Traces
    /// are read in parallel; the order is that of the arguments.
    pub fn workloads(&self, traces: &[PathBuf]) -> Result<Vec<Workload>, RunError> {
        self.check()?;
        // Twice named, a trace would be run and counted twice (a training
        // objective doubled, a report row repeated).
        let wholes: Vec<PathBuf> = traces
            .iter()
            .map(|t| t.canonicalize().unwrap_or_else(|_| t.clone()))
            .collect();
        if let Some((first, again)) = repeat(&wholes, |a, b| a == b) {
            return Err(RunError::Invalid(format!(
                "trace `{}` is named twice (`{}` and `{}`): name each trace once",
                wholes[first].display(),
                traces[first].display(),
                traces[again].display()
            )));
        }
        // Reports, stores and tables know a trace by its name alone: two
        // files of one name would share a table and their rows mix.
        let names: Vec<String> = traces.iter().map(|t| swf::trace_name(t)).collect();
        if let Some((first, again)) = repeat(&names, |a, b| a == b) {
            return Err(RunError::Invalid(format!(
                "traces `{}` and `{}` are both named `{}` in reports: give one another file name",
                traces[first].display(),
                traces[again].display(),
                names[first]
            )));
        }
        let sources: Vec<Option<&Path>> = if traces.is_empty() {
            vec![None]
        } else {
            traces.iter().map(|t| Some(t.as_path())).collect()
        };
        Ok(try_map(&sources, |t| self.of_source(*t))?
            .into_iter()
            .flatten()
            .collect())
    }

    /// Warnings for the workloads made with a requested load (`load` or
    /// load factors) whose submit span is too short for it: when more than
    /// [`SPARSE_SHARE`] of the work would run after the last submit even
    /// without waiting, the machine cannot carry the offered load over the
    /// span it is measured on, and utilization comes out far below it.
    pub fn load_warnings(&self, workloads: &[Workload]) -> Vec<String> {
        if self.load.is_none() && self.load_factors.is_empty() {
            return Vec::new();
        }
        workloads
            .iter()
            .filter_map(|w| {
                let beyond = w.work_beyond_span();
                (beyond > SPARSE_SHARE).then(|| {
                    format!(
                        "workload `{}` ({} jobs) is too sparse for its load: offered load {:.3} is measured over the {} from its first to its last submit, but {:.0}% of its work would run after that even if no job waited, so the machine cannot carry that load (utilization will be far lower); take a longer window",
                        w.name,
                        w.jobs.len(),
                        w.offered_load(),
                        crate::report::approx_duration(w.submit_span()),
                        100.0 * beyond
                    )
                })
            })
            .collect()
    }

    /// Settings that only make sense together.
    fn check(&self) -> Result<(), RunError> {
        if self.window.is_some() && self.months.is_some() {
            return Err(RunError::Invalid(
                "a window and calendar months exclude each other: give one".into(),
            ));
        }
        if self.window.is_none()
            && self.months.is_none()
            && (self.warmup != 0 || self.cooldown != 0)
        {
            return Err(RunError::Invalid(
                "--warmup and --cooldown go with --window (or --months)".into(),
            ));
        }
        if let Some((_, again)) = repeat(&self.load_factors, |a, b| a.to_bits() == b.to_bits()) {
            return Err(RunError::Invalid(format!(
                "--load-factor: {} is given twice: each factor once",
                self.load_factors[again]
            )));
        }
        Ok(())
    }

    /// The workloads made from one trace, or from the model.
    fn of_source(&self, trace: Option<&Path>) -> Result<Vec<Workload>, RunError> {
        self.from_source(self.source(trace)?)
    }

    /// The workloads made from `w`, a trace as read or the model as
    /// generated ([`WorkloadPlan::source`]), so that a caller making many
    /// plans of one trace reads it once.
    pub fn from_source(&self, w: Workload) -> Result<Vec<Workload>, RunError> {
        self.check()?;
        let w = self.unwindowed(w)?;
        let bases = match &self.months {
            Some(spec) => self.monthly(&w, spec)?,
            None => {
                let window = match self.window {
                    None => None,
                    Some(spec) => Some(self.window_of(&w, spec)?),
                };
                vec![self.shape(w, window)?]
            }
        };
        if self.load_factors.is_empty() {
            return Ok(bases);
        }
        let mut out = Vec::new();
        for base in &bases {
            for &f in &self.load_factors {
                out.push(match self.factor_by {
                    FactorBy::Duplication => transform::duplicate_load(base, f, 1)?,
                    FactorBy::Expansion => transform::expand_load(base, f)?,
                });
            }
        }
        Ok(out)
    }

    /// `w` as the plan takes it before its window or months: its first
    /// jobs, moved to the standard machine.
    pub fn unwindowed(&self, mut w: Workload) -> Result<Workload, RunError> {
        if let Some(n) = self.first_jobs {
            w = transform::first_jobs(&w, n);
        }
        if let Some(spec) = &self.scale {
            w = scale_to_machine(&w, spec)?.workload;
        }
        Ok(w)
    }

    /// The windows the plan's window or months measure on `w` (as
    /// [`WorkloadPlan::unwindowed`] gives it), as offsets from its first
    /// submit, each with the month it is (`None` for a window); empty for
    /// the whole trace. Two spellings of one window (`1` and the trace's
    /// first month, a date and its offset) come out equal here.
    pub fn measured(&self, w: &Workload) -> Result<Vec<(Option<String>, Time, Time)>, RunError> {
        if let Some(spec) = &self.months {
            let months = self.chosen_months(w, spec)?;
            return Ok(months
                .into_iter()
                .map(|(label, start, end)| (Some(label), start, end))
                .collect());
        }
        Ok(match self.window {
            Some(spec) => {
                let win = self.window_of(w, spec)?;
                vec![(None, win.start, win.end)]
            }
            None => Vec::new(),
        })
    }

    /// Reads a trace, or generates the model workload when there is none.
    pub fn source(&self, trace: Option<&Path>) -> Result<Workload, RunError> {
        match trace {
            Some(path) => {
                let opts = ReadOptions {
                    procs: self.procs,
                    threads: super::parallel::cores_for_one_run(),
                    without_records: !self.records,
                };
                Ok(swf::read_path(path, &opts)?)
            }
            None => {
                if self.procs.is_some() {
                    return Err(RunError::Invalid(
                        "--procs applies to traces; use --model-procs for the built-in model"
                            .into(),
                    ));
                }
                Ok(model::generate(&self.model)?)
            }
        }
    }

    fn window_of(&self, w: &Workload, spec: WindowSpec) -> Result<Window, RunError> {
        let (start, end) = match spec {
            WindowSpec::Offsets(a, b) => (a, b),
            WindowSpec::Dates(from, to) => transform::date_offsets(w, from, to)?,
        };
        Ok(Window {
            start,
            end,
            warmup: self.warmup,
            cooldown: self.cooldown,
        })
    }

    /// Estimates, window, load, in this order: the window is taken on the
    /// trace's own time line, then its jobs (warm-up and cool-down included)
    /// are scaled to the load.
    fn shape(&self, mut w: Workload, window: Option<Window>) -> Result<Workload, RunError> {
        if self.exact_estimates {
            w = transform::exact_estimates(&w);
        }
        if let Some(win) = window {
            w = transform::window(&w, win)?;
        }
        if w.jobs.is_empty() {
            // Say why: every job may have been dropped.
            let why = if w.dropped.total() > 0 {
                format!(" (dropped {}: {})", w.dropped.total(), w.dropped)
            } else {
                String::new()
            };
            return Err(RunError::Invalid(format!(
                "workload `{}` has no jobs to simulate{why}",
                w.name
            )));
        }
        if let Some(load) = self.load {
            w = match self.load_by {
                LoadBy::Arrivals => transform::scale_load_by_arrivals(&w, load)?,
                LoadBy::Runtimes => transform::scale_load_by_runtimes(&w, load)?,
            };
        }
        Ok(w)
    }

    /// Each selected calendar month of `w` as the measured window, with the
    /// warm-up and cool-down.
    fn monthly(&self, w: &Workload, spec: &str) -> Result<Vec<Workload>, RunError> {
        self.chosen_months(w, spec)?
            .into_iter()
            .map(|(label, start, end)| {
                let window = Window {
                    start,
                    end,
                    warmup: self.warmup,
                    cooldown: self.cooldown,
                };
                // Named for its month from the start, so that an error
                // (no jobs in the month, a load it cannot reach) says which.
                let name = format!("{}:{label}", w.name);
                let mut m = w.clone();
                m.name.clone_from(&name);
                let mut m = self.shape(m, Some(window))?;
                m.name = name;
                Ok(m)
            })
            .collect()
    }

    /// The calendar months of `w` that `spec` chooses, as (`YYYY-MM`,
    /// start, end) with offsets from its first submit.
    fn chosen_months(
        &self,
        w: &Workload,
        spec: &str,
    ) -> Result<Vec<(String, Time, Time)>, RunError> {
        let months = transform::calendar_months(w)?;
        let chosen: Vec<&(String, Time, Time)> = if spec.trim() == "all" {
            // Every month in which a job is submitted: one without (the
            // machine down for a month) has nothing to measure, and would
            // stop the run. A month named on its own must have one.
            let first = w.jobs.first().map_or(0, |j| j.submit);
            months
                .iter()
                .filter(|(_, start, end)| {
                    let at = w.jobs.partition_point(|j| j.submit - first < *start);
                    w.jobs.get(at).is_some_and(|j| j.submit - first < *end)
                })
                .collect()
        } else {
            spec.split(',')
                .map(|item| {
                    let item = item.trim();
                    let by_index = item
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| months.get(i.checked_sub(1)?));
                    by_index
                        .or_else(|| months.iter().find(|m| m.0 == item))
                        .ok_or_else(|| RunError::NoSuchMonth {
                            month: item.to_string(),
                            workload: w.name.clone(),
                            count: months.len(),
                            first: months.first().map_or("-", |m| m.0.as_str()).into(),
                            last: months.last().map_or("-", |m| m.0.as_str()).into(),
                        })
                })
                .collect::<Result<_, _>>()?
        };
        if let Some((first, _)) = repeat(&chosen, |a, b| a.0 == b.0) {
            return Err(RunError::Invalid(format!(
                "--months: month {} of {} is chosen twice: each month once",
                chosen[first].0, w.name
            )));
        }
        Ok(chosen.into_iter().cloned().collect())
    }
}

/// The first item equal (by `same`) to one before it, as (index of that
/// one, its own index): lists of a few items, so pairs are compared.
fn repeat<T>(items: &[T], same: impl Fn(&T, &T) -> bool) -> Option<(usize, usize)> {
    items.iter().enumerate().find_map(|(again, b)| {
        items[..again]
            .iter()
            .position(|a| same(a, b))
            .map(|first| (first, again))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_as_offsets_or_dates() {
        assert_eq!(
            "30d..60d".parse::<WindowSpec>(),
            Ok(WindowSpec::Offsets(30 * 86_400, 60 * 86_400))
        );
        assert!(matches!(
            "2002-12-01..2003-07-15".parse::<WindowSpec>(),
            Ok(WindowSpec::Dates(..))
        ));
        assert!("60d..30d"
            .parse::<WindowSpec>()
            .unwrap_err()
            .contains("ends before"));
        assert!("30d"
            .parse::<WindowSpec>()
            .unwrap_err()
            .contains("START..END"));
        let err = |s: &str| s.parse::<WindowSpec>().unwrap_err();
        assert_eq!(
            err("1d..1d"),
            "window `1d..1d` is empty: it must end after it starts"
        );
        assert!(err("2003-01-01..2003-01-01").contains("is empty"));
        // A bad date is said to be one, not a duration with unit `-`.
        assert!(
            err("2002-13-45..2003-01-01")
                .starts_with("window `2002-13-45..2003-01-01`: `2002-13-45` is not a date"),
            "{}",
            err("2002-13-45..2003-01-01")
        );
        assert!(err("2002-12-01..30d").contains("mixes a date and an offset"));
    }

    #[test]
    fn the_model_makes_one_workload_per_load_factor() {
        let plan = WorkloadPlan {
            model: ModelParams {
                jobs: 200,
                procs: 32,
                seed: 3,
                widest: None,
                users: None,
            },
            load_factors: vec![1.0, 1.5],
            ..WorkloadPlan::default()
        };
        let ws = plan.workloads(&[]).unwrap();
        assert_eq!(ws.len(), 2);
        assert_eq!(ws[0].jobs.len(), 200);
        assert!(ws[1].jobs.len() > ws[0].jobs.len());
    }

    #[test]
    fn the_standard_machine_comes_before_the_load() {
        let plan = WorkloadPlan {
            model: ModelParams {
                jobs: 300,
                procs: 32,
                seed: 2,
                widest: None,
                users: None,
            },
            scale: Some(ScaleSpec {
                factor: crate::run::ScaleFactor::Exact,
                ..ScaleSpec::new(128)
            }),
            load: Some(0.8),
            ..WorkloadPlan::default()
        };
        let ws = plan.workloads(&[]).unwrap();
        assert_eq!(ws.len(), 1);
        assert_eq!(ws[0].procs, 128);
        assert!(ws[0].jobs.len() > 300);
        assert!((ws[0].offered_load() - 0.8).abs() < 0.01);
        assert!(ws[0].name.ends_with("@128p(f=4.000)@0.8"), "{}", ws[0].name);
    }

    #[test]
    fn what_would_be_counted_twice_is_refused() {
        let trace = Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/lublin-1000-64-s2.swf");
        let again = trace.parent().unwrap().join("./lublin-1000-64-s2.swf");
        let plan = WorkloadPlan::default();
        assert_eq!(
            plan.workloads(std::slice::from_ref(&trace)).unwrap().len(),
            1
        );
        let e = plan
            .workloads(&[trace.clone(), again])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is named twice"), "{e}");

        let months = |spec: &str| WorkloadPlan {
            months: Some(spec.into()),
            ..WorkloadPlan::default()
        };
        let first = months("1").workloads(std::slice::from_ref(&trace)).unwrap();
        assert_eq!(first.len(), 1);
        let label = first[0].name.rsplit(':').next().unwrap().to_string();
        for spec in ["1,1".to_string(), format!("1, {label}")] {
            let e = months(&spec)
                .workloads(std::slice::from_ref(&trace))
                .unwrap_err();
            assert!(e.to_string().contains("is chosen twice"), "{spec}: {e}");
        }

        let plan = WorkloadPlan {
            load_factors: vec![1.5, 1.0, 1.5],
            ..WorkloadPlan::default()
        };
        let e = plan.workloads(&[]).unwrap_err().to_string();
        assert!(e.contains("1.5 is given twice"), "{e}");
    }

    #[test]
    fn settings_that_need_each_other_are_refused() {
        let plan = WorkloadPlan {
            warmup: 86_400,
            ..WorkloadPlan::default()
        };
        assert!(matches!(plan.workloads(&[]), Err(RunError::Invalid(_))));
        let plan = WorkloadPlan {
            procs: Some(64),
            ..WorkloadPlan::default()
        };
        let e = plan.workloads(&[]).unwrap_err().to_string();
        assert!(e.contains("--model-procs"), "{e}");
    }
}
