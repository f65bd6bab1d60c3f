//! One run cut into pieces simulated at once on several cores, joined where
//! their states meet: a time-parallel simulation with exact results.
//!
//! Piece `i` simulates the jobs from its first one on, starting from an
//! empty machine at that job's submit time, as if nothing came before.
//! That is a guess, and the piece before checks it: it runs on past the cut
//! until, at an instant when no job waits, its running jobs (with their
//! starts) and its pending wake-ups are those the next piece had at the
//! same instant. For a policy whose decisions then follow from that state
//! alone ([`Policy::forgets_with_empty_queue`]), both pieces go on
//! identically from there, so the run is the first piece up to that instant
//! and the next piece after it. A piece that finds no such instant in the
//! stretch the next one recorded goes on to the end itself, and the pieces
//! after it are dropped: the result is the same run either way, only the
//! time differs.
//!
//! Runs meet soon on most traces: an empty queue is common, and the jobs
//! running before a cut all end within the longest estimate. The instants
//! are matched by a digest of the running set, and each match is then
//! checked job by job before it is used.

use super::{Outcome, Policy, Run, Sim, SimError, SimOptions, Workload};
use crate::sim::{check_horizon, JobIdx};
use crate::workload::Time;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Fewest jobs per piece: below this a piece costs more in threads and
/// overlap than it saves.
const PIECE_JOBS: usize = 4096;

/// Simulation time a piece should save, at least: a piece costs a thread,
/// a simulation set up again and the stretch where two pieces overlap, and
/// a second core may take milliseconds to wake.
const WORTH_SHARING: Duration = Duration::from_millis(15);

/// A piece's state at an instant when no job waited.
#[derive(Debug, Clone)]
struct Quiet {
    now: Time,
    digest: u64,
    /// Epochs run up to and including this instant.
    epochs: u64,
    /// The pending wake-ups after `now`, distinct and sorted (mostly none).
    wakeups: Box<[Time]>,
}

/// Records sent at once: few enough that the piece before sees them soon.
const BATCH: usize = 16;

/// The records of the piece after, as far as they have come.
struct Heard {
    rx: mpsc::Receiver<Vec<Quiet>>,
    quiet: Vec<Quiet>,
    /// The next record not before the instants already compared.
    at: usize,
    /// No more records will come.
    done: bool,
}

impl Heard {
    /// Takes in what has arrived. A `patient` listener waits until the
    /// records reach `now` or end, so that where pieces meet does not
    /// depend on how fast the threads ran (for tests).
    fn listen(&mut self, now: Time, patient: bool) {
        while !self.done {
            match self.rx.try_recv() {
                Ok(batch) => self.quiet.extend(batch),
                Err(mpsc::TryRecvError::Empty) => {
                    let reached = self.quiet.last().is_some_and(|q| q.now >= now);
                    if !patient || reached {
                        break;
                    }
                    match self.rx.recv() {
                        Ok(batch) => self.quiet.extend(batch),
                        Err(_) => self.done = true,
                    }
                }
                Err(mpsc::TryRecvError::Disconnected) => self.done = true,
            }
        }
    }
}

/// Where a piece stopped.
enum Stop {
    /// Ran to the end of the workload.
    End,
    /// Met the next piece's state at `now`; the piece is paused there.
    Met { now: Time, next_epochs: u64 },
    /// A later piece was no longer needed.
    Dropped,
}

/// Runs `policies[0]` on `workload` to completion, on up to as many cores
/// as there are policies (one fresh object per piece, all alike). The
/// outcome is the one [`super::simulate`] gives, bit for bit.
///
/// The run starts alone. Once a sixteenth of the jobs have arrived, the
/// time they took tells whether the rest is long enough to share; if so,
/// the jobs still to come are cut into pieces. The run is not cut (and
/// `policies[0]` runs it alone) when the policy keeps state beyond the
/// core's, when audited, per event, or with moldable or chained jobs.
///
/// # Panics
///
/// When `policies` is empty.
pub fn simulate_in_pieces(
    workload: &Workload,
    policies: &mut [Box<dyn Policy>],
    opts: SimOptions,
) -> Result<Outcome, SimError> {
    let (mut sim, rest, eligible) = first_piece(workload, policies, opts)?;
    if !eligible || rest.is_empty() {
        return sim.run();
    }
    let begun = Instant::now();
    let warm = workload.jobs.len() / 16;
    while sim.next_arrival < warm {
        let Some(now) = sim.next_instant() else { break };
        sim.step(now)?;
    }
    let cuts = cuts(workload, sim.next_arrival, rest.len() + 1, begun.elapsed());
    if cuts.len() < 2 {
        return sim.run();
    }
    run_cut(
        sim,
        &mut rest[..cuts.len() - 1],
        &cuts,
        |a, b| a == b,
        false,
    )
    .map(|r| r.outcome)
}

/// A run cut at given jobs, and how many of its pieces the outcome uses.
#[derive(Debug)]
pub struct CutRun {
    pub outcome: Outcome,
    /// 1 when the first piece met none and ran to the end itself.
    pub pieces: usize,
}

/// [`simulate_in_pieces`] cut where told, at once: one piece from each
/// job index of `at` (ascending, each at a new submit time) and one from
/// job 0, with a policy for each in `policies`. Each piece waits for the
/// next one's records, so where they meet does not depend on the threads'
/// speed. For tests and measurements; a run that may not be cut runs whole
/// on `policies[0]`.
///
/// # Panics
///
/// When `policies` is empty.
pub fn simulate_cut_at(
    workload: &Workload,
    policies: &mut [Box<dyn Policy>],
    opts: SimOptions,
    at: &[usize],
) -> Result<CutRun, SimError> {
    cut_at(workload, policies, opts, at, |a, b| a == b)
}

fn cut_at(
    workload: &Workload,
    policies: &mut [Box<dyn Policy>],
    opts: SimOptions,
    at: &[usize],
    digests_match: fn(u64, u64) -> bool,
) -> Result<CutRun, SimError> {
    let (sim, rest, eligible) = first_piece(workload, policies, opts)?;
    let jobs = &workload.jobs;
    let cuts: Vec<usize> = std::iter::once(0).chain(at.iter().copied()).collect();
    let well_cut = cuts.windows(2).all(|w| w[0] < w[1])
        && at
            .iter()
            .all(|&c| c < jobs.len() && jobs[c].submit > jobs[c - 1].submit);
    if !eligible || !well_cut || rest.len() < at.len() || at.is_empty() {
        let outcome = sim.run()?;
        return Ok(CutRun { outcome, pieces: 1 });
    }
    run_cut(sim, &mut rest[..at.len()], &cuts, digests_match, true)
}

/// The simulation of the first piece, from job 0 on `policies[0]`, the
/// policies left for the other pieces, and whether the run may be cut.
type FirstPiece<'w, 'p> = (Sim<'w, 'p>, &'p mut [Box<dyn Policy>], bool);

fn first_piece<'w, 'p>(
    workload: &'w Workload,
    policies: &'p mut [Box<dyn Policy>],
    opts: SimOptions,
) -> Result<FirstPiece<'w, 'p>, SimError> {
    check_horizon(workload)?;
    let eligible = eligible(workload, policies, opts);
    let Some((first, rest)) = policies.split_first_mut() else {
        panic!("a run in pieces needs a policy");
    };
    Ok((Sim::new(workload, first.as_mut(), opts), rest, eligible))
}

/// Runs `sim`, made at job 0 and run up to before the first cut, as the
/// first piece of `cuts`, and one piece for each policy of `rest` on
/// threads of their own. `digests_match` decides which instants are worth
/// comparing job by job.
fn run_cut<'w, 'p>(
    mut sim: Sim<'w, 'p>,
    rest: &'p mut [Box<dyn Policy>],
    cuts: &[usize],
    digests_match: fn(u64, u64) -> bool,
    patient: bool,
) -> Result<CutRun, SimError> {
    let workload = sim.workload;
    // A cut run is never audited (see `eligible`).
    let opts = SimOptions {
        audit: false,
        events: sim.events,
    };
    let pieces = cuts.len();
    // Pieces from this index on are no longer needed.
    let dropped_from = AtomicUsize::new(pieces);
    let (senders, receivers): (Vec<_>, Vec<_>) = (1..pieces).map(|_| mpsc::channel()).unzip();
    let mut receivers = receivers.into_iter().map(Some).collect::<Vec<_>>();
    let (first_end, later) = std::thread::scope(|scope| {
        let dropped_from = &dropped_from;
        let mut handles = Vec::new();
        for ((k, policy), tx) in rest.iter_mut().enumerate().zip(senders) {
            let i = k + 1;
            let rx = receivers.get_mut(i).and_then(Option::take);
            handles.push(scope.spawn(move || {
                let mut sim = Sim::new(workload, policy.as_mut(), opts).starting_at(cuts[i]);
                let piece = Piece {
                    i,
                    cuts,
                    dropped_from,
                    digests_match,
                    patient,
                };
                let stop = piece.run(&mut sim, Some(tx), rx);
                (stop, sim)
            }));
        }
        let rx = receivers.get_mut(0).and_then(Option::take);
        let piece = Piece {
            i: 0,
            cuts,
            dropped_from,
            digests_match,
            patient,
        };
        let stop = piece.run(&mut sim, None, rx);
        let later: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("a piece of the simulation panicked"))
            .collect();
        ((stop, sim), later)
    });
    join(first_end, later)
}

/// Whether a run may be cut: its state at an empty queue is the core's.
fn eligible(workload: &Workload, policies: &[Box<dyn Policy>], opts: SimOptions) -> bool {
    let jobs = &workload.jobs;
    opts.events.is_per_instant()
        && !opts.audit
        && policies.iter().all(|p| p.forgets_with_empty_queue())
        && jobs
            .iter()
            .all(|j| j.follows.is_none() && j.speedup.is_none())
        && jobs.windows(2).all(|w| w[0].submit <= w[1].submit)
}

/// Where the pieces start, as job indices: 0, then cuts of the jobs from
/// `arrived` on, each at a new submit time. One piece when the jobs so far
/// took too little time for the rest to be worth sharing among `cores`.
fn cuts(workload: &Workload, arrived: usize, cores: usize, spent: Duration) -> Vec<usize> {
    let jobs = &workload.jobs;
    let n = jobs.len();
    let left = n - arrived;
    // The rest takes about as long per job as the start did.
    let rest = spent.as_secs_f64() * left as f64 / arrived.max(1) as f64;
    let pieces = cores
        .min(left / PIECE_JOBS)
        .min((rest / WORTH_SHARING.as_secs_f64()) as usize + 1);
    let mut cuts = vec![0];
    for i in 1..pieces {
        let mut at = arrived + i * left / pieces;
        while at < n && jobs[at].submit == jobs[at - 1].submit {
            at += 1;
        }
        if at < n && at > *cuts.last().expect("starts with 0") {
            cuts.push(at);
        }
    }
    cuts
}

/// One piece of a cut run, as its thread sees it.
struct Piece<'a> {
    i: usize,
    cuts: &'a [usize],
    dropped_from: &'a AtomicUsize,
    digests_match: fn(u64, u64) -> bool,
    /// Wait for the next piece's records (see [`Heard::listen`]).
    patient: bool,
}

impl Piece<'_> {
    /// Runs piece `i` (from job `cuts[i]`): sends the records of its first
    /// stretch to the piece before through `record`, and past the next cut
    /// looks for its own state among the next piece's records (from `next`).
    /// Unless `patient`, it does not wait for them: states that met once
    /// stay alike, so any later instant finds the meeting as well.
    fn run(
        &self,
        sim: &mut Sim<'_, '_>,
        record: Option<mpsc::Sender<Vec<Quiet>>>,
        next: Option<mpsc::Receiver<Vec<Quiet>>>,
    ) -> Result<Stop, SimError> {
        let Piece {
            i,
            cuts,
            dropped_from,
            digests_match,
            patient,
        } = *self;
        let jobs = &sim.workload.jobs;
        let piece_end = cuts.get(i + 1).copied().unwrap_or(jobs.len());
        // The stretch: the first half of the piece's own jobs.
        let stretch_end = cuts[i] + (piece_end - cuts[i]) / 2;
        let next_cut = cuts.get(i + 1).map_or(Time::MAX, |&c| jobs[c].submit);
        let mut record = record.map(|tx| (tx, Vec::with_capacity(BATCH)));
        let mut next = next.map(|rx| Heard {
            rx,
            quiet: Vec::new(),
            at: 0,
            done: false,
        });
        while let Some(now) = sim.next_instant() {
            sim.step(now)?;
            if dropped_from.load(Ordering::Relaxed) <= i {
                return Ok(Stop::Dropped);
            }
            let quiet = sim.board.waiting_count == 0;
            if let Some((tx, batch)) = record.as_mut() {
                if sim.next_arrival >= stretch_end {
                    // The piece before may have given up already.
                    let _ = tx.send(std::mem::take(batch));
                    record = None;
                } else if quiet {
                    batch.push(sim.quiet(now));
                    if batch.len() == BATCH {
                        let _ = tx.send(std::mem::replace(batch, Vec::with_capacity(BATCH)));
                    }
                }
            }
            if !quiet || now < next_cut {
                continue;
            }
            let Some(heard) = next.as_mut() else {
                continue;
            };
            heard.listen(now, patient);
            while heard.at < heard.quiet.len() && heard.quiet[heard.at].now < now {
                heard.at += 1;
            }
            match heard.quiet.get(heard.at) {
                Some(q) if q.now == now => {
                    let here = sim.quiet(now);
                    if digests_match(here.digest, q.digest) && here.wakeups == q.wakeups {
                        return Ok(Stop::Met {
                            now,
                            next_epochs: q.epochs,
                        });
                    }
                }
                Some(_) => {}
                // Past every record of the next piece's stretch: none can match.
                None if heard.done => {
                    give_up(dropped_from, i);
                    next = None;
                }
                // The next piece has not got this far yet: a later instant
                // will tell.
                None => {}
            }
        }
        if let Some((tx, batch)) = record.take() {
            let _ = tx.send(batch);
        }
        Ok(Stop::End)
    }
}

/// Piece `i` goes on to the end: the pieces after it are not needed.
fn give_up(dropped_from: &AtomicUsize, i: usize) {
    dropped_from.fetch_min(i + 1, Ordering::Relaxed);
}

type Ended<'w, 'p> = (Result<Stop, SimError>, Sim<'w, 'p>);

/// The run from the pieces: the first up to where it met the second, the
/// second from there up to where it met the third, and so on. Each meeting
/// is checked job by job first; one that does not hold (two running sets
/// with the same digest) sends its piece on to the end.
fn join<'w, 'p>(first: Ended<'w, 'p>, later: Vec<Ended<'w, 'p>>) -> Result<CutRun, SimError> {
    let (mut stop, mut sim) = first;
    let mut pieces = 1;
    let mut runs = sim.runs.clone();
    let name = sim.name.clone();
    let mut epochs = 0;
    // Epochs of the current piece before the part of it that is used.
    let mut base = 0;
    let mut later = later.into_iter();
    loop {
        match stop? {
            Stop::End => {
                epochs += sim.epochs - base;
                break;
            }
            Stop::Dropped => {
                unreachable!("a piece is dropped only after one before it went on to the end")
            }
            Stop::Met { now, next_epochs } => {
                let Some((next_stop, next)) = later.next() else {
                    unreachable!("the last piece has none to meet");
                };
                let from = sim.next_arrival;
                if !same_running(&sim, &next, now) {
                    // Digests alike, sets not: this piece goes on alone.
                    while let Some(t) = sim.next_instant() {
                        sim.step(t)?;
                    }
                    epochs += sim.epochs - base;
                    runs[from..].copy_from_slice(&sim.runs[from..]);
                    break;
                }
                epochs += sim.epochs - base;
                base = next_epochs;
                // Jobs submitted up to `now` are this piece's; later ones
                // the next piece's.
                runs[from..].copy_from_slice(&next.runs[from..]);
                (stop, sim) = (next_stop, next);
                pieces += 1;
            }
        }
    }
    let outcome = Outcome {
        policy: name,
        runs,
        releases: Vec::new(),
        widths: Vec::new(),
        epochs,
        audit: None,
    };
    Ok(CutRun { outcome, pieces })
}

/// Whether `sim`, paused at `now`, runs the same jobs from the same starts
/// as `next` did at the end of `now`. Both are read from the runs (the core
/// keeps no running set for most policies): the jobs each had by then all
/// started, since none waited, and those running are those not ended.
fn same_running(sim: &Sim<'_, '_>, next: &Sim<'_, '_>, now: Time) -> bool {
    let upto = sim.next_arrival;
    let running = |runs: &[Option<Run>]| {
        runs[..upto]
            .iter()
            .enumerate()
            .filter_map(move |(j, r)| match r {
                Some(Run { start, end }) if *start <= now && *end > now => {
                    Some((j as JobIdx, *start))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    running(&sim.runs) == running(&next.runs)
}

impl Sim<'_, '_> {
    /// Starts the simulation at job `first`: the jobs before it never come.
    fn starting_at(mut self, first: usize) -> Self {
        self.next_arrival = first;
        self.skip_followers();
        self
    }

    /// The state after `now`, when no job waits.
    fn quiet(&self, now: Time) -> Quiet {
        let mut wakeups: Vec<Time> = self
            .wakeups
            .iter()
            .map(|r| r.0)
            .filter(|&t| t > now)
            .collect();
        wakeups.sort_unstable();
        wakeups.dedup();
        Quiet {
            now,
            digest: self.running_digest,
            epochs: self.epochs,
            wakeups: wakeups.into_boxed_slice(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{simulate, Epoch};
    use crate::workload::{Job, SwfHeader};
    use proptest::prelude::*;

    /// Starts waiting jobs in arrival order while the next one fits: it
    /// remembers nothing, so a run of it may be cut.
    struct InOrder;

    impl Policy for InOrder {
        fn name(&self) -> String {
            "in-order".into()
        }
        fn schedule(&mut self, epoch: &mut Epoch<'_>) {
            let waiting = epoch.state.waiting.to_vec();
            for job in waiting {
                if epoch.state.jobs[job as usize].procs > epoch.free() {
                    break;
                }
                epoch.start(job);
            }
        }
        fn forgets_with_empty_queue(&self) -> bool {
            true
        }
    }

    fn policies(n: usize) -> Vec<Box<dyn Policy>> {
        (0..n)
            .map(|_| Box::new(InOrder) as Box<dyn Policy>)
            .collect()
    }

    /// Jobs `(submit, runtime, estimate, procs)` on a machine of `procs`.
    fn workload(procs: u32, jobs: &[(Time, Time, Time, u32)]) -> Workload {
        let jobs = jobs
            .iter()
            .enumerate()
            .map(|(i, &(submit, runtime, estimate, p))| {
                let mut j = Job::plain(i as i64 + 1, submit, runtime, p.min(procs));
                j.estimate = estimate;
                j
            })
            .collect();
        Workload::new("cut", procs, SwfHeader::default(), jobs)
    }

    fn starts(o: &Outcome) -> Vec<Option<Time>> {
        o.runs.iter().map(|r| r.map(|r| r.start)).collect()
    }

    #[test]
    fn pieces_meet_where_the_queue_empties_and_the_old_jobs_have_ended() {
        // 4 processors. Piece 1 starts at job 1 (submit 10) on an empty
        // machine, but job 0 holds 3 processors until 100: job 1 (4 wide)
        // starts at 100 in the whole run, at 10 in piece 1. At 150 (job 2
        // arrives and starts; nothing else runs or waits in either) they
        // meet, inside piece 1's first half (jobs 1 to 3).
        let w = workload(
            4,
            &[
                (0, 100, 100, 3),
                (10, 20, 20, 4),
                (150, 5, 5, 1),
                (160, 5, 5, 4),
                (170, 5, 5, 1),
                (180, 5, 5, 1),
                (190, 5, 5, 1),
            ],
        );
        let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
        let whole_starts = [0, 100, 150, 160, 170, 180, 190].map(Some);
        assert_eq!(starts(&whole), whole_starts);
        let cut = simulate_cut_at(&w, &mut policies(2), SimOptions::default(), &[1]).unwrap();
        assert_eq!(cut.pieces, 2);
        assert_eq!(cut.outcome, whole);
    }

    #[test]
    fn pieces_that_never_meet_give_the_whole_run() {
        // The queue never empties after the cut: no instant to meet at.
        let jobs: Vec<_> = (0..40).map(|i| (i * 10, 100, 100, 4)).collect();
        let w = workload(4, &jobs);
        let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
        let cut = simulate_cut_at(&w, &mut policies(2), SimOptions::default(), &[20]).unwrap();
        assert_eq!(cut.pieces, 1);
        assert_eq!(cut.outcome, whole);
    }

    #[test]
    fn a_cut_the_run_may_not_take_runs_whole() {
        let w = workload(4, &[(0, 10, 10, 1), (0, 10, 10, 1), (5, 10, 10, 1)]);
        let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
        // Job 1 has the submit time of job 0; job 3 does not exist.
        for at in [&[1][..], &[3], &[2, 2]] {
            let cut = simulate_cut_at(&w, &mut policies(3), SimOptions::default(), at).unwrap();
            assert_eq!((cut.pieces, &cut.outcome), (1, &whole), "cut at {at:?}");
        }
    }

    /// Jobs of random widths, run times and estimates; one in a few
    /// arrives after a gap, so that queues empty now and then.
    fn jobs() -> impl Strategy<Value = Vec<(Time, Time, Time, u32)>> {
        prop::collection::vec((0..3u8, 1..400i64, 0..3u8, 1..9u32), 30..160).prop_map(|v| {
            let mut t = 0;
            v.into_iter()
                .map(|(gap, run, over, p)| {
                    t += if gap == 0 { 500 } else { i64::from(gap) * 7 };
                    (t, run, run * (1 + i64::from(over)), p)
                })
                .collect()
        })
    }

    proptest! {
        /// Any cut gives the whole run's outcome, epochs included; and
        /// with every digest taken for a match, the check job by job
        /// catches each false one.
        #[test]
        fn cut_runs_are_the_whole_run(
            jobs in jobs(),
            at in prop::collection::vec(0.0..1.0f64, 1..4),
        ) {
            let w = workload(8, &jobs);
            let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
            let n = w.jobs.len();
            let mut cuts: Vec<usize> = at
                .iter()
                .map(|f| ((f * n as f64) as usize).clamp(1, n - 1))
                .filter(|&c| w.jobs[c].submit > w.jobs[c - 1].submit)
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let opts = SimOptions::default();
            let cut = simulate_cut_at(&w, &mut policies(4), opts, &cuts).unwrap();
            prop_assert_eq!(&cut.outcome, &whole);
            let trusting = cut_at(&w, &mut policies(4), opts, &cuts, |_, _| true).unwrap();
            prop_assert_eq!(&trusting.outcome, &whole);
        }
    }
}
