//! Which records of a store a run can reuse: those of this store format
//! and goalc version whose key is a cell the run wants, and whose axes and
//! trace are that cell's. Anything else (a cell no longer in the suite,
//! another version's numbers, a record twice, a record edited by hand
//! under its old key) is left out, and the store is rewritten without it, so that a store
//! holds only cells of the suite that last ran on it: all of a shard's
//! after a shard ran, and those of other shards it held before. Two
//! different records for one cell are refused, as `merge` refuses them:
//! which one is right cannot be told.

use super::file::{write_atomically, StoreContents};
use super::merge::conflict;
use super::record::{Axes, Record, FORMAT, GOALC_VERSION};
use super::StoreError;
use std::collections::BTreeMap;
use std::path::Path;

/// The records a run reuses, by key, and how many it left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reuse {
    pub kept: BTreeMap<String, Record>,
    /// Records left out: of another version, or of cells not wanted.
    pub dropped: usize,
    /// Records left out as the same record again.
    pub repeated: usize,
    /// Records of a wanted cell whose axes or trace are not the cell's:
    /// changed since the key was made from them, so their cells run again.
    pub edited: usize,
}

/// What a run wants of a cell's record, by key: the cell's axes and the
/// sha256 of its trace.
pub type Wanted<'a> = BTreeMap<&'a str, (&'a Axes, &'a str)>;

/// Picks from `contents` (the store at `path`) the records for `wanted`
/// keys, marked with `suite`'s id and number of cells (a record follows
/// the suite that reuses it: its key says its inputs are unchanged).
pub fn reusable(
    path: &Path,
    contents: &StoreContents,
    (suite, cells): (&str, usize),
    wanted: &Wanted<'_>,
) -> Result<Reuse, StoreError> {
    let mut out = Reuse::default();
    // Line of each kept record, to name both of two that differ.
    let mut lines: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, r) in contents.records.iter().enumerate() {
        let cell = wanted.get(r.key.as_str());
        if r.format != FORMAT || r.goalc != GOALC_VERSION || cell.is_none() {
            out.dropped += 1;
            continue;
        }
        if cell.is_some_and(|&(axes, trace)| r.axes != *axes || r.trace_sha256 != trace) {
            out.edited += 1;
            continue;
        }
        let mut r = r.clone();
        r.suite = suite.to_string();
        r.suite_cells = Some(cells);
        match out.kept.get(&r.key) {
            Some(first) if *first != r => {
                let name = path.display().to_string();
                let first = (name.as_str(), lines[r.key.as_str()]);
                return Err(StoreError::Refused(conflict(first, (&name, i + 1), &r)));
            }
            Some(_) => out.repeated += 1,
            None => {
                lines.insert(&contents.records[i].key, i + 1);
                out.kept.insert(r.key.clone(), r);
            }
        }
    }
    Ok(out)
}

/// Whether the store must be rewritten to hold exactly `reuse.kept`, in
/// its order: something was dropped, or a kept record changed suite.
pub fn needs_rewrite(contents: &StoreContents, reuse: &Reuse) -> bool {
    reuse.dropped + reuse.repeated + reuse.edited > 0
        || contents.records.iter().any(|r| {
            reuse
                .kept
                .get(&r.key)
                .is_some_and(|k| k.suite != r.suite || k.suite_cells != r.suite_cells)
        })
}

/// Rewrites the store at `path` with `records` (sorted by key), replacing
/// it in one rename.
pub fn rewrite(path: &Path, records: &[&Record]) -> Result<(), StoreError> {
    let mut text = String::new();
    for r in records {
        text += &r.to_line();
    }
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::sample;

    /// `keys` wanted, each with the axes and trace of `like`.
    fn want<'a>(keys: &[&'a str], like: &'a Record) -> Wanted<'a> {
        keys.iter()
            .map(|&k| (k, (&like.axes, like.trace_sha256.as_str())))
            .collect()
    }

    /// [`reusable`] for a store `s.jsonl` of `contents`, wanting `keys`
    /// as [`sample`] has its axes and trace.
    fn reuse_of(
        contents: &StoreContents,
        suite: (&str, usize),
        keys: &[&str],
    ) -> Result<Reuse, StoreError> {
        reusable(
            Path::new("s.jsonl"),
            contents,
            suite,
            &want(keys, &sample()),
        )
    }

    fn rec(key: &str, goalc: &str) -> Record {
        Record {
            key: key.into(),
            goalc: goalc.into(),
            ..sample()
        }
    }

    #[test]
    fn only_wanted_records_of_this_version_are_reused() {
        let contents = StoreContents {
            records: vec![
                rec("a", GOALC_VERSION),
                rec("b", "0.0.0-other"),
                rec("c", GOALC_VERSION),
                rec("a", GOALC_VERSION),
            ],
            ..StoreContents::default()
        };
        let r = reuse_of(&contents, ("new-suite", 4), &["a", "b"]).unwrap();
        assert_eq!(r.kept.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(r.kept["a"].suite, "new-suite");
        assert_eq!(r.kept["a"].suite_cells, Some(4));
        // b: other version; c: not wanted; the second a: twice.
        assert_eq!((r.dropped, r.repeated, r.edited), (2, 1, 0));
        assert!(needs_rewrite(&contents, &r));
    }

    #[test]
    fn two_different_records_for_one_cell_are_refused() {
        let mut changed = rec("a", GOALC_VERSION);
        changed.report.epochs += 1;
        let contents = StoreContents {
            records: vec![rec("b", GOALC_VERSION), changed, rec("a", GOALC_VERSION)],
            ..StoreContents::default()
        };
        let e = reuse_of(&contents, ("s", 16), &["a", "b"]).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("s.jsonl:2 and s.jsonl:3 hold different records for cell a"),
            "{e}"
        );
        // Not wanted, the cell's records are left out whatever they hold.
        let r = reuse_of(&contents, ("s", 16), &["b"]).unwrap();
        assert_eq!((r.kept.len(), r.dropped), (1, 2));
    }

    #[test]
    fn a_store_of_exactly_the_wanted_cells_is_left_alone() {
        let mut a = rec("a", GOALC_VERSION);
        a.suite = "s".into();
        let contents = StoreContents {
            records: vec![a],
            ..StoreContents::default()
        };
        let r = reuse_of(&contents, ("s", 16), &["a"]).unwrap();
        assert_eq!((r.kept.len(), r.dropped), (1, 0));
        assert!(!needs_rewrite(&contents, &r));
        let r = reuse_of(&contents, ("t", 16), &["a"]).unwrap();
        assert!(needs_rewrite(&contents, &r));
        // The suite grew (or a store written before records counted the
        // suite's cells): the record learns the new count.
        for before in [Some(16), None] {
            let mut old = contents.clone();
            old.records[0].suite_cells = before;
            let r = reuse_of(&old, ("s", 17), &["a"]).unwrap();
            assert_eq!(r.kept["a"].suite_cells, Some(17));
            assert!(needs_rewrite(&old, &r));
        }
    }

    #[test]
    fn a_record_edited_under_its_key_is_not_reused() {
        let mut load = rec("a", GOALC_VERSION);
        load.axes.load = Some(-5.0);
        let mut trace = rec("b", GOALC_VERSION);
        trace.trace_sha256 = "0".repeat(64);
        let contents = StoreContents {
            records: vec![load, trace, rec("c", GOALC_VERSION)],
            ..StoreContents::default()
        };
        let r = reuse_of(&contents, ("s", 3), &["a", "b", "c"]).unwrap();
        assert_eq!(r.kept.keys().collect::<Vec<_>>(), ["c"]);
        assert_eq!((r.dropped, r.repeated, r.edited), (0, 0, 2));
        assert!(needs_rewrite(&contents, &r));
    }
}
