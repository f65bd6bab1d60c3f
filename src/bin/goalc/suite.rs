//! `goalc bench --suite`: a suite file's cells run into a result store
//! (reusing what it holds), one shard of them, or Slurm scripts that run
//! the shards as a job array.

use crate::bench::BenchArgs;
use crate::CliError;
use goalc::report::render;
use goalc::run::{FactorBy, LoadBy};
use goalc::suite::slurm::{check_folder, scripts, SlurmPlan};
use goalc::suite::{self, Layout, Shard};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// The options of `bench` a suite file replaces: given with `--suite`,
/// they would be ignored, so they are refused.
fn replaced(args: &BenchArgs) -> Vec<&'static str> {
    let w = &args.workload;
    let given = [
        (!args.goals.is_empty(), "goal files"),
        (!args.traces.is_empty(), "--trace"),
        (!args.budget.is_empty(), "--budget"),
        (w.procs.is_some(), "--procs"),
        (w.first_jobs.is_some(), "--first-jobs"),
        (w.scale_to.is_some(), "--scale-to"),
        (w.exact_estimates, "--exact-estimates"),
        (w.window.is_some(), "--window"),
        (w.months.is_some(), "--months"),
        (w.warmup != 0, "--warmup"),
        (w.cooldown != 0, "--cooldown"),
        (w.load.is_some(), "--load"),
        (!w.load_factor.is_empty(), "--load-factor"),
        (w.load_by != LoadBy::default(), "--load-by"),
        (w.factor_by != FactorBy::default(), "--factor-by"),
        (!args.events.events.is_per_instant(), "--events"),
    ];
    let output = [
        (args.user_estimates, "--user-estimates"),
        (args.full, "--full"),
        (args.out.is_some(), "--out"),
    ];
    let named = |list: &[(bool, &'static str)]| -> Vec<&'static str> {
        list.iter()
            .filter(|(g, _)| *g)
            .map(|(_, name)| *name)
            .collect()
    };
    let mut names = named(&given);
    names.extend(w.model_options());
    names.extend(named(&output));
    names
}

/// The store a suite writes by default: beside the suite file, one per
/// shard.
fn default_store(suite: &Path, shard: Shard) -> PathBuf {
    let stem = suite
        .file_stem()
        .map_or("suite".into(), |s| s.to_string_lossy().into_owned());
    let name = if shard == Shard::WHOLE {
        format!("{stem}.jsonl")
    } else {
        format!("{stem}.shard-{}-of-{}.jsonl", shard.index, shard.count)
    };
    suite.with_file_name(name)
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(p).map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))
}

pub fn run(args: &BenchArgs, file: &Path) -> Result<(), CliError> {
    let given = replaced(args);
    if !given.is_empty() {
        return Err(CliError::Usage(format!(
            "--suite: the suite file gives the goals, traces and axes; remove {}",
            given.join(", ")
        )));
    }
    let traces = std::env::var_os("GOALC_TRACES").map(PathBuf::from);
    let checked = suite::check_file(file, traces.as_deref())
        .map_err(|e| CliError::Usage(format!("{}: {e}", file.display())))?;
    let report = checked.render(std::io::stderr().is_terminal());
    if !report.is_empty() {
        let _ = std::io::stderr().lock().write_all(report.as_bytes());
    }
    let bad = checked.has_errors();
    let Some(suite) = checked.suite.filter(|_| !bad) else {
        return Err(CliError::GoalErrors(format!(
            "{}: the suite has errors, nothing was run",
            file.display()
        )));
    };
    let layout = Layout::of(&suite)?;
    if let Some(dir) = &args.emit_slurm {
        return emit_slurm(args, file, dir, traces.as_deref(), &layout);
    }
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let store = args
        .store
        .clone()
        .unwrap_or_else(|| default_store(file, shard));
    let traces = suite.traces.iter().filter_map(|t| match &t.source {
        suite::spec::TraceSource::File { path, .. } => Some(("the trace", path.as_path())),
        suite::spec::TraceSource::Model { .. } => None,
    });
    let inputs = std::iter::once(("the suite file", file))
        .chain(
            suite
                .goals
                .iter()
                .map(|g| ("the goal file", g.path.as_path())),
        )
        .chain(traces);
    crate::same_file::refuse_input_as_output("the store", &store, inputs)?;
    let cells = layout.shard(shard).len();
    let bar = crate::progress(cells as u64, "{bar:40} {pos}/{len} cells {elapsed}");
    let done = suite::run(&suite, &layout, shard, &store, &|| bar.inc(1))?;
    bar.finish_and_clear();
    let mut note = String::new();
    if done.torn > 0 {
        note += &format!(
            "{}: ignored and cut away a torn last line (a run was interrupted)\n",
            store.display()
        );
    }
    for key in &done.unknown {
        note += &format!("{}\n", key.said(&store));
    }
    if done.dropped > 0 {
        note += &format!(
            "{}: removed {} record(s) of cells no longer in the suite or of another goalc version\n",
            store.display(),
            done.dropped
        );
    }
    if done.repeated > 0 {
        note += &format!(
            "{}: removed {} record(s) held twice\n",
            store.display(),
            done.repeated
        );
    }
    if done.edited > 0 {
        note += &format!(
            "{}: removed and ran again {} cell(s) whose record's axes or trace were not those its key was made of (edited by hand?)\n",
            store.display(),
            done.edited
        );
    }
    let shard_note = if shard == Shard::WHOLE {
        String::new()
    } else {
        format!(" (shard {shard} of {} cells)", layout.cells.len())
    };
    let failed = match done.failed.len() {
        0 => String::new(),
        n => format!(" ({n} of them failed)"),
    };
    note += &format!(
        "reused {} of {} cells, ran {}{failed}{shard_note}; store {}\n",
        done.reused,
        done.cells,
        done.ran,
        store.display()
    );
    for e in &done.failed {
        note += &format!("goalc: error: {e}\n");
    }
    let _ = std::io::stderr().lock().write_all(note.as_bytes());
    crate::print(&render(&done.reports, args.format.format))?;
    if done.failed.is_empty() {
        return Ok(());
    }
    Err(CliError::GoalErrors(format!(
        "{} of {} cells failed (said above); the store holds the others, and a rerun runs only the failed ones",
        done.failed.len(),
        done.cells
    )))
}

fn emit_slurm(
    args: &BenchArgs,
    file: &Path,
    dir: &Path,
    traces: Option<&Path>,
    layout: &Layout,
) -> Result<(), CliError> {
    let shards = usize::from(
        args.shards
            .ok_or_else(|| CliError::Usage("--emit-slurm needs --shards N".into()))?,
    );
    if args.shard.is_some() || args.store.is_some() {
        return Err(CliError::Usage(
            "--emit-slurm writes scripts that choose each shard's --shard and --store: remove them"
                .into(),
        ));
    }
    // Refused before anything is made: the scripts could not name it.
    let whole = std::env::current_dir().map_or_else(|_| dir.to_path_buf(), |cwd| cwd.join(dir));
    check_folder(&whole).map_err(CliError::Usage)?;
    std::fs::create_dir_all(dir).map_err(CliError::write(dir))?;
    let goalc = std::env::current_exe()
        .map_err(|e| CliError::Usage(format!("cannot find the goalc binary: {e}")))?;
    let dir = absolute(dir)?;
    let suite_path = absolute(file)?;
    let traces = traces.map(absolute).transpose()?;
    let plan = SlurmPlan {
        goalc: &goalc,
        suite: &suite_path,
        dir: &dir,
        shards,
        traces: traces.as_deref(),
    };
    for s in scripts(&plan).map_err(CliError::Usage)? {
        let path = dir.join(s.name);
        std::fs::write(&path, &s.text).map_err(CliError::write(&path))?;
        if s.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(CliError::write(&path))?;
        }
    }
    say!(
        "wrote {}/{{array.sbatch,merge.sbatch,submit.sh}}: {} cells in {shards} shards; run {}/submit.sh",
        dir.display(),
        layout.cells.len(),
        dir.display()
    );
    Ok(())
}
