//! The goal language: parse (grammar/goal.pest) -> check -> compile.
//!
//! Data flows one way: [`syntax`] turns text into statements with spans,
//! [`check`] routes them to the [`statements`] of each mechanism and has
//! [`mode`] decide how the goal schedules, giving a typed [`goal`] or
//! diagnostics; [`compile`] turns the goal into the core's policy specs.
//! Files depend downwards only: `check` -> `statements` -> `mode`, `goal`
//! -> `args` -> `diag`, `syntax`. The simulation core does not depend on
//! this module.

// Diagnostics are the error path of a checker that runs once per file:
// moving them by value costs nothing that matters, boxing would cost clarity.
#![allow(clippy::result_large_err)]

pub mod args;
pub mod check;
pub mod compile;
pub mod diag;
pub mod draft;
pub mod mode;
pub mod statements;
pub mod syntax;

pub use crate::run::Goal;
pub use diag::{Diagnostic, Severity, Span};

use std::path::Path;

/// The result of checking one goal file.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Name used in messages (the path as given).
    pub file: String,
    /// The text as checked (invalid UTF-8 replaced, so it can be shown).
    pub text: String,
    /// The compiled goal when there is no error.
    pub goal: Option<Goal>,
    /// Errors and warnings, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// All diagnostics rendered in compiler style.
    pub fn render(&self, color: bool) -> String {
        self.diagnostics
            .iter()
            .map(|d| diag::render(&self.file, &self.text, d, color))
            .collect()
    }
}

/// Parses, checks and compiles goal text. `file` names it in messages and
/// its stem names the goal when the text has no `name`.
pub fn check_text(file: &str, text: &str) -> Checked {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.to_string());
    let (goal, mut diagnostics) = match syntax::parse(text) {
        Ok(statements) => {
            let (goal, diags) = check::check(text, &statements);
            (goal.map(|g| compile::compile(&g, &stem)), diags)
        }
        Err(d) => (None, vec![d]),
    };
    diagnostics.sort_by_key(|d| d.span.start);
    Checked {
        file: file.to_string(),
        text: text.to_string(),
        goal,
        diagnostics,
    }
}

/// Checks goal file bytes: text that is not UTF-8 gets an error at the
/// first bad byte instead of a parse.
pub fn check_bytes(file: &str, bytes: &[u8]) -> Checked {
    match std::str::from_utf8(bytes) {
        Ok(text) => check_text(file, text),
        Err(e) => {
            let at = e.valid_up_to();
            let text = String::from_utf8_lossy(bytes).into_owned();
            // The lossy text equals the original up to `at`, where U+FFFD stands.
            let len = text[at..].chars().next().map_or(0, char::len_utf8);
            Checked {
                file: file.to_string(),
                goal: None,
                diagnostics: vec![Diagnostic::error(
                    Span::new(at, at + len),
                    format!("not UTF-8 text: byte 0x{:02x} at offset {at}", bytes[at]),
                )
                .with_label("not text")
                .with_help("goal files are plain UTF-8 text; is this a binary file?")],
                text,
            }
        }
    }
}

/// Reads and checks a goal file.
pub fn check_file(path: &Path) -> std::io::Result<Checked> {
    Ok(check_bytes(
        &path.display().to_string(),
        &read_goal_file(path)?,
    ))
}

/// A goal file's bytes: a file over [`syntax::MAX_FILE_BYTES`] is read only
/// to one character past it, which the check refuses, rather than whole.
pub fn read_goal_file(path: &Path) -> std::io::Result<Vec<u8>> {
    // A UTF-8 character has at most 4 bytes.
    let mut bytes = crate::workload::input::read_at_most(path, syntax::MAX_FILE_BYTES as u64 + 4)?;
    if bytes.len() > syntax::MAX_FILE_BYTES {
        // A character cut at the end is the read's doing, not the file's.
        if let Err(e) = std::str::from_utf8(&bytes) {
            if e.error_len().is_none() {
                bytes.truncate(e.valid_up_to());
            }
        }
    }
    Ok(bytes)
}

/// A `.goal` entry of a folder that cannot be read: its path, or `None`
/// where listing the folder failed part way.
pub type UnreadableGoal = (Option<std::path::PathBuf>, std::io::Error);

/// The `.goal` entries of folder `dir` in the order listed, followed
/// through links (a folder named `x.goal` is no goal file); one that cannot
/// be read (a link to nothing, a loop of links) is given with its error,
/// for the caller to name rather than leave out.
pub fn goal_files_in(
    dir: &Path,
) -> std::io::Result<Vec<Result<std::path::PathBuf, UnreadableGoal>>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = match entry {
            Ok(e) => e.path(),
            Err(e) => {
                out.push(Err((None, e)));
                continue;
            }
        };
        if path.extension().is_none_or(|x| x != "goal") {
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => out.push(Ok(path)),
            Err(e) => out.push(Err((Some(path), e))),
        }
    }
    Ok(out)
}

/// A goal template for `goalc train`: its criteria may lack parameters.
#[derive(Debug, Clone)]
pub struct Template {
    pub name: Option<String>,
    pub groups: crate::workload::groups::Bands,
    pub owner: crate::measures::owner::OwnerObjective,
    pub greedy: draft::GreedyDraft,
}

/// Checks a template for training: a greedy goal whose criteria may come
/// without parameters, with an owner objective to train for. On errors,
/// the [`Checked`] to render.
pub fn check_template(file: &str, text: &str) -> Result<Template, Checked> {
    let fail = |diagnostics: Vec<Diagnostic>| Checked {
        file: file.to_string(),
        text: text.to_string(),
        goal: None,
        diagnostics,
    };
    let statements = syntax::parse(text).map_err(|d| fail(vec![d]))?;
    let (draft, mut diags) = check::check_as(text, &statements, true);
    diags.sort_by_key(|d| d.span.start);
    let Some(draft) = draft else {
        return Err(fail(diags));
    };
    let whole = Span::new(0, text.len().min(1));
    let (Some(greedy), Some(groups)) = (draft.greedy, draft.groups) else {
        return Err(fail(vec![Diagnostic::error(
            whole,
            "nothing to train: the goal states no greedy criterion",
        )
        .with_label("no `criterion` statement")
        .with_help(
            "a template names a criterion per situation, e.g. `criterion all f2`",
        )]));
    };
    let Some(owner) = draft.owner else {
        return Err(fail(vec![Diagnostic::error(
            whole,
            "nothing to train for: the goal states no owner objective",
        )
        .with_label("no `owner` statement")
        .with_help(
            "state what training minimises, e.g. owner 10*awrt(group 1) + 4*awrt(group 2)",
        )]));
    };
    Ok(Template {
        name: draft.name,
        groups,
        owner,
        greedy,
    })
}
