//! The goal-language error corpus: every file in `tests/ui/` holds one
//! mistake (its first line says which), must be rejected with at least one
//! error, and its rendered diagnostics are pinned in `snapshots/ui-*.snap`.
//!
//! To review a change in wording or spans:
//! `INSTA_UPDATE=always cargo test --release --test ui`, then read the diff.

use goalc::lang::{check_bytes, Checked};
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
    let n = corpus().len();
    assert!(n >= 30, "tests/ui has {n} goal files, expected at least 30");
}

#[test]
fn every_mistake_is_reported_and_pinned() {
    for path in corpus() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let checked = check_bytes(&format!("{UI_DIR}/{file_name}"), &bytes);

        assert!(
            checked.has_errors(),
            "{file_name}: accepted, but it holds a mistake:\n{}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        );
        assert!(
            checked.goal.is_none(),
            "{file_name}: has errors but still compiled a goal"
        );
        assert_spans_inside(&file_name, &checked);

        let text = checked.render(false);
        if bytes.len() > 1024 * 1024 {
            assert!(
                text.len() < MAX_RENDER_FOR_LARGE_FILE,
                "{file_name}: {} bytes of diagnostics for an oversized file",
                text.len()
            );
        }
        insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("ui-{stem}"), text);
        });
    }
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
