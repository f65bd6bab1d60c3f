//! Diagnostics: what is wrong in a goal file, where, and what to do.
//!
//! Rendered in compiler style: a `file:line:col: error: message` line, then
//! the source line with a caret under the span and a hint (the snippet is
//! drawn by ariadne); or as JSON objects for CI.

use serde::Serialize;
use std::fmt;

/// A byte range in the goal text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.end())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding about a goal file.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Span,
    /// What is wrong, lowercase, user input in backticks.
    pub message: String,
    /// A short note under the caret.
    pub label: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
    /// Another place involved, e.g. the first of two conflicting lines.
    pub related: Option<(Span, String)>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            label: None,
            help: None,
            related: None,
        }
    }

    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(mut self, span: Span, note: impl Into<String>) -> Self {
        self.related = Some((span, note.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let offset = (0..=offset)
        .rev()
        .find(|&o| text.is_char_boundary(o))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Diagnostics in the JSON form CI tools read.
#[derive(Debug, Clone, Serialize)]
pub struct JsonDiagnostic {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub span: Span,
    pub severity: Severity,
    pub message: String,
    pub hint: Option<String>,
}

impl JsonDiagnostic {
    pub fn new(file: &str, text: &str, d: &Diagnostic) -> Self {
        let (line, col) = line_col(text, d.span.start);
        JsonDiagnostic {
            file: file.to_string(),
            line,
            col,
            span: d.span,
            severity: d.severity,
            message: d.message.clone(),
            hint: d.help.clone(),
        }
    }
}

/// Longest source line (in characters) shown whole under a message; a
/// longer one is cut to a window around the marked places.
const MAX_SHOWN_LINE: usize = 120;
/// Characters kept before and after a marked place in a cut line.
const SHOWN_CONTEXT: usize = 40;

/// The text as the snippet shows it, with the kept parts as
/// `(start, end, shown start)` in characters. Control and invisible
/// characters become U+FFFD (a carriage return a space), so no raw control
/// byte reaches the terminal, the caret stays under its character, and the
/// snippet breaks lines where [`line_col`] counts them (ariadne also breaks
/// at CR, VT, FF, NEL, LS, PS). A line longer than [`MAX_SHOWN_LINE`] is cut around the `marks`
/// (char offsets) that fall in it, with `...` where text is left out.
fn shown_text(text: &str, marks: &[usize]) -> (String, Vec<(usize, usize, usize)>) {
    let mut out = String::with_capacity(text.len());
    let mut kept = Vec::new();
    let (mut line_start, mut shown_len) = (0, 0);
    for line in text.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let n = content.chars().count();
        let (from, to) = if n <= MAX_SHOWN_LINE {
            (0, n)
        } else {
            let here = marks
                .iter()
                .filter(|&&m| m >= line_start && m <= line_start + n)
                .map(|&m| m - line_start);
            let lo = here.clone().min().unwrap_or(0);
            let hi = here.max().unwrap_or(0);
            let from = lo.saturating_sub(SHOWN_CONTEXT);
            (from, (hi + SHOWN_CONTEXT).min(from + MAX_SHOWN_LINE).min(n))
        };
        if from > 0 {
            // What is left out maps to the `...`.
            kept.push((line_start, line_start, shown_len));
            out.push_str("...");
            shown_len += 3;
        }
        kept.push((line_start + from, line_start + to, shown_len));
        out.extend(content.chars().skip(from).take(to - from).map(|c| match c {
            '\r' => ' ',
            '\t' => '\t',
            c if c.is_control() || invisible(c) => '\u{fffd}',
            c => c,
        }));
        shown_len += to - from;
        if to < n {
            out.push_str("...");
            shown_len += 3;
        }
        if line.ends_with('\n') {
            out.push('\n');
            shown_len += 1;
        }
        line_start += n + usize::from(line.ends_with('\n'));
    }
    // The end of the text (also the whole of an empty text).
    kept.push((line_start, line_start, shown_len));
    (out, kept)
}

/// Line and paragraph separators, and the zero-width and bidi format
/// characters that would shift or reorder the snippet.
pub(crate) fn invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// Renders one diagnostic in compiler style. `color` adds ANSI colours
/// (for terminals); without it the output is plain ASCII, stable for tests.
pub fn render(file: &str, text: &str, d: &Diagnostic, color: bool) -> String {
    use ariadne::{CharSet, Config, Label, Report, ReportKind, Source};
    let (line, col) = line_col(text, d.span.start);
    let mut out = format!("{file}:{line}:{col}: {}: {}\n", d.severity, d.message);
    // Char offsets for ariadne; spans past the end shrink to the end.
    let to_chars = |b: usize| {
        let b = b.min(text.len());
        let b = (0..=b)
            .rev()
            .find(|&o| text.is_char_boundary(o))
            .unwrap_or(0);
        text[..b].chars().count()
    };
    let char_span = |s: Span| {
        let start = to_chars(s.start);
        (start, to_chars(s.end).max(start))
    };
    let primary = char_span(d.span);
    let related = d.related.as_ref().map(|(s, _)| char_span(*s));
    let mut marks = vec![primary.0, primary.1];
    marks.extend(related.iter().flat_map(|&(a, b)| [a, b]));
    let (shown, kept) = shown_text(text, &marks);
    // Where a char offset of the text stands in the shown text.
    let place = |c: usize| {
        let i = kept.partition_point(|&(start, _, _)| start <= c).max(1) - 1;
        let (start, end, at) = kept[i];
        at + c.clamp(start, end) - start
    };
    let span = |(start, end): (usize, usize)| (file, place(start)..place(end));
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let mut label = Label::new(span(primary));
    if let Some(l) = &d.label {
        label = label.with_message(l);
    }
    let mut report = Report::build(kind, span(primary))
        .with_config(
            Config::default()
                .with_color(color)
                .with_char_set(CharSet::Ascii)
                .with_compact(false),
        )
        .with_label(label);
    if let (Some((_, note)), Some(r)) = (&d.related, related) {
        // Labels in file order, so ariadne draws both in one snippet.
        let order = if r.0 < primary.0 { -1 } else { 1 };
        report = report.with_label(Label::new(span(r)).with_message(note).with_order(order));
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    let mut buf = Vec::new();
    let _ = report.finish().write((file, Source::from(shown)), &mut buf);
    // ariadne repeats the message on its own first line; the compiler-style
    // line above already says it. Its location line (the next) counts in
    // the shown text, which may be cut: it gets the place in the file.
    let snippet = String::from_utf8_lossy(&buf);
    let here = format!("{file}:");
    for (i, l) in snippet.lines().skip(1).enumerate() {
        let mut l = l.trim_end().to_string();
        if i == 0 {
            if let Some(at) = l.find(&here) {
                let from = at + here.len();
                let end = l[from..].find(' ').map_or(l.len(), |e| from + e);
                l.replace_range(at..end, &format!("{file}:{line}:{col}"));
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let text = "ab\ncdé f\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 8), (2, 5));
        assert_eq!(line_col(text, 100), (3, 1));
    }

    #[test]
    fn renders_compiler_style() {
        let text = "backfill eazy\n";
        let d = Diagnostic::error(Span::new(9, 13), "unknown backfill mode `eazy`")
            .with_label("not a mode")
            .with_help("did you mean `easy`?");
        let out = render("site.goal", text, &d, false);
        let mut lines = out.lines();
        assert_eq!(
            lines.next(),
            Some("site.goal:1:10: error: unknown backfill mode `eazy`")
        );
        assert!(out.contains("backfill eazy"), "{out}");
        assert!(out.contains(" ^^|^\n"), "{out}");
        assert!(out.contains("did you mean `easy`?"), "{out}");
    }
}
