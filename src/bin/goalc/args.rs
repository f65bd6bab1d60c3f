//! Command-line arguments shared by the subcommands, and their translation
//! into the library's plain-data settings.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use goalc::report::Format;
use goalc::run::{FactorBy, LoadBy, ScaleFactor, ScaleSpec, WindowSpec, WorkloadPlan};
use goalc::sim::EventMode;
use goalc::units::parse_duration;
use goalc::workload::model::ModelParams;
use goalc::workload::transform::{self, DEFAULT_ENLARGE};
use goalc::workload::Time;

/// The workloads to run on: everything but which traces, flattened into
/// `simulate` and `bench` alike.
#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// Machine size, overriding the traces' MaxProcs/MaxNodes
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub procs: Option<u32>,
    /// Keep only the first N jobs of each trace (QOPS uses 5000-job subsets)
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub first_jobs: Option<usize>,
    /// Move each trace to a standard machine of PROCS processors as GREEDY
    /// does (1024), by the method of Ernemann, Song and Yahyapour ("Scaling
    /// of workload traces", JSSPP 2003): each job is, at random, either
    /// widened by the work factor f or submitted f times (--scale-enlarge),
    /// so the work grows by f; windows and --load then apply to the scaled
    /// trace
    #[arg(long, value_name = "PROCS", value_parser = clap::value_parser!(u32).range(1..))]
    pub scale_to: Option<u32>,
    /// The work factor of --scale-to: `awrt` finds it by simulation, from
    /// PROCS/m up, so that EASY's AWRT on PROCS matches the original's on
    /// its m processors (the paper found factors above PROCS/m best);
    /// `exact` is PROCS/m (same offered load); or a number from 1 to PROCS
    #[arg(long, value_name = "F", default_value = "awrt", requires = "scale_to", value_parser = parse_scale_factor)]
    pub scale_factor: ScaleFactor,
    /// Share of jobs --scale-to widens; the others are duplicated (0.5 fits
    /// the job counts of GREEDY's Table I)
    #[arg(long, value_name = "P", default_value_t = DEFAULT_ENLARGE, requires = "scale_to", value_parser = parse_share)]
    pub scale_enlarge: f64,
    /// Seed of --scale-to's random choices
    #[arg(long, value_name = "N", default_value_t = 1, requires = "scale_to")]
    pub scale_seed: u64,
    /// Tell the scheduler exact run times instead of the users' estimates
    #[arg(long)]
    pub exact_estimates: bool,
    /// Measured window START..END: offsets from the first submit (30d..60d)
    /// or UTC dates from the trace's UnixStartTime (2002-12-01..2003-07-14,
    /// END exclusive)
    #[arg(long, value_parser = parse_window)]
    pub window: Option<WindowSpec>,
    /// Calendar months (UTC) of each trace as measured windows: `all` (each
    /// month in which a job is submitted), or 1-based numbers and YYYY-MM,
    /// comma-separated; with --warmup 7d --cooldown 7d --load 0.9 this is
    /// the GOAL paper's set-up
    #[arg(long, value_name = "MONTHS", conflicts_with = "window")]
    pub months: Option<String>,
    /// Jobs submitted this long before the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0")]
    pub warmup: Time,
    /// Jobs submitted this long after the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0")]
    pub cooldown: Time,
    /// Scale the offered load to this value (e.g. 0.9)
    #[arg(long, value_parser = parse_load)]
    pub load: Option<f64>,
    /// How --load scales: shrink inter-arrival times (GOAL) or stretch run times (MOLD)
    #[arg(long, default_value = "arrivals", value_parser = names::<LoadBy>(&LoadBy::NAMES))]
    pub load_by: LoadBy,
    /// QOPS load factors relative to the trace, e.g. 1.0,1.2,1.4,1.6: one
    /// workload per factor, made by --factor-by
    #[arg(long, value_delimiter = ',', value_name = "F", value_parser = parse_load_factor)]
    pub load_factor: Vec<f64>,
    /// How load factors add load: duplicated jobs at random times (each
    /// higher factor a superset of the lower) or expanded run times
    #[arg(long, default_value = "duplication", value_parser = names::<FactorBy>(&FactorBy::NAMES))]
    pub factor_by: FactorBy,
    /// Built-in model: number of jobs [default: 10000; `bench` on the model: 3000]
    #[arg(long, value_parser = parse_count)]
    pub model_jobs: Option<usize>,
    /// Built-in model: processors of the machine [default: 128]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub model_procs: Option<u32>,
    /// Built-in model: random seed [default: 1]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Built-in model: widest job (job sizes of a machine this wide, on the
    /// bigger machine of --model-procs: thousands of narrow jobs at once)
    #[arg(long)]
    pub model_widest: Option<u32>,
    /// Built-in model: N users, Zipf-active, repeating their jobs' sizes
    /// (fairshare and user groups need them); 0: none, as the published
    /// model [default: 0; `bench` on the model: 64]
    #[arg(long, value_name = "N")]
    pub model_users: Option<u32>,
}

impl WorkloadArgs {
    /// The built-in model's options given, by name.
    pub fn model_options(&self) -> Vec<&'static str> {
        [
            (self.model_jobs.is_some(), "--model-jobs"),
            (self.model_procs.is_some(), "--model-procs"),
            (self.seed.is_some(), "--seed"),
            (self.model_widest.is_some(), "--model-widest"),
            (self.model_users.is_some(), "--model-users"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// A warning for the built-in model's options given for a run
    /// `on_traces`, where nothing reads them; `also` are the command's own
    /// options of the model that were given.
    pub fn unused_model_options(&self, on_traces: bool, also: &[&'static str]) -> Option<String> {
        if !on_traces {
            return None;
        }
        let mut given = self.model_options();
        given.extend(also);
        (!given.is_empty()).then(|| {
            format!(
                "{} only set up the built-in model, and this run is on traces: ignored",
                given.join(", ")
            )
        })
    }

    /// Refuses `--load-by` without a load to scale and `--factor-by`
    /// without load factors in `plan` (the command's own defaults applied),
    /// as `--warmup` without a window is: given alone, they change nothing.
    pub fn check_pairs(&self, plan: &WorkloadPlan) -> Result<(), String> {
        if self.load_by != LoadBy::default() && plan.load.is_none() {
            return Err(
                "--load-by says how --load scales the load, and no --load is given: give \
                 --load, or leave --load-by out"
                    .into(),
            );
        }
        if self.factor_by != FactorBy::default() && plan.load_factors.is_empty() {
            return Err(
                "--factor-by says how --load-factor adds load, and no --load-factor is \
                 given: give --load-factor, or leave --factor-by out"
                    .into(),
            );
        }
        Ok(())
    }

    pub fn plan(&self) -> WorkloadPlan {
        WorkloadPlan {
            procs: self.procs,
            model: ModelParams {
                jobs: self.model_jobs.unwrap_or(ModelParams::default().jobs),
                procs: self.model_procs.unwrap_or(ModelParams::default().procs),
                seed: self.seed.unwrap_or(ModelParams::default().seed),
                widest: self.model_widest,
                users: self.model_users.filter(|&u| u > 0),
            },
            first_jobs: self.first_jobs,
            scale: self.scale_to.map(|procs| ScaleSpec {
                procs,
                factor: self.scale_factor,
                enlarge: self.scale_enlarge,
                seed: self.scale_seed,
            }),
            exact_estimates: self.exact_estimates,
            window: self.window,
            months: self.months.clone(),
            warmup: self.warmup,
            cooldown: self.cooldown,
            load: self.load,
            load_by: self.load_by,
            load_factors: self.load_factor.clone(),
            factor_by: self.factor_by,
            records: false,
        }
    }
}

/// `--events`: how the simulator turns events into scheduling epochs.
#[derive(Debug, Args)]
pub struct EventsArg {
    /// When the scheduler runs: per-instant applies every completion and
    /// submission of a second, then schedules once; submissions-first and
    /// completions-first schedule after each single event, a second's
    /// submissions before its completions (pyss's order) or after them
    /// (CQSim's order)
    #[arg(long, default_value = "per-instant", value_parser = names::<EventMode>(&EventMode::NAMES))]
    pub events: EventMode,
}

/// `--format` of the reports.
#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output format
    #[arg(long, default_value = "table", value_parser = names::<Format>(&Format::NAMES))]
    pub format: Format,
}

/// A parser for one of `choices`, listed in `--help`, turned into `T` by
/// its `FromStr` (which the choices always satisfy).
fn names<T>(choices: &'static [&'static str]) -> impl TypedValueParser<Value = T> + 'static
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(choices.iter().copied()).try_map(|s| s.parse::<T>())
}

/// A count of at least one.
pub fn parse_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A number the option's own check refuses is said at parse time, so that
/// the error names the option; the workload's transforms make the same
/// check (a suite names its own keys).
fn parse_in_range(
    s: &str,
    in_range: fn(f64) -> Result<f64, transform::TransformError>,
) -> Result<f64, String> {
    let x = s.parse::<f64>().map_err(|e| e.to_string())?;
    in_range(x).map_err(|e| e.to_string())
}

fn parse_load(s: &str) -> Result<f64, String> {
    parse_in_range(s, transform::target_load_in_range)
}

fn parse_load_factor(s: &str) -> Result<f64, String> {
    parse_in_range(s, transform::load_factor_in_range)
}

fn parse_share(s: &str) -> Result<f64, String> {
    parse_in_range(s, transform::enlarge_share_in_range)
}

fn parse_window(s: &str) -> Result<WindowSpec, String> {
    s.parse()
}

fn parse_scale_factor(s: &str) -> Result<ScaleFactor, String> {
    s.parse()
}
