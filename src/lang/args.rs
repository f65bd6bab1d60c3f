//! Helpers every statement file shares: walking a statement's items,
//! reading durations and whole numbers, did-you-mean, and the "given
//! twice" check. Nothing here knows a statement; the statement files and
//! the checker build on it.

use super::diag::{line_col, Diagnostic, Span};
use super::syntax::{Item, Statement, Token};
use crate::units::parse_duration;
use crate::workload::Time;

/// The result of checking: a value, or the diagnostic that stops it.
pub type Check<T = ()> = Result<T, Diagnostic>;

pub use crate::suggest::did_you_mean;

pub fn suggestion(word: &str, candidates: &[&str]) -> String {
    match did_you_mean(word, candidates.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!("expected one of: {}", candidates.join(", ")),
    }
}

/// Errors when a single-valued setting is given a second time (`first`
/// is where it was given), naming both lines; `what` is the setting and
/// its verb, as in "the queue order is".
pub fn once(text: &str, first: Option<Span>, st: &Statement, what: &str) -> Check {
    if let Some(first) = first {
        let (line, _) = line_col(text, first.start);
        let first_text = &text[first.start..first.end];
        return Err(Diagnostic::error(
            st.span,
            format!("{what} given twice: this conflicts with line {line}"),
        )
        .with_label("second one")
        .with_related(first, format!("first given here: `{first_text}`"))
        .with_help("keep one of the two statements"));
    }
    Ok(())
}

/// Errors when a setting of one statement (`word`, at `span`) comes a
/// second time, pointing at the first; otherwise notes it in `seen`.
/// `twice` is the message, `help` what to do.
pub fn setting_once<'w>(
    seen: &mut Vec<(&'w str, Span)>,
    word: &'w str,
    span: Span,
    twice: String,
    help: &str,
) -> Check {
    if let Some((_, first)) = seen.iter().find(|(k, _)| *k == word) {
        return Err(Diagnostic::error(span, twice)
            .with_label("second")
            .with_related(*first, "first here")
            .with_help(help));
    }
    seen.push((word, span));
    Ok(())
}

/// The line of `span`, and its statement as written (on one line).
pub fn line_of(text: &str, span: Span) -> (usize, String) {
    let (line, _) = line_col(text, span.start);
    let stated = text[span.start..span.end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (line, stated)
}

/// Walks the items of one statement.
pub struct Args<'a> {
    st: &'a Statement,
    pos: usize,
}

impl<'a> Args<'a> {
    pub fn new(st: &'a Statement) -> Self {
        Args { st, pos: 0 }
    }

    pub fn peek(&self) -> Option<&'a Item> {
        self.st.items.get(self.pos)
    }

    /// The next item, or an error at the end of the statement saying what
    /// was expected.
    pub fn next(&mut self, expected: &str) -> Check<&'a Item> {
        match self.st.items.get(self.pos) {
            Some(item) => {
                self.pos += 1;
                Ok(item)
            }
            None => {
                let end = self.st.span.end;
                Err(Diagnostic::error(
                    self.st.keyword_span.to(Span::new(end, end)),
                    format!("`{}` needs {expected}", self.st.keyword),
                )
                .with_label("incomplete statement"))
            }
        }
    }

    /// The next item as one of `choices`.
    pub fn word(
        &mut self,
        expected: &str,
        choices: &[&'static str],
    ) -> Check<(&'static str, Span)> {
        let item = self.next(&format!("{expected}: {}", choices.join(", ")))?;
        self.word_from(item, expected, choices)
    }

    pub fn word_from(
        &self,
        item: &Item,
        expected: &str,
        choices: &[&'static str],
    ) -> Check<(&'static str, Span)> {
        let found = item.ident().and_then(|w| choices.iter().find(|c| **c == w));
        match found {
            Some(c) => Ok((c, item.span)),
            None => {
                let raw = item.ident().unwrap_or_default();
                Err(
                    Diagnostic::error(item.span, format!("{} is not {expected}", item.describe()))
                        .with_label(format!("expected {}", choices.join(", ")))
                        .with_help(suggestion(raw, choices)),
                )
            }
        }
    }

    /// The next item must be the word `kw`; `example` shows the statement.
    pub fn keyword(&mut self, kw: &'static str, example: &str) -> Check {
        let item = self.next(&format!("`{kw}`, as in {example}"))?;
        if item.ident() == Some(kw) {
            return Ok(());
        }
        let found = item.describe();
        let help = match item.ident() {
            Some(w) if did_you_mean(w, [kw]).is_some() => format!("did you mean `{kw}`?"),
            Some(_) => format!("write it as in {example}"),
            None => format!("write `{kw}` before {found}, as in {example}"),
        };
        Err(
            Diagnostic::error(item.span, format!("expected `{kw}`, found {found}"))
                .with_label(format!("expected `{kw}`"))
                .with_help(help),
        )
    }

    /// Span of the item read last.
    pub fn last_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.st.items.get(i))
            .map_or(self.st.keyword_span, |i| i.span)
    }

    /// No items may be left.
    pub fn end(&self) -> Check {
        match self.peek() {
            None => Ok(()),
            Some(item) => {
                let last = self.st.items.last().map_or(item.span, |l| l.span);
                Err(Diagnostic::error(
                    item.span.to(last),
                    format!(
                        "unexpected {} at the end of `{}`",
                        item.describe(),
                        self.st.keyword
                    ),
                )
                .with_label("not expected here")
                .with_help("one statement per line; remove what follows or start a new line"))
            }
        }
    }
}

/// A quantity as a duration with a unit (`90s`, `30m`, `24h`, `7d`, `1d12h`).
pub fn duration(item: &Item) -> Check<Time> {
    let Token::Quantity(raw) = &item.token else {
        return Err(
            Diagnostic::error(item.span, format!("{} is not a duration", item.describe()))
                .with_label("expected a duration")
                .with_help("durations are a number and a unit: 90s, 30m, 24h, 7d, 1d12h"),
        );
    };
    if raw.starts_with('-') {
        return Err(
            Diagnostic::error(item.span, format!("negative duration `{raw}`"))
                .with_label("must not be negative")
                .with_help("durations count forward: 90s, 30m, 24h"),
        );
    }
    if raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Diagnostic::error(item.span, format!("`{raw}` has no unit"))
            .with_label("seconds? minutes?")
            .with_help(format!("write {raw}s for seconds or {raw}m for minutes")));
    }
    if raw.ends_with('%') {
        return Err(Diagnostic::error(
            item.span,
            format!("`{raw}` is a percentage, not a duration"),
        )
        .with_label("expected a duration")
        .with_help("durations are a number and a unit: 90s, 30m, 24h, 7d, 1d12h"));
    }
    if raw.contains('.') {
        return Err(
            Diagnostic::error(item.span, format!("`{raw}` is not a duration"))
                .with_label("expected whole numbers with units")
                .with_help("write whole numbers of each unit, as in 1h30m"),
        );
    }
    parse_duration(raw).map_err(|e| {
        let reason = e.reason;
        Diagnostic::error(item.span, format!("bad duration `{raw}`: {reason}"))
            .with_label("not a duration")
            .with_help("units are s, m, h, d and w, largest first: 90s, 30m, 24h, 7d, 1d12h")
    })
}

/// A quantity as a whole number in `min..=max`.
pub fn whole_number(item: &Item, what: &str, min: u32, max: u32) -> Check<u64> {
    let raw = match &item.token {
        Token::Quantity(raw) => raw,
        _ => {
            return Err(Diagnostic::error(
                item.span,
                format!("{} is not a number", item.describe()),
            )
            .with_label(format!("expected the {what}"))
            .with_help(format!("the {what} is a whole number from {min} to {max}")))
        }
    };
    let value: Option<i64> = raw.parse().ok();
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    let too_long = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    match value {
        Some(v) if v >= min as i64 && v <= max as i64 => Ok(v as u64),
        Some(v) => Err(
            Diagnostic::error(item.span, format!("{what} {v} is out of range"))
                .with_label(format!("must be {min} to {max}"))
                .with_help(format!("the {what} is a whole number from {min} to {max}")),
        ),
        // Digits only, but too many for any integer type.
        None if too_long => Err(Diagnostic::error(
            item.span,
            format!("{what} {raw} is out of range"),
        )
        .with_label(format!("must be {min} to {max}"))
        .with_help(format!("the {what} is a whole number from {min} to {max}"))),
        None => Err(
            Diagnostic::error(item.span, format!("{what} `{raw}` is not a whole number"))
                .with_label("expected a whole number")
                .with_help(format!("the {what} is a whole number from {min} to {max}")),
        ),
    }
}

/// A plain number passing `ok`.
pub fn number(item: &Item, what: &str, expected: &str, ok: impl Fn(f64) -> bool) -> Check<f64> {
    let value = match &item.token {
        Token::Quantity(raw) => raw.parse::<f64>().ok(),
        _ => None,
    };
    match (value, &item.token) {
        (Some(v), _) if ok(v) => Ok(v),
        // Said as written: the value read may be rounded (0.99999999999999999 is 1).
        (Some(_), Token::Quantity(raw)) => Err(Diagnostic::error(
            item.span,
            format!("{what} {raw} is out of range"),
        )
        .with_label(format!("must be {expected}"))),
        _ => Err(
            Diagnostic::error(item.span, format!("{} is not a number", item.describe()))
                .with_label(format!("expected the {what}: {expected}")),
        ),
    }
}
