//! Shard stores united into one: every record once, sorted by key, so the
//! union of a suite's shards has the bytes of a single run's store sorted.
//! Stores of different suites, goalc versions or store formats are
//! refused: their records do not describe one experiment.

use super::file::StoreContents;
use super::record::Record;
use super::StoreError;
use std::collections::BTreeMap;

/// One input store: its name for messages and what it holds.
pub struct Input<'a> {
    pub name: &'a str,
    pub contents: &'a StoreContents,
}

/// The records of all `inputs`, each key once, sorted by key.
pub fn merge(inputs: &[Input]) -> Result<Vec<Record>, StoreError> {
    // (suite, goalc, format) of the first record seen, and where.
    let mut first: Option<(&str, &Record)> = None;
    let mut by_key: BTreeMap<&str, (&str, &Record)> = BTreeMap::new();
    for input in inputs {
        for r in &input.contents.records {
            match first {
                None => first = Some((input.name, r)),
                Some((name, f)) => {
                    let differ = |what: &str, a: &str, b: &str| {
                        StoreError::Refused(format!(
                            "cannot merge: {name} and {} hold records of different {what} (`{a}` and `{b}`)",
                            input.name
                        ))
                    };
                    if f.suite != r.suite {
                        return Err(differ("suites", &f.suite, &r.suite));
                    }
                    if f.goalc != r.goalc {
                        return Err(differ("goalc versions", &f.goalc, &r.goalc));
                    }
                    if f.format != r.format {
                        return Err(differ(
                            "store formats",
                            &f.format.to_string(),
                            &r.format.to_string(),
                        ));
                    }
                }
            }
            if let Some((name, other)) = by_key.get(r.key.as_str()) {
                if *other != r {
                    return Err(StoreError::Refused(format!(
                        "cannot merge: {name} and {} hold different records for cell {} ({} on {})",
                        input.name, r.key, r.goal, r.trace
                    )));
                }
                continue;
            }
            by_key.insert(&r.key, (input.name, r));
        }
    }
    Ok(by_key.into_values().map(|(_, r)| r.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::sample;

    fn store(records: Vec<Record>) -> StoreContents {
        StoreContents {
            records,
            ..StoreContents::default()
        }
    }

    fn rec(key: &str) -> Record {
        Record {
            key: key.into(),
            ..sample()
        }
    }

    #[test]
    fn shards_unite_sorted_and_once() {
        let a = store(vec![rec("c"), rec("a")]);
        let b = store(vec![rec("b"), rec("a")]);
        let inputs = [
            Input {
                name: "a",
                contents: &a,
            },
            Input {
                name: "b",
                contents: &b,
            },
        ];
        let m = merge(&inputs).unwrap();
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
            (&other_suite, "different suites"),
            (&other_version, "different goalc versions"),
            (&conflict, "different records for cell a"),
        ] {
            let inputs = [
                Input {
                    name: "x.jsonl",
                    contents: &a,
                },
                Input {
                    name: "y.jsonl",
                    contents: other,
                },
            ];
            let e = merge(&inputs).unwrap_err().to_string();
            assert!(
                e.contains(what) && e.contains("x.jsonl") && e.contains("y.jsonl"),
                "{e}"
            );
        }
    }
}
