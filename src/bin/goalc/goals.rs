//! Goal files on the command line: folders expanded, files checked, the
//! diagnostics shown.

use crate::CliError;
use goalc::lang::{self, Checked};
use goalc::run::Goal;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Expands folders into their `.goal` files (sorted); files stay as given.
/// A `.goal` entry of a folder that cannot be read (a link to nothing, a
/// loop of links) is an error naming it, as a file given by name is.
pub fn goal_paths(args: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut paths = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let unreadable =
                |p: &Path, e: std::io::Error| CliError::Usage(format!("{}: {e}", p.display()));
            let mut found = Vec::new();
            for entry in lang::goal_files_in(arg).map_err(|e| unreadable(arg, e))? {
                match entry {
                    Ok(p) => found.push(p),
                    Err((None, e)) => return Err(unreadable(arg, e)),
                    // Listed but not there: a link whose file is missing.
                    Err((Some(p), e)) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(CliError::Usage(format!(
                            "{}: a symbolic link to a missing file",
                            p.display()
                        )))
                    }
                    Err((Some(p), e)) => return Err(unreadable(&p, e)),
                }
            }
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
pub fn check_paths(paths: &[PathBuf]) -> Result<Vec<Checked>, CliError> {
    paths
        .iter()
        .map(|p| lang::check_file(p).map_err(|e| CliError::Usage(format!("{}: {e}", p.display()))))
        .collect()
}

/// Checks goal files and returns the compiled goals, or prints the
/// diagnostics and fails. When no file has an error, warnings are named in
/// one line rather than shown: a bench of a whole folder (where `goals/`
/// keeps the GOAL paper's harmful combinations on purpose) should open
/// with its results; `goalc check` shows them in full.
pub fn compile_goals(paths: &[PathBuf]) -> Result<Vec<Goal>, CliError> {
    let checked = check_paths(paths)?;
    let bad: Vec<&str> = checked
        .iter()
        .filter(|c| c.has_errors())
        .map(|c| c.file.as_str())
        .collect();
    if !bad.is_empty() {
        let color = std::io::stderr().is_terminal();
        let report: String = checked.iter().map(|c| c.render(color)).collect();
        let _ = std::io::stderr().lock().write_all(report.as_bytes());
        return Err(CliError::GoalErrors(format!(
            "{} goal file(s) with errors, nothing was run: {}",
            bad.len(),
            bad.join(", ")
        )));
    }
    let warned: Vec<&str> = checked
        .iter()
        .filter(|c| !c.diagnostics.is_empty())
        .map(|c| c.file.as_str())
        .collect();
    if !warned.is_empty() {
        let line = format!(
            "goalc: {} goal file(s) with warnings (`goalc check` shows them): {}",
            warned.len(),
            warned.join(", ")
        );
        let _ = write!(std::io::stderr(), "{}", goalc::report::wrap(&line, 120));
    }
    let goals: Vec<(String, Goal)> = checked
        .into_iter()
        .filter_map(|c| Some((c.file, c.goal?)))
        .collect();
    // Reports tell goals apart by name: two of one name would be two rows
    // no reader could tell apart.
    for (again, (file, goal)) in goals.iter().enumerate() {
        if let Some((first, _)) = goals[..again].iter().find(|(_, g)| g.name == goal.name) {
            return Err(CliError::Usage(if first == file {
                format!("goal file `{file}` is named twice: name each goal file once")
            } else {
                format!(
                    "goal files `{first}` and `{file}` are both named `{}`: give one of them \
                     another `name`",
                    goal.name
                )
            }));
        }
    }
    Ok(goals.into_iter().map(|(_, g)| g).collect())
}
