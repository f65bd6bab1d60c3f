//! Batch scripts that run a suite's shards as a Slurm job array and merge
//! their stores in a job that waits for the array to end (`afterany`): the array
//! task `i` runs shard `i/n` into `DIR/shard-i.jsonl`, the merge job unites
//! them into `DIR/merged.jsonl`. Paths are absolute, so the jobs run from
//! any folder and on any node that sees the same file system.

use std::path::Path;

/// What the scripts run.
pub struct SlurmPlan<'a> {
    /// The goalc binary.
    pub goalc: &'a Path,
    /// The suite file.
    pub suite: &'a Path,
    /// Where the scripts, shard stores, logs and merged store go.
    pub dir: &'a Path,
    pub shards: usize,
    /// `$GOALC_TRACES` at the time of writing, passed on to the jobs.
    pub traces: Option<&'a Path>,
}

/// A script, by file name.
pub struct Script {
    pub name: &'static str,
    pub text: String,
    pub executable: bool,
}

/// A word for the shell, in single quotes.
fn quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// Whether `dir` can be written in an `#SBATCH` line, else why not. sbatch
/// reads those lines with its own tokenizer, not the shell's: a backslash
/// escapes even between single quotes, a quote of either kind ends a word,
/// and `--output` expands `%` patterns; a line break ends the directive.
pub fn check_folder(dir: &Path) -> Result<(), String> {
    let unfit = dir
        .to_string_lossy()
        .chars()
        .find(|c| matches!(c, '\\' | '\'' | '"' | '%') || c.is_control());
    match unfit {
        None => Ok(()),
        Some(c) => Err(format!(
            "the scripts' folder `{}` has {c:?}, which an #SBATCH line cannot carry \
             (sbatch does not read them as the shell does): choose a folder without \
             backslashes, quotes, `%` or control characters",
            dir.display()
        )),
    }
}

/// The three scripts: `array.sbatch`, `merge.sbatch`, `submit.sh`; an
/// error when `dir` cannot be written in an `#SBATCH` line
/// ([`check_folder`]).
pub fn scripts(p: &SlurmPlan) -> Result<Vec<Script>, String> {
    let dir = p.dir;
    check_folder(dir)?;
    let n = p.shards;
    let env = match p.traces {
        Some(t) => format!("export GOALC_TRACES={}\n", quote(t)),
        None => String::new(),
    };
    let array = format!(
        "#!/bin/bash\n\
         # Written by `goalc bench --suite ... --emit-slurm`: task i of the\n\
         # array runs shard i/{n} of the suite into its own store.\n\
         #SBATCH --job-name=goalc-suite\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --output={log}\n\
         #SBATCH --chdir={dir_q}\n\
         set -euo pipefail\n\
         {env}\
         exec {goalc} bench --suite {suite} --shard \"$SLURM_ARRAY_TASK_ID/{n}\" \\\n    \
         --store {dir_q}/\"shard-$SLURM_ARRAY_TASK_ID.jsonl\" --format csv\n",
        last = n - 1,
        log = quote(&dir.join("shard-%a.log")),
        dir_q = quote(dir),
        goalc = quote(p.goalc),
        suite = quote(p.suite),
    );
    let shard_stores: Vec<String> = (0..n)
        .map(|i| quote(&dir.join(format!("shard-{i}.jsonl"))))
        .collect();
    // Every shard's store that exists: a task that failed before writing
    // one (a node lost, a time limit) is said, and the merge warns of the
    // cells missing, so the stores that did finish are not held back.
    let merge = format!(
        "#!/bin/bash\n\
         # Written by `goalc bench --suite ... --emit-slurm`: unites the\n\
         # {n} shard stores once every array task has ended. A task that\n\
         # failed is in its log (shard-I.log); the merge then warns how many\n\
         # cells the merged store lacks, and a rerun of that shard runs them.\n\
         #SBATCH --job-name=goalc-merge\n\
         #SBATCH --output={log}\n\
         #SBATCH --chdir={dir_q}\n\
         set -euo pipefail\n\
         stores=()\n\
         for s in {stores}; do\n    \
         if [ -e \"$s\" ]; then stores+=(\"$s\"); else echo \"goalc-merge: no store $s\" >&2; fi\n\
         done\n\
         if [ ${{#stores[@]}} -eq 0 ]; then echo \"goalc-merge: no shard wrote a store\" >&2; exit 1; fi\n\
         exec {goalc} merge --out {out} \"${{stores[@]}}\"\n",
        log = quote(&dir.join("merge.log")),
        dir_q = quote(dir),
        goalc = quote(p.goalc),
        out = quote(&dir.join("merged.jsonl")),
        stores = shard_stores.join(" \\\n    "),
    );
    let submit = format!(
        "#!/bin/sh\n\
         # Submits the shards' job array, then the merge job to run after\n\
         # every task of it ended, failed or not. Prints both job ids.\n\
         set -eu\n\
         array=$(sbatch --parsable {array})\n\
         array=${{array%%;*}}\n\
         merge=$(sbatch --parsable --dependency=afterany:\"$array\" {merge})\n\
         merge=${{merge%%;*}}\n\
         echo \"array job $array ({n} tasks), merge job $merge:\" {out}\n",
        array = quote(&dir.join("array.sbatch")),
        merge = quote(&dir.join("merge.sbatch")),
        // A word of its own: between double quotes `$(...)` would run.
        out = quote(&dir.join("merged.jsonl")),
    );
    Ok(vec![
        Script {
            name: "array.sbatch",
            text: array,
            executable: false,
        },
        Script {
            name: "merge.sbatch",
            text: merge,
            executable: false,
        },
        Script {
            name: "submit.sh",
            text: submit,
            executable: true,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_name_is_never_run_as_a_command_and_unfit_ones_are_refused() {
        let plan = |dir| SlurmPlan {
            goalc: Path::new("/opt/goalc"),
            suite: Path::new("/s.toml"),
            dir: Path::new(dir),
            shards: 2,
            traces: None,
        };
        // `$(...)` in a folder's name stays text: single quotes throughout.
        let s = scripts(&plan("/out/x$(touch /tmp/p)`id`")).expect("fit for #SBATCH");
        let submit = &s.iter().find(|x| x.name == "submit.sh").unwrap().text;
        let last = submit.lines().last().unwrap();
        assert_eq!(
            last,
            "echo \"array job $array (2 tasks), merge job $merge:\" \
             '/out/x$(touch /tmp/p)`id`/merged.jsonl'"
        );
        for dir in [
            "/out/back\\slash",
            "/out/50%",
            "/out/it's",
            "/out/\"q\"",
            "/out/a\nb",
        ] {
            let e = scripts(&plan(dir))
                .err()
                .unwrap_or_else(|| panic!("{dir:?} accepted"));
            assert!(e.contains("an #SBATCH line cannot carry"), "{e}");
        }
    }

    #[test]
    fn the_array_has_one_task_per_shard_and_the_merge_waits_for_it() {
        let plan = SlurmPlan {
            goalc: Path::new("/opt/goalc"),
            suite: Path::new("/s/it's.toml"),
            dir: Path::new("/out"),
            shards: 4,
            traces: Some(Path::new("/traces")),
        };
        let s = scripts(&plan).expect("a plain folder");
        let text = |name: &str| s.iter().find(|x| x.name == name).unwrap().text.clone();
        let array = text("array.sbatch");
        assert!(array.contains("#SBATCH --array=0-3\n"), "{array}");
        assert!(
            array.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\""),
            "{array}"
        );
        assert!(array.contains("'/s/it'\\''s.toml'"), "{array}");
        assert!(array.contains("export GOALC_TRACES='/traces'"), "{array}");
        let merge = text("merge.sbatch");
        for i in 0..4 {
            assert!(
                merge.contains(&format!("'/out/shard-{i}.jsonl'")),
                "{merge}"
            );
        }
        assert!(!merge.contains("shard-4"), "{merge}");
        assert!(text("submit.sh").contains("--dependency=afterany:\"$array\""));
    }
}
