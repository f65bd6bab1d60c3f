//! `goalc bench`: goal files on traces (or the built-in model), side by side.

use crate::args::{EventsArg, FormatArg, WorkloadArgs};
use crate::goals::{compile_goals, goal_paths};
use crate::CliError;
use clap::Args;
use goalc::report::render;
use goalc::run::{expand_budgets, run_all, RunOptions};
use goalc::suite::Shard;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Goal files, or folders of `.goal` files [default: goals]
    pub goals: Vec<PathBuf>,
    /// SWF traces to run on (repeatable); without it, every trace in
    /// $GOALC_TRACES if set, else the built-in workload model
    #[arg(long = "trace", value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    #[command(flatten)]
    pub events: EventsArg,
    /// Run every search goal once per node budget L, e.g. 100,400,1000,4000
    #[arg(long, value_delimiter = ',', value_name = "L")]
    pub budget: Vec<u64>,
    #[command(flatten)]
    pub format: FormatArg,
    /// Run a suite file (TOML: goals, traces, axes; see suites/example.toml)
    /// into a result store, reusing the cells it already holds
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// With --suite: run only shard I of N (every N-th cell from the I-th,
    /// 0-based)
    #[arg(long, value_name = "I/N", requires = "suite", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// With --suite: the result store (JSON lines) [default: beside the
    /// suite file, SUITE.jsonl or SUITE.shard-I-of-N.jsonl]
    #[arg(long, value_name = "FILE", requires = "suite")]
    pub store: Option<PathBuf>,
    /// With --suite: write DIR/array.sbatch (a Slurm job array, one task
    /// per shard), DIR/merge.sbatch and DIR/submit.sh instead of running
    #[arg(long, value_name = "DIR", requires_all = ["suite", "shards"])]
    pub emit_slurm: Option<PathBuf>,
    /// With --emit-slurm: the number of shards (array tasks)
    #[arg(long, value_name = "N", requires = "emit_slurm", value_parser = clap::value_parser!(u16).range(1..))]
    pub shards: Option<u16>,
}

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
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

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    if let Some(file) = &args.suite {
        return crate::suite::run(&args, file);
    }
    let goal_args = if args.goals.is_empty() {
        vec![PathBuf::from("goals")]
    } else {
        args.goals.clone()
    };
    let goals = compile_goals(&goal_paths(&goal_args)?)?;
    let traces = bench_traces(&args)?;
    if args.budget.contains(&0) {
        return Err(CliError::Usage(
            "--budget: a node budget must be at least 1".into(),
        ));
    }
    let goals = expand_budgets(&goals, &args.budget);
    let workloads = args.workload.plan().workloads(&traces)?;
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
    let opts = RunOptions {
        events: args.events.events,
        ..RunOptions::BENCH
    };
    let reports = run_all(&goals, &workloads, opts, &|| bar.inc(1))?;
    bar.finish_and_clear();
    crate::print(&render(&reports, args.format.format));
    Ok(())
}
