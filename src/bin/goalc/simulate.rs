//! `goalc simulate`: baseline policies by name, without goal files.

use crate::args::{EventsArg, FormatArg, WorkloadArgs};
use crate::CliError;
use clap::Args;
use goalc::policy::{parse_policy_names, POLICY_NAMES};
use goalc::report::render;
use goalc::run::{run_all, run_goal, Goal, RunOptions, WorkloadPlan};
use goalc::sim::EventMode;
use goalc::units::parse_duration;
use goalc::workload::{swf, Time};
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// SWF traces (.swf or .swf.gz); without one, the built-in workload model
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub workload: WorkloadArgs,
    #[command(flatten)]
    pub events: EventsArg,
    /// Policies to run, comma-separated, or `all` for every baseline (see below)
    #[arg(long, short, value_delimiter = ',', default_value = "fcfs-backfill")]
    pub policy: Vec<String>,
    /// Lower bound on run time in the bounded slowdown, e.g. 60s or 10s
    #[arg(long, value_parser = parse_duration, default_value = "60s")]
    pub tau: Time,
    #[command(flatten)]
    pub format: FormatArg,
    /// Write the simulated schedule as SWF (one policy, one workload): the
    /// trace's fields with wait and run time as simulated
    #[arg(long, value_name = "FILE")]
    pub schedule_out: Option<PathBuf>,
}

pub fn policy_help() -> String {
    let mut s = String::from("Policies:\n");
    let width = POLICY_NAMES.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, what) in POLICY_NAMES {
        s.push_str(&format!("  {name:<width$}  {what}\n"));
    }
    let all: Vec<String> = goalc::policy::all_baselines()
        .iter()
        .map(ToString::to_string)
        .collect();
    s.push_str(&format!(
        "  {:<width$}  the baselines {}",
        "all",
        all.join(", ")
    ));
    s
}

pub fn run(args: SimulateArgs) -> Result<(), CliError> {
    let specs = parse_policy_names(&args.policy)?;
    if specs.is_empty() {
        return Err(CliError::Usage("no policy given".into()));
    }
    // As bench refuses a goal twice: the same rows twice compare nothing.
    if let Some((i, twice)) = specs
        .iter()
        .enumerate()
        .find(|&(i, s)| specs[..i].contains(s))
    {
        let first = specs.iter().position(|s| s == twice).unwrap_or(i);
        return Err(CliError::Usage(format!(
            "--policy: `{twice}` is given twice (policies {} and {} of the list)",
            first + 1,
            i + 1
        )));
    }
    // `-` is standard output elsewhere (`generate -o -`); here that holds
    // the table, and a file named `-` is made by mistake.
    if args.schedule_out.as_deref() == Some(std::path::Path::new("-")) {
        return Err(CliError::Usage(
            "--schedule-out -: standard output carries the table; give the schedule a file name"
                .into(),
        ));
    }
    if args.schedule_out.is_some() && specs.len() != 1 {
        return Err(CliError::Usage(
            "--schedule-out takes exactly one --policy".into(),
        ));
    }
    if let Some(out) = &args.schedule_out {
        let traces = args.traces.iter().map(|t| ("the trace", t.as_path()));
        crate::same_file::refuse_input_as_output("--schedule-out", out, traces)?;
    }
    // A goal file read as a trace fails on its first line: say what it is.
    if let Some(goal) = args
        .traces
        .iter()
        .find(|t| t.extension().is_some_and(|e| e == "goal"))
    {
        return Err(CliError::Usage(format!(
            "`{}` is a goal file, not a trace: simulate runs baselines by name (--policy); run goals with `goalc bench {} --trace TRACE`",
            goal.display(),
            goal.display()
        )));
    }
    if args.tau < 1 {
        return Err(CliError::Usage("--tau must be at least 1s".into()));
    }
    let goals: Vec<Goal> = specs
        .into_iter()
        .map(|s| Goal::baseline(s, args.tau))
        .collect();
    let plan = WorkloadPlan {
        records: args.schedule_out.is_some(),
        ..args.workload.plan()
    };
    args.workload.check_pairs(&plan).map_err(CliError::Usage)?;
    if let Some(unused) = args
        .workload
        .unused_model_options(!args.traces.is_empty(), &[])
    {
        say!("goalc: warning: {unused}");
    }
    let workloads = plan.workloads(&args.traces)?;
    for warning in plan.load_warnings(&workloads) {
        say!("goalc: warning: {warning}");
    }
    let events = args.events.events;
    let reports =
        match (&args.schedule_out, &goals[..], &workloads[..]) {
            (Some(path), [goal], [w]) => {
                let (report, outcome) = run_goal(goal, w, events)?;
                let runs = outcome.runs.iter().map(|r| r.map(|r| (r.start, r.end)));
                // A reader of the schedule must know it was made per event.
                let made_by = match events {
                    EventMode::PerInstant => outcome.policy.clone(),
                    _ => format!("{}, events {}", outcome.policy, events),
                };
                let file = std::fs::File::create(path).map_err(CliError::write(path))?;
                let mut out = std::io::BufWriter::new(file);
                swf::write_schedule(&mut out, w, &made_by, runs).map_err(CliError::write(path))?;
                out.flush().map_err(CliError::write(path))?;
                vec![report]
            }
            (Some(_), _, _) => return Err(CliError::Usage(
                "--schedule-out takes exactly one workload (one trace, no months or load factors)"
                    .into(),
            )),
            (None, ..) => {
                let opts = RunOptions {
                    events,
                    ..RunOptions::default()
                };
                run_all(&goals, &workloads, opts, &|| {})?
            }
        };
    crate::print(&render(&reports, args.format.format))?;
    Ok(())
}
