//! Goal text to a token tree with spans (grammar in `grammar/goal.pest`).
//!
//! Before pest sees the text, a pre-scan rejects what would make the parser
//! slow, deep or confusing (oversized files, binary data, runaway nesting,
//! unbalanced parentheses, unterminated strings) with a diagnostic at the
//! exact place; so the recursive-descent parser only ever meets text it can
//! handle in bounded stack and time.

// Diagnostics are the error path of a checker that runs once per file:
// moving them by value costs nothing that matters, boxing would cost clarity.
#![allow(clippy::result_large_err)]

use super::diag::{Diagnostic, Span};
use pest::Parser;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "../grammar/goal.pest"]
struct GoalParser;

/// Goal files state goals, not data: anything larger is a mistake.
pub const MAX_FILE_BYTES: usize = 64 * 1024;
/// Deepest parenthesis nesting accepted.
pub const MAX_NESTING: usize = 16;

/// One item of a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Ident(String),
    /// A number with optional unit or `%`, raw as written.
    Quantity(String),
    Str(String),
    Group(Vec<Item>),
    Arrow,
    Comma,
    Op(char),
}

/// A token and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub token: Token,
    pub span: Span,
}

impl Item {
    pub fn ident(&self) -> Option<&str> {
        match &self.token {
            Token::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// How the item reads in a message.
    pub fn describe(&self) -> String {
        match &self.token {
            Token::Ident(s) | Token::Quantity(s) => format!("`{s}`"),
            Token::Str(s) => format!("\"{s}\""),
            Token::Group(_) => "a parenthesised group".into(),
            Token::Arrow => "`->`".into(),
            Token::Comma => "`,`".into(),
            Token::Op(c) => format!("`{c}`"),
        }
    }
}

/// A statement: its keyword and the items after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub keyword: String,
    pub keyword_span: Span,
    pub items: Vec<Item>,
    pub span: Span,
}

/// Parses goal text into statements, or says where it cannot.
pub fn parse(text: &str) -> Result<Vec<Statement>, Diagnostic> {
    prescan(text)?;
    let mut pairs = GoalParser::parse(Rule::file, text).map_err(|e| from_pest(text, e))?;
    let file = pairs.next().map(|p| p.into_inner());
    let mut statements = Vec::new();
    for pair in file.into_iter().flatten() {
        if pair.as_rule() != Rule::statement {
            continue;
        }
        let span = Span::from(pair.as_span());
        let mut inner = pair.into_inner();
        let Some(kw) = inner.next() else { continue };
        let keyword_span = Span::from(kw.as_span());
        statements.push(Statement {
            keyword: kw.as_str().to_string(),
            keyword_span,
            items: inner.map(item).collect(),
            span,
        });
    }
    Ok(statements)
}

fn item(pair: pest::iterators::Pair<'_, Rule>) -> Item {
    let span = Span::from(pair.as_span());
    let token = match pair.as_rule() {
        Rule::group => Token::Group(pair.into_inner().map(item).collect()),
        Rule::arrow => Token::Arrow,
        Rule::comma => Token::Comma,
        Rule::op => Token::Op(pair.as_str().chars().next().unwrap_or('?')),
        Rule::string => Token::Str(pair.into_inner().as_str().to_string()),
        Rule::quantity => Token::Quantity(pair.as_str().to_string()),
        _ => Token::Ident(pair.as_str().to_string()),
    };
    Item { token, span }
}

/// Checks what the grammar would handle badly or explain poorly.
fn prescan(text: &str) -> Result<(), Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        // The character holding the first byte past the limit.
        let at = (0..=MAX_FILE_BYTES)
            .rev()
            .find(|&o| text.is_char_boundary(o))
            .unwrap_or(0);
        let len = text[at..].chars().next().map_or(0, char::len_utf8);
        return Err(Diagnostic::error(
            Span::new(at, at + len),
            format!(
                "goal file is larger than the {} KiB a goal file may have",
                MAX_FILE_BYTES / 1024
            ),
        )
        .with_label("the limit is reached here")
        .with_help("a goal file states goals in a few lines; is this the right file?"));
    }
    if let Some(pos) = text.find(|c: char| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        let c = text[pos..].chars().next().unwrap_or('\0');
        return Err(Diagnostic::error(
            Span::new(pos, pos + c.len_utf8()),
            format!("control character U+{:04X} in a goal file", u32::from(c)),
        )
        .with_label("not text")
        .with_help("goal files are plain text; is this a binary file?"));
    }
    // The grammar reads a lone `\r` as a line end in comments and strings
    // but as a space between items: refuse it rather than guess.
    if let Some(pos) = text
        .match_indices('\r')
        .map(|(p, _)| p)
        .find(|&p| !text[p + 1..].starts_with('\n'))
    {
        return Err(Diagnostic::error(
            Span::new(pos, pos + 1),
            "carriage return without a line feed",
        )
        .with_label("lone `\\r`")
        .with_help("save the file with Unix (LF) or Windows (CRLF) line ends"));
    }
    let mut open: Vec<usize> = Vec::new();
    let mut in_string: Option<usize> = None;
    let mut in_comment = false;
    for (pos, c) in text.char_indices() {
        if c == '\n' {
            if let Some(start) = in_string {
                return Err(unterminated(start, pos));
            }
            in_comment = false;
            continue;
        }
        if in_comment {
            continue;
        }
        if let Some(_start) = in_string {
            if c == '"' {
                in_string = None;
            }
            continue;
        }
        match c {
            '#' => in_comment = true,
            '"' => in_string = Some(pos),
            '(' => {
                open.push(pos);
                if open.len() > MAX_NESTING {
                    return Err(Diagnostic::error(
                        Span::new(pos, pos + 1),
                        format!("parentheses nested more than {MAX_NESTING} deep"),
                    )
                    .with_label("too deep")
                    .with_help("goals nest a few levels at most, as in lexical(total_excessive_wait(50h) -> avg_slowdown)"));
                }
            }
            // The guard pops: a `)` always closes the innermost `(`.
            ')' if open.pop().is_none() => {
                return Err(Diagnostic::error(Span::new(pos, pos + 1), "unmatched `)`")
                    .with_label("no `(` opened before this"));
            }
            _ => {}
        }
    }
    if let Some(start) = in_string {
        return Err(unterminated(start, text.len()));
    }
    if let Some(&pos) = open.last() {
        return Err(Diagnostic::error(Span::new(pos, pos + 1), "unclosed `(`")
            .with_label("opened here, never closed"));
    }
    Ok(())
}

fn unterminated(start: usize, end: usize) -> Diagnostic {
    Diagnostic::error(Span::new(start, end.max(start + 1)), "unterminated string")
        .with_label("no closing `\"` on this line")
}

/// Turns a pest failure into a diagnostic at the offending character.
fn from_pest(text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let pos = pos.min(text.len());
    match text[pos..].chars().next() {
        None => Diagnostic::error(Span::new(pos, pos), "unexpected end of file"),
        Some(c) => {
            let span = Span::new(pos, pos + c.len_utf8());
            let code = u32::from(c);
            let what = if c == '-' {
                "`-` here: only `->` or a negative number can start with `-`".to_string()
            } else if c == '\u{feff}' {
                "unexpected byte order mark (U+FEFF)".to_string()
            } else if c.is_ascii_graphic() {
                format!("unexpected `{c}`")
            } else if c.is_whitespace() || c.is_control() || super::diag::invisible(c) {
                // Invisible: name it by its code point only.
                format!("unexpected character U+{code:04X}")
            } else {
                format!("unexpected `{c}` (U+{code:04X})")
            };
            let at_line_start = text[..pos].trim_end_matches([' ', '\t']).ends_with('\n')
                || text[..pos].trim().is_empty();
            let quote = matches!(
                c,
                '\'' | '`' | '\u{ab}' | '\u{bb}' | '\u{2018}'..='\u{201f}'
            );
            let help = if quote {
                "names are quoted with straight double quotes, as in name \"EASY\""
            } else if c == '\u{feff}' {
                "save the file as UTF-8 without a byte order mark"
            } else if c.is_whitespace() {
                "items are separated by plain spaces or tabs; retype this space"
            } else if at_line_start && !c.is_ascii_alphabetic() {
                "a statement starts with a keyword, such as `backfill` or `order`"
            } else {
                "items are words, numbers (60, 0.2, 1%, 24h), quoted names, `(...)`, `,`, `->`, `+`, `*`"
            };
            Diagnostic::error(span, what)
                .with_label("not allowed here")
                .with_help(help)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &Statement) -> Vec<String> {
        s.items.iter().map(Item::describe).collect()
    }

    #[test]
    fn design_lines_parse() {
        let text = "tradeoff(total_excessive_wait, avg_slowdown) relaxed 1%\n\
                    deadline stringency 0.2\n\
                    fairshare decay 24h\n";
        let st = parse(text).unwrap();
        assert_eq!(st.len(), 3);
        assert_eq!(st[0].keyword, "tradeoff");
        assert_eq!(
            kinds(&st[0]),
            vec!["a parenthesised group", "`relaxed`", "`1%`"]
        );
        let Token::Group(g) = &st[0].items[0].token else {
            panic!()
        };
        assert_eq!(g.len(), 3);
        assert_eq!(kinds(&st[1]), vec!["`stringency`", "`0.2`"]);
        assert_eq!(kinds(&st[2]), vec!["`decay`", "`24h`"]);
        assert_eq!(
            &text[st[2].items[1].span.start..st[2].items[1].span.end],
            "24h"
        );
    }

    #[test]
    fn free_layout_and_comments() {
        let text = "# a comment\n\n   backfill   easy  depth 4   # why\n\nlexical(max_wait\n   -> avg_slowdown)\n";
        let st = parse(text).unwrap();
        assert_eq!(st.len(), 2);
        assert_eq!(kinds(&st[0]), vec!["`easy`", "`depth`", "`4`"]);
        let Token::Group(g) = &st[1].items[0].token else {
            panic!()
        };
        assert_eq!(
            g.iter().map(Item::describe).collect::<Vec<_>>(),
            vec!["`max_wait`", "`->`", "`avg_slowdown`"]
        );
    }

    #[test]
    fn quoted_names_and_quantities() {
        let st = parse("name \"FCFS + EASY\"\nx 1d12h -3m .5 10*awrt\n").unwrap();
        assert_eq!(st[0].items[0].token, Token::Str("FCFS + EASY".into()));
        assert_eq!(
            kinds(&st[1]),
            vec!["`1d12h`", "`-3m`", "`.5`", "`10`", "`*`", "`awrt`"]
        );
    }

    #[test]
    fn prescan_errors_point_at_the_place() {
        let e = parse("a (b (c)\n").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.span),
            ("unclosed `(`", Span::new(2, 3))
        );
        let e = parse("a b)\n").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.span),
            ("unmatched `)`", Span::new(3, 4))
        );
        let e = parse("name \"x\nb\n").unwrap_err();
        assert_eq!(e.message, "unterminated string");
        let deep = format!("a {}{}", "(".repeat(10_000), ")".repeat(10_000));
        let e = parse(&deep).unwrap_err();
        assert!(e.message.contains("nested more than"), "{}", e.message);
        assert_eq!(e.span, Span::new(2 + MAX_NESTING, 3 + MAX_NESTING));
    }

    #[test]
    fn hyphens_join_words_only_between_words() {
        let text = "fairshare half-life 24h # a-b\nx a-b-c a->b 1d-x -5m \"p-q\" a -b\n";
        let e = parse(text).unwrap_err();
        // `1d-x`: a quantity is not a word, so its `-` stays a minus.
        assert_eq!(e.span.start, text.find("-x").unwrap());
        let text = "fairshare half-life 24h # a-b\nx a-b-c a->b name \"p-q\" _a-b\n";
        let st = parse(text).unwrap();
        assert_eq!(kinds(&st[0]), vec!["`half-life`", "`24h`"]);
        assert_eq!(
            kinds(&st[1]),
            vec!["`a-b-c`", "`a`", "`->`", "`b`", "`name`", "\"p-q\"", "`_a-b`"]
        );
        assert_eq!(st[1].items[0].span, Span::new(32, 37));
        let e = parse("x a -b\n").unwrap_err();
        assert_eq!(e.span, Span::new(4, 5));
    }

    #[test]
    fn stray_characters_are_named() {
        let e = parse("backfill @easy\n").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.span),
            ("unexpected `@`", Span::new(9, 10))
        );
    }
}
