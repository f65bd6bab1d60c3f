//! The `goalc` command line.
//!
//! Exit codes: 0 success; 1 a goal file has errors (`check`, `bench`) or a
//! run failed; 2 bad usage or bad input (a bad trace line, a missing file,
//! an unknown policy).

use crate::lang::{self, Checked, CompiledGoal};
use crate::measures::{measure, MeasureOptions};
use crate::policy::{Dispatch, Order, PolicySpec, POLICY_NAMES};
use crate::report::{render, Format, RunReport};
use crate::sim::{simulate, Outcome, SimOptions};
use crate::units::parse_duration;
use crate::workload::model::{self, ModelParams};
use crate::workload::swf::{self, ReadOptions};
use crate::workload::transform::{self, Window};
use crate::workload::{Time, Workload};
use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Parser)]
#[command(
    name = "goalc",
    version,
    about = "Goal-oriented scheduling for parallel machines, simulated on real workload traces"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run goal files on traces (or the built-in workload) and compare them side by side
    Bench(BenchArgs),
    /// Check goal files; print diagnostics; exit 1 if any has an error
    Check(CheckArgs),
    /// Simulate baseline policies by name on a trace (or the built-in workload model)
    #[command(after_help = policy_help())]
    Simulate(SimulateArgs),
    /// Write a workload of the built-in model (Lublin-Feitelson) as an SWF trace
    Generate(GenerateArgs),
}

/// How a workload is reshaped before simulation.
#[derive(Debug, Args)]
pub struct TransformArgs {
    /// Scale the offered load to this value (e.g. 0.9)
    #[arg(long)]
    pub load: Option<f64>,
    /// How --load scales: shrink inter-arrival times (GOAL) or stretch run times (MOLD)
    #[arg(long, value_enum, default_value_t = LoadBy::Arrivals)]
    pub load_by: LoadBy,
    /// Measured window START..END: offsets from the first submit (30d..60d)
    /// or UTC dates from the trace's UnixStartTime (2002-12-01..2003-07-14,
    /// END exclusive)
    #[arg(long, value_parser = parse_window)]
    pub window: Option<WindowSpec>,
    /// Jobs submitted this long before the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0")]
    pub warmup: Time,
    /// Jobs submitted this long after the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0")]
    pub cooldown: Time,
    /// Tell the scheduler exact run times instead of the users' estimates
    #[arg(long)]
    pub exact_estimates: bool,
}

/// The built-in workload model, used when no trace is given.
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// Built-in model: number of jobs
    #[arg(long, default_value_t = ModelParams::default().jobs)]
    pub model_jobs: usize,
    /// Built-in model: processors of the machine
    #[arg(long, default_value_t = ModelParams::default().procs)]
    pub model_procs: u32,
    /// Built-in model: random seed
    #[arg(long, default_value_t = ModelParams::default().seed)]
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FactorBy {
    Duplication,
    Expansion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LoadBy {
    Arrivals,
    Runtimes,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// SWF trace (.swf or .swf.gz); without it, the built-in workload model
    pub trace: Option<PathBuf>,
    /// Machine size, overriding the trace header's MaxProcs/MaxNodes
    #[arg(long)]
    pub procs: Option<u32>,
    #[command(flatten)]
    pub transform: TransformArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Policies to run, comma-separated, or `all` for every baseline (see below)
    #[arg(long, short, value_delimiter = ',', default_value = "fcfs-backfill")]
    pub policy: Vec<String>,
    /// Lower bound on run time in the bounded slowdown, e.g. 60s or 10s
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    pub tau: Time,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the simulated schedule as SWF (one policy only): the trace's
    /// fields with wait and run time as simulated
    #[arg(long, value_name = "FILE")]
    pub schedule_out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Goal files, or folders of `.goal` files [default: goals]
    pub goals: Vec<PathBuf>,
    /// SWF traces to run on (repeatable); without it, every trace in
    /// $GOALC_TRACES if set, else the built-in workload model
    #[arg(long = "trace", value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    /// Machine size, overriding the traces' MaxProcs/MaxNodes
    #[arg(long)]
    pub procs: Option<u32>,
    #[command(flatten)]
    pub transform: TransformArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Run every search goal once per node budget L, e.g. 100,400,1000,4000
    #[arg(long, value_delimiter = ',', value_name = "L")]
    pub budget: Vec<u64>,
    /// Calendar months (UTC) of each trace as measured windows: `all`, or
    /// 1-based numbers and YYYY-MM, comma-separated; with --warmup 7d
    /// --cooldown 7d --load 0.9 this is the GOAL paper's set-up
    #[arg(long, value_name = "MONTHS", conflicts_with = "window")]
    pub months: Option<String>,
    /// Keep only the first N jobs of each trace (QOPS uses 5000-job subsets)
    #[arg(long, value_name = "N")]
    pub first_jobs: Option<usize>,
    /// QOPS load factors relative to the trace, e.g. 1.0,1.2,1.4,1.6: one
    /// workload per factor, made by --factor-by
    #[arg(long, value_delimiter = ',', value_name = "F")]
    pub load_factor: Vec<f64>,
    /// How load factors add load: duplicated jobs at random times (each
    /// higher factor a superset of the lower) or expanded run times
    #[arg(long, value_enum, default_value_t = FactorBy::Duplication)]
    pub factor_by: FactorBy,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Goal files, or folders of `.goal` files
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Diagnostics as compiler-style text or as JSON (one array, on stdout)
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Number of jobs
    #[arg(long, default_value_t = ModelParams::default().jobs)]
    pub jobs: usize,
    /// Processors of the machine
    #[arg(long, default_value_t = ModelParams::default().procs)]
    pub procs: u32,
    /// Random seed
    #[arg(long, default_value_t = ModelParams::default().seed)]
    pub seed: u64,
    /// Output file (standard output when absent)
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

fn policy_help() -> String {
    let mut s = String::from("Policies:\n");
    for (name, what) in POLICY_NAMES {
        s.push_str(&format!("  {name:<20} {what}\n"));
    }
    s.push_str("  all                  every baseline above, FCFS and LXF orders");
    s
}

/// A measured window as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSpec {
    /// Offsets from the first submit.
    Offsets(Time, Time),
    /// UTC calendar dates, the end exclusive.
    Dates(chrono::NaiveDate, chrono::NaiveDate),
}

fn parse_window(s: &str) -> Result<WindowSpec, String> {
    let (a, b) = s.split_once("..").ok_or_else(|| {
        format!("window `{s}` must be START..END, e.g. 30d..60d or 2002-12-01..2003-07-14")
    })?;
    let date = |x: &str| chrono::NaiveDate::parse_from_str(x.trim(), "%Y-%m-%d");
    if let (Ok(from), Ok(to)) = (date(a), date(b)) {
        if to <= from {
            return Err(format!("window `{s}` ends before it starts"));
        }
        return Ok(WindowSpec::Dates(from, to));
    }
    let start = parse_duration(a).map_err(|e| e.to_string())?;
    let end = parse_duration(b).map_err(|e| e.to_string())?;
    if end <= start {
        return Err(format!("window `{s}` ends before it starts"));
    }
    Ok(WindowSpec::Offsets(start, end))
}

/// A failure the user can fix, printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Swf(#[from] swf::SwfError),
    #[error(transparent)]
    Model(#[from] model::ModelError),
    #[error(transparent)]
    Transform(#[from] transform::TransformError),
    #[error(transparent)]
    Policy(#[from] crate::policy::PolicyNameError),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    #[error(transparent)]
    Bench(#[from] crate::bench::BenchError),
    #[error("{0}")]
    GoalErrors(String),
}

impl CliError {
    fn exit_code(&self) -> i32 {
        match self {
            CliError::Sim(_)
            | CliError::Bench(crate::bench::BenchError::Sim(_))
            | CliError::GoalErrors(_) => 1,
            _ => 2,
        }
    }
}

/// Runs the command line; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(e) => {
            let message = e.to_string();
            // Goal-file errors were already shown as diagnostics.
            if !message.is_empty() {
                eprintln!("goalc: error: {message}");
            }
            e.exit_code()
        }
    }
}

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Bench(args) => bench_cmd(args),
        Command::Check(args) => check_cmd(args),
        Command::Simulate(args) => simulate_cmd(args),
        Command::Generate(args) => generate_cmd(args),
    }
}

/// Reads a trace, or generates the model workload when there is none.
pub fn source_workload(
    trace: Option<&Path>,
    procs: Option<u32>,
    model: &ModelArgs,
) -> Result<Workload, CliError> {
    match trace {
        Some(path) => Ok(swf::read_path(path, &ReadOptions { procs })?),
        None => {
            if procs.is_some() {
                return Err(CliError::Usage(
                    "--procs applies to traces; use --model-procs for the built-in model".into(),
                ));
            }
            Ok(model::generate(&ModelParams {
                jobs: model.model_jobs,
                procs: model.model_procs,
                seed: model.seed,
            })?)
        }
    }
}

/// Applies the transforms in a fixed order: estimates, window, load. The
/// window is taken on the trace's own time line, then its jobs (warm-up and
/// cool-down included) are scaled to the load.
pub fn transform_workload(w: Workload, args: &TransformArgs) -> Result<Workload, CliError> {
    let window = match args.window {
        None => None,
        Some(spec) => {
            let (start, end) = match spec {
                WindowSpec::Offsets(a, b) => (a, b),
                WindowSpec::Dates(from, to) => transform::date_offsets(&w, from, to)?,
            };
            Some(Window {
                start,
                end,
                warmup: args.warmup,
                cooldown: args.cooldown,
            })
        }
    };
    transform_with_window(w, args, window)
}

/// The transforms with an explicit window (bench's monthly windows).
fn transform_with_window(
    mut w: Workload,
    args: &TransformArgs,
    window: Option<Window>,
) -> Result<Workload, CliError> {
    if args.exact_estimates {
        w = transform::exact_estimates(&w);
    }
    if let Some(win) = window {
        w = transform::window(&w, win)?;
    }
    if w.jobs.is_empty() {
        return Err(CliError::Usage(format!(
            "workload `{}` has no jobs to simulate",
            w.name
        )));
    }
    if let Some(load) = args.load {
        w = match args.load_by {
            LoadBy::Arrivals => transform::scale_load_by_arrivals(&w, load)?,
            LoadBy::Runtimes => transform::scale_load_by_runtimes(&w, load)?,
        };
    }
    Ok(w)
}

/// Warm-up and cool-down only mean something with a window.
fn check_window_args(args: &TransformArgs, months: bool) -> Result<(), CliError> {
    if args.window.is_none() && !months && (args.warmup != 0 || args.cooldown != 0) {
        return Err(CliError::Usage(
            "--warmup and --cooldown go with --window (or --months, for bench)".into(),
        ));
    }
    Ok(())
}

/// The workloads of `bench --months SPEC` for one trace: each selected
/// calendar month as the measured window, with the warm-up and cool-down.
fn monthly_workloads(
    w: &Workload,
    spec: &str,
    args: &TransformArgs,
) -> Result<Vec<Workload>, CliError> {
    let months = transform::calendar_months(w)?;
    let chosen: Vec<&(String, Time, Time)> = if spec.trim() == "all" {
        months.iter().collect()
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
                    .ok_or_else(|| {
                        CliError::Usage(format!(
                            "--months: `{item}` is not a month of {} (it has {} months, {} to {}; \
                             give 1-based numbers, YYYY-MM, or all)",
                            w.name,
                            months.len(),
                            months.first().map_or("-", |m| m.0.as_str()),
                            months.last().map_or("-", |m| m.0.as_str())
                        ))
                    })
            })
            .collect::<Result<_, _>>()?
    };
    chosen
        .into_iter()
        .map(|(label, start, end)| {
            let window = Window {
                start: *start,
                end: *end,
                warmup: args.warmup,
                cooldown: args.cooldown,
            };
            let mut m = transform_with_window(w.clone(), args, Some(window))?;
            m.name = format!("{}:{label}", w.name);
            Ok(m)
        })
        .collect()
}

/// Expands `all` and parses the policy names.
pub fn parse_policies(names: &[String]) -> Result<Vec<PolicySpec>, CliError> {
    let mut specs = Vec::new();
    for name in names {
        if name.trim().eq_ignore_ascii_case("all") {
            specs.extend(all_baselines());
        } else {
            specs.push(name.parse::<PolicySpec>()?);
        }
    }
    if specs.is_empty() {
        return Err(CliError::Usage("no policy given".into()));
    }
    Ok(specs)
}

/// The baselines `--policy all` runs.
pub fn all_baselines() -> Vec<PolicySpec> {
    use Dispatch::*;
    let mut v = vec![
        PolicySpec::new(NoBackfill, Order::Fcfs),
        PolicySpec::new(List, Order::Fcfs),
    ];
    for order in [Order::Fcfs, Order::Lxf, Order::Sjf] {
        v.push(PolicySpec::new(Easy { depth: 1 }, order));
    }
    v.push(PolicySpec::new(Easy { depth: 4 }, Order::Fcfs));
    v.push(PolicySpec::new(Conservative, Order::Fcfs));
    v.push(PolicySpec::new(Conservative, Order::Lxf));
    v.push(PolicySpec::new(NoGuarantee, Order::Fcfs));
    v
}

fn simulate_cmd(args: SimulateArgs) -> Result<(), CliError> {
    let specs = parse_policies(&args.policy)?;
    if args.schedule_out.is_some() && specs.len() != 1 {
        return Err(CliError::Usage(
            "--schedule-out takes exactly one --policy".into(),
        ));
    }
    if args.tau < 1 {
        return Err(CliError::Usage("--tau must be at least 1s".into()));
    }
    check_window_args(&args.transform, false)?;
    let w = source_workload(args.trace.as_deref(), args.procs, &args.model)?;
    let w = transform_workload(w, &args.transform)?;
    let opts = MeasureOptions { tau: args.tau };
    let results: Vec<Result<(RunReport, Outcome), crate::sim::SimError>> = specs
        .par_iter()
        .map(|spec| {
            let mut policy = spec.build();
            let outcome = simulate(&w, policy.as_mut(), SimOptions::default())?;
            let m = measure(&w, &outcome, opts);
            let name = spec.to_string();
            Ok((
                RunReport::new(&w, name.clone(), name, outcome.epochs, m),
                outcome,
            ))
        })
        .collect();
    let mut reports = Vec::new();
    let mut outcomes = Vec::new();
    for r in results {
        let (report, outcome) = r?;
        reports.push(report);
        outcomes.push(outcome);
    }
    if let Some(path) = &args.schedule_out {
        write_schedule(path, &w, &outcomes[0])?;
    }
    let text = render(&reports, args.format);
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = stdout.write_all(text.as_bytes());
    Ok(())
}

/// Writes the simulated schedule as SWF: each job's own record with wait
/// and run time as simulated; rejected jobs get wait and run time -1 and
/// status 5 (cancelled).
pub fn write_schedule(path: &std::path::Path, w: &Workload, o: &Outcome) -> Result<(), CliError> {
    let mut header = w.header.clone();
    header.lines.push(format!(
        " Note: schedule simulated by goalc, policy {}",
        o.policy
    ));
    if w.dropped.total() > 0 {
        let reasons: Vec<String> = w
            .dropped
            .0
            .iter()
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        header.lines.push(format!(
            " Note: {} jobs of the trace not simulated: {}",
            w.dropped.total(),
            reasons.join(", ")
        ));
    }
    let records: Vec<_> = w
        .jobs
        .iter()
        .zip(&o.runs)
        .map(|(j, run)| {
            let mut r = j.swf;
            match run {
                Some(run) => {
                    r.wait = run.start - j.submit;
                    r.run_time = run.end - run.start;
                }
                None => {
                    r.wait = -1;
                    r.run_time = -1;
                    r.status = 5;
                }
            }
            r
        })
        .collect();
    let write_err = |source| CliError::Write {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(write_err)?;
    let mut out = std::io::BufWriter::new(file);
    swf::write(&mut out, &header, &records).map_err(write_err)?;
    out.flush().map_err(write_err)
}

fn generate_cmd(args: GenerateArgs) -> Result<(), CliError> {
    let w = model::generate(&ModelParams {
        jobs: args.jobs,
        procs: args.procs,
        seed: args.seed,
    })?;
    let records = w.jobs.iter().map(|j| &j.swf);
    match &args.output {
        Some(path) => {
            let write_err = |source| CliError::Write {
                path: path.display().to_string(),
                source,
            };
            let file = std::fs::File::create(path).map_err(write_err)?;
            let mut out = std::io::BufWriter::new(file);
            swf::write(&mut out, &w.header, records).map_err(write_err)?;
            out.flush().map_err(write_err)
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let _ = swf::write(&mut out, &w.header, records);
            let _ = out.flush();
            Ok(())
        }
    }
}

/// Expands folders into their `.goal` files (sorted); files stay as given.
pub fn goal_paths(args: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut paths = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let entries = std::fs::read_dir(arg)
                .map_err(|e| CliError::Usage(format!("{}: {e}", arg.display())))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "goal") && p.is_file())
                .collect();
            if found.is_empty() {
                return Err(CliError::Usage(format!(
                    "{}: no .goal files in this folder",
                    arg.display()
                )));
            }
            found.sort();
            paths.extend(found);
        } else if arg.exists() {
            paths.push(arg.clone());
        } else {
            return Err(CliError::Usage(format!(
                "{}: no such file or folder",
                arg.display()
            )));
        }
    }
    Ok(paths)
}

/// Reads and checks goal files; an unreadable file is a usage error.
fn check_paths(paths: &[PathBuf]) -> Result<Vec<Checked>, CliError> {
    paths
        .iter()
        .map(|p| lang::check_file(p).map_err(|e| CliError::Usage(format!("{}: {e}", p.display()))))
        .collect()
}

fn check_cmd(args: CheckArgs) -> Result<(), CliError> {
    let checked = check_paths(&goal_paths(&args.files)?)?;
    match args.format {
        CheckFormat::Human => {
            let color = std::io::stderr().is_terminal();
            let text: String = checked.iter().map(|c| c.render(color)).collect();
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
        }
        CheckFormat::Json => {
            let all: Vec<lang::diag::JsonDiagnostic> = checked
                .iter()
                .flat_map(|c| {
                    c.diagnostics
                        .iter()
                        .map(|d| lang::diag::JsonDiagnostic::new(&c.file, &c.text, d))
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&all).unwrap_or_default();
            text.push('\n');
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    let failed = checked.iter().filter(|c| c.has_errors()).count();
    if failed > 0 {
        // The diagnostics already said what; exit 1 without another message.
        return Err(CliError::GoalErrors(String::new()));
    }
    Ok(())
}

/// Checks goal files and returns the compiled goals, or prints the
/// diagnostics and fails.
pub fn compile_goals(paths: &[PathBuf]) -> Result<Vec<CompiledGoal>, CliError> {
    let checked = check_paths(paths)?;
    let color = std::io::stderr().is_terminal();
    let report: String = checked.iter().map(|c| c.render(color)).collect();
    if !report.is_empty() {
        let _ = std::io::stderr().lock().write_all(report.as_bytes());
    }
    let bad: Vec<&str> = checked
        .iter()
        .filter(|c| c.has_errors())
        .map(|c| c.file.as_str())
        .collect();
    if !bad.is_empty() {
        return Err(CliError::GoalErrors(format!(
            "{} goal file(s) with errors, nothing was run: {}",
            bad.len(),
            bad.join(", ")
        )));
    }
    Ok(checked.into_iter().filter_map(|c| c.goal).collect())
}

/// The traces `bench` runs on: --trace files, else $GOALC_TRACES, else none
/// (the built-in model).
fn bench_traces(args: &BenchArgs) -> Result<Vec<PathBuf>, CliError> {
    if !args.traces.is_empty() {
        return Ok(args.traces.clone());
    }
    let Some(dir) = std::env::var_os("GOALC_TRACES") else {
        return Ok(Vec::new());
    };
    let dir = PathBuf::from(dir);
    let entries = std::fs::read_dir(&dir)
        .map_err(|e| CliError::Usage(format!("GOALC_TRACES={}: {e}", dir.display())))?;
    let mut traces: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".swf") || name.ends_with(".swf.gz")
        })
        .collect();
    if traces.is_empty() {
        return Err(CliError::Usage(format!(
            "GOALC_TRACES={}: no .swf or .swf.gz traces in this folder",
            dir.display()
        )));
    }
    traces.sort();
    Ok(traces)
}

fn bench_cmd(args: BenchArgs) -> Result<(), CliError> {
    let goal_args = if args.goals.is_empty() {
        vec![PathBuf::from("goals")]
    } else {
        args.goals.clone()
    };
    let goals = compile_goals(&goal_paths(&goal_args)?)?;
    let traces = bench_traces(&args)?;
    let sources: Vec<Option<&Path>> = if traces.is_empty() {
        vec![None]
    } else {
        traces.iter().map(|t| Some(t.as_path())).collect()
    };
    if args.budget.contains(&0) {
        return Err(CliError::Usage(
            "--budget: a node budget must be at least 1".into(),
        ));
    }
    check_window_args(&args.transform, args.months.is_some())?;
    let goals = crate::bench::expand_budgets(&goals, &args.budget);
    let workloads: Vec<Workload> = sources
        .par_iter()
        .map(|t| {
            let mut w = source_workload(*t, args.procs, &args.model)?;
            if let Some(n) = args.first_jobs {
                w = transform::first_jobs(&w, n);
            }
            let bases = match &args.months {
                Some(spec) => monthly_workloads(&w, spec, &args.transform)?,
                None => vec![transform_workload(w, &args.transform)?],
            };
            if args.load_factor.is_empty() {
                return Ok(bases);
            }
            let mut out = Vec::new();
            for base in &bases {
                for &f in &args.load_factor {
                    out.push(match args.factor_by {
                        FactorBy::Duplication => transform::duplicate_load(base, f, 1)?,
                        FactorBy::Expansion => transform::expand_load(base, f)?,
                    });
                }
            }
            Ok(out)
        })
        .collect::<Result<Vec<_>, CliError>>()?
        .into_iter()
        .flatten()
        .collect();
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new((goals.len() * workloads.len()) as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} runs {elapsed}")
        {
            bar.set_style(style);
        }
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let reports = crate::bench::run_all(&goals, &workloads, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let text = render(&reports, args.format);
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}
