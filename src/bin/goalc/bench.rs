//! `goalc bench`: goal files on traces (or the built-in model), side by side.

use crate::args::{EventsArg, FormatArg, WorkloadArgs};
use crate::goals::{compile_goals, goal_paths};
use crate::CliError;
use clap::Args;
use goalc::report::{render, results, summary, wrap, Format};
use goalc::run::{check_budgets, expand_budgets, notes, run_each, RunError, RunOptions};
use goalc::suite::Shard;
use std::path::{Path, PathBuf};

/// What `bench` runs on the built-in model unless told otherwise: a
/// realistic offered load, and exact run times as estimates, as the GOAL
/// and QOPS papers assume: with the model's user estimates, deadlines made
/// from run times cannot be met by plans made from estimates (admission
/// then rejects most jobs), and EASY carries only about 0.78 of the load,
/// so at 0.85 queues would grow without bound. 3,000 jobs (about seven
/// weeks at this load; the GOAL paper measures months) keep the whole of
/// `goals/` near the time it took at the model's own load (searching at
/// every epoch of a loaded machine is most of the cost).
const MODEL_LOAD: f64 = 0.85;
const MODEL_JOBS: usize = 3000;
/// Users for the model, so that fairshare and the owner's user groups have
/// someone to tell apart: the median number of distinct users in 3,000
/// consecutive jobs of the reference traces (see the model's "Users").
const MODEL_USERS: u32 = 64;

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
    /// On the built-in model, keep the model's user estimates (bench
    /// otherwise tells the scheduler exact run times there)
    #[arg(long, conflicts_with = "exact_estimates")]
    pub user_estimates: bool,
    /// Print every measure in wide tables instead of the summary by mechanism
    #[arg(long)]
    pub full: bool,
    /// Results folder for the full report (Markdown and JSON) of a table
    /// run [default: goalc-results/<workload>]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
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

/// Refuses a results folder where the report or a plot would be written
/// over an input (a trace or goal file kept in that folder).
fn refuse_results_over_inputs(dir: &Path, inputs: &[(&str, &Path)]) -> Result<(), CliError> {
    for name in [results::REPORT_MD, results::REPORT_JSON] {
        let report = dir.join(name);
        crate::same_file::refuse_input_as_output("the report", &report, inputs.iter().copied())?;
    }
    // Plots are named by mechanism and measure, in the folder or a folder
    // per workload below it: any SVG there may be written over.
    let Ok(dir) = std::fs::canonicalize(dir) else {
        return Ok(());
    };
    for (what, input) in inputs {
        let svg = input.extension().is_some_and(|e| e == "svg");
        if svg && std::fs::canonicalize(input).is_ok_and(|p| p.starts_with(&dir)) {
            return Err(CliError::Usage(format!(
                "{what} `{}` is an SVG file in the results folder `{}`, where the plots are \
                 written: move it, or give another --out",
                input.display(),
                dir.display()
            )));
        }
    }
    Ok(())
}

pub fn run(args: BenchArgs) -> Result<(), CliError> {
    if let Some(file) = &args.suite {
        return crate::suite::run(&args, file);
    }
    if let Some(out) = &args.out {
        // JSON, CSV and Markdown go to standard output and write no folder:
        // a results folder asked for would not be written.
        if args.format.format != Format::Table {
            return Err(CliError::Usage(
                "--out names the results folder of a table run; --format json, csv and markdown \
                 print every measure on standard output and write no folder: give one of them"
                    .into(),
            ));
        }
        // A results folder that cannot be one is said before the runs, whose
        // tables were otherwise lost to the error after them.
        if out.exists() && !out.is_dir() {
            return Err(CliError::Usage(format!(
                "{}: not a folder, so no place for the results (--out names a folder)",
                out.display()
            )));
        }
    }
    // As --out: the other formats print every measure, in one table.
    if args.full && args.format.format != Format::Table {
        return Err(CliError::Usage(
            "--full widens the tables of a table run; --format json, csv and markdown print \
             every measure already: give one of them"
                .into(),
        ));
    }
    let goal_args = if args.goals.is_empty() {
        vec![PathBuf::from("goals")]
    } else {
        args.goals.clone()
    };
    let goal_files = goal_paths(&goal_args)?;
    let goals = compile_goals(&goal_files)?;
    let traces = bench_traces(&args)?;
    let inputs: Vec<(&str, &Path)> = goal_files
        .iter()
        .map(|g| ("the goal file", g.as_path()))
        .chain(traces.iter().map(|t| ("the trace", t.as_path())))
        .collect();
    // Said before the runs, whose tables were otherwise lost to the error.
    if let Some(dir) = &args.out {
        refuse_results_over_inputs(dir, &inputs)?;
    }
    check_budgets(&args.budget).map_err(|e| CliError::Usage(format!("--budget: {e}")))?;
    let goals = expand_budgets(&goals, &args.budget);
    let mut plan = args.workload.plan();
    // The model's set-up, for what the user left unsaid; said in the output.
    let mut defaults = Vec::new();
    let own = if args.user_estimates {
        &["--user-estimates"][..]
    } else {
        &[]
    };
    if let Some(unused) = args.workload.unused_model_options(!traces.is_empty(), own) {
        say!("goalc: warning: {unused}");
    }
    if !args.budget.is_empty() && !goals.iter().any(|g| g.policy.is_search()) {
        say!("goalc: warning: --budget sets the node budget of search goals, and no goal here searches: ignored");
    }
    if traces.is_empty() {
        if plan.load.is_none() && plan.load_factors.is_empty() {
            plan.load = Some(MODEL_LOAD);
            defaults.push(format!("--load {MODEL_LOAD}"));
        }
        if args.workload.model_jobs.is_none() {
            plan.model.jobs = MODEL_JOBS;
            defaults.push(format!("--model-jobs {MODEL_JOBS}"));
        }
        if args.workload.model_users.is_none() {
            plan.model.users = Some(MODEL_USERS);
            defaults.push(format!("--model-users {MODEL_USERS}"));
        }
        if !plan.exact_estimates && !args.user_estimates {
            plan.exact_estimates = true;
            defaults.push("--exact-estimates".into());
        }
    }
    args.workload.check_pairs(&plan).map_err(CliError::Usage)?;
    let workloads = plan.workloads(&traces)?;
    for warning in plan.load_warnings(&workloads) {
        say!("goalc: warning: {warning}");
    }
    let bar = crate::progress(
        (goals.len() * workloads.len()) as u64,
        "{bar:40} {pos}/{len} runs {elapsed}",
    );
    let opts = RunOptions {
        events: args.events.events,
        ..RunOptions::BENCH
    };
    let outcomes = run_each(&goals, &workloads, opts, &|| bar.inc(1))?;
    bar.finish_and_clear();
    // A run that failed is said; the others are reported all the same.
    let runs = workloads
        .iter()
        .flat_map(|w| goals.iter().map(move |g| (w, g)));
    let (mut reports, mut failed): (Vec<_>, Vec<(&str, RunError)>) = (Vec::new(), Vec::new());
    for ((w, g), outcome) in runs.zip(outcomes) {
        match outcome {
            Ok(r) => reports.push(r),
            Err(e) => failed.push((&w.name, e.in_goal(&g.name))),
        }
    }
    let last = if reports.is_empty() {
        failed.pop()
    } else {
        None
    };
    for (workload, e) in &failed {
        if workloads.len() > 1 {
            say!("goalc: error: on workload `{workload}`: {e}");
        } else {
            say!("goalc: error: {e}");
        }
    }
    if let Some((_, e)) = last {
        return Err(e.into());
    }
    // The report files say what did not run, as standard error did.
    let not_run: Vec<String> = failed
        .iter()
        .map(|(workload, e)| format!("- not run, on `{workload}`: {e}\n"))
        .collect();
    let failed = (!failed.is_empty()).then(|| {
        CliError::GoalErrors(format!(
            "{} of {} runs failed (said above); the results hold the other {}",
            failed.len(),
            failed.len() + reports.len(),
            reports.len()
        ))
    });
    let format = args.format.format;
    if format != Format::Table {
        crate::print(&render(&reports, format))?;
        return failed.map_or(Ok(()), Err);
    }
    let setup = if defaults.is_empty() {
        String::new()
    } else {
        // The reason for exact run times only where they were taken.
        let why = if defaults.iter().any(|d| d == "--exact-estimates") {
            " (exact run times as the GOAL and QOPS papers assume; --user-estimates keeps the model's)"
        } else {
            ""
        };
        format!(
            "built-in Lublin-Feitelson model with bench's defaults {}{why}; give any to change it\n",
            defaults.join(" ")
        )
    };
    let notes = notes(&goals, &workloads);
    let mut out = wrap(&setup, 120);
    if args.full {
        out.push_str(&render(&reports, Format::Table));
    } else {
        out.push_str(&summary(&reports, &notes));
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("goalc-results").join(results::folder_name(&reports)));
    let mut preamble = setup.replace("\n", "\n\n");
    for (trace, _, note) in &notes {
        preamble.push_str(&format!("- `{trace}`: {note}\n"));
    }
    preamble.extend(not_run);
    // The default folder is named only now, after the runs (--out was
    // checked before them). Named for the workloads, it may have held
    // others' (an --out folder is the user's to reuse).
    if args.out.is_none() {
        refuse_results_over_inputs(&dir, &inputs)?;
        let names = results::traces_of(&reports);
        if let Some(before) = results::traces_written(&dir).filter(|before| *before != names) {
            say!(
                "goalc: warning: {} held the report of other workloads ({}); replaced by this \
                 one's ({})",
                dir.display(),
                before.join(", "),
                names.join(", ")
            );
        }
    }
    let written = results::write(&dir, &reports, &preamble).map_err(CliError::write(&dir))?;
    out.push('\n');
    out.push_str(&wrap(
        &format!(
            "full report: {} (every measure of every goal; report.json beside it for scripts)",
            written.report.display()
        ),
        120,
    ));
    // Plots are a help, not the result: one that cannot be drawn is said,
    // and the report stands.
    match goalc::results::plots::write_for_runs(&reports, &dir) {
        Ok(plots) if !plots.is_empty() => out.push_str(&wrap(
            &format!(
                "plots: {} in {} (two measures per goal, EASY marked; `goalc report` draws more \
                 from a suite's store)",
                goalc::report::count(plots.len(), "SVG file"),
                dir.display()
            ),
            120,
        )),
        Ok(_) => {}
        Err(e) => say!("goalc: warning: plots not drawn: {e}"),
    }
    crate::print(&out)?;
    failed.map_or(Ok(()), Err)
}
