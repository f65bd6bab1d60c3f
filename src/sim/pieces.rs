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
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
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

/// Policy objects worth making per core for [`simulate_in_pieces`]: one
/// for the piece the core starts with, the others for pieces it may take
/// over later (each one halves what is left of a piece, so a few suffice).
pub const PIECES_PER_CORE: usize = 4;

/// Records published at once: few enough that the piece before sees them
/// soon.
const BATCH: usize = 16;

/// One piece, as its runner, the runner of the piece before and a core
/// looking for work to share see it.
struct Shared {
    /// The piece's first job.
    start: usize,
    /// The first job of the piece after it (the workload's length for the
    /// last): lowered when the rest of the piece is shared out, raised to
    /// the end when the piece gives up on the one after it.
    end: AtomicUsize,
    /// Jobs arrived so far (its simulation's next arrival).
    progress: AtomicUsize,
    began: Instant,
    /// A piece before it went on to the end: it is not needed.
    dropped: AtomicBool,
    /// Its runner stopped: nothing of it is left to share.
    stopped: AtomicBool,
    records: Mutex<Records>,
    /// Signalled when records come.
    recorded: Condvar,
}

/// A piece's records of the instants of its first stretch at which no job
/// waited, for the piece before.
#[derive(Default)]
struct Records {
    quiet: Vec<Quiet>,
    /// No more will come.
    done: bool,
}

impl Shared {
    fn new(start: usize, end: usize) -> Shared {
        Shared {
            start,
            end: AtomicUsize::new(end),
            progress: AtomicUsize::new(start),
            began: Instant::now(),
            dropped: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            records: Mutex::new(Records::default()),
            recorded: Condvar::new(),
        }
    }

    fn records(&self) -> MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn publish(&self, batch: &mut Vec<Quiet>, done: bool) {
        let mut records = self.records();
        records.quiet.append(batch);
        records.done |= done;
        self.recorded.notify_all();
    }
}

/// Marks a piece stopped and its records complete however its runner
/// ends, so that the runner of the piece before never waits for it in vain.
struct Finished<'a>(&'a Shared);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.stopped.store(true, Ordering::Release);
        self.0.publish(&mut Vec::new(), true);
    }
}

/// The records of the piece after, as far as they have come.
struct Heard {
    from: Arc<Shared>,
    quiet: Vec<Quiet>,
    /// The next record not before the instants already compared.
    at: usize,
    /// No more records will come.
    done: bool,
}

impl Heard {
    fn new(from: Arc<Shared>) -> Heard {
        Heard {
            from,
            quiet: Vec::new(),
            at: 0,
            done: false,
        }
    }

    /// Takes in what has come. A `patient` listener waits until the
    /// records reach `now` or end, so that where pieces meet does not
    /// depend on how fast the threads ran (for tests).
    fn listen(&mut self, now: Time, patient: bool) {
        if self.done {
            return;
        }
        let mut records = self.from.records();
        loop {
            let known = self.quiet.len();
            if records.quiet.len() > known {
                self.quiet.extend_from_slice(&records.quiet[known..]);
            }
            if records.done {
                self.done = true;
                return;
            }
            let reached = self.quiet.last().is_some_and(|q| q.now >= now);
            if !patient || reached {
                return;
            }
            records = self
                .from
                .recorded
                .wait(records)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Where a piece stopped.
enum Stop {
    /// Ran to the end of the workload.
    End,
    /// Met, at `now`, the state of the piece that starts at job `next`;
    /// the piece is paused there.
    Met {
        now: Time,
        next: usize,
        next_epochs: u64,
    },
    /// A piece before it went on to the end.
    Dropped,
}

/// Runs `policies[0]` on `workload` to completion, on up to `threads`
/// cores, with one fresh object of `policies` (all alike) for each piece;
/// more objects than threads let a core that is done share out the rest
/// of a piece still running. The outcome is the one [`super::simulate`]
/// gives, bit for bit.
///
/// The run starts alone. Once a sixty-fourth of the jobs have arrived,
/// the time they took tells whether the rest is long enough to share; if
/// so, the jobs still to come are cut into one piece per thread, and if
/// not, the question is asked again after a thirty-second and after a
/// sixteenth (a trace may start quiet). When a thread
/// is done with its piece, it takes the second half of the jobs left to
/// the piece with the most left, if that is worth a piece. The run is not
/// cut (and `policies[0]` runs it alone) when the policy keeps state
/// beyond the core's, when audited, per event, or with moldable or chained
/// jobs.
///
/// # Panics
///
/// When `policies` is empty.
pub fn simulate_in_pieces(
    workload: &Workload,
    policies: &mut [Box<dyn Policy>],
    threads: usize,
    opts: SimOptions,
) -> Result<Outcome, SimError> {
    let (mut sim, rest, eligible) = first_piece(workload, policies, opts)?;
    let threads = threads.min(rest.len() + 1);
    if !eligible || threads < 2 {
        return sim.run();
    }
    let begun = Instant::now();
    let n = workload.jobs.len();
    // What runs alone runs on one core: the sooner a long run is cut, the
    // more of it is shared.
    let mut at = Vec::new();
    for warm in [n / 64, n / 32, n / 16] {
        while sim.next_arrival < warm {
            let Some(now) = sim.next_instant() else { break };
            sim.step(now)?;
        }
        at = cuts(workload, sim.next_arrival, threads, begun.elapsed());
        if at.len() >= 2 {
            break;
        }
    }
    // The jobs are read only for a run worth cutting: a short one saves
    // the pass over every job.
    if at.len() < 2 || !jobs_allow_cuts(workload) {
        return sim.run();
    }
    Cut::new(&sim, &at, |a, b| a == b, false, Some(Sharing::WORTH_IT))
        .run(sim, rest, threads)
        .map(|r| r.outcome)
}

/// A run cut at given jobs, and how many of its pieces the outcome uses.
#[derive(Debug)]
pub struct CutRun {
    pub outcome: Outcome,
    /// 1 when the first piece met none and ran to the end itself.
    pub pieces: usize,
    /// Pieces simulated, used or not: more than were cut when the rest of
    /// a piece was shared out.
    pub made: usize,
}

/// [`simulate_in_pieces`] cut where told, at once: one piece from each
/// job index of `at` (ascending, each at a new submit time) and one from
/// job 0, with a policy for each in `policies`, each on a thread of its
/// own. Each piece waits for the next one's records and none is shared
/// out, so where they meet does not depend on the threads' speed. For
/// tests and measurements; a run that may not be cut runs whole on
/// `policies[0]`.
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
    let eligible = eligible && jobs_allow_cuts(workload);
    let jobs = &workload.jobs;
    let cuts: Vec<usize> = std::iter::once(0).chain(at.iter().copied()).collect();
    let well_cut = cuts.windows(2).all(|w| w[0] < w[1])
        && at
            .iter()
            .all(|&c| c < jobs.len() && jobs[c].submit > jobs[c - 1].submit);
    if !eligible || !well_cut || rest.len() < at.len() || at.is_empty() {
        let outcome = sim.run()?;
        return Ok(CutRun {
            outcome,
            pieces: 1,
            made: 1,
        });
    }
    Cut::new(&sim, &cuts, digests_match, true, None).run(sim, &mut rest[..at.len()], cuts.len())
}

/// The simulation of the first piece, from job 0 on `policies[0]`, the
/// policies left for the other pieces, and whether the policies and options
/// let the run be cut.
type FirstPiece<'w, 'p> = (Sim<'w, 'p>, &'p mut [Box<dyn Policy>], bool);

fn first_piece<'w, 'p>(
    workload: &'w Workload,
    policies: &'p mut [Box<dyn Policy>],
    opts: SimOptions,
) -> Result<FirstPiece<'w, 'p>, SimError> {
    check_horizon(workload)?;
    let eligible = eligible(policies, opts);
    let Some((first, rest)) = policies.split_first_mut() else {
        panic!("a run in pieces needs a policy");
    };
    Ok((Sim::new(workload, first.as_mut(), opts), rest, eligible))
}

/// Whether a run of `policies` with `opts` may be cut, as far as they
/// tell: its state at an empty queue is the core's. The jobs must allow it
/// too ([`jobs_allow_cuts`]).
fn eligible(policies: &[Box<dyn Policy>], opts: SimOptions) -> bool {
    opts.events.is_per_instant()
        && !opts.audit
        && policies.iter().all(|p| p.forgets_with_empty_queue())
}

/// Whether the jobs allow a run to be cut: none moldable or chained, all
/// in submit order.
fn jobs_allow_cuts(workload: &Workload) -> bool {
    let jobs = &workload.jobs;
    jobs.iter()
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
        let at = new_submit_from(jobs, arrived + i * left / pieces);
        if at < n && at > *cuts.last().expect("starts with 0") {
            cuts.push(at);
        }
    }
    cuts
}

/// The first job from `at` (at least 1) submitted later than the one
/// before it, where a piece may start; the number of jobs when none is.
fn new_submit_from(jobs: &[crate::workload::Job], mut at: usize) -> usize {
    while at < jobs.len() && jobs[at].submit == jobs[at - 1].submit {
        at += 1;
    }
    at
}

/// When the rest of a running piece is worth sharing out: at least `jobs`
/// jobs left to it, taking at least `time` at its pace so far.
#[derive(Debug, Clone, Copy)]
struct Sharing {
    jobs: usize,
    time: Duration,
}

impl Sharing {
    /// Each half a piece of at least [`PIECE_JOBS`] jobs, and worth
    /// [`WORTH_SHARING`].
    const WORTH_IT: Sharing = Sharing {
        jobs: 2 * PIECE_JOBS,
        time: WORTH_SHARING,
    };
}

/// The pieces made so far, by first job.
struct Plan {
    pieces: Vec<Arc<Shared>>,
}

impl Plan {
    fn new(cuts: &[usize], n: usize) -> Plan {
        let ends = cuts.iter().skip(1).copied().chain([n]);
        Plan {
            pieces: cuts
                .iter()
                .zip(ends)
                .map(|(&start, end)| Arc::new(Shared::new(start, end)))
                .collect(),
        }
    }

    fn at(&self, start: usize) -> Option<Arc<Shared>> {
        let i = self.pieces.partition_point(|p| p.start < start);
        self.pieces.get(i).filter(|p| p.start == start).cloned()
    }

    /// A new piece of the second half of the jobs left to the running
    /// piece with the most left, when that is worth a piece (`sharing`, at
    /// the pace the piece has kept so far).
    fn share_out(&mut self, workload: &Workload, sharing: Sharing) -> Option<Arc<Shared>> {
        let jobs = &workload.jobs;
        // Pieces dropped are out of the plan already (see `give_up`).
        let (piece, done, end) = self
            .pieces
            .iter()
            .filter(|p| !p.stopped.load(Ordering::Acquire))
            .map(|p| {
                let done = p.progress.load(Ordering::Relaxed);
                (p, done, p.end.load(Ordering::Acquire))
            })
            .max_by_key(|&(_, done, end)| end.saturating_sub(done))?;
        let left = end.saturating_sub(done);
        let arrived = done - piece.start;
        if left < sharing.jobs || arrived == 0 {
            return None;
        }
        let pace = piece.began.elapsed().as_secs_f64() / arrived as f64;
        if pace * (left as f64) < sharing.time.as_secs_f64() {
            return None;
        }
        let mid = new_submit_from(jobs, done + left / 2);
        if mid >= end {
            return None;
        }
        let new = Arc::new(Shared::new(mid, end));
        piece.end.store(mid, Ordering::Release);
        // By first job, so that `at` can search; pieces dropped are gone
        // (see `give_up`), so none lies between the two.
        let k = self.pieces.partition_point(|p| p.start < mid);
        self.pieces.insert(k, Arc::clone(&new));
        Some(new)
    }

    /// `piece` goes on to the end: the pieces after it are not needed.
    fn give_up(&mut self, piece: &Shared, n: usize) {
        // Out of the plan as well, so a piece shared out of this one later
        // finds no dropped one after it.
        self.pieces.retain(|later| {
            let keep = later.start <= piece.start;
            if !keep {
                later.dropped.store(true, Ordering::Relaxed);
            }
            keep
        });
        piece.end.store(n, Ordering::Release);
    }
}

/// A run being simulated in pieces.
struct Cut<'w> {
    workload: &'w Workload,
    opts: SimOptions,
    /// Decides which instants are worth comparing job by job.
    digests_match: fn(u64, u64) -> bool,
    /// Wait for the next piece's records (see [`Heard::listen`]).
    patient: bool,
    /// Share out the rest of a running piece when a thread is done, when
    /// worth it.
    share: Option<Sharing>,
    plan: Mutex<Plan>,
}

/// A piece a thread starts with, and the policy it runs.
type Start<'p> = (Arc<Shared>, &'p mut Box<dyn Policy>);

/// A piece that stopped: its first job, how it stopped and its simulation.
type Ended<'w, 'p> = (usize, Result<Stop, SimError>, Sim<'w, 'p>);

impl<'w> Cut<'w> {
    /// The run of `sim` (made at job 0) cut at `cuts`, in the options of
    /// `sim`, never audited (see `eligible`).
    fn new(
        sim: &Sim<'w, '_>,
        cuts: &[usize],
        digests_match: fn(u64, u64) -> bool,
        patient: bool,
        share: Option<Sharing>,
    ) -> Cut<'w> {
        let workload = sim.workload;
        Cut {
            workload,
            opts: SimOptions {
                audit: false,
                events: sim.events,
            },
            digests_match,
            patient,
            share,
            plan: Mutex::new(Plan::new(cuts, workload.jobs.len())),
        }
    }

    fn plan(&self) -> MutexGuard<'_, Plan> {
        self.plan.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `sim`, made at job 0 and run up to before the first cut, as
    /// the first piece, and the other pieces of the plan on `threads - 1`
    /// threads of their own, with a policy each from `rest`; the policies
    /// left over make pieces shared out later.
    fn run<'p>(
        &self,
        mut sim: Sim<'w, 'p>,
        rest: &'p mut [Box<dyn Policy>],
        threads: usize,
    ) -> Result<CutRun, SimError> {
        let first = self.plan().pieces.clone();
        let mut spare: Vec<&'p mut Box<dyn Policy>> = rest.iter_mut().collect();
        // The later pieces' policies are taken from the front, spares from
        // the back.
        spare.reverse();
        let mut starts: Vec<Option<Start<'p>>> = first[1..]
            .iter()
            .map(|p| spare.pop().map(|policy| (Arc::clone(p), policy)))
            .collect();
        starts.resize_with(threads - 1, || None);
        let spare = Mutex::new(spare);
        let ended = std::thread::scope(|scope| {
            let spare = &spare;
            let handles: Vec<_> = starts
                .into_iter()
                .map(|start| {
                    scope.spawn(move || {
                        let mut ended = Vec::new();
                        if let Some((piece, policy)) = start {
                            let sim = Sim::new(self.workload, policy.as_mut(), self.opts)
                                .starting_at(piece.start);
                            ended.push(self.run_piece(&piece, sim));
                        }
                        self.share_out(spare, &mut ended);
                        ended
                    })
                })
                .collect();
            let mut ended = Vec::new();
            let stop = self.run_piece_on(&first[0], &mut sim);
            ended.push((0, stop, sim));
            self.share_out(spare, &mut ended);
            for h in handles {
                ended.extend(h.join().expect("a piece of the simulation panicked"));
            }
            ended
        });
        join(ended)
    }

    /// While pieces are worth sharing out and policies are left, runs the
    /// second half of the one with the most left.
    fn share_out<'p>(
        &self,
        spare: &Mutex<Vec<&'p mut Box<dyn Policy>>>,
        ended: &mut Vec<Ended<'w, 'p>>,
    ) {
        let Some(sharing) = self.share else {
            return;
        };
        loop {
            let mut policies = spare.lock().unwrap_or_else(PoisonError::into_inner);
            if policies.is_empty() {
                return;
            }
            let Some(piece) = self.plan().share_out(self.workload, sharing) else {
                return;
            };
            let policy = policies.pop().expect("checked above");
            drop(policies);
            let sim = Sim::new(self.workload, policy.as_mut(), self.opts).starting_at(piece.start);
            ended.push(self.run_piece(&piece, sim));
        }
    }

    fn run_piece<'p>(&self, piece: &Shared, mut sim: Sim<'w, 'p>) -> Ended<'w, 'p> {
        let stop = self.run_piece_on(piece, &mut sim);
        (piece.start, stop, sim)
    }

    /// Runs `piece`: publishes the records of its first stretch for the
    /// piece before, and past the next cut looks for its own state among
    /// the next piece's records. Unless patient, it does not wait for
    /// them: states that met once stay alike, so any later instant finds
    /// the meeting as well.
    fn run_piece_on(&self, piece: &Shared, sim: &mut Sim<'w, '_>) -> Result<Stop, SimError> {
        let _finished = Finished(piece);
        let jobs = &self.workload.jobs;
        let n = jobs.len();
        // The stretch: the first half of the piece's own jobs.
        let first_end = piece.end.load(Ordering::Acquire);
        let stretch_end = piece.start + (first_end - piece.start) / 2;
        // The first piece has none before it to record for.
        let mut recording = piece.start > 0;
        let mut batch = Vec::with_capacity(BATCH);
        // The piece after, read again whenever this one's end moves.
        let mut end = usize::MAX;
        let mut next_cut = Time::MAX;
        let mut next: Option<Heard> = None;
        while let Some(now) = sim.next_instant() {
            let e = piece.end.load(Ordering::Acquire);
            if e != end {
                end = e;
                next_cut = jobs.get(e).map_or(Time::MAX, |j| j.submit);
                next = (e < n).then(|| self.plan().at(e)).flatten().map(Heard::new);
            }
            sim.step(now)?;
            piece.progress.store(sim.next_arrival, Ordering::Relaxed);
            if piece.dropped.load(Ordering::Relaxed) {
                return Ok(Stop::Dropped);
            }
            let quiet = sim.board.waiting_count == 0;
            if recording {
                if sim.next_arrival >= stretch_end {
                    piece.publish(&mut batch, true);
                    recording = false;
                } else if quiet {
                    batch.push(sim.quiet(now));
                    if batch.len() == BATCH {
                        piece.publish(&mut batch, false);
                    }
                }
            }
            if !quiet || now < next_cut {
                continue;
            }
            let Some(heard) = next.as_mut() else {
                continue;
            };
            heard.listen(now, self.patient);
            while heard.at < heard.quiet.len() && heard.quiet[heard.at].now < now {
                heard.at += 1;
            }
            match heard.quiet.get(heard.at) {
                Some(q) if q.now == now => {
                    let here = sim.quiet(now);
                    if (self.digests_match)(here.digest, q.digest) && here.wakeups == q.wakeups {
                        return Ok(Stop::Met {
                            now,
                            next: heard.from.start,
                            next_epochs: q.epochs,
                        });
                    }
                }
                Some(_) => {}
                // Past every record of the next piece's stretch: none can match.
                None if heard.done => {
                    self.plan().give_up(piece, n);
                    (end, next_cut, next) = (n, Time::MAX, None);
                }
                // The next piece has not got this far yet: a later instant
                // will tell.
                None => {}
            }
        }
        Ok(Stop::End)
    }
}

/// The run from the pieces: the first up to where it met the piece after
/// it, that one from there up to where it met the next, and so on. Each
/// meeting is checked job by job first; one that does not hold (two
/// running sets with the same digest) sends its piece on to the end.
fn join<'w, 'p>(ended: Vec<Ended<'w, 'p>>) -> Result<CutRun, SimError> {
    let made = ended.len();
    // A piece dropped is never met; one shared out later may start at the
    // same job.
    let mut ended: BTreeMap<usize, _> = ended
        .into_iter()
        .filter(|e| !matches!(e.1, Ok(Stop::Dropped)))
        .map(|(start, stop, sim)| (start, (stop, sim)))
        .collect();
    let mut take = |start: usize| {
        ended
            .remove(&start)
            .expect("a piece met is one that ran, and is met once")
    };
    let (mut stop, mut sim) = take(0);
    let mut pieces = 1;
    let mut runs = sim.runs.clone();
    let name = sim.name.clone();
    let mut epochs = 0;
    // Epochs of the current piece before the part of it that is used.
    let mut base = 0;
    loop {
        match stop? {
            Stop::End => {
                epochs += sim.epochs - base;
                break;
            }
            Stop::Dropped => {
                unreachable!("a piece is dropped only after one before it went on to the end")
            }
            Stop::Met {
                now,
                next: next_start,
                next_epochs,
            } => {
                let (next_stop, next) = take(next_start);
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
    Ok(CutRun {
        outcome,
        pieces,
        made,
    })
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

    /// The run of `sim` cut at `cuts`, sharing out any rest of `jobs` jobs
    /// or more however little time it takes.
    fn sharing_cut<'w>(sim: &Sim<'w, '_>, cuts: &[usize], jobs: usize, patient: bool) -> Cut<'w> {
        let share = Sharing {
            jobs,
            time: Duration::ZERO,
        };
        Cut::new(sim, cuts, |a, b| a == b, patient, Some(share))
    }

    #[test]
    fn pieces_shared_out_give_the_whole_run() {
        // Bursts of 40 jobs every 2,000 s on 8 processors: the queue
        // empties between bursts, so pieces meet at the next one.
        let jobs: Vec<_> = (0..3_000i64)
            .map(|i| {
                (
                    i / 40 * 2_000 + i % 40,
                    20 + i % 7 * 13,
                    120,
                    1 + (i % 5) as u32,
                )
            })
            .collect();
        let w = workload(8, &jobs);
        let n = w.jobs.len();
        let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
        // A thread that is done shares out the other's rest, unless both
        // end at once (or, on a busy machine, one thread ran both pieces
        // in turn): tried until it happens, a few times at most when the
        // threads run side by side.
        let mut shared = false;
        for _ in 0..500 {
            let mut policies = policies(8);
            let (sim, rest, eligible) =
                first_piece(&w, &mut policies, SimOptions::default()).unwrap();
            assert!(eligible);
            // Any rest of 8 jobs or more is worth sharing out.
            let cut = sharing_cut(&sim, &[0, n / 2], 8, false);
            let run = cut.run(sim, rest, 2).unwrap();
            assert_eq!(run.outcome, whole);
            if run.made > 2 {
                shared = true;
                break;
            }
        }
        assert!(shared, "no piece was shared out");
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

    /// Any cut gives the whole run's outcome, epochs included; and with
    /// every digest taken for a match, the check job by job catches each
    /// false one. Pieces must meet in many cases (about half do), or what
    /// happens where they meet would go untested.
    #[test]
    fn cut_runs_are_the_whole_run() {
        use proptest::test_runner::{Config, TestRunner};
        use std::cell::Cell;
        let mut runner = TestRunner::new(Config::default());
        let (cases, met) = (Cell::new(0u32), Cell::new(0u32));
        let at = prop::collection::vec(0.0..1.0f64, 1..4);
        let result = runner.run(&(jobs(), at), |(jobs, at)| {
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
            if !cuts.is_empty() {
                cases.set(cases.get() + 1);
                met.set(met.get() + u32::from(cut.pieces > 1));
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        assert!(
            met.get() * 4 > cases.get(),
            "pieces met in {} of {} cut runs",
            met.get(),
            cases.get()
        );
    }

    proptest! {
        /// Pieces shared out while they run, wherever the threads' speed
        /// puts the cuts, give the whole run's outcome too. Each piece waits
        /// for the next one's records, so that pieces meet more often than
        /// the threads' speed would let them.
        #[test]
        fn runs_shared_out_are_the_whole_run(
            jobs in jobs(),
            at in 0.0..1.0f64,
            threads in 2..4usize,
        ) {
            let w = workload(8, &jobs);
            let whole = simulate(&w, &mut InOrder, SimOptions::default()).unwrap();
            let n = w.jobs.len();
            let mut policies = policies(4 * threads);
            let (sim, rest, _) = first_piece(&w, &mut policies, SimOptions::default()).unwrap();
            let cut = new_submit_from(&w.jobs, ((at * n as f64) as usize).clamp(1, n - 1));
            let cuts = if cut < n { vec![0, cut] } else { vec![0] };
            let run = sharing_cut(&sim, &cuts, 4, true)
            .run(sim, rest, threads)
            .unwrap();
            prop_assert_eq!(&run.outcome, &whole);
        }
    }
}
