//! `goalc check`: diagnostics of goal files, compiler style or JSON.

use crate::goals::{check_paths, goal_paths};
use crate::CliError;
use clap::{Args, ValueEnum};
use goalc::lang;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

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

pub fn run(args: CheckArgs) -> Result<(), CliError> {
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
            crate::print(&text)?;
        }
    }
    if checked.iter().any(|c| c.has_errors()) {
        // The diagnostics already said what; exit 1 without another message.
        return Err(CliError::GoalErrors(String::new()));
    }
    Ok(())
}
