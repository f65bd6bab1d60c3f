//! `goalc report`: a result store as tables and plots, or the Markdown diff
//! of two stores.

use crate::args::FormatArg;
use crate::CliError;
use clap::Args;
use goalc::report::Format;
use goalc::results::{check_measures, diff, plots, tables};
use goalc::store::Record;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The result store (JSON lines, as `goalc bench --suite` writes it)
    #[arg(required_unless_present = "diff", conflicts_with = "diff")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArg,
    /// Folder for the SVG plots [default: beside the store, STORE.plots]
    #[arg(long, value_name = "DIR", conflicts_with = "diff")]
    pub plots: Option<PathBuf>,
    /// Write no plots
    #[arg(long, conflicts_with_all = ["plots", "diff"])]
    pub no_plots: bool,
    /// Only these measures as columns (repeatable, or comma-separated),
    /// plotted against load and months; the first two also as a scatter
    /// [default: every measure; plots of avg_wait_s and avg_slowdown]
    #[arg(
        long = "measure",
        value_name = "NAME",
        value_delimiter = ',',
        conflicts_with = "diff"
    )]
    pub measures: Vec<String>,
    /// Compare two stores (before and after a change) as Markdown: the
    /// cells whose measures moved, and the cells added or removed
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"])]
    pub diff: Option<Vec<PathBuf>>,
    /// With --diff: leave out moves smaller than PCT percent
    #[arg(long, value_name = "PCT", default_value_t = 0.0, requires = "diff")]
    pub threshold: f64,
}

/// The records of the store at `path`; a missing or empty store is bad
/// input. A store lacking cells of its suite, or holding one goal twice
/// as two cells, is warned of on standard error when `warn_incomplete`
/// (the tables say so themselves).
fn read(path: &Path, warn_incomplete: bool) -> Result<Vec<Record>, CliError> {
    let contents = crate::read_store(path, "run")?;
    if contents.records.is_empty() {
        return Err(CliError::Usage(format!(
            "{}: the store holds no records",
            path.display()
        )));
    }
    let name = path.display().to_string();
    let input = goalc::store::merge::Input {
        name: &name,
        contents: &contents,
    };
    if let Some(why) = goalc::store::merge::mixed(std::slice::from_ref(&input)) {
        say!("goalc: warning: {why}: the report mixes experiments");
    }
    // A record written twice is one cell, counted once.
    let records = goalc::store::merge::distinct(&input)?;
    if warn_incomplete {
        for note in goalc::store::merge::warnings(&name, &records) {
            say!("goalc: warning: {note}");
        }
    }
    Ok(records)
}

pub fn run(args: ReportArgs) -> Result<(), CliError> {
    if let Some(paths) = &args.diff {
        if !(args.threshold >= 0.0 && args.threshold.is_finite()) {
            return Err(CliError::Usage(format!(
                "--threshold {}: expected a percentage of 0 or more",
                args.threshold
            )));
        }
        // The diff is Markdown only: another format asked for is refused,
        // not ignored.
        if matches!(args.format.format, Format::Json | Format::Csv) {
            return Err(CliError::Usage(
                "--diff prints Markdown; --format json and csv apply to one store's tables: \
                 leave --format out"
                    .into(),
            ));
        }
        let (before, after) = (read(&paths[0], true)?, read(&paths[1], true)?);
        let d = diff::diff(&before, &after, args.threshold);
        crate::print(&diff::markdown(
            &d,
            &paths[0].display().to_string(),
            &paths[1].display().to_string(),
            args.threshold,
        ))?;
        return Ok(());
    }
    let Some(store) = &args.store else {
        return Err(CliError::Usage(
            "give a store, or --diff BEFORE AFTER".into(),
        ));
    };
    check_measures(&args.measures).map_err(|e| CliError::Usage(e.to_string()))?;
    let dir = args
        .plots
        .clone()
        .unwrap_or_else(|| store.with_extension("plots"));
    // Found out before the tables are printed, not after.
    if !args.no_plots && dir.exists() && !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "{}: not a folder, so no place for the plots (--plots names a folder; --no-plots writes none)",
            dir.display()
        )));
    }
    let tables_say_it = matches!(args.format.format, Format::Table | Format::Markdown);
    let records = read(store, !tables_say_it)?;
    let only: Vec<&str> = args.measures.iter().map(String::as_str).collect();
    let plan = if args.no_plots {
        None
    } else if only.is_empty() {
        Some(plots::plan(
            &records,
            plots::DEFAULT_MEASURES,
            plots::DEFAULT_SCATTERS,
        ))
    } else {
        let scatter: Vec<(&str, &str)> = match only.as_slice() {
            [a, b, ..] => vec![(a, b)],
            _ => Vec::new(),
        };
        Some(plots::plan(&records, &only, &scatter))
    };
    // Found out before the tables are printed, as the folder is.
    for p in plan.iter().flat_map(|plan| &plan.plots) {
        let input = [("the store", store.as_path())];
        crate::same_file::refuse_input_as_output("the plot", &dir.join(&p.file), input)?;
    }
    crate::print(&tables::render(&records, args.format.format, &only))?;
    let Some(plan) = plan else {
        return Ok(());
    };
    for note in &plan.skipped {
        say!("note: {note}");
    }
    let written = plots::write(&plan, &dir).map_err(|e| CliError::Usage(e.to_string()))?;
    say!(
        "plots: {} in {}",
        goalc::report::count(written.len(), "SVG file"),
        dir.display()
    );
    Ok(())
}
