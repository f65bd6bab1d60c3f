//! The goal-language error corpus: every file in `tests/ui/` holds one
//! mistake (its first line says which), must be rejected with at least one
//! error, and its rendered diagnostics are pinned in
//! `snapshots/ui/diagnostics@<file>.goal.snap`. The oversized file is made
//! by the test (`too_large`) rather than committed.
//!
//! To review a change in wording or spans:
//! `INSTA_UPDATE=always cargo test --release --test ui`, then read the diff.

use goalc::lang::syntax::MAX_FILE_BYTES;
use goalc::lang::{check_bytes, read_goal_file, Checked};
use std::path::{Path, PathBuf};

const UI_DIR: &str = "tests/ui";
/// Rendered diagnostics of the oversized file must not echo the file.
const MAX_RENDER_FOR_LARGE_FILE: usize = 2 * 1024;

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(UI_DIR);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("readable tests/ui entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "goal"))
        .collect();
    files.sort();
    files
}

/// Every span lies inside the text and on character boundaries.
fn assert_spans_inside(name: &str, checked: &Checked) {
    let text = &checked.text;
    for d in &checked.diagnostics {
        let spans = std::iter::once(d.span).chain(d.related.as_ref().map(|(s, _)| *s));
        for s in spans {
            assert!(
                s.start <= s.end && s.end <= text.len(),
                "{name}: span {s:?} outside the text ({} bytes): {}",
                text.len(),
                d.message
            );
            assert!(
                text.is_char_boundary(s.start) && text.is_char_boundary(s.end),
                "{name}: span {s:?} not on char boundaries: {}",
                d.message
            );
        }
    }
}

#[test]
fn corpus_is_large_enough() {
    let n = corpus().len() + 1; // and the generated too-large.goal
    assert!(n >= 30, "tests/ui has {n} goal files, expected at least 30");
}

/// Name of the oversized goal file, which the test makes in memory.
const TOO_LARGE: &str = "too-large.goal";

/// The oversized goal file: over 1 MiB, the rest padding comments.
fn too_large() -> Vec<u8> {
    let mut text = String::from(
        "# mistake: the file is over 1 MiB (the rest is padding comments)\nbackfill easy\n",
    );
    text.push_str(&"# padding\n".repeat(104_858));
    text.into_bytes()
}

/// `too_large()` as a goal file on disk, read as `goalc check` reads it.
fn too_large_as_read() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(TOO_LARGE);
    std::fs::write(&path, too_large()).unwrap();
    read_goal_file(&path).unwrap()
}

/// A goal file over the limit is read only to just past it (a 1 MiB file,
/// or `/dev/zero`, is never read whole), and a character the read cuts is
/// left out, so what is read is still text.
#[test]
fn a_large_goal_file_is_read_only_past_the_limit() {
    assert_eq!(too_large_as_read().len(), MAX_FILE_BYTES + 4);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wide.goal");
    // A 3-byte character over the limit's last byte: 2 bytes of it come
    // past the 4 the read takes beyond the limit.
    let mut text = "#".repeat(MAX_FILE_BYTES + 2);
    text.push('€');
    std::fs::write(&path, &text).unwrap();
    let bytes = read_goal_file(&path).unwrap();
    assert_eq!(bytes.len(), MAX_FILE_BYTES + 2);
    let checked = check_bytes("wide.goal", &bytes);
    assert!(
        checked.diagnostics[0]
            .message
            .contains("larger than the 64 KiB a goal file may have"),
        "{}",
        checked.diagnostics[0].message
    );
}

/// Checks one wrong goal file, named `tests/ui/<file_name>` in its
/// diagnostics, and pins them as `diagnostics@<file_name>`.
fn check_and_pin(file_name: &str, bytes: &[u8]) {
    let checked = check_bytes(&format!("{UI_DIR}/{file_name}"), bytes);

    assert!(
        checked.has_errors(),
        "{file_name}: accepted, but it holds a mistake:\n{}",
        String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
    );
    assert!(
        checked.goal.is_none(),
        "{file_name}: has errors but still compiled a goal"
    );
    assert_spans_inside(file_name, &checked);

    let text = checked.render(false);
    if bytes.len() > MAX_FILE_BYTES {
        assert!(
            text.len() < MAX_RENDER_FOR_LARGE_FILE,
            "{file_name}: {} bytes of diagnostics for an oversized file",
            text.len()
        );
    }
    insta::assert_snapshot!("diagnostics", text);
}

#[test]
fn every_mistake_is_reported_and_pinned() {
    insta::with_settings!({snapshot_path => "../snapshots/ui", prepend_module_to_snapshot => false}, {
        // One glob over tests/ui, so one run reports every snapshot that
        // moved.
        insta::glob!("ui", "*.goal", |path| {
            let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
            check_and_pin(&file_name, &std::fs::read(path).unwrap());
        });
    });
    insta::with_settings!({
        snapshot_path => "../snapshots/ui",
        prepend_module_to_snapshot => false,
        snapshot_suffix => TOO_LARGE,
    }, {
        check_and_pin(TOO_LARGE, &too_large_as_read());
    });
}

#[test]
fn every_file_but_the_special_ones_says_its_mistake() {
    // No comment is possible (or it would defeat the purpose) in these.
    let exempt = ["empty", "binary-garbage"];
    for path in corpus() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if exempt.contains(&stem.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // A byte order mark, when it is the mistake, comes first.
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        assert!(
            text.starts_with("# mistake: "),
            "{stem}.goal must start with a `# mistake: ...` comment line"
        );
    }
}
