//! The suite-file error corpus: every file in `tests/suite-ui/` holds one
//! mistake (its first line says which), must be rejected with at least one
//! error and no suite, and its rendered diagnostics are pinned in
//! `snapshots/suite-ui/diagnostics@<file>.toml.snap`. The files are
//! checked without `$GOALC_TRACES`, so the output is the same everywhere.
//!
//! To review a change in wording or spans:
//! `INSTA_UPDATE=always cargo test --release --test suite_ui`, then read
//! the diff.

use goalc::suite::check_text;
use std::path::Path;

const DIR: &str = "tests/suite-ui";

#[test]
fn every_mistake_is_reported_and_pinned() {
    let mut seen = 0;
    insta::with_settings!({snapshot_path => "../snapshots/suite-ui", prepend_module_to_snapshot => false}, {
        insta::glob!("suite-ui", "*.toml", |path| {
            seen += 1;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(path).unwrap();
            assert!(text.starts_with("# mistake: "), "{name}: say the mistake on line 1");
            let checked = check_text(&format!("{DIR}/{name}"), &text, Path::new(DIR), None);
            assert!(checked.has_errors(), "{name}: accepted, but it holds a mistake");
            assert!(checked.suite.is_none(), "{name}: has errors but gave a suite");
            let rendered = checked.render(false);
            assert!(
                rendered.contains(&format!("{DIR}/")),
                "{name}: diagnostics name no file:\n{rendered}"
            );
            insta::assert_snapshot!("diagnostics", rendered);
        });
    });
    assert!(
        seen >= 20,
        "tests/suite-ui has {seen} files, expected at least 20"
    );
}

#[test]
fn the_example_suites_are_valid() {
    for (file, traces) in [
        ("suites/example.toml", None),
        ("suites/study.toml", Some(Path::new("/nonexistent-traces"))),
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        let checked = check_text(file, &text, Path::new("suites"), traces);
        let rendered = checked.render(false);
        // The study names manifest traces: without them, only that error.
        if file.ends_with("study.toml") {
            let errors: Vec<&str> = rendered
                .lines()
                .filter(|l| l.contains(": error: "))
                .collect();
            assert_eq!(errors.len(), 2, "{rendered}");
            assert!(
                errors.iter().all(|e| e.contains("is not in GOALC_TRACES")),
                "{rendered}"
            );
        } else {
            assert!(!checked.has_errors(), "{rendered}");
            let suite = checked.suite.unwrap();
            assert_eq!((suite.goals.len(), suite.traces.len()), (4, 2));
        }
    }
    // With the reference traces, the study is valid: their texts are the
    // ones the manifest gives the sha256 of.
    if let Some(dir) = std::env::var_os("GOALC_TRACES") {
        let file = "suites/study.toml";
        let text = std::fs::read_to_string(file).unwrap();
        let checked = check_text(file, &text, Path::new("suites"), Some(Path::new(&dir)));
        assert!(!checked.has_errors(), "{}", checked.render(false));
    }
}
