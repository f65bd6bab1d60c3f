//! Suite text to a checked [`Suite`], or diagnostics in the goal
//! language's style: `file:line:col`, the line, a caret, did-you-mean.
//! Every mistake the file can hold is found here, before anything runs.

use super::cells::{self, MAX_CELLS};
use super::format::{
    AxesFile, EventsName, FactorByName, LoadByName, ModelEntry, SuiteFile, TraceEntry,
    WorkloadSettings,
};
use super::manifest;
use super::spec::{AxisValues, Place, Settings, Suite, SuiteGoal, SuiteTrace, TraceSource};
use super::workloads::{self, Written};
use crate::lang::args::did_you_mean;
use crate::lang::diag::{render, Diagnostic, Span};
use crate::policy::search::SearchSpec;
use crate::run::{FactorBy, LoadBy, WindowSpec};
use crate::sim::EventMode;
use crate::store::sha256_hex;
use crate::units::{format_duration, parse_duration};
use crate::workload::model::{ModelError, ModelParams};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The result of checking a suite file.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The suite file as named in messages.
    pub file: String,
    pub text: String,
    /// The suite file's own diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Its goal files, checked (with their own diagnostics).
    pub goals: Vec<crate::lang::Checked>,
    /// The suite, when nothing has an error.
    pub suite: Option<Suite>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
            || self.goals.iter().any(crate::lang::Checked::has_errors)
    }

    /// Every diagnostic, the suite file's first, in compiler style.
    pub fn render(&self, color: bool) -> String {
        let mut out: String = self
            .diagnostics
            .iter()
            .map(|d| render(&self.file, &self.text, d, color))
            .collect();
        for g in &self.goals {
            out += &g.render(color);
        }
        out
    }
}

/// Reads and checks a suite file; `traces_dir` is where manifest names
/// are found (`$GOALC_TRACES`).
pub fn check_file(path: &Path, traces_dir: Option<&Path>) -> std::io::Result<Checked> {
    let bytes = crate::workload::input::read_whole(path)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let base = path.parent().unwrap_or(Path::new("."));
    Ok(check_text(
        &path.display().to_string(),
        &text,
        base,
        traces_dir,
    ))
}

/// Checks suite text; paths in it are relative to `base`.
pub fn check_text(file: &str, text: &str, base: &Path, traces_dir: Option<&Path>) -> Checked {
    let mut out = Checked {
        file: file.to_string(),
        text: text.to_string(),
        diagnostics: Vec::new(),
        goals: Vec::new(),
        suite: None,
    };
    let parsed: SuiteFile = match toml::from_str(text) {
        Ok(p) => p,
        Err(e) => {
            out.diagnostics.push(toml_diagnostic(text, &e));
            return out;
        }
    };
    let mut cx = Cx {
        base,
        text,
        diags: Vec::new(),
    };
    let goal_paths = cx.goal_paths(&parsed.goals);
    let traces = cx.traces(&parsed.trace, traces_dir);
    let settings = cx.settings(parsed.workload.as_ref());
    let procs_at = parsed
        .workload
        .as_ref()
        .and_then(|w| w.get_ref().procs.as_ref());
    let model = traces
        .iter()
        .flatten()
        .find(|t| matches!(t.source, TraceSource::Model { .. }));
    if let (Some(at), Some(model)) = (procs_at, model) {
        cx.help(
            span(at),
            "for trace files only",
            format!(
                "`procs` sets the machine of trace files, but `{}` is the built-in model",
                model.name
            ),
            "give the model its machine with its own `procs`, or leave `procs` out here",
        );
    }
    // Where a warm-up or cool-down is given, for the error when nothing
    // is windowed.
    let around = parsed.workload.as_ref().and_then(|w| {
        let w = w.get_ref();
        w.warmup.as_ref().or(w.cooldown.as_ref()).map(span)
    });
    let axes = cx.axes(parsed.axes.as_ref(), &traces, around);
    if let (Some(traces), Some(axes)) = (&traces, &axes) {
        cx.distinct_workload_names(traces, &axes.seeds, &parsed.trace);
    }
    let mut goals = Vec::new();
    for path in &goal_paths {
        let (checked, hash) = match std::fs::read(path) {
            Ok(bytes) => (
                crate::lang::check_bytes(&path.display().to_string(), &bytes),
                sha256_hex(&bytes),
            ),
            Err(e) => {
                cx.diags.push(
                    Diagnostic::error(
                        span(&parsed.goals),
                        format!("cannot read goal file `{}`: {e}", path.display()),
                    )
                    .with_label("a goal that cannot be read"),
                );
                continue;
            }
        };
        if let Some(goal) = &checked.goal {
            goals.push(SuiteGoal {
                path: path.clone(),
                hash,
                goal: goal.clone(),
            });
        }
        out.goals.push(checked);
    }
    cx.distinct_goal_names(&goals, &parsed.goals);
    let mut suite = None;
    if let (Some(traces), Some(settings), Some(axes)) = (traces, settings, axes) {
        let s = Suite {
            file: file.to_string(),
            goals,
            traces,
            settings,
            axes,
        };
        // Its workloads are made only when the file is right so far (the
        // run would refuse what the checker said already, in its words)
        // and within the limit (beyond it there could be millions).
        let right = !cx.diags.iter().any(Diagnostic::is_error);
        if cx.within_cell_limit(&s, &parsed) && right {
            let written = cx.written(&parsed);
            cx.diags.extend(workloads::check(&s, &written));
        }
        suite = Some(s);
    }
    out.diagnostics = cx.diags;
    out.diagnostics.sort_by_key(|d| d.span);
    if !out.has_errors() {
        out.suite = suite;
    }
    out
}

fn span<T>(s: &Spanned<T>) -> Span {
    let r = s.span();
    Span::new(r.start, r.end)
}

/// A TOML or shape error (unknown key, wrong type, missing key) as a
/// diagnostic; unknown keys and names get a did-you-mean from the list
/// serde gives.
fn toml_diagnostic(text: &str, e: &toml::de::Error) -> Diagnostic {
    let at = e.span().map_or(Span::new(text.len(), text.len()), |r| {
        Span::new(r.start, r.end)
    });
    let message = e.message().trim().to_string();
    let words = backticked(&message);
    let label = if message.starts_with("unknown field") {
        "unknown key".to_string()
    } else if message.starts_with("unknown variant") {
        "unknown value".to_string()
    } else if let (true, Some(field)) = (message.starts_with("missing field"), words.first()) {
        // serde places a key missing from the top at the file's start.
        let table = if at.start == 0 { "file" } else { "table" };
        format!("no `{field}` in this {table}")
    } else if let Some((_, expected)) = message.split_once(", expected ") {
        format!("expected {expected}")
    } else {
        "here".to_string()
    };
    let mut d = Diagnostic::error(at, message.replace('\n', " ")).with_label(label);
    let unknown = ["unknown field", "unknown variant"]
        .iter()
        .any(|p| message.starts_with(p));
    if let (true, Some((word, candidates))) = (unknown, words.split_first()) {
        let candidates: Vec<&str> = candidates.iter().map(String::as_str).collect();
        d = match did_you_mean(word, candidates.iter().copied()) {
            Some(c) => d.with_help(format!("did you mean `{c}`?")),
            None if candidates.is_empty() => d,
            None => d.with_help(format!("expected one of: {}", candidates.join(", "))),
        };
    } else if message.starts_with("missing field") {
        d = d.with_help("see suites/example.toml for the format, with comments");
    }
    d
}

/// The words in backticks of a message, in order.
fn backticked(message: &str) -> Vec<String> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

struct Cx<'a> {
    base: &'a Path,
    /// The suite file's text, for values as written.
    text: &'a str,
    diags: Vec<Diagnostic>,
}

impl<'a> Cx<'a> {
    /// An error at `at`, whose caret says `label`.
    fn error(&mut self, at: Span, label: &str, message: impl Into<String>) -> &mut Diagnostic {
        self.diags
            .push(Diagnostic::error(at, message).with_label(label));
        let last = self.diags.len() - 1;
        &mut self.diags[last]
    }

    fn help(&mut self, at: Span, label: &str, message: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::error(at, message)
            .with_label(label)
            .with_help(help);
        self.diags.push(d);
    }

    /// A path of the suite file, relative to its folder.
    fn path(&self, written: &str) -> PathBuf {
        self.base.join(written)
    }

    /// A help for a path that does not exist: a near name in its folder.
    fn near_path(&self, written: &str) -> String {
        let p = Path::new(written);
        let parent = p.parent().unwrap_or(Path::new(""));
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let entries: Vec<String> = std::fs::read_dir(self.base.join(parent))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let found = name
            .as_deref()
            .and_then(|n| did_you_mean(n, entries.iter().map(String::as_str)));
        match found {
            Some(f) => format!("did you mean `{}`?", parent.join(f).display()),
            None => {
                let base = if self.base.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    self.base
                };
                format!(
                    "paths are relative to the suite file's folder, `{}`",
                    base.display()
                )
            }
        }
    }

    /// Why `written` is not a usable `what` (say "trace file"): it does not
    /// exist, or it is something else (a folder, a device, a pipe).
    fn not_found(&mut self, at: Span, written: &str, what: &str) {
        let path = self.path(written);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => self.help(
                at,
                "a folder",
                format!("`{written}` is a folder, not a {what}"),
                format!("name a {what} inside it"),
            ),
            Ok(_) => self.help(
                at,
                "not a regular file",
                format!(
                    "`{written}` is not a regular file (a device, pipe or socket), so not a {what}"
                ),
                format!("name a {what}"),
            ),
            Err(_) if std::fs::symlink_metadata(&path).is_ok() => self.help(
                at,
                "a link to nothing",
                format!("`{written}` is a link to nothing (its target does not exist)"),
                format!("make the link point to a {what}, or name the {what} itself"),
            ),
            Err(_) => {
                let help = self.near_path(written);
                self.help(at, "not found", format!("no such {what} `{written}`"), help);
            }
        }
    }

    /// Goal files, folders expanded (sorted), each once.
    fn goal_paths(&mut self, goals: &Spanned<Vec<Spanned<String>>>) -> Vec<PathBuf> {
        if goals.get_ref().is_empty() {
            self.help(
                span(goals),
                "no goals",
                "no goals: the suite would have no cells",
                "name goal files or folders, e.g. goals = [\"../goals\"]",
            );
        }
        let mut out: Vec<PathBuf> = Vec::new();
        let mut seen: BTreeMap<PathBuf, Span> = BTreeMap::new();
        for g in goals.get_ref() {
            let at = span(g);
            let path = self.path(g.get_ref());
            let found: Vec<PathBuf> = if path.is_dir() {
                let mut found = Vec::new();
                let mut unreadable = Vec::new();
                // As on the command line: a `.goal` entry that cannot be
                // read is named, not left out.
                let folder = |e| format!("folder `{}`: {e}", g.get_ref());
                match crate::lang::goal_files_in(&path) {
                    Ok(entries) => {
                        for entry in entries {
                            match entry {
                                Ok(p) => found.push(p),
                                Err((None, e)) => unreadable.push(folder(e)),
                                Err((Some(p), e)) => unreadable.push(format!(
                                    "goal file `{}` cannot be read: {e}",
                                    p.display()
                                )),
                            }
                        }
                    }
                    Err(e) => unreadable.push(folder(e)),
                }
                for message in &unreadable {
                    self.error(at, "cannot be read", message.clone());
                }
                if found.is_empty() && unreadable.is_empty() {
                    self.error(
                        at,
                        "no .goal files there",
                        format!("no .goal files in folder `{}`", g.get_ref()),
                    );
                }
                found.sort();
                found
            } else if path.is_file() {
                vec![path]
            } else {
                self.not_found(at, g.get_ref(), "goal file or folder");
                continue;
            };
            for p in found {
                let canon = p.canonicalize().unwrap_or_else(|_| p.clone());
                if let Some(first) = seen.get(&canon) {
                    let first = *first;
                    let d = self.error(
                        at,
                        "named again here",
                        format!("goal file `{}` is named twice", p.display()),
                    );
                    *d = d
                        .clone()
                        .with_related(first, "first named here")
                        .with_help("name each goal file once: a cell is a goal on a workload");
                    continue;
                }
                seen.insert(canon, at);
                out.push(p);
            }
        }
        out
    }

    /// Two goals of one name would be two cells reports cannot tell apart.
    fn distinct_goal_names(&mut self, goals: &[SuiteGoal], at: &Spanned<Vec<Spanned<String>>>) {
        let mut seen: BTreeMap<&str, &Path> = BTreeMap::new();
        for g in goals {
            if let Some(first) = seen.insert(&g.goal.name, &g.path) {
                self.help(
                    span(at),
                    "two goals of one name",
                    format!(
                        "two goals are named `{}`: `{}` and `{}`",
                        g.goal.name,
                        first.display(),
                        g.path.display()
                    ),
                    "give one of them another `name`: reports tell goals apart by name",
                );
            }
        }
    }

    fn traces(
        &mut self,
        traces: &Spanned<Vec<Spanned<TraceEntry>>>,
        traces_dir: Option<&Path>,
    ) -> Option<Vec<SuiteTrace>> {
        if traces.get_ref().is_empty() {
            self.help(
                span(traces),
                "no traces",
                "no traces: the suite would have no cells",
                "add a [[trace]] with `manifest`, `path` or `model`",
            );
            return None;
        }
        let mut out = Vec::new();
        let mut names: BTreeMap<String, Span> = BTreeMap::new();
        let mut ok = true;
        // Where each manifest trace is named, and its file.
        let mut from_manifest = Vec::new();
        for t in traces.get_ref() {
            let at = span(t);
            let Some(trace) = self.trace(at, t.get_ref(), traces_dir) else {
                ok = false;
                continue;
            };
            if let (Some(named), TraceSource::File { path, .. }) =
                (&t.get_ref().manifest, &trace.source)
            {
                from_manifest.push((span(named), trace.name.clone(), path.clone()));
            }
            if let Some(first) = names.insert(trace.name.clone(), at) {
                let d = self.error(
                    at,
                    "named again here",
                    format!("trace `{}` is named twice", trace.name),
                );
                *d = d.clone().with_related(first, "first named here");
                ok = false;
            }
            out.push(trace);
        }
        self.manifest_digests(&from_manifest);
        ok.then_some(out)
    }

    /// A manifest trace whose file in GOALC_TRACES is not the text the
    /// manifest gives the sha256 of (another version of the log, a damaged
    /// download) is an error at its name, with both digests and the
    /// manifest's line: found by the layout, it stopped the run with
    /// neither place named, after every workload had been made.
    fn manifest_digests(&mut self, named: &[(Span, String, PathBuf)]) {
        let all = manifest::traces();
        // At once: reading the traces is nearly all the cost.
        let digests: Vec<_> = named
            .par_iter()
            .map(|(_, _, path)| cells::file_sha256(path))
            .collect();
        for ((at, name, path), digest) in named.iter().zip(digests) {
            let Some(entry) = all.iter().find(|e| e.name == *name) else {
                continue;
            };
            match digest {
                Ok(digest) if digest == entry.swf_sha256 => {}
                Ok(digest) => self.help(
                    *at,
                    "not the manifest's text",
                    format!(
                        "`{}` is not the manifest's trace `{name}`: the sha256 of its text is \
                         {digest}, {}:{} says {}",
                        path.display(),
                        manifest::PATH,
                        entry.sha256_line,
                        entry.swf_sha256
                    ),
                    format!(
                        "download the trace again as {} says; `zcat FILE | sha256sum` gives \
                         the sha256 of its text",
                        manifest::PATH
                    ),
                ),
                Err(e) => {
                    self.error(
                        *at,
                        "cannot be read",
                        format!("manifest trace `{name}`: {e}"),
                    );
                }
            }
        }
    }

    /// The model makes one workload per seed, named for its parameters
    /// and seed (`lublin-1000-64-s2`): a trace file of that name would be
    /// a second workload reports cannot tell apart from it.
    fn distinct_workload_names(
        &mut self,
        traces: &[SuiteTrace],
        seeds: &[u64],
        entries: &Spanned<Vec<Spanned<TraceEntry>>>,
    ) {
        let files: BTreeMap<&str, usize> = traces
            .iter()
            .enumerate()
            .filter(|(_, t)| !matches!(t.source, TraceSource::Model { .. }))
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        for (i, t) in traces.iter().enumerate() {
            let TraceSource::Model {
                jobs,
                procs,
                widest,
                users,
            } = t.source
            else {
                continue;
            };
            for &seed in seeds {
                let name = crate::workload::model::workload_name(&ModelParams {
                    jobs,
                    procs,
                    widest,
                    users,
                    seed,
                });
                let Some(&file) = files.get(name.as_str()) else {
                    continue;
                };
                let d = self.error(
                    span(&entries.get_ref()[file]),
                    "named as a workload of the model",
                    format!(
                        "trace `{name}` has the name of the model's workload with seed {seed}: \
                         reports could not tell the two apart"
                    ),
                );
                *d = d
                    .clone()
                    .with_related(span(&entries.get_ref()[i]), "the model")
                    .with_help("rename the trace file, or leave that seed out");
            }
        }
    }

    fn trace(&mut self, at: Span, t: &TraceEntry, traces_dir: Option<&Path>) -> Option<SuiteTrace> {
        let given = [t.manifest.is_some(), t.path.is_some(), t.model.is_some()];
        if given.iter().filter(|&&g| g).count() != 1 {
            self.help(
                at,
                "one kind per [[trace]]",
                "a trace is one of `manifest`, `path` or `model`",
                "write one [[trace]] table per trace, each with exactly one of them",
            );
            return None;
        }
        if let Some(name) = &t.manifest {
            return self.manifest_trace(name, traces_dir);
        }
        if let Some(p) = &t.path {
            let path = self.path(p.get_ref());
            if !path.is_file() {
                self.not_found(span(p), p.get_ref(), "trace file");
                return None;
            }
            return Some(SuiteTrace {
                name: crate::workload::swf::trace_name(&path),
                source: TraceSource::File {
                    path,
                    manifest_sha256: None,
                },
            });
        }
        t.model.as_ref().and_then(|m| self.model(m))
    }

    fn manifest_trace(
        &mut self,
        name: &Spanned<String>,
        traces_dir: Option<&Path>,
    ) -> Option<SuiteTrace> {
        let at = span(name);
        let all = manifest::traces();
        let Some(entry) = all.iter().find(|t| t.name == *name.get_ref()) else {
            let near = did_you_mean(name.get_ref(), all.iter().map(|t| t.name.as_str()));
            let help = match near {
                Some(n) => format!("did you mean `{n}`?"),
                None => format!(
                    "traces/manifest.toml names: {}",
                    all.iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            self.help(
                at,
                "not in the manifest",
                format!(
                    "`{}` is not a trace of traces/manifest.toml",
                    name.get_ref()
                ),
                help,
            );
            return None;
        };
        let Some(dir) = traces_dir else {
            self.help(
                at,
                "needs GOALC_TRACES",
                format!("cannot find manifest trace `{}`: GOALC_TRACES is not set", entry.name),
                "set GOALC_TRACES to the folder of the reference traces, or give the trace's `path`",
            );
            return None;
        };
        let path = dir.join(&entry.file);
        if !path.is_file() {
            self.help(
                at,
                "not in GOALC_TRACES",
                format!("manifest trace `{}` is not in GOALC_TRACES", entry.name),
                format!(
                    "expected `{}`; download it as traces/manifest.toml says",
                    path.display()
                ),
            );
            return None;
        }
        Some(SuiteTrace {
            name: entry.name.clone(),
            source: TraceSource::File {
                path,
                manifest_sha256: Some(entry.swf_sha256.clone()),
            },
        })
    }

    fn model(&mut self, m: &Spanned<ModelEntry>) -> Option<SuiteTrace> {
        let d = ModelParams::default();
        let at = span(m);
        let m = m.get_ref();
        let jobs = self
            .whole(m.jobs.as_ref(), 1, "jobs")?
            .unwrap_or(d.jobs as u64);
        let procs = self
            .whole(m.procs.as_ref(), 1, "procs")?
            .unwrap_or(d.procs as u64);
        let widest = self.whole(m.widest.as_ref(), 1, "widest")?;
        let procs = self.fits_u32(m.procs.as_ref(), procs)?;
        let widest = match widest {
            Some(w) => Some(self.fits_u32(m.widest.as_ref(), w)?),
            None => None,
        };
        // 0 is no users, as on the command line.
        let users = match self.whole(m.users.as_ref(), 0, "users")? {
            Some(u) => Some(self.fits_u32(m.users.as_ref(), u)?).filter(|&u| u > 0),
            None => None,
        };
        let mut name = match widest {
            Some(w) => format!("lublin-{jobs}-{procs}-w{w}"),
            None => format!("lublin-{jobs}-{procs}"),
        };
        if let Some(u) = users {
            name += &format!("-u{u}");
        }
        let params = ModelParams {
            jobs: jobs as usize,
            procs,
            widest,
            users,
            ..d
        };
        if let Err(e) = params.check() {
            let field = match e {
                ModelError::Widest { .. } => m.widest.as_ref(),
                ModelError::Users(_) => m.users.as_ref(),
                ModelError::NoProcs => m.procs.as_ref(),
                _ => m.jobs.as_ref(),
            };
            self.error(field.map_or(at, span), "out of range", e.to_string());
            return None;
        }
        Some(SuiteTrace {
            name,
            source: TraceSource::Model {
                jobs: jobs as usize,
                procs,
                widest,
                users,
            },
        })
    }

    /// A whole number of at least `min`, when given.
    fn whole(&mut self, v: Option<&Spanned<i64>>, min: i64, what: &str) -> Option<Option<u64>> {
        let Some(v) = v else { return Some(None) };
        if *v.get_ref() < min {
            self.error(
                span(v),
                "too small",
                format!("`{what}` must be at least {min}, got {}", v.get_ref()),
            );
            return None;
        }
        Some(Some(*v.get_ref() as u64))
    }

    fn fits_u32(&mut self, v: Option<&Spanned<i64>>, n: u64) -> Option<u32> {
        match u32::try_from(n) {
            Ok(n) => Some(n),
            Err(_) => {
                let at = v.map_or(Span::new(0, 0), span);
                self.error(
                    at,
                    "too large",
                    format!("{n} is too large (at most {})", u32::MAX),
                );
                None
            }
        }
    }

    fn duration(&mut self, v: Option<&Spanned<String>>) -> Option<crate::workload::Time> {
        let Some(v) = v else { return Some(0) };
        match parse_duration(v.get_ref()) {
            Ok(t) => Some(t),
            Err(e) => {
                self.help(
                    span(v),
                    "not a duration",
                    e.to_string(),
                    "durations read like 90s, 30m, 24h, 7d",
                );
                None
            }
        }
    }

    fn settings(&mut self, w: Option<&Spanned<WorkloadSettings>>) -> Option<Settings> {
        let Some(w) = w else {
            return Some(Settings::default());
        };
        let w = w.get_ref();
        let warmup = self.duration(w.warmup.as_ref());
        let cooldown = self.duration(w.cooldown.as_ref());
        let first_jobs = self.whole(w.first_jobs.as_ref(), 1, "first_jobs");
        let procs = self.whole(w.procs.as_ref(), 1, "procs");
        let procs = match procs? {
            Some(p) => Some(self.fits_u32(w.procs.as_ref(), p)?),
            None => None,
        };
        Some(Settings {
            warmup: warmup?,
            cooldown: cooldown?,
            load_by: match w.load_by.as_ref().map(|v| *v.get_ref()) {
                Some(LoadByName::Runtimes) => LoadBy::Runtimes,
                _ => LoadBy::Arrivals,
            },
            factor_by: match w.factor_by.as_ref().map(|v| *v.get_ref()) {
                Some(FactorByName::Expansion) => FactorBy::Expansion,
                _ => FactorBy::Duplication,
            },
            first_jobs: first_jobs?.map(|n| n as usize),
            procs,
        })
    }

    /// An axis list: not empty, no value twice.
    fn list<'v, T: PartialEq>(
        &mut self,
        name: &str,
        list: Option<&'v Spanned<Vec<Spanned<T>>>>,
    ) -> Option<&'v [Spanned<T>]> {
        let list = list?;
        if list.get_ref().is_empty() {
            self.help(
                span(list),
                "no values",
                format!("axis `{name}` is empty: the suite would have no cells"),
                format!("give `{name}` at least one value, or leave it out"),
            );
            return Some(&[]);
        }
        let items = list.get_ref();
        for (i, v) in items.iter().enumerate() {
            if let Some(first) = items[..i].iter().find(|f| f.get_ref() == v.get_ref()) {
                let first = span(first);
                let d = self.error(
                    span(v),
                    "again here",
                    format!("axis `{name}` has this value twice"),
                );
                *d = d.clone().with_related(first, "first here");
            }
        }
        Some(items)
    }

    fn positive(
        &mut self,
        name: &str,
        list: Option<&Spanned<Vec<Spanned<f64>>>>,
    ) -> Vec<Option<f64>> {
        let Some(items) = self.list(name, list) else {
            return vec![None];
        };
        for v in items {
            let x = *v.get_ref();
            if !(x.is_finite() && x > 0.0) {
                // As written: Rust prints -1e308 in 309 digits.
                let written = self.text.get(v.span()).unwrap_or("").trim().to_string();
                self.error(
                    span(v),
                    "not positive",
                    format!("`{name}` values must be positive, got {written}"),
                );
            }
        }
        items.iter().map(|v| Some(*v.get_ref())).collect()
    }

    /// Whether `suite` has at most [`MAX_CELLS`] cells; if not, an error
    /// at its longest axis (its goals when it has no axes), made from the
    /// counts before any cell is.
    fn within_cell_limit(&mut self, suite: &Suite, parsed: &SuiteFile) -> bool {
        let cells = cells::count(&suite.goals, &suite.traces, &suite.axes);
        if cells <= MAX_CELLS as u128 {
            return true;
        }
        let a = &suite.axes;
        let goals = cells::laid_goals(&suite.goals, a);
        let workloads = cells::trace_workloads(&suite.traces, a);
        let mut factors = vec![if goals == suite.goals.len() as u128 {
            counted(goals, "goal")
        } else {
            format!("{goals} goals (search goals once per budget)")
        }];
        factors.push(if workloads == suite.traces.len() as u128 {
            counted(workloads, "trace")
        } else {
            format!("{workloads} workloads of the traces (the model once per seed)")
        });
        let place_key = if matches!(a.places.first(), Some(Place::Month(_))) {
            "months"
        } else {
            "windows"
        };
        for (key, len) in [
            ("exact_estimates", a.exact_estimates.len()),
            ("events", a.events.len()),
            (place_key, a.places.len()),
            ("loads", a.loads.len()),
            ("load_factors", a.load_factors.len()),
        ] {
            if len > 1 {
                factors.push(format!("{len} {key}"));
            }
        }
        let cells = match cells {
            // Saturated: 39 digits would say no more.
            u128::MAX => "over 3.4e38".to_string(),
            n => n.to_string(),
        };
        let (at, label) = match parsed.axes.as_ref().and_then(|x| longest_axis(x.get_ref())) {
            // Its opening bracket: the list itself may fill lines.
            Some((at, len)) => (
                Span::new(at.start, at.start + 1),
                format!("the longest axis, {len} values"),
            ),
            None => (span(&parsed.goals), counted(goals, "goal")),
        };
        self.help(
            at,
            &label,
            format!("the suite would have {cells} cells, more than the {MAX_CELLS} a suite may have"),
            format!(
                "its cells are {}; split it into suites of at most {MAX_CELLS} cells, or give fewer values",
                factors.join(" x ")
            ),
        );
        false
    }

    /// Where the suite file gives each trace and each value of the axes
    /// that make workloads; `parsed` is the file of the checked suite, so
    /// its lists hold exactly the suite's values.
    fn written(&self, parsed: &SuiteFile) -> Written<'a> {
        let spans = |list: Option<&Spanned<Vec<Spanned<f64>>>>| match list {
            Some(l) => l.get_ref().iter().map(|v| Some(span(v))).collect(),
            None => vec![None],
        };
        let a = parsed.axes.as_ref().map(Spanned::get_ref);
        let places = match (
            a.and_then(|a| a.windows.as_ref()),
            a.and_then(|a| a.months.as_ref()),
        ) {
            (Some(w), _) => w.get_ref().iter().map(|v| Some(span(v))).collect(),
            (None, Some(m)) => m.get_ref().iter().map(|v| Some(span(v))).collect(),
            (None, None) => vec![None],
        };
        Written {
            text: self.text,
            traces: parsed
                .trace
                .get_ref()
                .iter()
                .map(|t| {
                    let e = t.get_ref();
                    let named = e.path.as_ref().or(e.manifest.as_ref()).map(span);
                    named
                        .or(e.model.as_ref().map(span))
                        .unwrap_or_else(|| span(t))
                })
                .collect(),
            places,
            loads: spans(a.and_then(|a| a.loads.as_ref())),
            load_factors: spans(a.and_then(|a| a.load_factors.as_ref())),
        }
    }

    fn axes(
        &mut self,
        axes: Option<&Spanned<AxesFile>>,
        traces: &Option<Vec<SuiteTrace>>,
        around: Option<Span>,
    ) -> Option<AxisValues> {
        let empty = AxesFile {
            loads: None,
            load_factors: None,
            windows: None,
            months: None,
            budgets: None,
            seeds: None,
            exact_estimates: None,
            events: None,
        };
        let a = axes.map_or(&empty, Spanned::get_ref);
        let before = self.diags.len();
        let loads = self.positive("loads", a.loads.as_ref());
        let load_factors = self.positive("load_factors", a.load_factors.as_ref());
        let mut places = vec![Place::Whole];
        if let (Some(w), Some(m)) = (&a.windows, &a.months) {
            let d = self.error(
                span(m),
                "months given here",
                "`months` and `windows` exclude each other",
            );
            *d = d
                .clone()
                .with_related(span(w), "windows given here")
                .with_help("a cell is measured over a window or a month: keep one axis");
        } else if let Some(items) = self.list("windows", a.windows.as_ref()) {
            places = Vec::new();
            // Each parsed window with where it is written, for a window
            // spelled twice (`1d..5d`, `24h..120h`): twin cells otherwise.
            let mut parsed: Vec<(WindowSpec, &Spanned<String>)> = Vec::new();
            for v in items {
                match v.get_ref().parse::<WindowSpec>() {
                    Ok(spec) => {
                        let first = parsed.iter().find(|(seen, _)| *seen == spec);
                        // The same text is `list`'s error already.
                        if let Some(&(_, first)) = first.filter(|(_, f)| f.get_ref() != v.get_ref())
                        {
                            let written = |at: &Spanned<String>| {
                                self.text.get(at.span()).unwrap_or("").trim().to_string()
                            };
                            let which = match spec {
                                WindowSpec::Offsets(start, end) => format!(
                                    "{} to {} after each trace's first submit",
                                    format_duration(start),
                                    format_duration(end)
                                ),
                                WindowSpec::Dates(from, to) => {
                                    format!("{from} to {to} (UTC, the end excluded)")
                                }
                            };
                            let message = format!(
                                "`{}` names the same window as `{}`: {which}",
                                written(v),
                                written(first)
                            );
                            let help = "give each window once: two spellings of one window \
                                        make twin cells";
                            let d = self.error(span(v), "the same window again", message);
                            *d = d
                                .clone()
                                .with_related(span(first), "first here")
                                .with_help(help);
                        }
                        parsed.push((spec, v));
                        places.push(Place::Window(v.get_ref().clone(), spec));
                    }
                    Err(e) => {
                        self.error(span(v), "not a window", e);
                    }
                }
            }
        } else if let Some(items) = self.list("months", a.months.as_ref()) {
            places = Vec::new();
            for v in items {
                match v.get_ref() {
                    toml::Value::Integer(n) if *n >= 1 => places.push(Place::Month(n.to_string())),
                    toml::Value::String(s) if is_year_month(s) => {
                        places.push(Place::Month(s.clone()))
                    }
                    _ => self.help(
                        span(v),
                        "not a month",
                        format!("`{}` is not a month", v.get_ref()),
                        "months are 1-based numbers (1 is a trace's first calendar month) or \"YYYY-MM\"",
                    ),
                }
            }
        }
        let measured_whole = a.windows.is_none() && a.months.is_none();
        if let (true, Some(at)) = (measured_whole, around) {
            self.help(
                at,
                "around no window",
                "`warmup` and `cooldown` need a `windows` or `months` axis",
                "they are simulated before and after a measured window",
            );
        }
        let budgets = match self.list("budgets", a.budgets.as_ref()) {
            None => Vec::new(),
            Some(items) => items
                .iter()
                .filter_map(|v| match *v.get_ref() {
                    b if b >= 1 && b as u64 <= SearchSpec::MAX_BUDGET => Some(b as u64),
                    b => {
                        let small = b < 1;
                        self.error(
                            span(v),
                            if small { "too small" } else { "too large" },
                            format!("a node budget is 1 to {}, got {b}", SearchSpec::MAX_BUDGET),
                        );
                        None
                    }
                })
                .collect(),
        };
        let any_model = traces.as_ref().is_some_and(|ts| {
            ts.iter()
                .any(|t| matches!(t.source, TraceSource::Model { .. }))
        });
        let seeds = match self.list("seeds", a.seeds.as_ref()) {
            None => vec![ModelParams::default().seed],
            Some(items) => {
                if !any_model && traces.is_some() {
                    if let Some(s) = &a.seeds {
                        self.help(
                            span(s),
                            "no model to seed",
                            "`seeds` apply to the built-in model, and no trace is a `model`",
                            "add a [[trace]] with `model = { ... }`, or leave `seeds` out",
                        );
                    }
                }
                items
                    .iter()
                    .filter_map(|v| match *v.get_ref() {
                        s if s >= 0 => Some(s as u64),
                        s => {
                            self.error(
                                span(v),
                                "negative",
                                format!("a seed must be 0 or more, got {s}"),
                            );
                            None
                        }
                    })
                    .collect()
            }
        };
        let exact_estimates = match self.list("exact_estimates", a.exact_estimates.as_ref()) {
            None => vec![false],
            Some(items) => items.iter().map(|v| *v.get_ref()).collect(),
        };
        let events = match self.list("events", a.events.as_ref()) {
            None => vec![EventMode::PerInstant],
            Some(items) => items
                .iter()
                .map(|v| match v.get_ref() {
                    EventsName::PerInstant => EventMode::PerInstant,
                    EventsName::SubmissionsFirst => EventMode::SubmissionsFirst,
                    EventsName::CompletionsFirst => EventMode::CompletionsFirst,
                })
                .collect(),
        };
        (self.diags.len() == before).then_some(AxisValues {
            loads,
            load_factors,
            places,
            budgets,
            seeds,
            exact_estimates,
            events,
        })
    }
}

/// `n` things, said in the singular for one.
fn counted(n: u128, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// The place and length of the axis with the most values, the first of
/// equals; `None` when no axis is given.
fn longest_axis(a: &AxesFile) -> Option<(Span, usize)> {
    fn at<T>(list: &Option<Spanned<Vec<T>>>) -> Option<(Span, usize)> {
        list.as_ref().map(|l| (span(l), l.get_ref().len()))
    }
    [
        at(&a.loads),
        at(&a.load_factors),
        at(&a.windows),
        at(&a.months),
        at(&a.budgets),
        at(&a.seeds),
        at(&a.exact_estimates),
        at(&a.events),
    ]
    .into_iter()
    .flatten()
    .reduce(|most, next| if next.1 > most.1 { next } else { most })
}

/// `YYYY-MM` with a month from 01 to 12.
fn is_year_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[4] == b'-'
        && b[..4].iter().chain(&b[5..]).all(u8::is_ascii_digit)
        && matches!(s[5..].parse::<u32>(), Ok(1..=12))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model's traces of a suite of `model`, checked without error.
    fn model_traces(model: &str) -> String {
        let goals = concat!(env!("CARGO_MANIFEST_DIR"), "/goals/easy.goal");
        let text = format!("goals = [\"{goals}\"]\n[[trace]]\nmodel = {{ {model} }}\n");
        let checked = check_text("s.toml", &text, Path::new("."), None);
        assert!(!checked.has_errors(), "{}", checked.render(false));
        format!("{:?}", checked.suite.unwrap().traces)
    }

    /// A search goal at `budgets` budgets and `easy` or not, on the
    /// model at `seeds` seeds, checked.
    fn budgets_by_seeds(budgets: usize, seeds: usize, easy: bool) -> Checked {
        let goal = |g: &str| format!("\"{}/goals/{g}.goal\"", env!("CARGO_MANIFEST_DIR"));
        let mut goals = vec![goal("strict-lexical-tw-avgx-dds-fcfs")];
        if easy {
            goals.push(goal("easy"));
        }
        let list = |n: usize| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        let text = format!(
            "goals = [{}]\n[[trace]]\nmodel = {{ jobs = 2, procs = 4 }}\n[axes]\n\
             budgets = [{}]\nseeds = [{}]\n",
            goals.join(", "),
            list(budgets),
            list(seeds)
        );
        check_text("s.toml", &text, Path::new("."), None)
    }

    #[test]
    fn a_suite_may_have_up_to_max_cells_and_no_more() {
        // 1000 budgets x 1000 seeds: the limit itself.
        let at_limit = budgets_by_seeds(1000, 1000, false);
        assert!(!at_limit.has_errors(), "{}", at_limit.render(false));
        assert_eq!(MAX_CELLS, 1_000_000);
        // One goal more: 1000 cells past it.
        let past = budgets_by_seeds(1000, 1000, true);
        assert!(past.suite.is_none());
        let said = past.render(false);
        assert!(
            // The first of the two longest axes: the budgets.
            said.contains("s.toml:5:11: error: the suite would have 1001000 cells, more than the 1000000 a suite may have"),
            "{said}"
        );
        assert!(
            said.contains(
                "its cells are 1001 goals (search goals once per budget) x 1000 workloads"
            ),
            "{said}"
        );
    }

    /// A file in GOALC_TRACES that is not the manifest's trace is an error
    /// at the suite's name for it, with both digests and the manifest's
    /// line, before any workload is made; it was found only by the run's
    /// layout, naming neither place.
    #[test]
    fn a_manifest_trace_of_another_text_is_an_error_at_its_name() {
        let traces = tempfile::tempdir().unwrap();
        let name = "KTH-SP2-1996-2.1-cln";
        let file = traces.path().join(format!("{name}.swf.gz"));
        let text = "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
        std::fs::write(&file, text).unwrap();
        let goals = concat!(env!("CARGO_MANIFEST_DIR"), "/goals/easy.goal");
        let suite = format!("goals = [\"{goals}\"]\n[[trace]]\nmanifest = \"{name}\"\n");
        let checked = check_text("s.toml", &suite, Path::new("."), Some(traces.path()));
        assert!(checked.suite.is_none());
        let entry = manifest::traces()
            .into_iter()
            .find(|t| t.name == name)
            .unwrap();
        let said = checked.render(false);
        assert!(
            said.starts_with(&format!(
                "s.toml:3:12: error: `{}` is not the manifest's trace `{name}`: the sha256 of its \
                 text is {}, traces/manifest.toml:{} says {}\n",
                file.display(),
                sha256_hex(text.as_bytes()),
                entry.sha256_line,
                entry.swf_sha256
            )),
            "{said}"
        );
        assert_eq!(said.matches("error:").count(), 1, "{said}");
    }

    /// A `.goal` entry of a goal folder that cannot be read is an error
    /// at the folder's name, not left out of the suite.
    #[test]
    fn a_broken_goal_file_in_a_goal_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(
            concat!(env!("CARGO_MANIFEST_DIR"), "/goals/easy.goal"),
            dir.path().join("easy.goal"),
        )
        .unwrap();
        let dangling = dir.path().join("dang.goal");
        std::os::unix::fs::symlink("/nonexistent/x.goal", &dangling).unwrap();
        let text = format!(
            "goals = [\"{}\"]\n[[trace]]\nmodel = {{ jobs = 2, procs = 4 }}\n",
            dir.path().display()
        );
        let checked = check_text("s.toml", &text, Path::new("."), None);
        assert!(checked.suite.is_none());
        let said = checked.render(false);
        assert!(
            said.starts_with(&format!(
                "s.toml:1:10: error: goal file `{}` cannot be read: No such file",
                dangling.display()
            )),
            "{said}"
        );
    }

    #[test]
    fn zero_users_is_no_users_as_on_the_command_line() {
        let none = model_traces("jobs = 100, procs = 64");
        assert_eq!(model_traces("jobs = 100, procs = 64, users = 0"), none);
        assert_ne!(model_traces("jobs = 100, procs = 64, users = 3"), none);
    }
}
