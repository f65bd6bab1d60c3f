//! Notes on a bench that a reader of the summary needs, found in the data:
//! goals that cannot differ on a workload, and set-ups a mechanism does
//! not mean on it. Said once, beside the mechanism they concern.

use super::goal::Goal;
use crate::policy::{Dispatch, GoalPolicy, PolicySpec};
use crate::report::{approx_duration, count, Mechanism, Note};
use crate::workload::transform::chunks_under_limit;
use crate::workload::{Time, Workload};
use std::collections::BTreeMap;

/// Where a workload of one user comes from.
const ONE_USER: &str = "a trace whose user field, SWF field 12, is the same throughout or -1, or \
                        the built-in model without --model-users";

/// Whether every job of `w` has one user (or none known).
pub fn one_user(w: &Workload) -> bool {
    let first = w.jobs.first().map(|j| j.user);
    w.jobs.iter().all(|j| Some(j.user) == first)
}

/// The note for user groups on a workload of [`one_user`]: `bench` says
/// it beside the summary, `train` before it trains on the one group.
pub fn one_group() -> String {
    format!(
        "every job of this workload has the same user ({ONE_USER}), so every job is in user \
         group 1; run on a trace with users, or give the model users, to see the owner's groups"
    )
}

/// The notes for `goals` run on `workloads`.
pub fn notes(goals: &[Goal], workloads: &[Workload]) -> Vec<Note> {
    let mut out = Vec::new();
    for w in workloads {
        let note = |m: Mechanism, text: String| (w.name.clone(), m, text);
        let longest = w.jobs.iter().map(|j| j.sim_runtime()).max().unwrap_or(0);
        let idle_limits: Vec<&str> = goals
            .iter()
            .filter(|g| g.runtime_limit.is_some_and(|l| longest <= l))
            .map(|g| g.name.as_str())
            .collect();
        if !idle_limits.is_empty() {
            out.push(note(
                Mechanism::Fairshare,
                format!(
                    "no job of this workload runs longer than a runtime limit (the longest runs {}), so \
                     the limits of {} split nothing",
                    approx_duration(longest),
                    idle_limits.join(", ")
                ),
            ));
        }
        // A limit that splits says how much: each chunk is measured as a
        // job, and a fine limit makes the run simulate many more jobs.
        let mut splitting: BTreeMap<Time, Vec<&str>> = BTreeMap::new();
        for g in goals {
            if let Some(limit) = g.runtime_limit.filter(|&l| l > 0 && longest > l) {
                splitting.entry(limit).or_default().push(g.name.as_str());
            }
        }
        for (limit, names) in splitting {
            let (split, chunks) = w
                .jobs
                .iter()
                .map(|j| chunks_under_limit(j, limit))
                .filter(|&c| c > 1)
                .fold((0u128, 0u128), |(n, all), c| (n + 1, all + c));
            out.push(note(
                Mechanism::Fairshare,
                format!(
                    "a runtime limit of {} ({}) splits {} of this workload into {}, each \
                     measured as a job: those goals simulate {}",
                    approx_duration(limit),
                    names.join(", "),
                    count(split, "job"),
                    count(chunks, "chunk"),
                    count(w.jobs.len() as u128 - split + chunks, "job")
                ),
            ));
        }
        if one_user(w) {
            if goals.iter().any(|g| g.fairshare.is_some()) {
                out.push(note(
                    Mechanism::Fairshare,
                    format!(
                        "every job of this workload has the same user ({ONE_USER}), so fairshare \
                         orders the queue first come, first served; run on a trace with users, or \
                         give the model users, to see fairshare at work"
                    ),
                ));
            }
            if goals.iter().any(|g| g.groups.is_some()) {
                out.push(note(Mechanism::Greedy, one_group()));
            }
        }
        // Conservative backfilling revisits reservations only when a job
        // ends before its estimate; told exact run times it never does, so
        // its queue order only decides among jobs arriving together.
        let static_fair: Vec<&str> = goals
            .iter()
            .filter(|g| {
                g.fairshare.is_some()
                    && matches!(
                        g.policy,
                        GoalPolicy::Baseline(PolicySpec {
                            dispatch: Dispatch::Conservative,
                            ..
                        })
                    )
            })
            .map(|g| g.name.as_str())
            .collect();
        let exact = w.jobs.iter().all(|j| j.sim_runtime() == j.estimate);
        if exact && !static_fair.is_empty() {
            out.push(note(
                Mechanism::Fairshare,
                format!(
                    "told exact run times, conservative backfilling never moves a reservation (no job ends \
                     early), so each job keeps the one it got on arrival and {} {} as Conservative in \
                     arrival order (but for jobs submitted in the same second); dynamic reservations \
                     follow fairshare",
                    static_fair.join(", "),
                    if static_fair.len() == 1 { "runs" } else { "run" }
                ),
            ));
        }
        let estimated = w.jobs.iter().any(|j| j.estimate > j.runtime);
        if estimated && goals.iter().any(|g| g.deadlines.is_some()) {
            out.push(note(
                Mechanism::Admission,
                "admission plans with the users' estimates while deadlines come from run times, so jobs \
                 whose estimate cannot meet their deadline are rejected; --exact-estimates is the QOPS \
                 paper's set-up"
                    .into(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Order;
    use crate::workload::{Job, SwfHeader};

    #[test]
    fn a_runtime_limit_says_what_it_splits_or_that_it_splits_nothing() {
        // Run times 100, 250 and 40 under a limit of 100: one job splits
        // into 3 chunks, so the goal simulates 5 jobs.
        let jobs = [(1, 100), (2, 250), (3, 40)]
            .map(|(n, run)| Job::plain(n, 0, run, 1))
            .to_vec();
        let w = Workload::new("w", 4, SwfHeader::default(), jobs);
        let limited = |name: &str, limit| Goal {
            name: name.into(),
            runtime_limit: Some(limit),
            ..Goal::baseline(
                PolicySpec::new(Dispatch::Easy { depth: 1 }, Order::Fcfs),
                60,
            )
        };
        let goals = [limited("a", 100), limited("b", 100), limited("c", 250)];
        let texts: Vec<String> = notes(&goals, std::slice::from_ref(&w))
            .into_iter()
            .map(|(_, _, text)| text)
            .collect();
        assert!(
            texts.contains(
                &"no job of this workload runs longer than a runtime limit (the longest \
                 runs 4m 10s), so the limits of c split nothing"
                    .to_string()
            ),
            "{texts:?}"
        );
        assert!(
            texts.contains(
                &"a runtime limit of 1m 40s (a, b) splits 1 job of this workload into \
                 3 chunks, each measured as a job: those goals simulate 5 jobs"
                    .to_string()
            ),
            "{texts:?}"
        );
    }
}
