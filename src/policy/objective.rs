//! Objectives of goal-oriented scheduling (the GOAL paper, section 3):
//! measures of a candidate schedule and the comparator that decides whether
//! a candidate beats the best schedule found so far.
//!
//! The comparator is the single place where "is this schedule better" is
//! decided; the search only asks it.

use crate::workload::Time;
use std::fmt;

/// A measure of a candidate schedule, taken over the jobs waiting at the
/// epoch from their planned starts (SPEC.md, "Measures").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Measure {
    /// T_w: sum over waiting jobs of max(0, planned wait - omega), where
    /// omega is the current wait of the oldest waiting job (dynamic).
    TotalExcessiveWait,
    /// T_w with a fixed threshold omega, seconds.
    TotalExcessiveWaitFixed(Time),
    /// maxW: the largest planned wait.
    MaxWait,
    /// avgW: the mean planned wait.
    AvgWait,
    /// avgX: the mean planned bounded slowdown, max(1, (wait + run) /
    /// max(run, tau)) with the goal's slowdown bound tau (GOAL's X, bounded
    /// as in its evaluation), run being the estimate the scheduler knows.
    AvgSlowdown,
}

impl Measure {
    /// Measures of a single job (their value is one job's), as opposed to
    /// all-job measures. GOAL (section 6.2) found that trading a single-job
    /// measure against an average one starves jobs.
    pub fn is_single_job(self) -> bool {
        matches!(self, Measure::MaxWait)
    }

    /// Average measures, which favour short jobs and starve long ones when
    /// optimised first (GOAL, section 6.1).
    pub fn is_average(self) -> bool {
        matches!(self, Measure::AvgWait | Measure::AvgSlowdown)
    }

    /// Wait-type measures take their version-C reference from FCFS-backfill,
    /// average measures from LXF-backfill (GOAL, section 3.2).
    pub fn is_wait_type(self) -> bool {
        !self.is_average()
    }

    /// The paper's notation: T_w, T_w(50h), maxW, avgW, avgX.
    pub fn short_name(self) -> String {
        match self {
            Measure::TotalExcessiveWait => "T_w".into(),
            Measure::TotalExcessiveWaitFixed(w) => {
                format!("T_w({})", crate::units::format_duration(w))
            }
            Measure::MaxWait => "maxW".into(),
            Measure::AvgWait => "avgW".into(),
            Measure::AvgSlowdown => "avgX".into(),
        }
    }

    /// The goal language's name.
    pub fn name(self) -> String {
        match self {
            Measure::TotalExcessiveWait => "total_excessive_wait".into(),
            Measure::TotalExcessiveWaitFixed(w) => {
                format!("total_excessive_wait({})", threshold(w))
            }
            Measure::MaxWait => "max_wait".into(),
            Measure::AvgWait => "avg_wait".into(),
            Measure::AvgSlowdown => "avg_slowdown".into(),
        }
    }
}

/// A threshold as people write it: whole hours as `50h`, else compact.
fn threshold(w: Time) -> String {
    if w > 0 && w % 3600 == 0 {
        format!("{}h", w / 3600)
    } else {
        crate::units::format_duration(w)
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// How two measures combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Model {
    /// Lexical(a -> b -> ...): the first measure dominates; later ones only
    /// break ties.
    Lexical,
    /// Eq-Tradeoff(a : b : ...): equally important. The paper defines it
    /// for two measures: Phi beats Gamma when
    /// delta_x / ref_x + delta_y / ref_y > 0. goalc generalises it to n
    /// measures by summing every term, sum_i delta_i / ref_i > 0, which keeps
    /// both of the paper's readings: a candidate that improves some measures
    /// and degrades none wins, and one that trades wins when its relative
    /// gains outweigh its relative losses. Relaxation applies, as for two,
    /// when at least one measure improves and at least one degrades.
    Tradeoff(Reference),
}

/// Reference values of the Eq-Tradeoff model (GOAL, Table 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Reference {
    /// The best-so-far schedule's values (the paper's choice).
    A,
    /// The smaller of the two schedules' values.
    B,
    /// Lower bounds computed at the start of each epoch by FCFS-backfill
    /// (wait-type measures) and LXF-backfill (average measures).
    C,
}

/// Strict differences, or relaxed by `percent` (GOAL, section 3.3).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum Difference {
    Strict,
    Relaxed { percent: f64 },
}

/// An objective: measures, how they combine, and how differences count.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Objective {
    pub model: Model,
    pub measures: Vec<Measure>,
    pub difference: Difference,
}

/// What the comparator needs to know about the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EpochContext {
    /// Current wait of the oldest waiting job: the dynamic threshold omega,
    /// and the base of T_w's relaxation slack.
    pub oldest_wait: Time,
}

/// Values of the objective's measures for one schedule, in objective order.
pub type Values = [f64];

impl Objective {
    /// The relaxation slack of measure `i` given the best-so-far values:
    /// P% of the best-so-far value, except for total excessive wait, whose
    /// best value may be 0: P% of the current maximum wait.
    fn slack(&self, i: usize, best: &Values, cx: &EpochContext) -> f64 {
        let Difference::Relaxed { percent } = self.difference else {
            return 0.0;
        };
        let base = match self.measures[i] {
            Measure::TotalExcessiveWait | Measure::TotalExcessiveWaitFixed(_) => {
                cx.oldest_wait as f64
            }
            _ => best[i],
        };
        base.abs() * percent / 100.0
    }

    /// The differences best - candidate per measure (positive: the candidate
    /// improves), relaxed when the candidate improves some measure and
    /// degrades another (only then, as GOAL defines it).
    fn deltas(&self, cand: &Values, best: &Values, cx: &EpochContext, out: &mut [f64]) {
        let mut improves = false;
        let mut degrades = false;
        for i in 0..self.measures.len() {
            out[i] = best[i] - cand[i];
            improves |= out[i] > 0.0;
            degrades |= out[i] < 0.0;
        }
        if improves && degrades {
            for (i, d) in out.iter_mut().enumerate().take(self.measures.len()) {
                if d.abs() < self.slack(i, best, cx) {
                    *d = 0.0;
                }
            }
        }
    }

    /// True when `cand` is better than `best` (GOAL's Phi < Gamma, with
    /// Gamma the best so far). `refs` are version C's reference values.
    pub fn better(&self, cand: &Values, best: &Values, refs: &Values, cx: &EpochContext) -> bool {
        let n = self.measures.len();
        let mut d = [0.0f64; MAX_MEASURES];
        self.deltas(cand, best, cx, &mut d[..n]);
        match self.model {
            // The first measure that differs decides.
            Model::Lexical => d[..n].iter().find(|&&x| x != 0.0).is_some_and(|&x| x > 0.0),
            Model::Tradeoff(version) => {
                let sum: f64 = (0..n)
                    .map(|i| {
                        let reference = match version {
                            Reference::A => best[i],
                            Reference::B => best[i].min(cand[i]),
                            Reference::C => refs[i],
                        };
                        ratio(d[i], reference)
                    })
                    .sum();
                sum > 0.0
            }
        }
    }

    /// True when no schedule whose measures are at least `lower` (element
    /// by element) can be better than `best`: the subtree can be pruned.
    /// Sound for every model: it assumes the most favourable completion.
    pub fn cannot_beat(
        &self,
        lower: &Values,
        best: &Values,
        refs: &Values,
        cx: &EpochContext,
    ) -> bool {
        let n = self.measures.len();
        // Any completion is worse or equal on every measure. If it is worse
        // on some measure by more than the slack it can only win by
        // improving another, which it cannot: so it is not better, unless
        // all degradations fall within the slack (then it ties at best).
        // The optimistic candidate takes the lower bounds themselves.
        let optimistic = &lower[..n];
        if optimistic.iter().zip(&best[..n]).all(|(l, b)| l >= b) {
            // No measure can improve: never strictly better.
            return true;
        }
        match self.model {
            Model::Lexical => {
                // Better requires the first differing (relaxed) measure to
                // improve. Find the first measure that can improve; every
                // measure before it can only degrade, and a degradation
                // beyond the slack decides against the candidate.
                for i in 0..n {
                    let slack = self.slack(i, best, cx);
                    if optimistic[i] < best[i] {
                        return false; // this measure may improve first
                    }
                    let worse = optimistic[i] - best[i];
                    if worse > 0.0 && worse >= slack {
                        return true; // degrades beyond slack before any improvement
                    }
                }
                true
            }
            Model::Tradeoff(version) => {
                // Each term at its most favourable: the improvement with the
                // lower bound, degradations forgiven within the slack.
                let sum: f64 = (0..n)
                    .map(|i| {
                        let delta = best[i] - optimistic[i];
                        let delta = if delta < 0.0 && -delta < self.slack(i, best, cx) {
                            0.0
                        } else {
                            delta
                        };
                        let reference = match version {
                            Reference::A => best[i],
                            // The smallest reference makes an improvement largest.
                            Reference::B => best[i].min(optimistic[i]),
                            Reference::C => refs[i],
                        };
                        ratio(delta, reference)
                    })
                    .sum();
                sum <= 0.0
            }
        }
    }
}

/// Most measures an objective may combine.
pub const MAX_MEASURES: usize = 8;

/// A difference relative to its reference value. A reference of 0 makes any
/// improvement infinitely good and any degradation infinitely bad.
pub fn ratio(delta: f64, reference: f64) -> f64 {
    if reference > 0.0 {
        delta / reference
    } else if delta > 0.0 {
        f64::INFINITY
    } else if delta < 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

impl fmt::Display for Objective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.measures.iter().map(|m| m.name()).collect();
        match self.model {
            Model::Lexical => write!(f, "lexical({})", names.join(" -> "))?,
            Model::Tradeoff(r) => write!(f, "tradeoff({}) reference {r:?}", names.join(", "))?,
        }
        match self.difference {
            Difference::Strict => write!(f, " strict"),
            Difference::Relaxed { percent } => write!(f, " relaxed {percent}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tradeoff(r: Reference, diff: Difference) -> Objective {
        Objective {
            model: Model::Tradeoff(r),
            measures: vec![Measure::MaxWait, Measure::AvgSlowdown],
            difference: diff,
        }
    }

    fn lexical(diff: Difference) -> Objective {
        Objective {
            model: Model::Lexical,
            measures: vec![Measure::MaxWait, Measure::AvgSlowdown],
            difference: diff,
        }
    }

    const CX: EpochContext = EpochContext { oldest_wait: 1000 };
    const NOREF: [f64; 2] = [0.0, 0.0];

    #[test]
    fn the_papers_100_versus_20_examples() {
        // Version A: from 100 to 20 improves by 80%; from 20 to 100 degrades by 400%.
        assert_eq!(ratio(100.0 - 20.0, 100.0), 0.8);
        assert_eq!(ratio(20.0 - 100.0, 20.0), -4.0);
        // Version B: the reference is the smaller value: 400% either way.
        assert_eq!(ratio(100.0 - 20.0, 100f64.min(20.0)), 4.0);
        assert_eq!(ratio(20.0 - 100.0, 20f64.min(100.0)), -4.0);
        // So under A, x: 100 -> 20 (+80%) does not pay for y: 20 -> 100
        // (-400%); under B it is +400% against -400%: still not better.
        let a = tradeoff(Reference::A, Difference::Strict);
        assert!(!a.better(&[20.0, 100.0], &[100.0, 20.0], &NOREF, &CX));
        let b = tradeoff(Reference::B, Difference::Strict);
        assert!(!b.better(&[20.0, 100.0], &[100.0, 20.0], &NOREF, &CX));
        // x: 100 -> 20 against y: 20 -> 30: A gives 0.8 - 0.5 > 0.
        assert!(a.better(&[20.0, 30.0], &[100.0, 20.0], &NOREF, &CX));
    }

    #[test]
    fn version_a_is_not_transitive_but_b_agrees() {
        let a = tradeoff(Reference::A, Difference::Strict);
        let b = tradeoff(Reference::B, Difference::Strict);
        let (p1, p2, p3) = ([10.0, 40.0], [20.0, 30.0], [50.0, 20.0]);
        // p2 beats p3: +30/50 - 10/20 = 0.1; p1 beats p2: +10/20 - 10/30 = 0.17.
        assert!(a.better(&p2, &p3, &NOREF, &CX));
        assert!(a.better(&p1, &p2, &NOREF, &CX));
        // But p1 does not beat p3: +40/50 - 20/20 = -0.2.
        assert!(!a.better(&p1, &p3, &NOREF, &CX));
        // Version B: p1 beats p3 (+40/10 - 20/20 = 3), as the paper says.
        assert!(b.better(&p1, &p3, &NOREF, &CX));
    }

    #[test]
    fn version_c_uses_the_epoch_references() {
        let c = tradeoff(Reference::C, Difference::Strict);
        // x improves by 10 on reference 100 (0.1); y degrades by 1 on 20 (-0.05).
        assert!(c.better(&[90.0, 21.0], &[100.0, 20.0], &[100.0, 20.0], &CX));
        // With a small reference for y the degradation weighs more.
        assert!(!c.better(&[90.0, 21.0], &[100.0, 20.0], &[100.0, 5.0], &CX));
    }

    #[test]
    fn lexical_first_measure_dominates() {
        let l = lexical(Difference::Strict);
        assert!(l.better(&[99.0, 50.0], &[100.0, 1.0], &NOREF, &CX));
        assert!(!l.better(&[101.0, 1.0], &[100.0, 50.0], &NOREF, &CX));
        assert!(l.better(&[100.0, 1.0], &[100.0, 2.0], &NOREF, &CX));
        assert!(!l.better(&[100.0, 2.0], &[100.0, 2.0], &NOREF, &CX));
    }

    #[test]
    fn relaxed_difference_forgives_marginal_changes_in_trade_offs() {
        let strict = lexical(Difference::Strict);
        let relaxed = lexical(Difference::Relaxed { percent: 1.0 });
        // max wait 100 -> 100.5 (within 1% of 100), slowdown 10 -> 5.
        assert!(!strict.better(&[100.5, 5.0], &[100.0, 10.0], &NOREF, &CX));
        assert!(relaxed.better(&[100.5, 5.0], &[100.0, 10.0], &NOREF, &CX));
        // Beyond the slack the primary measure still decides.
        assert!(!relaxed.better(&[102.0, 5.0], &[100.0, 10.0], &NOREF, &CX));
        // Relaxed only applies to mixed changes: a marginal improvement of
        // both still counts.
        assert!(relaxed.better(&[99.9, 9.99], &[100.0, 10.0], &NOREF, &CX));
        // Total excessive wait's slack is 1% of the oldest job's wait (1000 s).
        let tw = Objective {
            model: Model::Lexical,
            measures: vec![Measure::TotalExcessiveWait, Measure::AvgSlowdown],
            difference: Difference::Relaxed { percent: 1.0 },
        };
        assert!(tw.better(&[9.0, 5.0], &[0.0, 10.0], &NOREF, &CX));
        assert!(!tw.better(&[11.0, 5.0], &[0.0, 10.0], &NOREF, &CX));
    }

    #[test]
    fn zero_references_are_infinitely_weighted() {
        let a = tradeoff(Reference::A, Difference::Strict);
        // Degrading a measure that is 0 in the best schedule is never paid for.
        assert!(!a.better(&[1.0, 0.0], &[0.0, 100.0], &NOREF, &CX));
        // Reaching 0 from anything is an infinite improvement under B.
        let b = tradeoff(Reference::B, Difference::Strict);
        assert!(b.better(&[0.0, 150.0], &[10.0, 100.0], &NOREF, &CX));
    }

    #[test]
    fn tradeoff_of_three_measures_sums_all() {
        let t = Objective {
            model: Model::Tradeoff(Reference::A),
            measures: vec![
                Measure::TotalExcessiveWait,
                Measure::AvgWait,
                Measure::AvgSlowdown,
            ],
            difference: Difference::Strict,
        };
        // +10% - 5% - 4% > 0
        assert!(t.better(&[90.0, 105.0, 10.4], &[100.0, 100.0, 10.0], &[0.0; 3], &CX));
        // +10% - 5% - 6% < 0
        assert!(!t.better(&[90.0, 105.0, 10.6], &[100.0, 100.0, 10.0], &[0.0; 3], &CX));
    }

    #[test]
    fn pruning_is_sound_and_useful() {
        for obj in [
            lexical(Difference::Strict),
            lexical(Difference::Relaxed { percent: 1.0 }),
            tradeoff(Reference::A, Difference::Relaxed { percent: 1.0 }),
            tradeoff(Reference::B, Difference::Strict),
        ] {
            let best = [100.0, 10.0];
            // Lower bounds already worse on both: prune.
            assert!(obj.cannot_beat(&[101.0, 11.0], &best, &NOREF, &CX), "{obj}");
            // Lower bounds better on both: never prune.
            assert!(!obj.cannot_beat(&[50.0, 5.0], &best, &NOREF, &CX), "{obj}");
            // Soundness on a grid: whenever pruning is claimed, no candidate
            // at or above the bounds is better.
            for l0 in [80.0, 99.5, 100.0, 100.5, 120.0] {
                for l1 in [5.0, 9.95, 10.0, 10.05, 12.0] {
                    if obj.cannot_beat(&[l0, l1], &best, &NOREF, &CX) {
                        for c0 in [l0, l0 + 0.3, l0 + 5.0] {
                            for c1 in [l1, l1 + 0.03, l1 + 1.0] {
                                assert!(
                                    !obj.better(&[c0, c1], &best, &NOREF, &CX),
                                    "{obj} {l0} {l1} {c0} {c1}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
