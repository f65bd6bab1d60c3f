//! The reference traces a suite may name: `traces/manifest.toml`, built
//! into the program so that a suite names a trace the same way on every
//! machine, and finds its file in `$GOALC_TRACES`.

use serde::Deserialize;
use toml::Spanned;

const MANIFEST: &str = include_str!("../../traces/manifest.toml");

/// The manifest as named in messages (the file in the source tree that
/// the program holds).
pub const PATH: &str = "traces/manifest.toml";

/// One reference trace of the manifest.
#[derive(Debug, Clone)]
pub struct ManifestTrace {
    pub name: String,
    /// File name in the traces folder.
    pub file: String,
    /// sha256 of the uncompressed text.
    pub swf_sha256: String,
    /// The 1-based line of [`PATH`] that gives `swf_sha256`, for a file
    /// that does not match it.
    pub sha256_line: usize,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    file: String,
    swf_sha256: Spanned<String>,
}

#[derive(Deserialize)]
struct Manifest {
    trace: Vec<Entry>,
}

/// The manifest's traces, in its order. The manifest is part of the
/// source tree and its test (`tests/manifest.rs`) checks it parses, so an
/// unreadable one is an empty list rather than a panic.
pub fn traces() -> Vec<ManifestTrace> {
    let Ok(m) = toml::from_str::<Manifest>(MANIFEST) else {
        return Vec::new();
    };
    m.trace
        .into_iter()
        .map(|e| ManifestTrace {
            sha256_line: crate::lang::diag::line_col(MANIFEST, e.swf_sha256.span().start).0,
            name: e.name,
            file: e.file,
            swf_sha256: e.swf_sha256.into_inner(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_manifest_parses() {
        let t = super::traces();
        assert!(t.len() >= 10);
        assert!(t.iter().any(|t| t.name == "CTC-SP2-1996-3.1-cln"));
    }

    #[test]
    fn each_digest_is_known_by_its_line() {
        let lines: Vec<&str> = super::MANIFEST.lines().collect();
        for t in super::traces() {
            let line = lines[t.sha256_line - 1];
            assert_eq!(line, format!("swf_sha256 = \"{}\"", t.swf_sha256));
        }
    }
}
