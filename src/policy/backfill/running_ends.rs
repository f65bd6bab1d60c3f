//! The running jobs' estimated ends and widths, in end order, with sums:
//! the whole plan classic EASY needs.
//!
//! With only running jobs on it, the availability profile never falls:
//! free processors at `t` are those free now plus the widths of the jobs
//! expected to end by `t`. The head job's shadow time is then the first
//! end at which enough are free, and a job fits beside the head's hold when
//! it is narrow enough now and either ends by the shadow time or is no
//! wider than what the head leaves spare there. So EASY with one
//! reservation asks no profile at all: a start is one insertion here, an end
//! one removal, and the shadow a walk over per-chunk sums.
//!
//! Ends are kept in chunks of at most [`CHUNK`] entries, each with the sum
//! of its widths, so that a walk passes whole chunks and an insertion or a
//! removal moves at most one chunk's entries, however many jobs run.

use crate::sim::{JobIdx, State};
use crate::workload::Time;

/// Entries per chunk at most; a full chunk splits in two.
const CHUNK: usize = 128;

/// A running job: its expected end (start + estimate), index and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    at: Time,
    job: JobIdx,
    procs: u32,
}

#[derive(Debug, Default)]
struct Chunk {
    ends: Vec<End>,
    procs: u64,
}

#[derive(Debug, Default)]
pub(crate) struct RunningEnds {
    /// Non-empty chunks in end order.
    chunks: Vec<Chunk>,
    /// The instant and epoch of the last sync; `None` before the first.
    synced: Option<(Time, u64)>,
}

impl RunningEnds {
    pub fn new() -> Self {
        Self::default()
    }

    /// Brings the ends to `state`'s running jobs: those that ended by now
    /// leave, and so do those that ended early at this epoch. Call it at
    /// every epoch, before anything else; again in the same epoch it
    /// changes nothing. The jobs a policy starts it adds with
    /// [`RunningEnds::start`].
    pub fn sync(&mut self, state: &State<'_>) {
        let key = (state.now, state.epoch);
        if self.synced == Some(key) {
            return;
        }
        if self.synced.is_none_or(|(t, _)| t > state.now) {
            self.chunks.clear();
            for r in state.running {
                let procs = state.jobs[r.job as usize].procs;
                self.push_last(End {
                    at: r.expected_end,
                    job: r.job,
                    procs,
                });
            }
        } else {
            self.drop_until(state.now);
            for f in state.finished.iter().filter(|f| f.early) {
                let info = &state.jobs[f.job as usize];
                self.remove(End {
                    at: f.start.saturating_add(info.estimate),
                    job: f.job,
                    procs: info.procs,
                });
            }
        }
        self.synced = Some(key);
        debug_assert!(
            self.iter().eq(state.running.iter().map(|r| (
                r.expected_end,
                r.job,
                state.jobs[r.job as usize].procs
            ))),
            "kept ends differ from the running jobs at {}",
            state.now
        );
    }

    /// A job of `procs` started, expected to end at `at`.
    pub fn start(&mut self, at: Time, job: JobIdx, procs: u32) {
        let end = End { at, job, procs };
        if self.chunks.is_empty() {
            self.chunks.push(Chunk::default());
        }
        // The first chunk whose last end is not before this one, else the
        // last chunk.
        let c = self
            .chunks
            .partition_point(|c| c.ends.last().is_some_and(|l| *l < end))
            .min(self.chunks.len() - 1);
        let chunk = &mut self.chunks[c];
        let i = chunk.ends.partition_point(|e| *e < end);
        chunk.ends.insert(i, end);
        chunk.procs += u64::from(procs);
        if chunk.ends.len() > CHUNK {
            let tail = chunk.ends.split_off(CHUNK / 2);
            let moved: u64 = tail.iter().map(|e| u64::from(e.procs)).sum();
            chunk.procs -= moved;
            self.chunks.insert(
                c + 1,
                Chunk {
                    ends: tail,
                    procs: moved,
                },
            );
        }
    }

    /// The first expected end by which at least `need` processors are given
    /// back, with all that are given back by then (every job ending at that
    /// instant counted); `None` when the running jobs hold fewer.
    pub fn first_reaching(&self, need: u64) -> Option<(Time, u64)> {
        let mut freed = 0;
        let mut c = 0;
        // Whole chunks that give back too little.
        while c < self.chunks.len() && freed + self.chunks[c].procs < need {
            freed += self.chunks[c].procs;
            c += 1;
        }
        let mut found = None;
        for chunk in &self.chunks[c..] {
            for e in &chunk.ends {
                match found {
                    None => {
                        freed += u64::from(e.procs);
                        if freed >= need {
                            found = Some(e.at);
                        }
                    }
                    Some(at) if e.at == at => freed += u64::from(e.procs),
                    Some(at) => return Some((at, freed)),
                }
            }
        }
        found.map(|at| (at, freed))
    }

    /// The ends in order, as (end, job, procs).
    fn iter(&self) -> impl Iterator<Item = (Time, JobIdx, u32)> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.ends.iter().map(|e| (e.at, e.job, e.procs)))
    }

    /// Appends an end not before any kept one.
    fn push_last(&mut self, end: End) {
        match self.chunks.last_mut() {
            Some(c) if c.ends.len() < CHUNK => {
                c.ends.push(end);
                c.procs += u64::from(end.procs);
            }
            _ => self.chunks.push(Chunk {
                ends: vec![end],
                procs: u64::from(end.procs),
            }),
        }
    }

    /// Drops the ends at or before `now`: those jobs are no longer running.
    fn drop_until(&mut self, now: Time) {
        let gone = self
            .chunks
            .iter()
            .take_while(|c| c.ends.last().is_some_and(|l| l.at <= now))
            .count();
        self.chunks.drain(..gone);
        if let Some(first) = self.chunks.first_mut() {
            let k = first.ends.partition_point(|e| e.at <= now);
            if k > 0 {
                let left: u64 = first.ends.drain(..k).map(|e| u64::from(e.procs)).sum();
                first.procs -= left;
            }
        }
    }

    /// Removes `end`, which must be kept.
    fn remove(&mut self, end: End) {
        let c = self
            .chunks
            .partition_point(|c| c.ends.last().is_some_and(|l| *l < end));
        let Some(chunk) = self.chunks.get_mut(c) else {
            debug_assert!(false, "no running job {} to remove", end.job);
            return;
        };
        match chunk.ends.binary_search(&end) {
            Ok(i) => {
                chunk.ends.remove(i);
                chunk.procs -= u64::from(end.procs);
                if chunk.ends.is_empty() {
                    self.chunks.remove(c);
                }
            }
            Err(_) => debug_assert!(false, "no running job {} to remove", end.job),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Profile;
    use proptest::prelude::*;

    proptest! {
        /// Against the profile of the same running jobs: the first end
        /// reaching a need is where that many more are free, and the sum
        /// is what is free there; through starts, removals and drops that
        /// split and empty chunks.
        #[test]
        fn ends_answer_as_the_running_profile(
            ops in prop::collection::vec((0..3u8, 1..2_000i64, 1..64u32), 1..600),
            needs in prop::collection::vec(1..4_000u64, 1..20),
        ) {
            const PROCS: u32 = 1 << 20;
            let mut ends = RunningEnds::new();
            let mut kept: Vec<End> = Vec::new();
            let mut now = 0;
            for (i, &(op, x, p)) in ops.iter().enumerate() {
                match op {
                    0 | 1 => {
                        let e = End { at: now + x, job: i as JobIdx, procs: p };
                        ends.start(e.at, e.job, e.procs);
                        kept.push(e);
                    }
                    _ if x % 5 == 0 => {
                        now += x / 50;
                        ends.drop_until(now);
                        kept.retain(|e| e.at > now);
                    }
                    _ if !kept.is_empty() => {
                        let e = kept.remove(x as usize % kept.len());
                        ends.remove(e);
                    }
                    _ => {}
                }
                kept.sort();
                prop_assert!(ends.iter().eq(kept.iter().map(|e| (e.at, e.job, e.procs))));
                prop_assert!(ends.chunks.iter().all(|c| !c.ends.is_empty()
                    && c.ends.len() <= CHUNK
                    && c.procs == c.ends.iter().map(|e| u64::from(e.procs)).sum::<u64>()));
            }
            let held: u64 = kept.iter().map(|e| u64::from(e.procs)).sum();
            let mut profile = Profile::new(PROCS, now);
            for e in &kept {
                profile.allocate(now, e.at - now, e.procs);
            }
            let free_now = u64::from(PROCS) - held;
            for need in needs {
                let want = (free_now + need <= u64::from(PROCS)).then(|| {
                    let p = (free_now + need) as u32;
                    let at = profile.earliest_start(p, 1, now);
                    (at, u64::from(profile.free_at(at)) - free_now)
                });
                prop_assert_eq!(ends.first_reaching(need), want, "need {}", need);
            }
        }
    }
}
