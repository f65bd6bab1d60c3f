//! The module dependency graph is a DAG, from the bottom up:
//! `workload -> units -> sim -> policy -> measures` (then the language,
//! reports and commands on top). A module may import only modules below it,
//! so the core cannot depend on a policy or a measure and a policy cannot
//! depend on how it is measured. Checked on the sources' `crate::` paths.

use std::path::Path;

/// Each lower layer and the top-level modules it may name.
const LAYERS: &[(&str, &[&str])] = &[
    ("workload", &["workload"]),
    ("units.rs", &["units", "workload"]),
    ("sim", &["sim", "workload", "units"]),
    ("policy", &["policy", "sim", "workload", "units"]),
    (
        "measures",
        &["measures", "policy", "sim", "workload", "units"],
    ),
];

fn sources(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).expect("source folder") {
            sources(&entry.expect("entry").path(), out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The top-level modules named by `crate::x` paths in `text`.
fn crate_paths(text: &str) -> Vec<String> {
    text.match_indices("crate::")
        .filter(|(i, _)| {
            // Not the tail of a longer identifier such as `goalcrate::`.
            !text[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(i, m)| {
            text[i + m.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn lower_layers_import_only_modules_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut broken = Vec::new();
    for (layer, allowed) in LAYERS {
        let mut files = Vec::new();
        sources(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "no sources for {layer}");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("source");
            for module in crate_paths(&text) {
                if !module.is_empty() && !allowed.contains(&module.as_str()) {
                    broken.push(format!("{} uses crate::{module}", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

#[test]
fn crate_paths_are_found() {
    assert_eq!(
        crate_paths("use crate::sim::X; [`crate::workload`] goalcrate::no"),
        vec!["sim", "workload"]
    );
}
