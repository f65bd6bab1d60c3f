//! `traces/manifest.toml` describes the reference traces truthfully: each
//! trace in `$GOALC_TRACES` is listed, with its machine size, job count and
//! the sha256 of its uncompressed text.

mod common;
use common::reference_traces;
use flate2::read::MultiGzDecoder;
use goalc::workload::swf::{read_path, trace_name, ReadOptions};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::io::Read;

#[derive(Deserialize)]
struct Manifest {
    trace: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    name: String,
    file: String,
    procs: u32,
    jobs: u64,
    swf_sha256: String,
    url: String,
    mirror: String,
}

fn manifest() -> Manifest {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/traces/manifest.toml"))
            .unwrap();
    toml::from_str(&text).expect("manifest.toml parses")
}

#[test]
fn manifest_entries_are_complete() {
    let m = manifest();
    assert_eq!(m.trace.len(), 10);
    for e in &m.trace {
        assert_eq!(e.file, format!("{}.swf.gz", e.name));
        assert!(
            e.url.starts_with("https://") && e.url.ends_with(&e.file),
            "{}",
            e.url
        );
        assert!(
            e.mirror.starts_with("https://") && e.mirror.ends_with(&e.file),
            "{}",
            e.mirror
        );
        assert_eq!(e.swf_sha256.len(), 64);
        assert!(e.procs > 0 && e.jobs > 0);
    }
}

#[test]
fn reference_traces_match_the_manifest() {
    let m = manifest();
    for path in reference_traces() {
        let name = trace_name(&path);
        let e = m
            .trace
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} is not in traces/manifest.toml"));
        let raw = std::fs::read(&path).unwrap();
        let mut text = Vec::new();
        MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut text)
            .unwrap();
        let digest: String = Sha256::digest(&text)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, e.swf_sha256, "{name}: sha256");
        let w = read_path(&path, &ReadOptions::default()).unwrap();
        assert_eq!(w.procs, e.procs, "{name}: processors");
        assert_eq!(
            w.jobs.len() as u64 + w.dropped.total(),
            e.jobs,
            "{name}: jobs"
        );
    }
}

/// The small traces shipped in `traces/` are exactly what `goalc generate`
/// makes from the parameters in their names, so they stay in step with the
/// model (regenerate with the command in the failure message).
#[test]
fn generated_traces_are_reproducible() {
    use goalc::workload::model::{generate, ModelParams};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/traces");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name
            .strip_prefix("lublin-")
            .and_then(|s| s.strip_suffix(".swf"))
        else {
            continue;
        };
        let parts: Vec<&str> = stem.split('-').collect();
        let [jobs, procs, seed] = parts[..] else {
            panic!("{name}: expected lublin-JOBS-PROCS-sSEED.swf")
        };
        let params = ModelParams {
            jobs: jobs.parse().unwrap(),
            procs: procs.parse().unwrap(),
            seed: seed.trim_start_matches('s').parse().unwrap(),
            widest: None,
            users: None,
        };
        let w = generate(&params).unwrap();
        let mut expected = Vec::new();
        goalc::workload::swf::write_workload(&mut expected, &w).unwrap();
        let actual = std::fs::read(&path).unwrap();
        assert!(
            actual == expected,
            "{name} differs from the model; regenerate with \
             `cargo run --release -- generate --jobs {} --procs {} --seed {} -o traces/{name}`",
            params.jobs,
            params.procs,
            params.seed
        );
        checked += 1;
    }
    assert!(checked >= 2, "expected generated traces in traces/");
}
