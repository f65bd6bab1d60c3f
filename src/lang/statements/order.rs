//! `order WORD`: one statement shared by mechanisms, each giving it words
//! (fcfs, lxf and sjf order a baseline's queue, fairshare too, edf and llf
//! order admission control). The word picks the mechanism that checks it.

use crate::lang::args::{Args, Check};
use crate::lang::diag::Span;
use crate::lang::mode::{Fit, Mode, Role};
use crate::lang::syntax::Statement;

/// The words a mechanism gives `order`.
#[derive(Debug, Clone, Copy)]
pub struct OrderWords {
    pub words: &'static [&'static str],
    /// The modes an order by one of these words fits.
    pub fits: &'static [Mode],
    /// When they order something other than a queue, what they need, as in
    /// "with deadlines"; such words are listed apart.
    pub note: Option<&'static str>,
}

/// A checked `order` statement.
#[derive(Debug, Clone, Copy)]
pub struct Given {
    pub span: Span,
    pub word: &'static str,
    pub fits: &'static [Mode],
}

/// Every word of `order`, with the mechanism (by index) that owns it.
#[derive(Debug, Clone, Default)]
pub struct Words(Vec<(usize, OrderWords)>);

impl Words {
    /// Queue orders first, then the others, each in registration order.
    pub fn new(by_mechanism: impl IntoIterator<Item = (usize, OrderWords)>) -> Self {
        let mut all: Vec<_> = by_mechanism.into_iter().collect();
        all.sort_by_key(|(_, w)| w.note.is_some());
        Words(all)
    }

    /// The queue orders, as in "fcfs, lxf, sjf or fairshare".
    pub fn queue_orders(&self) -> String {
        or_list(
            self.0
                .iter()
                .filter(|(_, w)| w.note.is_none())
                .flat_map(|(_, w)| w.words.iter().copied()),
        )
    }

    /// Reads the word of `order` and returns it, with its owner and fits.
    pub fn read(&self, st: &Statement) -> Check<(usize, Given)> {
        let mut expected = format!("a queue order: {}", self.queue_orders());
        for (_, w) in &self.0 {
            if let Some(note) = w.note {
                expected += &format!(" ({} {note})", or_list(w.words.iter().copied()));
            }
        }
        let choices: Vec<&'static str> = self
            .0
            .iter()
            .flat_map(|(_, w)| w.words.iter().copied())
            .collect();
        let mut args = Args::new(st);
        let item = args.next(&expected)?;
        let (word, _) = args.word_from(item, "a queue order", &choices)?;
        let (owner, words) = self
            .0
            .iter()
            .find(|(_, w)| w.words.contains(&word))
            .expect("the word is one of the choices");
        let given = Given {
            span: st.span,
            word,
            fits: words.fits,
        };
        Ok((*owner, given))
    }

    /// How an `order` statement fits the modes; against a mode with order
    /// words of its own, the message names them.
    pub fn fit(&self, given: &Given) -> Fit {
        let groups: Vec<OrderWords> = self.0.iter().map(|(_, w)| *w).collect();
        Fit::new(given.span, "a queue order", Role::Setting, given.fits).reword(move |claim, c| {
            let own = groups
                .iter()
                .filter(|w| w.fits.contains(&claim.mode))
                .flat_map(|w| w.words.iter().copied());
            let own = or_list(own);
            if !own.is_empty() {
                c.what = format!("a queue order other than {own}");
            }
        })
    }
}

/// The word of an `order` statement that [`Words::read`] accepted, and
/// the rest of the statement.
pub fn rest(st: &Statement) -> (&str, Args<'_>) {
    let mut args = Args::new(st);
    let word = args.next("").ok().and_then(|i| i.ident()).unwrap_or("");
    (word, args)
}

/// "a, b or c".
fn or_list(words: impl IntoIterator<Item = &'static str>) -> String {
    let words: Vec<&str> = words.into_iter().collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}
