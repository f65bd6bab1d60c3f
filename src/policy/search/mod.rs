//! Goal-oriented scheduling by search (the GOAL paper): at every epoch,
//! look for the order of the waiting jobs whose schedule is best under the
//! objective, within a budget of node visits, and start the jobs that
//! schedule starts now.
//!
//! A candidate is an order of the waiting jobs. Each job in turn is placed
//! at its earliest start that neither takes processors from running jobs nor
//! delays jobs placed before it (conservative placement, in the availability
//! profile). Placement is incremental along the path and undone on the way
//! back, so a leaf costs one placement, not a re-placement of the whole order.

// Measure indices address several parallel arrays at once (terms,
// accumulators, bounds); an index reads more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

pub mod traverse;
mod unplaced;

use super::backfill::LiveProfile;
use super::objective::{EpochContext, Measure, Objective, MAX_MEASURES};
use super::Order;
use crate::sim::{Ends, Epoch, JobIdx, Policy, PolicyStats, Profile, State};
use crate::workload::Time;
use std::time::Instant;
use traverse::{traverse, Step, Traversal, Visitor};
use unplaced::Unplaced;

/// The search's settings: what to optimise and how hard to look.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchSpec {
    pub objective: Objective,
    pub traversal: Traversal,
    /// Branching heuristic: FCFS or LXF order of the children.
    pub branch: Order,
    /// Node visits per epoch (L).
    pub budget: u64,
    /// Slowdown bound of avg_slowdown, seconds.
    pub tau: Time,
}

impl SearchSpec {
    /// The paper's conclusion (section 5.2): DDS with LXF branching, L = 4000.
    pub const DEFAULT_TRAVERSAL: Traversal = Traversal::Dds;
    pub const DEFAULT_BRANCH: Order = Order::Lxf;
    pub const DEFAULT_BUDGET: u64 = 4000;
    /// The largest node budget per epoch: an epoch at about 200 ns a visit
    /// then takes up to 20 s.
    pub const MAX_BUDGET: u64 = 100_000_000;
}

impl SearchSpec {
    /// The objective and the search in words, as (field, sentence) lines.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        use super::objective::{Difference, Model, Reference};
        let o = &self.objective;
        let names: Vec<String> = o.measures.iter().map(|m| m.name()).collect();
        let model = match o.model {
            Model::Lexical => format!(
                "lexical: minimise {} first; each later measure only breaks ties",
                names.join(", then ")
            ),
            Model::Tradeoff(r) => {
                let reference = match r {
                    Reference::A => "the best schedule so far (version A)",
                    Reference::B => "the smaller of the two values (version B)",
                    Reference::C => {
                        "lower bounds from FCFS-backfill and LXF-backfill each epoch (version C)"
                    }
                };
                format!(
                    "equal trade-off of {}: a schedule is better when its relative gains \
                     outweigh its relative losses, relative to {reference}",
                    names.join(", ")
                )
            }
        };
        let difference = match o.difference {
            Difference::Strict => "strict: any difference counts".to_string(),
            Difference::Relaxed { percent } => format!(
                "relaxed: when one measure gains and another loses, changes under {percent}% \
                 of the best value (of the oldest job's wait, for total excessive wait) count as none"
            ),
        };
        let traversal = match self.traversal {
            Traversal::Dds => "DDS (discrepancies high in the tree first)",
            Traversal::Lds => "LDS (fewest discrepancies first)",
        };
        vec![
            ("objective", model),
            ("difference", difference),
            (
                "search",
                format!(
                    "{traversal}, {} branching, at most {} node visits per epoch",
                    self.branch.name().to_uppercase(),
                    self.budget
                ),
            ),
            (
                "placement",
                "each job at its earliest start that delays no running or earlier-placed job; jobs planned for now start".to_string(),
            ),
        ]
    }
}

impl std::fmt::Display for SearchSpec {
    /// The paper's notation: `A-Tradeoff(T_w:avgX) dds-lxf L=4000`,
    /// `Strict Lexical(maxW->avgX) dds-fcfs L=4000`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use super::objective::{Difference, Model};
        let o = &self.objective;
        let short: Vec<String> = o.measures.iter().map(|m| m.short_name()).collect();
        if o.difference == Difference::Strict {
            f.write_str("Strict ")?;
        }
        match o.model {
            Model::Lexical => write!(f, "Lexical({})", short.join("->"))?,
            Model::Tradeoff(r) => write!(f, "{r:?}-Tradeoff({})", short.join(":"))?,
        }
        if let Difference::Relaxed { percent } = o.difference {
            if percent != 1.0 {
                write!(f, " relaxed {percent}%")?;
            }
        }
        let t = match self.traversal {
            Traversal::Dds => "dds",
            Traversal::Lds => "lds",
        };
        write!(f, " {t}-{} L={}", self.branch, self.budget)
    }
}

/// The cost of a searching policy over a run. Not comparable: the timings
/// differ from run to run.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SearchCost {
    /// Epochs in which a search ran.
    pub searches: u64,
    /// Tree nodes visited in all searches.
    pub node_visits: u64,
    /// Wall-clock time of each search, microseconds (not deterministic; never
    /// used for decisions).
    #[serde(skip)]
    pub epoch_micros: Vec<u64>,
}

impl SearchCost {
    const SEARCHES: &'static str = "searches";
    const NODE_VISITS: &'static str = "node_visits";
    const EPOCH_MICROS: &'static str = "search_epoch_us";

    /// The cost as generic policy statistics.
    pub fn to_stats(&self) -> PolicyStats {
        PolicyStats {
            counters: vec![
                (Self::SEARCHES, self.searches),
                (Self::NODE_VISITS, self.node_visits),
            ],
            timings: vec![(Self::EPOCH_MICROS, self.epoch_micros.clone())],
        }
    }

    /// The search cost in a policy's statistics; `None` for a policy that
    /// does not search.
    pub fn from_stats(stats: &PolicyStats) -> Option<SearchCost> {
        Some(SearchCost {
            searches: stats.counter(Self::SEARCHES)?,
            node_visits: stats.counter(Self::NODE_VISITS)?,
            epoch_micros: stats
                .timing(Self::EPOCH_MICROS)
                .map(<[u64]>::to_vec)
                .unwrap_or_default(),
        })
    }
}

/// The policy object.
pub struct SearchPolicy {
    spec: SearchSpec,
    order: Vec<JobIdx>,
    /// The running jobs' profile, kept from epoch to epoch rather than
    /// rebuilt from every running job at every search.
    live: LiveProfile,
    cost: SearchCost,
}

impl SearchPolicy {
    pub fn new(spec: SearchSpec) -> Self {
        SearchPolicy {
            spec,
            order: Vec::new(),
            live: LiveProfile::new(),
            cost: SearchCost::default(),
        }
    }
}

impl Policy for SearchPolicy {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn schedule(&mut self, epoch: &mut Epoch<'_>) {
        let state = &epoch.state;
        self.live.sync(state);
        // Only the jobs a schedule starts now matter; if none can start now,
        // every order gives the same decision.
        let fits_now = state
            .waiting
            .iter()
            .any(|&j| state.jobs[j as usize].procs <= state.free);
        if !fits_now {
            return;
        }
        let clock = Instant::now();
        let (start_now, visits) =
            search_on(&self.spec, state, &mut self.order, self.live.profile());
        self.cost.searches += 1;
        self.cost.node_visits += visits;
        let now = state.now;
        for job in start_now {
            let info = epoch.state.jobs[job as usize];
            self.live.start(now, info.estimate, info.procs);
            epoch.start(job);
        }
        self.cost
            .epoch_micros
            .push(clock.elapsed().as_micros() as u64);
    }

    fn stats(&self) -> PolicyStats {
        self.cost.to_stats()
    }
}

/// One epoch's search: returns the jobs the best schedule found starts now,
/// and the node visits spent. `order` and `profile` are scratch space kept
/// by the caller so epochs do not allocate.
pub fn search_epoch(
    spec: &SearchSpec,
    state: &State<'_>,
    order: &mut Vec<JobIdx>,
    profile: &mut Profile,
) -> (Vec<JobIdx>, u64) {
    if profile.procs() != state.procs {
        *profile = Profile::new(state.procs, state.now);
    }
    state.running_profile(profile);
    search_on(spec, state, order, profile)
}

/// [`search_epoch`] on `profile` already holding the running jobs from
/// now on, which the search leaves as it found it (every placement is
/// lifted again).
fn search_on(
    spec: &SearchSpec,
    state: &State<'_>,
    order: &mut Vec<JobIdx>,
    profile: &mut Profile,
) -> (Vec<JobIdx>, u64) {
    spec.branch.sorted_queue(state, order);
    let mut search = Search::new(spec, state, order, profile);
    let visits = traverse(order.len(), spec.traversal, spec.budget, &mut search);
    (std::mem::take(&mut search.best_now), visits)
}

/// One job as the search sees it.
struct Cand {
    job: JobIdx,
    procs: u32,
    estimate: Time,
    submit: Time,
}

/// A candidate placed on the path.
struct Placed {
    cand: usize,
    start: Time,
    /// Where its hold's ends are among the steps, when it holds its
    /// processors on the profile: only a node with children does (a leaf
    /// or a pruned node places nothing after it, so its hold would only
    /// be taken back).
    held: Option<Option<Ends>>,
}

/// One epoch's search: the visitor of the traversal.
struct Search<'a> {
    spec: &'a SearchSpec,
    now: Time,
    cands: Vec<Cand>,
    /// The candidates off the path, in heuristic order (as `cands`).
    unplaced: Unplaced,
    /// The same, oldest first (by submit time), for max-wait bounds.
    unplaced_by_age: Unplaced,
    /// The rank and candidate of the node entered last at each depth,
    /// under the current path: its next sibling places the candidate
    /// after it.
    last_child: Vec<Option<(usize, usize)>>,
    /// Placed candidates along the current path.
    path: Vec<Placed>,
    /// Per depth: accumulated measure terms of the placed jobs.
    acc: Vec<[f64; MAX_MEASURES]>,
    /// Per depth: the lower-bound terms of the placed jobs (to subtract).
    acc_lb: Vec<[f64; MAX_MEASURES]>,
    /// Each candidate's terms if it started now: its lower bound.
    lb: Vec<[f64; MAX_MEASURES]>,
    /// Lower-bound terms of all candidates, if each started now.
    total_lb: [f64; MAX_MEASURES],
    profile: &'a mut Profile,
    cx: EpochContext,
    refs: [f64; MAX_MEASURES],
    best: Option<[f64; MAX_MEASURES]>,
    best_now: Vec<JobIdx>,
}

impl<'a> Search<'a> {
    fn new(
        spec: &'a SearchSpec,
        state: &State<'_>,
        order: &[JobIdx],
        profile: &'a mut Profile,
    ) -> Self {
        let now = state.now;
        let cands: Vec<Cand> = order
            .iter()
            .map(|&job| {
                let info = &state.jobs[job as usize];
                Cand {
                    job,
                    procs: info.procs,
                    estimate: info.estimate,
                    submit: info.submit,
                }
            })
            .collect();
        let oldest_wait = cands.iter().map(|c| now - c.submit).max().unwrap_or(0);
        let in_order: Vec<usize> = (0..cands.len()).collect();
        let mut by_age = in_order.clone();
        by_age.sort_by_key(|&i| (cands[i].submit, cands[i].job));
        let n = spec.objective.measures.len();
        let mut s = Search {
            spec,
            now,
            unplaced: Unplaced::new(&in_order),
            unplaced_by_age: Unplaced::new(&by_age),
            last_child: vec![None; cands.len() + 1],
            path: Vec::with_capacity(cands.len()),
            // One entry per depth, the root's included, written as the
            // path reaches it.
            acc: vec![[0.0; MAX_MEASURES]; cands.len() + 1],
            acc_lb: vec![[0.0; MAX_MEASURES]; cands.len() + 1],
            lb: Vec::with_capacity(cands.len()),
            total_lb: [0.0; MAX_MEASURES],
            cands,
            profile,
            cx: EpochContext { oldest_wait },
            refs: [0.0; MAX_MEASURES],
            best: None,
            best_now: Vec::new(),
        };
        for i in 0..s.cands.len() {
            let lb = s.terms(i, now);
            for (m, t) in lb.iter().enumerate().take(n) {
                s.total_lb[m] = s.combine(m, s.total_lb[m], *t);
            }
            s.lb.push(lb);
        }
        if matches!(
            spec.objective.model,
            super::objective::Model::Tradeoff(super::objective::Reference::C)
        ) {
            s.refs = s.reference_values(state);
        }
        s
    }

    /// Each measure's term for candidate `i` starting at `start`.
    fn terms(&self, i: usize, start: Time) -> [f64; MAX_MEASURES] {
        let c = &self.cands[i];
        let wait = (start - c.submit) as f64;
        let mut out = [0.0; MAX_MEASURES];
        for (m, measure) in self.spec.objective.measures.iter().enumerate() {
            out[m] = match *measure {
                Measure::TotalExcessiveWait => (wait - self.cx.oldest_wait as f64).max(0.0),
                Measure::TotalExcessiveWaitFixed(w) => (wait - w as f64).max(0.0),
                Measure::MaxWait | Measure::AvgWait => wait,
                Measure::AvgSlowdown => {
                    let run = c.estimate.max(1) as f64;
                    ((wait + run) / run.max(self.spec.tau as f64)).max(1.0)
                }
            };
        }
        out
    }

    fn is_max(&self, m: usize) -> bool {
        self.spec.objective.measures[m] == Measure::MaxWait
    }

    /// Adds a term to an accumulator: a maximum for max_wait, else a sum.
    fn combine(&self, m: usize, acc: f64, term: f64) -> f64 {
        if self.is_max(m) {
            acc.max(term)
        } else {
            acc + term
        }
    }

    /// Final value of measure `m` from its accumulator over all candidates.
    fn finish(&self, m: usize, acc: f64) -> f64 {
        match self.spec.objective.measures[m] {
            Measure::AvgWait | Measure::AvgSlowdown => acc / self.cands.len() as f64,
            _ => acc,
        }
    }

    /// Lower bounds of the measures of any completion of the current path:
    /// unplaced jobs start no earlier than now.
    fn lower_bounds(&self) -> [f64; MAX_MEASURES] {
        let depth = self.path.len();
        let mut out = [0.0; MAX_MEASURES];
        for m in 0..self.spec.objective.measures.len() {
            let acc = if self.is_max(m) {
                // The oldest unplaced job waits at least its current wait.
                let oldest = self.unplaced_by_age.first();
                let bound = oldest.map_or(0.0, |i| (self.now - self.cands[i].submit) as f64);
                self.acc[depth][m].max(bound)
            } else {
                self.acc[depth][m] + (self.total_lb[m] - self.acc_lb[depth][m])
            };
            out[m] = self.finish(m, acc);
        }
        out
    }

    /// Version C's references: each measure of the FCFS-backfill schedule
    /// (wait-type) or of the LXF-backfill schedule (average measures), both
    /// placed as the search places a candidate.
    fn reference_values(&mut self, state: &State<'_>) -> [f64; MAX_MEASURES] {
        let mut refs = [0.0; MAX_MEASURES];
        for order in [Order::Fcfs, Order::Lxf] {
            let mut jobs = Vec::new();
            order.sorted_queue(state, &mut jobs);
            let values = self.evaluate(&jobs);
            for (m, measure) in self.spec.objective.measures.iter().enumerate() {
                if measure.is_wait_type() == (order == Order::Fcfs) {
                    refs[m] = values[m];
                }
            }
        }
        refs
    }

    /// Measures of one complete order, placed on a scratch copy of the profile.
    fn evaluate(&self, jobs: &[JobIdx]) -> [f64; MAX_MEASURES] {
        let mut profile = self.profile.clone();
        let mut acc = [0.0; MAX_MEASURES];
        for &job in jobs {
            let i = self.cands.iter().position(|c| c.job == job).unwrap_or(0);
            let c = &self.cands[i];
            let t = profile.earliest_start(c.procs, c.estimate, self.now);
            profile.allocate(t, c.estimate, c.procs);
            let terms = self.terms(i, t);
            for m in 0..self.spec.objective.measures.len() {
                acc[m] = self.combine(m, acc[m], terms[m]);
            }
        }
        let mut out = [0.0; MAX_MEASURES];
        for m in 0..self.spec.objective.measures.len() {
            out[m] = self.finish(m, acc[m]);
        }
        out
    }
}

impl Visitor for Search<'_> {
    fn enter(&mut self, depth: usize, rank: usize) -> Step {
        // The rank-th unplaced candidate in heuristic order; the traversal
        // asks only for ranks below the number left. Siblings come in rank
        // order, each after the last one left (so the list is as it was).
        let i = match self.last_child[depth] {
            Some((r, last)) if r + 1 == rank => self.unplaced.after(last),
            _ => self.unplaced.nth(rank),
        }
        .expect("a rank below the candidates left");
        self.last_child[depth] = Some((rank, i));
        // This node's children are new: none entered yet.
        if let Some(below) = self.last_child.get_mut(depth + 1) {
            *below = None;
        }
        let c = &self.cands[i];
        let (start, ends) = self
            .profile
            .earliest_start_near(c.procs, c.estimate, self.now);
        self.unplaced.take(i);
        self.unplaced_by_age.take(i);
        self.path.push(Placed {
            cand: i,
            start,
            held: None,
        });
        let terms = self.terms(i, start);
        let depth = self.path.len();
        let (mut acc, mut acc_lb) = (self.acc[depth - 1], self.acc_lb[depth - 1]);
        for m in 0..self.spec.objective.measures.len() {
            acc[m] = self.combine(m, acc[m], terms[m]);
            acc_lb[m] += self.lb[i][m];
        }
        self.acc[depth] = acc;
        self.acc_lb[depth] = acc_lb;
        if depth == self.cands.len() {
            return Step::Descend;
        }
        if let Some(best) = &self.best {
            let lower = self.lower_bounds();
            if self
                .spec
                .objective
                .cannot_beat(&lower, best, &self.refs, &self.cx)
            {
                return Step::Prune;
            }
        }
        let held = self.profile.allocate_near(start, c.estimate, c.procs, ends);
        if let Some(last) = self.path.last_mut() {
            last.held = Some(held);
        }
        Step::Descend
    }

    fn leave(&mut self) {
        if let Some(Placed {
            cand: i,
            start,
            held,
        }) = self.path.pop()
        {
            let c = &self.cands[i];
            if let Some(ends) = held {
                // The path below was taken back: the steps are as the
                // hold left them, and its ends where it left them.
                self.profile.release_near(start, c.estimate, c.procs, ends);
            }
            self.unplaced_by_age.put_back(i);
            self.unplaced.put_back(i);
        }
    }

    fn leaf(&mut self) {
        let depth = self.path.len();
        let mut values = [0.0; MAX_MEASURES];
        for (m, v) in values
            .iter_mut()
            .enumerate()
            .take(self.spec.objective.measures.len())
        {
            *v = self.finish(m, self.acc[depth][m]);
        }
        let better = match &self.best {
            None => true,
            Some(best) => self
                .spec
                .objective
                .better(&values, best, &self.refs, &self.cx),
        };
        if better {
            self.best = Some(values);
            self.best_now.clear();
            let now = self.now;
            self.best_now.extend(
                self.path
                    .iter()
                    .filter(|p| p.start == now)
                    .map(|p| self.cands[p.cand].job),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::objective::{Difference, Model, Reference};
    use crate::policy::order::tests::job;
    use crate::policy::testing::state_at;
    use crate::sim::{JobInfo, Running};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeSet;

    fn info(submit: Time, estimate: Time, procs: u32) -> JobInfo {
        JobInfo {
            procs,
            ..job(submit, estimate)
        }
    }

    /// Every node's hold is taken back, and a node that made none (a leaf,
    /// a pruned node) gives nothing back: after a search the running
    /// jobs' profile is as it was, whatever was visited or pruned.
    #[test]
    fn a_search_leaves_the_profile_as_it_found_it() {
        let now = 100_000;
        for seed in 0..12u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut jobs = Vec::new();
            let mut running = BTreeSet::new();
            let mut used = 0;
            while used < 56 {
                let procs = rng.gen_range(1..=8).min(56 - used);
                let start = now - rng.gen_range(0..5_000);
                let estimate = now - start + rng.gen_range(60..20_000);
                jobs.push(info(start, estimate, procs));
                running.insert(Running {
                    expected_end: start + estimate,
                    job: (jobs.len() - 1) as JobIdx,
                    start,
                });
                used += procs;
            }
            let mut waiting = Vec::new();
            for _ in 0..rng.gen_range(3..14) {
                let submit = now - rng.gen_range(0..50_000);
                jobs.push(info(
                    submit,
                    rng.gen_range(60..30_000),
                    rng.gen_range(1..=64),
                ));
                waiting.push((jobs.len() - 1) as JobIdx);
            }
            waiting.sort_by_key(|&j| (jobs[j as usize].submit, j));
            let state = state_at((now, 64, 64 - used), &jobs, &waiting, &running, 0);
            let mut profile = Profile::new(64, now);
            state.running_profile(&mut profile);
            let before: Vec<_> = profile.steps().collect();
            for (model, measures) in [
                (
                    Model::Tradeoff(Reference::A),
                    vec![Measure::TotalExcessiveWait, Measure::AvgSlowdown],
                ),
                (Model::Lexical, vec![Measure::MaxWait, Measure::AvgSlowdown]),
            ] {
                let spec = SearchSpec {
                    objective: Objective {
                        model,
                        measures,
                        difference: Difference::Relaxed { percent: 1.0 },
                    },
                    traversal: Traversal::Dds,
                    branch: Order::Lxf,
                    budget: 3_000,
                    tau: 60,
                };
                let (_, visits) = search_on(&spec, &state, &mut Vec::new(), &mut profile);
                assert!(
                    visits > waiting.len() as u64,
                    "seed {seed}: {visits} visits"
                );
                assert!(
                    profile.steps().eq(before.iter().copied()),
                    "seed {seed}: the profile changed"
                );
            }
        }
    }
}
