//! Fairshare priority (FAIR, section II.A): each user's processor-seconds
//! of use, decayed over time; the user who used the machine least recently
//! goes first.
//!
//! Two decay rules, because administrators know both:
//!
//! | goal statement            | rule                                                  | as in |
//! |---------------------------|-------------------------------------------------------|-------|
//! | `fairshare decay 24h`     | usage is multiplied by 0.5 at every 24 h boundary (a step) | Sandia's CPlant scheduler ("decayed every 24 hours"), PBS `fairshare_decay_time` with its default `fairshare_decay_factor` 0.5 |
//! | `fairshare decay 24h factor 0.8` | the same with factor 0.8                        | PBS `fairshare_decay_factor` |
//! | `fairshare half-life 24h` | usage decays continuously, halving every 24 h          | Slurm `PriorityDecayHalfLife` (Slurm decays in small steps every `PriorityCalcPeriod`; this is their limit) |
//!
//! Both forget at the same long-run rate for the same duration and factor
//! 0.5; the step rule lets a user's standing jump at each boundary (at
//! multiples of the period from the trace's time 0), the half-life rule is
//! smooth.
//!
//! Usage accrues while jobs run, not when they finish: a user with a
//! three-day job loses standing during those three days, as on a real
//! system whose accounting samples running jobs. Charging at completion
//! would let a user with long jobs keep top priority until they end.
//! Within a period, usage grows by (processors running) x (seconds); the
//! decay applies to everything accrued before each boundary.

use crate::sim::{JobIdx, JobInfo};
use crate::workload::Time;
use std::collections::HashMap;
use std::fmt;

/// How usage is forgotten.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum Decay {
    /// Multiply by `factor` at every multiple of `period` (seconds).
    Periodic { period: Time, factor: f64 },
    /// Continuous exponential decay halving every `half_life` seconds.
    HalfLife { half_life: Time },
}

impl Decay {
    /// The CPlant scheduler's: halve every 24 hours.
    pub const CPLANT: Decay = Decay::Periodic {
        period: 24 * 3600,
        factor: 0.5,
    };
}

impl Default for Decay {
    fn default() -> Self {
        Decay::CPLANT
    }
}

impl fmt::Display for Decay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::units::format_duration;
        match *self {
            Decay::Periodic {
                period,
                factor: 0.5,
            } => {
                write!(f, "decay {}", format_duration(period))
            }
            Decay::Periodic { period, factor } => {
                write!(f, "decay {} factor {factor}", format_duration(period))
            }
            Decay::HalfLife { half_life } => write!(f, "half-life {}", format_duration(half_life)),
        }
    }
}

impl Decay {
    /// The decay rule in words, for a goal's description.
    pub fn describe(&self) -> String {
        use crate::units::format_duration;
        match *self {
            Decay::Periodic { period, factor } => format!(
                "multiplied by {factor} at every {} boundary",
                format_duration(period)
            ),
            Decay::HalfLife { half_life } => format!(
                "decaying continuously with half-life {}",
                format_duration(half_life)
            ),
        }
    }

    /// Advances a usage `value` from `from` to `to` (`to >= from`) while
    /// `rate` processors are in use throughout.
    pub fn advance(&self, value: f64, rate: f64, from: Time, to: Time) -> f64 {
        if to <= from {
            return value;
        }
        match *self {
            Decay::Periodic { period, factor } => {
                let k0 = from.div_euclid(period);
                let k1 = to.div_euclid(period);
                if k0 == k1 {
                    return value + rate * (to - from) as f64;
                }
                // Up to the first boundary, then whole periods, then the rest.
                let mut v = (value + rate * ((k0 + 1) * period - from) as f64) * factor;
                let whole = k1 - k0 - 1;
                if whole > 0 {
                    let fm = factor.powi(whole.min(i32::MAX as i64) as i32);
                    let per_period = rate * period as f64 * factor;
                    // v_m = f^m v + r P f (1 + f + ... + f^(m-1))
                    let series = if factor == 1.0 {
                        whole as f64
                    } else {
                        (1.0 - fm) / (1.0 - factor)
                    };
                    v = fm * v + per_period * series;
                }
                v + rate * (to - k1 * period) as f64
            }
            Decay::HalfLife { half_life } => {
                let lambda = std::f64::consts::LN_2 / half_life as f64;
                let keep = (-lambda * (to - from) as f64).exp();
                value * keep + rate * (1.0 - keep) / lambda
            }
        }
    }
}

/// One user's account: usage as of `as_of`, and processors now running.
#[derive(Debug, Clone, Copy, Default)]
struct Account {
    value: f64,
    rate: u64,
    as_of: Time,
}

/// Every user's decayed usage, brought up to date lazily.
#[derive(Debug, Clone)]
pub struct UsageLedger {
    decay: Decay,
    accounts: Vec<Account>,
    /// Dense account index of each job's user.
    account_of: Vec<u32>,
}

impl UsageLedger {
    /// A ledger for the users of `jobs`, all with zero usage at time 0.
    pub fn new(decay: Decay, jobs: &[JobInfo]) -> Self {
        let mut index: HashMap<i64, u32> = HashMap::new();
        let account_of = jobs
            .iter()
            .map(|j| {
                let next = index.len() as u32;
                *index.entry(j.user).or_insert(next)
            })
            .collect();
        UsageLedger {
            decay,
            accounts: vec![Account::default(); index.len()],
            account_of,
        }
    }

    pub fn decay(&self) -> Decay {
        self.decay
    }

    /// Number of distinct users.
    pub fn users(&self) -> usize {
        self.accounts.len()
    }

    /// The account index of `job`'s user (dense, 0-based).
    pub fn account(&self, job: JobIdx) -> usize {
        self.account_of[job as usize] as usize
    }

    fn bring_to(&mut self, account: usize, now: Time) -> &mut Account {
        let a = &mut self.accounts[account];
        if now > a.as_of {
            a.value = self.decay.advance(a.value, a.rate as f64, a.as_of, now);
            a.as_of = now;
        }
        a
    }

    /// `job` started running `procs` processors at `now`.
    pub fn started(&mut self, job: JobIdx, procs: u32, now: Time) {
        let acc = self.account(job);
        self.bring_to(acc, now).rate += procs as u64;
    }

    /// `job` stopped running `procs` processors at `now`.
    pub fn finished(&mut self, job: JobIdx, procs: u32, now: Time) {
        let acc = self.account(job);
        let a = self.bring_to(acc, now);
        a.rate = a.rate.saturating_sub(procs as u64);
    }

    /// Decayed usage of account `account` at `now` (not before the last
    /// update of that account).
    pub fn usage_of_account(&mut self, account: usize, now: Time) -> f64 {
        self.bring_to(account, now).value
    }

    /// Decayed usage of `job`'s user at `now`.
    pub fn usage(&mut self, job: JobIdx, now: Time) -> f64 {
        let acc = self.account(job);
        self.usage_of_account(acc, now)
    }

    /// Processors `job`'s user has running now.
    pub fn running_procs(&self, job: JobIdx) -> u64 {
        self.accounts[self.account(job)].rate
    }

    /// Sorts `queue` into fairshare order at `now`: least decayed usage
    /// first, ties by submit time, then job index. `keys` is scratch space.
    pub fn sort(
        &mut self,
        now: Time,
        jobs: &[JobInfo],
        queue: &mut [JobIdx],
        keys: &mut Vec<(f64, Time, JobIdx)>,
    ) {
        keys.clear();
        for &j in queue.iter() {
            let u = self.usage(j, now);
            keys.push((u, jobs[j as usize].submit, j));
        }
        // Stable, so that a queue handed over nearly sorted (see
        // `Ranker::queue`) sorts in about linear time; the keys are
        // distinct, so any sort gives this order.
        keys.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (slot, k) in queue.iter_mut().zip(keys.iter()) {
            *slot = k.2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Time = 24 * 3600;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn periodic_decay_halves_at_each_boundary() {
        let d = Decay::default();
        // 100 processor-seconds at 10h; no use since; at 1.5 days one
        // boundary (24h) has passed: 50; at 3.5 days three: 12.5.
        assert_eq!(d.advance(100.0, 0.0, 10 * 3600, 36 * 3600), 50.0);
        assert_eq!(d.advance(100.0, 0.0, 10 * 3600, 84 * 3600), 12.5);
        // Inside one period nothing decays.
        assert_eq!(d.advance(100.0, 0.0, 3600, 23 * 3600), 100.0);
        // Exactly on a boundary counts as crossing it.
        assert_eq!(d.advance(100.0, 0.0, 0, DAY), 50.0);
    }

    #[test]
    fn periodic_decay_of_use_while_running() {
        let d = Decay::default();
        // 2 processors from 12h to 60h (day 2.5):
        // day 0: 12h*2 = 86400 proc-s, halved at 24h -> 43200, plus day 1
        // (172800) = 216000, halved at 48h -> 108000, plus 12h*2 = 86400
        // -> 194400.
        let v = d.advance(0.0, 2.0, 12 * 3600, 60 * 3600);
        assert_eq!(v, 194_400.0);
        // The closed form for many whole periods equals stepping through them.
        let mut stepped = 7.0;
        let mut t = 5 * 3600;
        for end in [DAY, 2 * DAY, 3 * DAY, 4 * DAY, 5 * DAY, 5 * DAY + 7] {
            stepped = d.advance(stepped, 3.0, t, end);
            t = end;
        }
        assert!(close(d.advance(7.0, 3.0, 5 * 3600, 5 * DAY + 7), stepped));
        // Another factor.
        let d8 = Decay::Periodic {
            period: DAY,
            factor: 0.8,
        };
        assert!(close(d8.advance(1000.0, 0.0, 0, 2 * DAY + 1), 640.0));
    }

    #[test]
    fn half_life_is_continuous() {
        let d = Decay::HalfLife { half_life: DAY };
        assert!(close(d.advance(100.0, 0.0, 0, DAY), 50.0));
        assert!(close(
            d.advance(100.0, 0.0, 0, DAY / 2),
            100.0 / 2f64.sqrt()
        ));
        // Steady use converges to rate / lambda.
        let lambda = std::f64::consts::LN_2 / DAY as f64;
        assert!(close(d.advance(0.0, 4.0, 0, 200 * DAY), 4.0 / lambda));
        // Splitting an interval changes nothing.
        let a = d.advance(d.advance(10.0, 2.0, 0, 1000), 2.0, 1000, 5000);
        assert!(close(a, d.advance(10.0, 2.0, 0, 5000)));
    }

    fn info(submit: Time, user: i64) -> JobInfo {
        JobInfo {
            submit,
            estimate: 100,
            procs: 1,
            user,
            group: -1,
            user_group: 0,
            deadline: None,
        }
    }

    #[test]
    fn ledger_charges_running_jobs_before_they_end() {
        let jobs = [info(0, 7), info(0, 9), info(5, 7)];
        let mut l = UsageLedger::new(Decay::default(), &jobs);
        assert_eq!(l.users(), 2);
        l.started(0, 4, 100);
        // Still running at 1100: 4 procs x 1000 s already charged.
        assert_eq!(l.usage(2, 1100), 4000.0);
        assert_eq!(l.usage(1, 1100), 0.0);
        l.finished(0, 4, 1100);
        assert_eq!(l.usage(0, 5000), 4000.0);
        assert_eq!(l.usage(0, DAY), 2000.0);
    }

    #[test]
    fn fairshare_sort_prefers_least_usage_then_submit() {
        let jobs = [info(0, 1), info(10, 2), info(20, 1), info(30, 3)];
        let mut l = UsageLedger::new(Decay::default(), &jobs);
        l.started(0, 2, 0);
        l.finished(0, 2, 50); // user 1: 100
        let mut q = vec![2, 1, 3];
        let mut keys = Vec::new();
        l.sort(100, &jobs, &mut q, &mut keys);
        // Users 2 and 3 have no usage: by submit; user 1 last.
        assert_eq!(q, vec![1, 3, 2]);
    }
}
