//! The `goalc` command line: arguments in, the library's run layer and
//! language called, reports out. Only the binary depends on clap and
//! indicatif; the library does not.
//!
//! Exit codes: 0 success; 1 a goal or suite file has errors (`check`,
//! `bench`), a run failed, or `merge` refused its stores; 2 bad usage or
//! bad input (a bad trace line, a missing file, an unknown policy, a
//! damaged store).

/// `eprintln!` that ignores a failed write: with standard error a closed
/// pipe, a message has nowhere to go, and `eprintln!` would panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod args;
mod bench;
mod check;
mod generate;
mod goals;
#[cfg(target_os = "linux")]
mod huge_pages;
mod merge;
mod report;
mod same_file;
mod simulate;
mod suite;
mod train;

use clap::{Parser, Subcommand};
use goalc::run::RunError;
use goalc::store::StoreError;
use goalc::suite::SuiteError;
use std::io::Write;

#[derive(Debug, Parser)]
#[command(
    name = "goalc",
    version,
    about = "Goal-oriented scheduling for parallel machines, simulated on real workload traces"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run goal files on traces (or the built-in workload) and compare them side by side
    Bench(bench::BenchArgs),
    /// Check goal files; print diagnostics; exit 1 if any has an error
    Check(check::CheckArgs),
    /// Simulate baseline policies by name on a trace (or the built-in workload model)
    #[command(after_help = simulate::policy_help())]
    Simulate(simulate::SimulateArgs),
    /// Write a workload of the built-in model (Lublin-Feitelson) as an SWF trace
    Generate(generate::GenerateArgs),
    /// Unite result stores (the shards of one suite) into one, sorted by cell
    Merge(merge::MergeArgs),
    /// A result store as tables (text, Markdown, CSV, JSON) and SVG plots; or the Markdown diff of two stores
    Report(report::ReportArgs),
    /// Train GREEDY's sort criteria for an owner objective on traces (evolution strategy); write the trained goal file
    Train(train::TrainArgs),
}

/// A failure the user can fix, printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Policy(#[from] goalc::policy::PolicyNameError),
    /// Boxed: a failed cell carries its run error, large beside the others.
    #[error(transparent)]
    Suite(Box<SuiteError>),
    #[error(transparent)]
    Store(#[from] goalc::store::StoreError),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Goal files with errors; the diagnostics were already shown.
    #[error("{0}")]
    GoalErrors(String),
}

impl From<SuiteError> for CliError {
    fn from(e: SuiteError) -> Self {
        CliError::Suite(Box::new(e))
    }
}

impl CliError {
    fn exit_code(&self) -> i32 {
        match self {
            CliError::Run(e) if matches!(e.root(), RunError::Sim(_)) => 1,
            CliError::GoalErrors(_) => 1,
            CliError::Suite(e) => match &**e {
                SuiteError::Run(e) if matches!(e.root(), RunError::Sim(_)) => 1,
                SuiteError::Cell { .. } => 1,
                _ => 2,
            },
            CliError::Store(StoreError::Refused(_)) => 1,
            _ => 2,
        }
    }

    /// An error writing `path`.
    pub fn write(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
        move |source| CliError::Write {
            path: path.display().to_string(),
            source,
        }
    }
}

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: huge_pages::HugePages = huge_pages::HugePages;

fn main() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    huge_pages::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    warn_of_bad_cores_setting();
    keep_runs_to_cores_setting();
    let result = match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::Check(args) => check::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Train(args) => train::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Report(args) => report::run(args),
    };
    if let Err(e) = result {
        let message = e.to_string();
        // Goal-file errors were already shown as diagnostics.
        if !message.is_empty() {
            say!("goalc: error: {message}");
        }
        std::process::exit(e.exit_code());
    }
}

/// A `GOALC_CORES` that is not a number of cores is said, not ignored in
/// silence.
fn warn_of_bad_cores_setting() {
    if let Some(v) = std::env::var_os("GOALC_CORES") {
        if goalc::run::cores_setting().is_none() {
            say!(
                "goalc: warning: GOALC_CORES={} is not a number of cores (1 or more); every core \
                 is used",
                v.to_string_lossy()
            );
        }
    }
}

/// `GOALC_CORES` bounds the runs side by side too (bench's goals,
/// `--policy all`, a suite's cells, training's evaluations), not only the
/// pieces of one run: it is for a machine shared with other work.
fn keep_runs_to_cores_setting() {
    if let Some(n) = goalc::run::cores_setting() {
        // Only fails when the pool was built already, which nothing
        // before this does.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global();
    }
}

/// A progress bar of `len` steps drawn with `template` on a terminal, a
/// hidden one otherwise (logs and pipes get no bar).
pub fn progress(len: u64, template: &str) -> indicatif::ProgressBar {
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

/// Reads the store at `path` for `what` (a shard, a run): a missing file is
/// bad input, and an ignored torn last line and unknown keys are said.
pub fn read_store(
    path: &std::path::Path,
    what: &str,
) -> Result<goalc::store::StoreContents, CliError> {
    if !path.exists() {
        return Err(CliError::Usage(format!(
            "{}: no such store",
            path.display()
        )));
    }
    let contents = goalc::store::Store::read(path)?;
    if contents.torn > 0 {
        say!(
            "{}: ignored a torn last line (its {what} was interrupted)",
            path.display()
        );
    }
    for key in &contents.unknown {
        say!("{}", key.said(path));
    }
    Ok(contents)
}

/// Writes a report to standard output; a closed pipe (`| head`) is not an
/// error worth reporting, any other failure (a full disk) is.
pub fn print(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    stdout_written(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// The outcome of writing standard output: a closed pipe is a reader that
/// has had enough, not an error.
pub fn stdout_written(result: std::io::Result<()>) -> Result<(), CliError> {
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Write {
            path: "standard output".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}
