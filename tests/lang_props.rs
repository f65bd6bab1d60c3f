//! Properties of the goal-language checker that must hold for any input:
//! it never panics, it either compiles a goal or reports an error, every
//! span lies inside the text on character boundaries, and the rendered
//! location agrees with the span. Inputs are random text (arbitrary
//! unicode, control characters, the language's own tokens) and mutations
//! of the valid goals in `goals/`, which themselves must check cleanly.

use goalc::lang::{check_bytes, check_text, diag, Checked, Span};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::TestCaseError;
use std::path::Path;
use std::sync::OnceLock;

const FILE: &str = "prop.goal";

/// Words, numbers and symbols of the language, and characters that have
/// caused trouble in parsers before.
const PIECES: &[&str] = &[
    "name",
    "backfill",
    "dispatch",
    "order",
    "slowdown",
    "bound",
    "easy",
    "conservative",
    "none",
    "dynamic",
    "depth",
    "fcfs",
    "lxf",
    "sjf",
    "list",
    "fairshare",
    "decay",
    "half-life",
    "factor",
    "starvation",
    "after",
    "exclude",
    "heavy",
    "limit",
    "runtime",
    "tradeoff",
    "lexical",
    "deadline",
    "relaxed",
    "\"EASY\"",
    "\"",
    "\"\"",
    "(",
    ")",
    "->",
    ",",
    "+",
    "*",
    "/",
    "=",
    ":",
    "#",
    "%",
    "-",
    "@",
    "'",
    "0",
    "1",
    "4",
    "60",
    "1000",
    "1001",
    "0.2",
    ".5",
    "1.",
    "1%",
    "5x",
    "24h",
    "1d12h",
    "30m1h",
    "-5m",
    "99999999999999999999",
    " ",
    " ",
    "\t",
    "\n",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "\0",
    "\x0b",
    "\x7f",
    "\u{85}",
    "\u{a0}",
    "\u{feff}",
    "\u{200b}",
    "\u{2028}",
    "\u{202e}",
    "\u{301}",
    "\u{fffd}",
    "\u{10ffff}",
    "é",
    "日本",
    "“",
    "”",
    "👍🏽",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => select(PIECES).prop_map(String::from),
        3 => any::<char>().prop_map(String::from),
        2 => "[a-z_][a-z0-9_]{0,7}",
        1 => "[0-9]{1,3}[a-z%]{0,2}",
        // Long runs: deep nesting, long lines, many lines.
        1 => (select(&["(", ")", "((", "x ", "é", "# c\n", "order lxf\n"][..]), 20..400usize)
            .prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// Lines shaped like statements (a keyword, then a few items), so that
/// most inputs get past the parser into the checker.
fn statement_lines() -> impl Strategy<Value = String> {
    let keyword = select(
        &[
            "name",
            "backfill",
            "dispatch",
            "order",
            "slowdown",
            "tradeoff",
            "fairshare",
            "starvation",
            "limit",
            "bakfill",
        ][..],
    );
    let likely = select(
        &[
            "easy",
            "conservative",
            "none",
            "depth",
            "4",
            "fcfs",
            "lxf",
            "sjf",
            "list",
            "bound",
            "60s",
            "1m",
            "\"X\"",
            "decay",
            "half-life",
            "factor",
            "0.5",
            "24h",
            "after",
            "exclude",
            "heavy",
            "runtime",
            "dynamic",
        ][..],
    );
    let item = prop_oneof![
        6 => likely,
        2 => select(PIECES),
        1 => select(&["", " # note"][..]),
    ];
    let line = (keyword, prop::collection::vec(item, 0..3))
        .prop_map(|(k, items)| format!("{k} {}", items.join(" ")));
    prop::collection::vec(line, 0..5).prop_map(|lines| lines.join("\n"))
}

fn random_text() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::collection::vec(piece(), 0..40).prop_map(|v| v.concat()),
        1 => statement_lines(),
    ]
}

/// Text with raw bytes spliced in, often not UTF-8 any more.
fn random_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..300),
        (
            random_text(),
            prop::collection::vec((any::<Index>(), any::<u8>()), 0..4)
        )
            .prop_map(|(text, splices)| {
                let mut bytes = text.into_bytes();
                for (at, b) in splices {
                    let at = at.index(bytes.len() + 1);
                    bytes.insert(at, b);
                }
                bytes
            }),
    ]
}

/// The valid goal files shipped in `goals/`, by name.
fn goals() -> &'static [(String, String)] {
    static GOALS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    GOALS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("goals");
        let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("readable goals/ entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "goal"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no goal files in {}", dir.display());
        files
    })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Failures are reported with their minimal input; no files written.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn span_ok(text: &str, s: Span) -> bool {
    s.start <= s.end
        && s.end <= text.len()
        && text.is_char_boundary(s.start)
        && text.is_char_boundary(s.end)
}

/// What must hold of any check result.
fn assert_sound(checked: &Checked) -> Result<(), TestCaseError> {
    let text = &checked.text;
    prop_assert_eq!(
        checked.goal.is_some(),
        !checked.has_errors(),
        "a goal must compile exactly when there is no error: {:?}",
        checked.diagnostics
    );
    for d in &checked.diagnostics {
        prop_assert!(
            span_ok(text, d.span),
            "span {:?} outside the text or off a char boundary: {}",
            d.span,
            d.message
        );
        if let Some((s, _)) = &d.related {
            prop_assert!(span_ok(text, *s), "related span {:?}: {}", s, d.message);
        }
        prop_assert!(!d.message.is_empty());
        // The compiler-style line, ariadne's location line and its gutter
        // all name the same place.
        let (line, col) = diag::line_col(text, d.span.start);
        let out = diag::render(FILE, text, d, false);
        let place = format!("{FILE}:{line}:{col}");
        let mut lines = out.lines();
        let first = lines.next().unwrap_or_default();
        prop_assert!(
            first.starts_with(&format!("{place}: {}: ", d.severity)),
            "first line {:?} does not start with {}",
            first,
            place
        );
        let second = lines.next().unwrap_or_default();
        prop_assert!(
            second.ends_with(&format!(",-[ {place} ]")),
            "location line {:?} is not {}\n{}",
            second,
            place,
            out
        );
        let colored = diag::render(FILE, text, d, true);
        prop_assert!(
            colored
                .lines()
                .nth(1)
                .is_some_and(|l| l.contains(&format!(" {place} "))),
            "coloured location line is not {}:\n{}",
            place,
            colored
        );
        let gutter = format!("{line} |");
        prop_assert!(
            out.lines().any(|l| l.trim_start().starts_with(&gutter)),
            "line {} not shown for {}:\n{}",
            line,
            d.message,
            out
        );
    }
    let all = checked.render(false);
    prop_assert!(checked.diagnostics.is_empty() || !all.is_empty());
    Ok(())
}

/// One edit of a goal file.
#[derive(Debug, Clone)]
enum Mutation {
    InsertBytes(Index, Vec<u8>),
    InsertPiece(Index, &'static str),
    Delete(Index, usize),
    Replace(Index, u8),
    DuplicateLine(Index),
    DeleteLine(Index),
    SwapLines(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), prop::collection::vec(any::<u8>(), 1..4))
            .prop_map(|(i, b)| Mutation::InsertBytes(i, b)),
        (any::<Index>(), select(PIECES)).prop_map(|(i, p)| Mutation::InsertPiece(i, p)),
        (any::<Index>(), 1..12usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        any::<Index>().prop_map(Mutation::DuplicateLine),
        any::<Index>().prop_map(Mutation::DeleteLine),
        (any::<Index>(), any::<Index>()).prop_map(|(i, j)| Mutation::SwapLines(i, j)),
    ]
}

fn lines_of(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |i: &Index, len: usize| i.index(len + 1);
    match m {
        Mutation::InsertBytes(i, b) => {
            let p = at(i, bytes.len());
            bytes.splice(p..p, b.iter().copied());
        }
        Mutation::InsertPiece(i, s) => {
            let p = at(i, bytes.len());
            bytes.splice(p..p, s.bytes());
        }
        Mutation::Delete(i, n) => {
            let p = at(i, bytes.len());
            let end = (p + n).min(bytes.len());
            bytes.drain(p..end);
        }
        Mutation::Replace(i, b) => {
            if !bytes.is_empty() {
                let p = i.index(bytes.len());
                bytes[p] = *b;
            }
        }
        Mutation::DuplicateLine(i) | Mutation::DeleteLine(i) | Mutation::SwapLines(i, _) => {
            let mut lines = lines_of(bytes);
            let a = i.index(lines.len());
            match m {
                Mutation::DuplicateLine(_) => lines.insert(a, lines[a].clone()),
                Mutation::DeleteLine(_) => {
                    lines.remove(a);
                }
                Mutation::SwapLines(_, j) => {
                    let b = j.index(lines.len());
                    lines.swap(a, b);
                }
                _ => unreachable!(),
            }
            *bytes = lines.join(&b'\n');
        }
    }
}

/// Keywords of settings that may be given once only.
const SINGLE_VALUED: [&str; 14] = [
    "name",
    "backfill",
    "dispatch",
    "order",
    "slowdown",
    "lexical",
    "tradeoff",
    "objective",
    "search",
    "deadline",
    "admission",
    "fairshare",
    "starvation",
    "limit",
];

/// Lines of a goal file that state a single-valued setting.
fn single_valued_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let kw = l.split_whitespace().next().unwrap_or_default();
            SINGLE_VALUED.contains(&kw)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Whether every statement of the text fits on its line.
fn one_statement_per_line(text: &str) -> bool {
    text.lines()
        .all(|l| l.matches('(').count() == l.matches(')').count())
}

#[test]
fn shipped_goals_check_without_diagnostics() {
    for (name, text) in goals() {
        let checked = check_text(&format!("goals/{name}"), text);
        // Only errors are out; warnings only where the file says goalc warns
        // (the paper's harmful combinations, kept to reproduce them).
        assert!(
            !checked.has_errors(),
            "goals/{name}:\n{}",
            checked.render(false)
        );
        assert!(
            checked.diagnostics.is_empty() || text.contains("goalc check warns"),
            "goals/{name}:\n{}",
            checked.render(false)
        );
        assert!(checked.goal.is_some(), "goals/{name} did not compile");
        let bytes = check_bytes(&format!("goals/{name}"), text.as_bytes());
        assert_eq!(bytes.goal, checked.goal, "goals/{name}");
    }
}

#[test]
fn oversized_text_is_cut_on_a_char_boundary() {
    let limit = goalc::lang::syntax::MAX_FILE_BYTES;
    // Multi-byte characters of every width straddle the limit in turn.
    for wide in ["é", "日", "👍"] {
        for shift in 0..4 {
            let text = format!(
                "backfill easy\n#{}{}\n",
                "x".repeat(shift),
                wide.repeat(limit / wide.len() + 2)
            );
            let checked = check_text(FILE, &text);
            assert!(checked.has_errors());
            assert!(
                checked.diagnostics.iter().all(|d| span_ok(&text, d.span)),
                "{wide} shift {shift}: {:?}",
                checked.diagnostics
            );
            assert!(checked.render(false).len() < 2048);
        }
    }
}

#[test]
fn one_letter_typos_in_keywords_get_the_keyword_suggested() {
    let valid = [
        "name \"X\"",
        "backfill easy",
        "dispatch fcfs",
        "order lxf",
        "fairshare decay 24h",
        "starvation after 24h",
        "limit runtime 72h",
        "speedup downey A system sigma 0 to 2",
        "moldable iterative",
    ];
    for line in valid {
        let (kw, rest) = line.split_once(' ').unwrap();
        for i in 0..kw.len() {
            let typo = format!("{}{}", &kw[..i], &kw[i + 1..]);
            let checked = check_text(FILE, &format!("{typo} {rest}\n"));
            let help = checked.diagnostics[0].help.clone().unwrap_or_default();
            assert!(
                help.contains(&format!("`{kw}`")),
                "`{typo}` should suggest `{kw}`, got: {help}"
            );
        }
    }
}

proptest! {
    #![proptest_config(config(5000))]

    /// (a) Random text never panics and always gives a sound answer, the
    /// same whether given as text or as bytes.
    #[test]
    fn random_text_is_checked_soundly(text in random_text()) {
        let checked = check_text(FILE, &text);
        prop_assert_eq!(&checked.text, &text);
        assert_sound(&checked)?;
        let from_bytes = check_bytes(FILE, text.as_bytes());
        prop_assert_eq!(&from_bytes.diagnostics, &checked.diagnostics);
        prop_assert_eq!(&from_bytes.goal, &checked.goal);
    }

    /// (a) Random bytes, mostly not UTF-8.
    #[test]
    fn random_bytes_are_checked_soundly(bytes in random_bytes()) {
        let checked = check_bytes(FILE, &bytes);
        assert_sound(&checked)?;
        if std::str::from_utf8(&bytes).is_err() {
            prop_assert!(checked.has_errors());
        }
    }

    /// (b) Edits of the shipped goals: inserted, deleted and replaced bytes
    /// and tokens, duplicated, deleted and swapped lines.
    #[test]
    fn mutated_goals_are_checked_soundly(
        file in any::<Index>(),
        edits in prop::collection::vec(mutation(), 1..5),
    ) {
        let (_, text) = &goals()[file.index(goals().len())];
        let mut bytes = text.clone().into_bytes();
        for m in &edits {
            apply(&mut bytes, m);
        }
        assert_sound(&check_bytes(FILE, &bytes))?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Statements are independent: any order of the lines of a valid goal
    /// compiles to the same goal.
    #[test]
    fn line_order_does_not_matter(file in any::<Index>(), seed in any::<u64>()) {
        let (_, text) = &goals()[file.index(goals().len())];
        prop_assume!(one_statement_per_line(text));
        let mut lines: Vec<&str> = text.lines().collect();
        // A small deterministic shuffle from the seed.
        let mut s = seed | 1;
        for i in (1..lines.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lines.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let shuffled = lines.join("\n");
        let a = check_text(FILE, text);
        let b = check_text(FILE, &shuffled);
        prop_assert!(!b.has_errors(), "{}", b.render(false));
        prop_assert_eq!(a.diagnostics.len(), b.diagnostics.len());
        prop_assert_eq!(a.goal, b.goal);
    }

    /// Settings are given once: a repeated statement line is an error that
    /// points at the repeat and names the first.
    #[test]
    fn a_repeated_statement_is_an_error(file in any::<Index>(), which in any::<Index>()) {
        let (_, text) = &goals()[file.index(goals().len())];
        let lines: Vec<&str> = text.lines().collect();
        let statements = single_valued_lines(text);
        prop_assume!(!statements.is_empty());
        let line = statements[which.index(statements.len())];
        let mut edited = lines.clone();
        edited.push(lines[line]);
        let edited = edited.join("\n");
        let checked = check_text(FILE, &edited);
        let errors: Vec<_> = checked.diagnostics.iter().filter(|d| d.is_error()).collect();
        prop_assert_eq!(errors.len(), 1, "{}", checked.render(false));
        let d = errors[0];
        prop_assert!(d.message.contains("given twice"), "{}", d.message);
        prop_assert_eq!(diag::line_col(&edited, d.span.start).0, lines.len() + 1);
        let first = d.related.as_ref().map(|(s, _)| diag::line_col(&edited, s.start).0);
        prop_assert_eq!(first, Some(line + 1));
    }
}
