//! Shard stores united into one: every record once, sorted by key, so the
//! union of a suite's shards has the bytes of a single run's store sorted.
//! Stores of different suites, goalc versions or store formats are
//! refused: their records do not describe one experiment.

use super::file::StoreContents;
use super::record::Record;
use super::StoreError;
use std::collections::{BTreeMap, BTreeSet};

/// One input store: its name for messages and what it holds.
pub struct Input<'a> {
    pub name: &'a str,
    pub contents: &'a StoreContents,
}

/// Where a record is: its store's name and its line there.
pub(super) type Place<'a> = (&'a str, usize);

/// Two different records for one cell, at `a` and `b`: which is right
/// cannot be told.
pub(super) fn conflict(a: Place, b: Place, r: &Record) -> String {
    format!(
        "{}:{} and {}:{} hold different records for cell {} ({} on {}): remove the wrong one \
         (or both, to run the cell again)",
        a.0, a.1, b.0, b.1, r.key, r.goal, r.trace
    )
}

/// Where `r` (at `b`) is of another experiment than `first` (at `a`): another
/// suite, goalc version or store format, said with both places.
fn other_experiment(a: Place, first: &Record, b: Place, r: &Record) -> Option<String> {
    let (what, x, y) = if first.suite != r.suite {
        ("suites", first.suite.clone(), r.suite.clone())
    } else if first.goalc != r.goalc {
        ("goalc versions", first.goalc.clone(), r.goalc.clone())
    } else if first.format != r.format {
        (
            "store formats",
            first.format.to_string(),
            r.format.to_string(),
        )
    } else {
        return None;
    };
    Some(format!(
        "{}:{} and {}:{} hold records of different {what} (`{x}` and `{y}`)",
        a.0, a.1, b.0, b.1
    ))
}

/// The first record of `inputs` of another experiment than their first
/// record (see [`other_experiment`]).
pub fn mixed(inputs: &[Input]) -> Option<String> {
    let mut all = inputs.iter().flat_map(|input| {
        input
            .contents
            .records
            .iter()
            .enumerate()
            .map(move |(i, r)| ((input.name, i + 1), r))
    });
    let (a, first) = all.next()?;
    all.find_map(|(b, r)| other_experiment(a, first, b, r))
}

/// The records of all `inputs`, each key once, sorted by key.
pub fn merge(inputs: &[Input]) -> Result<Vec<Record>, StoreError> {
    if let Some(why) = mixed(inputs) {
        return Err(StoreError::Refused(format!("cannot merge: {why}")));
    }
    let mut by_key: BTreeMap<&str, (Place, &Record)> = BTreeMap::new();
    for input in inputs {
        for (i, r) in input.contents.records.iter().enumerate() {
            let here = (input.name, i + 1);
            if let Some((place, other)) = by_key.get(r.key.as_str()) {
                if !other.agrees_with(r) {
                    return Err(StoreError::Refused(format!(
                        "cannot merge: {}",
                        conflict(*place, here, r)
                    )));
                }
                // Of two that agree, the one that counts its suite's cells.
                if other.suite_cells.is_none() {
                    by_key.insert(&r.key, (here, r));
                }
                continue;
            }
            by_key.insert(&r.key, (here, r));
        }
    }
    Ok(by_key.into_values().map(|(_, r)| r.clone()).collect())
}

/// The records of one store in file order, a record repeated (the same
/// cell, the same numbers) once: what a report counts. Two different
/// records for one cell are refused.
pub fn distinct(input: &Input) -> Result<Vec<Record>, StoreError> {
    let mut lines: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, r) in input.contents.records.iter().enumerate() {
        match lines.get(r.key.as_str()) {
            Some(&line) if !input.contents.records[line - 1].agrees_with(r) => {
                return Err(StoreError::Refused(conflict(
                    (input.name, line),
                    (input.name, i + 1),
                    r,
                )));
            }
            Some(_) => {}
            None => {
                lines.insert(&r.key, i + 1);
                out.push(r.clone());
            }
        }
    }
    Ok(out)
}

/// What a reader of `records` (named `what`) should be told before any
/// table of them: cells missing from its suite ([`incomplete_note`]) and
/// cells it cannot tell apart ([`twins`]).
pub fn warnings(what: &str, records: &[Record]) -> Vec<String> {
    let mut out = incomplete_note(what, records);
    out.extend(twins(records));
    out
}

/// Cells the reports cannot tell apart: two records of one goal name on
/// one trace under the same axes, with different keys (a store that mixes
/// two versions of a goal or of what its suite measures, or one edited by
/// hand). Both are shown as rows of one name; said, one line each.
pub fn twins(records: &[Record]) -> Vec<String> {
    let mut seen: BTreeMap<(&str, &str, &str, String), &str> = BTreeMap::new();
    let mut out = Vec::new();
    for r in records {
        let axes = serde_json::to_string(&r.axes).unwrap_or_default();
        let id = (
            r.goal.as_str(),
            r.trace.as_str(),
            r.trace_sha256.as_str(),
            axes,
        );
        match seen.get(&id) {
            Some(&key) if key != r.key => out.push(format!(
                "goal `{}` on `{}` is in the store twice under the same axes, as two different \
                 cells (keys {}… and {}…): it mixes two versions of the goal or of its suite, \
                 or was edited, and the report shows both rows",
                r.goal,
                r.trace,
                key_start(key),
                key_start(&r.key)
            )),
            Some(_) => {}
            None => {
                seen.insert(id, &r.key);
            }
        }
    }
    out
}

/// The first 12 characters of a key, enough to tell two apart. Characters,
/// not bytes: a store edited by hand may hold any text there.
fn key_start(key: &str) -> String {
    key.chars().take(12).collect()
}

/// For each suite of `records` whose records count its cells, when fewer
/// cells are held: how many are, of how many. A store lacks cells that
/// failed, were never run (a shard killed by its time limit), or belong
/// to other shards; a report of it would be silently partial.
pub fn incomplete(records: &[Record]) -> Vec<(usize, usize)> {
    let mut suites: BTreeMap<&str, (BTreeSet<&str>, usize)> = BTreeMap::new();
    for r in records {
        let (keys, cells) = suites.entry(&r.suite).or_default();
        keys.insert(&r.key);
        *cells = (*cells).max(r.suite_cells.unwrap_or(0));
    }
    suites
        .into_values()
        .map(|(keys, cells)| (keys.len(), cells))
        .filter(|&(held, cells)| held < cells)
        .collect()
}

/// [`incomplete`] in words, one line per suite, for `what` (a store, the
/// merged store).
pub fn incomplete_note(what: &str, records: &[Record]) -> Vec<String> {
    incomplete(records)
        .into_iter()
        .map(|(held, cells)| {
            format!(
                "{what} holds {held} of its suite's {cells} cells: {} missing (failed, not run, \
                 or in other shards' stores; `goalc bench --suite` runs the missing ones)",
                cells - held
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::{sample, FORMAT};

    fn store(records: Vec<Record>) -> StoreContents {
        StoreContents {
            records,
            ..StoreContents::default()
        }
    }

    #[test]
    fn one_goal_twice_under_two_keys_is_said() {
        let a = rec("k1");
        let mut b = a.clone();
        assert!(
            twins(&[a.clone(), b.clone()]).is_empty(),
            "one cell written twice"
        );
        b.key = "k2".into();
        let said = twins(&[a.clone(), b.clone()]);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with(&format!(
                "goal `{}` on `{}` is in the store twice",
                a.goal, a.trace
            )),
            "{}",
            said[0]
        );
        // A key edited into any text is quoted, not cut inside a character.
        b.key = "aéééééééé".into();
        assert!(twins(&[a.clone(), b.clone()])[0].contains("(keys k1… and aéééééééé…)"));
        b.axes.seed = Some(99);
        assert!(twins(&[a, b]).is_empty(), "two seeds are two cells");
    }

    /// Two named stores, as `merge` takes them.
    fn pair<'a>(
        (a, x): (&'a str, &'a StoreContents),
        (b, y): (&'a str, &'a StoreContents),
    ) -> [Input<'a>; 2] {
        [
            Input {
                name: a,
                contents: x,
            },
            Input {
                name: b,
                contents: y,
            },
        ]
    }

    fn rec(key: &str) -> Record {
        Record {
            key: key.into(),
            ..sample()
        }
    }

    #[test]
    fn a_store_lacking_cells_of_its_suite_says_how_many() {
        let counted = |key: &str, suite: &str, cells| Record {
            suite: suite.into(),
            suite_cells: cells,
            ..rec(key)
        };
        // Suite s: 3 of 4 (a repeated record is one cell); t: 2 of 2;
        // u: written before records counted their suite's cells.
        let records = [
            counted("a", "s", Some(4)),
            counted("b", "s", Some(4)),
            counted("b", "s", Some(4)),
            counted("c", "s", Some(4)),
            counted("d", "t", Some(2)),
            counted("e", "t", Some(2)),
            counted("f", "u", None),
        ];
        assert_eq!(incomplete(&records), [(3, 4)]);
        assert_eq!(
            incomplete_note("x.jsonl", &records),
            [
                "x.jsonl holds 3 of its suite's 4 cells: 1 missing (failed, not run, or in other \
              shards' stores; `goalc bench --suite` runs the missing ones)"
            ]
        );
        assert!(incomplete(&records[4..]).is_empty());
        assert!(incomplete(&[]).is_empty());
    }

    #[test]
    fn a_record_from_before_suites_were_counted_agrees_with_its_cell() {
        let old = store(vec![Record {
            suite_cells: None,
            ..rec("a")
        }]);
        let new = store(vec![rec("a"), rec("b")]);
        let m = merge(&pair(("old", &old), ("new", &new))).unwrap();
        assert_eq!(m, [rec("a"), rec("b")]);
        let both = store(vec![
            Record {
                suite_cells: None,
                ..rec("a")
            },
            rec("a"),
        ]);
        let input = Input {
            name: "s",
            contents: &both,
        };
        assert_eq!(distinct(&input).unwrap().len(), 1);
        // Anything else that differs is still a conflict.
        let mut changed = rec("a");
        changed.suite_cells = None;
        changed.report.epochs += 1;
        assert!(!changed.agrees_with(&rec("a")));
    }

    #[test]
    fn shards_unite_sorted_and_once() {
        let a = store(vec![rec("c"), rec("a")]);
        let b = store(vec![rec("b"), rec("a")]);
        let m = merge(&pair(("a", &a), ("b", &b))).unwrap();
        let keys: Vec<&str> = m.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn other_suites_versions_and_conflicts_are_refused() {
        let a = store(vec![rec("a")]);
        let other_suite = store(vec![Record {
            suite: "other".into(),
            ..rec("b")
        }]);
        let other_version = store(vec![Record {
            goalc: "9.9.9".into(),
            ..rec("b")
        }]);
        let mut changed = rec("a");
        changed.report.epochs += 1;
        let conflict = store(vec![changed]);
        for (other, what) in [
            (
                &other_suite,
                "x.jsonl:1 and y.jsonl:1 hold records of different suites",
            ),
            (
                &other_version,
                "x.jsonl:1 and y.jsonl:1 hold records of different goalc versions",
            ),
            (
                &conflict,
                "x.jsonl:1 and y.jsonl:1 hold different records for cell a",
            ),
        ] {
            let e = merge(&pair(("x.jsonl", &a), ("y.jsonl", other)))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(what) && e.contains("x.jsonl") && e.contains("y.jsonl"),
                "{e}"
            );
        }
    }

    #[test]
    fn one_store_of_two_experiments_names_both_lines() {
        let mixed_up = store(vec![
            rec("a"),
            rec("b"),
            Record {
                format: FORMAT + 1,
                ..rec("c")
            },
        ]);
        let input = Input {
            name: "s.jsonl",
            contents: &mixed_up,
        };
        assert_eq!(
            mixed(std::slice::from_ref(&input)).unwrap(),
            format!(
                "s.jsonl:1 and s.jsonl:3 hold records of different store formats (`{FORMAT}` and `{}`)",
                FORMAT + 1
            )
        );
        assert_eq!(
            mixed(&[Input {
                name: "t",
                contents: &store(vec![rec("a"), rec("b")])
            }]),
            None
        );
    }

    #[test]
    fn one_store_counts_a_repeated_record_once_and_names_both_lines_of_a_conflict() {
        let mut changed = rec("a");
        changed.report.epochs += 1;
        let contents = store(vec![rec("b"), rec("a"), rec("b"), changed]);
        let input = Input {
            name: "s.jsonl",
            contents: &contents,
        };
        let e = distinct(&input).unwrap_err().to_string();
        assert!(
            e.starts_with("s.jsonl:2 and s.jsonl:4 hold different records for cell a"),
            "{e}"
        );
        let e = merge(std::slice::from_ref(&input)).unwrap_err().to_string();
        assert!(
            e.starts_with("cannot merge: s.jsonl:2 and s.jsonl:4 hold"),
            "{e}"
        );
        let contents = store(vec![rec("b"), rec("a"), rec("b")]);
        let input = Input {
            name: "s.jsonl",
            contents: &contents,
        };
        let keys: Vec<String> = distinct(&input)
            .unwrap()
            .into_iter()
            .map(|r| r.key)
            .collect();
        assert_eq!(keys, ["b", "a"]);
    }
}
