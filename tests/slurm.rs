//! A suite through a real Slurm: `goalc bench --emit-slurm` scripts
//! submitted with `sbatch` (a 4-task job array and a merge job depending
//! on it), the merged store compared with a local run of the same suite.
//! Two cells cannot run (GREEDY on a trace whose time zone no one knows):
//! their shards fail, and the merge still unites every finished cell and
//! says how many are missing.
//!
//! Without Slurm (`sbatch` not on PATH, or SLURM_CONF unset) the test says
//! so and passes, unless GOALC_REQUIRE_SLURM=1 (CI sets it), where it
//! fails. A single-node Slurm for this: `../shared/tools/slurm-local.sh
//! start`, then `export SLURM_CONF=/tmp/slurm-local/slurm.conf`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GOALC: &str = env!("CARGO_BIN_EXE_goalc");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn have_slurm() -> bool {
    let sbatch = Command::new("sbatch").arg("--version").output();
    sbatch.is_ok_and(|o| o.status.success()) && std::env::var_os("SLURM_CONF").is_some()
}

fn sh(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

/// The state of a job, or of each task of an array, from scontrol.
fn states(job: &str) -> Vec<String> {
    let out = Command::new("scontrol")
        .args(["show", "job", job, "-o"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    out.lines()
        .map(|l| {
            let field = |k: &str| {
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix(k))
                    .unwrap_or("?")
                    .to_string()
            };
            format!(
                "{}{} {} exit {}",
                field("JobId="),
                l.split_whitespace()
                    .find_map(|w| w.strip_prefix("ArrayTaskId="))
                    .map_or(String::new(), |t| format!("_{t}")),
                field("JobState="),
                field("ExitCode=")
            )
        })
        .collect()
}

#[test]
fn a_job_array_of_shards_merges_into_the_local_store() {
    if !have_slurm() {
        let msg = "skipped: no Slurm (set up with ../shared/tools/slurm-local.sh start, \
                   then export SLURM_CONF=/tmp/slurm-local/slurm.conf)";
        assert!(
            std::env::var("GOALC_REQUIRE_SLURM").as_deref() != Ok("1"),
            "GOALC_REQUIRE_SLURM=1 but {msg}"
        );
        eprintln!("{msg}");
        return;
    }
    // Jobs run as the submitting user and read these: a world-readable
    // folder, not one under a private home.
    let dir: PathBuf = std::env::temp_dir().join(format!("goalc-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("suite.toml");
    std::fs::write(dir.join("mars.swf"), common::MARS_TRACE).unwrap();
    std::fs::write(
        &suite,
        format!(
            "goals = [\"{ROOT}/goals/easy.goal\", \"{ROOT}/goals/fcfs-backfill.goal\", \
             \"{ROOT}/goals/conservative.goal\", \"{ROOT}/goals/strict-lexical-tw-avgx-dds-fcfs.goal\", \
             \"{ROOT}/goals/greedy-hand.goal\"]\n\
             [[trace]]\nmodel = {{ jobs = 800, procs = 64 }}\n\
             [[trace]]\npath = \"{ROOT}/traces/lublin-1000-64-s2.swf\"\n\
             [[trace]]\npath = \"mars.swf\"\n\
             [axes]\nloads = [0.7, 0.9]\nbudgets = [20, 60]\nseeds = [1, 2]\n"
        ),
    )
    .unwrap();
    let local = dir.join("local.jsonl");
    let o = Command::new(GOALC)
        .args([
            "bench",
            "--suite",
            suite.to_str().unwrap(),
            "--format",
            "csv",
        ])
        .arg("--store")
        .arg(&local)
        .env_remove("GOALC_TRACES")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("2 of 48 cells failed"), "{e}");
    let out = dir.join("slurm");
    let o = Command::new(GOALC)
        .args(["bench", "--suite", suite.to_str().unwrap(), "--shards", "4"])
        .arg("--emit-slurm")
        .arg(&out)
        .env_remove("GOALC_TRACES")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let submitted = sh(out.join("submit.sh").to_str().unwrap(), &[]);
    eprintln!("slurm: {}", submitted.trim());
    // "array job A (4 tasks), merge job M: ..."
    let words: Vec<&str> = submitted.split_whitespace().collect();
    let array = words[2].to_string();
    let merge = words[7].trim_end_matches(':').to_string();
    let start = Instant::now();
    loop {
        let queued = sh(
            "squeue",
            &["-h", "-j", &format!("{array},{merge}"), "-o", "%i %T"],
        );
        if queued.trim().is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "jobs still queued after 10 minutes:\n{queued}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    for s in states(&array).iter().chain(&states(&merge)) {
        eprintln!("slurm: {s}");
    }
    let merge_log = std::fs::read_to_string(out.join("merge.log")).unwrap_or_default();
    eprintln!("slurm: merge.log: {}", merge_log.trim());
    let merged = out.join("merged.jsonl");
    assert!(
        merged.is_file(),
        "no merged store; merge.log: {merge_log}; shard-0.log: {}",
        std::fs::read_to_string(out.join("shard-0.log")).unwrap_or_default()
    );
    assert!(
        merge_log.contains("holds 46 of its suite's 48 cells: 2 missing"),
        "{merge_log}"
    );
    let merged_text = std::fs::read_to_string(&merged).unwrap();
    assert_eq!(
        merged_text,
        sorted_lines(&local).join("\n") + "\n",
        "the merged shards differ from the local run"
    );
    eprintln!(
        "slurm: merged store of {} cells equals the local run's, byte for byte after sorting",
        merged_text.lines().count()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
