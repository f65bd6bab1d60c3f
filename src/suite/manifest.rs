//! The reference traces a suite may name: `traces/manifest.toml`, built
//! into the program so that a suite names a trace the same way on every
//! machine, and finds its file in `$GOALC_TRACES`.

use serde::Deserialize;

const MANIFEST: &str = include_str!("../../traces/manifest.toml");

/// One reference trace of the manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct ManifestTrace {
    pub name: String,
    /// File name in the traces folder.
    pub file: String,
    /// sha256 of the uncompressed text.
    pub swf_sha256: String,
}

#[derive(Deserialize)]
struct Manifest {
    trace: Vec<ManifestTrace>,
}

/// The manifest's traces, in its order. The manifest is part of the
/// source tree and its test (`tests/manifest.rs`) checks it parses, so an
/// unreadable one is an empty list rather than a panic.
pub fn traces() -> Vec<ManifestTrace> {
    toml::from_str::<Manifest>(MANIFEST)
        .map(|m| m.trace)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_manifest_parses() {
        let t = super::traces();
        assert!(t.len() >= 10);
        assert!(t.iter().any(|t| t.name == "CTC-SP2-1996-3.1-cln"));
    }
}
