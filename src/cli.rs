//! The `goalc` command line.
//!
//! Exit codes: 0 success, 1 a run failed, 2 bad usage or bad input (a bad
//! trace line, a missing file, an unknown policy).

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
use std::io::Write;
use std::path::PathBuf;

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
    /// Simulate baseline policies on a trace (or the built-in workload model) and print the measures
    #[command(after_help = policy_help())]
    Simulate(SimulateArgs),
    /// Write a workload of the built-in model (Lublin-Feitelson) as an SWF trace
    Generate(GenerateArgs),
}

/// Where the jobs come from and how they are reshaped before simulation.
#[derive(Debug, Args)]
pub struct WorkloadArgs {
    /// SWF trace (.swf or .swf.gz); without it, the built-in workload model
    pub trace: Option<PathBuf>,
    /// Machine size, overriding the trace header's MaxProcs/MaxNodes
    #[arg(long)]
    pub procs: Option<u32>,
    /// Scale the offered load to this value (e.g. 0.9)
    #[arg(long)]
    pub load: Option<f64>,
    /// How --load scales: shrink inter-arrival times (GOAL) or stretch run times (MOLD)
    #[arg(long, value_enum, default_value_t = LoadBy::Arrivals)]
    pub load_by: LoadBy,
    /// Measured window START..END as offsets from the first submit, e.g. 30d..60d
    #[arg(long, value_parser = parse_window)]
    pub window: Option<(Time, Time)>,
    /// Jobs submitted this long before the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0", requires = "window")]
    pub warmup: Time,
    /// Jobs submitted this long after the window are simulated but not measured
    #[arg(long, value_parser = parse_duration, default_value = "0", requires = "window")]
    pub cooldown: Time,
    /// Tell the scheduler exact run times instead of the users' estimates
    #[arg(long)]
    pub exact_estimates: bool,
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
pub enum LoadBy {
    Arrivals,
    Runtimes,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub workload: WorkloadArgs,
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

fn parse_window(s: &str) -> Result<(Time, Time), String> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| format!("window `{s}` must be START..END, e.g. 30d..60d"))?;
    let start = parse_duration(a).map_err(|e| e.to_string())?;
    let end = parse_duration(b).map_err(|e| e.to_string())?;
    if end <= start {
        return Err(format!("window `{s}` ends before it starts"));
    }
    Ok((start, end))
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
}

impl CliError {
    fn exit_code(&self) -> i32 {
        match self {
            CliError::Sim(_) => 1,
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
            eprintln!("goalc: error: {e}");
            e.exit_code()
        }
    }
}

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Simulate(args) => simulate_cmd(args),
        Command::Generate(args) => generate_cmd(args),
    }
}

/// Loads the trace or generates the model workload, then applies the
/// transforms in a fixed order: estimates, load, window.
pub fn load_workload(args: &WorkloadArgs) -> Result<Workload, CliError> {
    let mut w = match &args.trace {
        Some(path) => swf::read_path(path, &ReadOptions { procs: args.procs })?,
        None => {
            if args.procs.is_some() {
                return Err(CliError::Usage(
                    "--procs applies to traces; use --model-procs for the built-in model".into(),
                ));
            }
            model::generate(&ModelParams {
                jobs: args.model_jobs,
                procs: args.model_procs,
                seed: args.seed,
            })?
        }
    };
    if args.exact_estimates {
        w = transform::exact_estimates(&w);
    }
    if let Some(load) = args.load {
        w = match args.load_by {
            LoadBy::Arrivals => transform::scale_load_by_arrivals(&w, load)?,
            LoadBy::Runtimes => transform::scale_load_by_runtimes(&w, load)?,
        };
    }
    if let Some((start, end)) = args.window {
        w = transform::window(
            &w,
            Window {
                start,
                end,
                warmup: args.warmup,
                cooldown: args.cooldown,
            },
        )?;
    }
    if w.jobs.is_empty() {
        return Err(CliError::Usage(format!(
            "workload `{}` has no jobs to simulate",
            w.name
        )));
    }
    Ok(w)
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
    let w = load_workload(&args.workload)?;
    let opts = MeasureOptions { tau: args.tau };
    let results: Vec<Result<(RunReport, Outcome), crate::sim::SimError>> = specs
        .par_iter()
        .map(|spec| {
            let mut policy = spec.build();
            let outcome = simulate(&w, policy.as_mut(), SimOptions::default())?;
            let m = measure(&w, &outcome, opts);
            Ok((
                RunReport::new(&w, spec.to_string(), outcome.epochs, m),
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
