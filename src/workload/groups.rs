//! GREEDY's user groups: users ranked by their share of the machine's
//! consumption (section IV-A, eq. 2-3 and Table II).
//!
//! A user's consumption RC_u is the processor-seconds of their jobs (run
//! time as simulated, i.e. killed at the estimate, times processors); RC
//! is everyone's. Group 1 holds the users whose share RC_u / RC is above
//! the first bound, group 2 those above the second, and so on; the last
//! group holds the rest. The paper's bounds are 8%, 2%, 1% and 0.1%, five
//! groups. A share exactly on a bound belongs to the group below it
//! (Table II's "> 8 %" is strict, so 8% exactly is group 2, 2% exactly is
//! group 3). Shares are compared exactly, in integers.
//!
//! Groups are a property of the workload being run: they are computed from
//! all of its jobs (warm-up and cool-down jobs included, since they are
//! the same users), so a goal trained on one trace and run on another
//! groups each trace's users by that trace's own consumption. Jobs without
//! a user (SWF user -1) count as one user.

use super::Workload;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;

/// Parts per million of the total consumption: the unit of the bounds.
pub const PPM: u64 = 1_000_000;

/// The most groups a goal may state.
pub const MAX_GROUPS: usize = 9;

/// Bounds of the groups' shares, in parts per million, strictly
/// decreasing: group `i` (1-based) holds the users above `above[i - 1]`
/// and not above the bound before.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Bands {
    above_ppm: Vec<u64>,
}

/// Bounds that do not make groups.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BandsError {
    #[error("user groups need at least one bound (two groups)")]
    Empty,
    #[error("at most {MAX_GROUPS} groups, got {0} bounds, which make {groups} groups", groups = .0 + 1)]
    TooMany(usize),
    #[error("bound {0} is not between 0% and 100% (exclusive)")]
    OutOfRange(String),
    #[error("bounds must decrease strictly from group 1 on: {0} follows {1}")]
    NotDecreasing(String, String),
}

impl Bands {
    /// The paper's five groups: above 8%, 2%, 1%, 0.1%, and the rest.
    pub fn paper() -> Self {
        Bands {
            above_ppm: vec![80_000, 20_000, 10_000, 1_000],
        }
    }

    /// Bands from bounds in parts per million, group 1's first.
    pub fn new(above_ppm: Vec<u64>) -> Result<Self, BandsError> {
        if above_ppm.is_empty() {
            return Err(BandsError::Empty);
        }
        if above_ppm.len() > MAX_GROUPS - 1 {
            return Err(BandsError::TooMany(above_ppm.len()));
        }
        for (i, &b) in above_ppm.iter().enumerate() {
            if b == 0 || b >= PPM {
                return Err(BandsError::OutOfRange(percent(b)));
            }
            if i > 0 && b >= above_ppm[i - 1] {
                return Err(BandsError::NotDecreasing(
                    percent(b),
                    percent(above_ppm[i - 1]),
                ));
            }
        }
        Ok(Bands { above_ppm })
    }

    /// How many groups: one more than bounds.
    pub fn groups(&self) -> usize {
        self.above_ppm.len() + 1
    }

    /// The bounds, in parts per million.
    pub fn bounds_ppm(&self) -> &[u64] {
        &self.above_ppm
    }

    /// The group (1-based) of a user consuming `used` of `total`.
    pub fn group_of(&self, used: u128, total: u128) -> u8 {
        let scaled = used * u128::from(PPM);
        let above = self
            .above_ppm
            .iter()
            .position(|&b| scaled > u128::from(b) * total);
        (above.unwrap_or(self.above_ppm.len()) + 1) as u8
    }
}

impl fmt::Display for Bands {
    /// As the language writes them: `8% 2% 1% 0.1%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.above_ppm.iter().map(|&b| percent(b)).collect();
        f.write_str(&words.join(" "))
    }
}

/// Parts per million as a percentage without trailing zeros: `0.1%`.
pub fn percent(ppm: u64) -> String {
    let whole = ppm / 10_000;
    let frac = ppm % 10_000;
    if frac == 0 {
        format!("{whole}%")
    } else {
        let digits = format!("{frac:04}");
        format!("{whole}.{}%", digits.trim_end_matches('0'))
    }
}

/// One user's consumption and group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserShare {
    pub user: i64,
    /// Processor-seconds of the user's jobs.
    pub consumption: u128,
    pub group: u8,
}

/// Every user's consumption and group, heaviest first (ties by user).
pub fn user_shares(w: &Workload, bands: &Bands) -> Vec<UserShare> {
    let mut used: HashMap<i64, u128> = HashMap::new();
    for j in &w.jobs {
        *used.entry(j.user).or_insert(0) += u128::from(j.procs) * j.sim_runtime().max(0) as u128;
    }
    let total: u128 = used.values().sum();
    let mut shares: Vec<UserShare> = used
        .into_iter()
        .map(|(user, consumption)| UserShare {
            user,
            consumption,
            group: bands.group_of(consumption, total.max(1)),
        })
        .collect();
    shares.sort_by(|a, b| b.consumption.cmp(&a.consumption).then(a.user.cmp(&b.user)));
    shares
}

/// The workload with every job's [`super::Job::user_group`] set by its
/// user's share of consumption.
pub fn assign(w: &Workload, bands: &Bands) -> Workload {
    let group: HashMap<i64, u8> = user_shares(w, bands)
        .into_iter()
        .map(|s| (s.user, s.group))
        .collect();
    let mut out = w.clone();
    for j in &mut out.jobs {
        j.user_group = group[&j.user];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Job, SwfHeader};

    fn job(number: i64, user: i64, procs: u32, runtime: i64) -> Job {
        Job {
            user,
            ..Job::plain(number, number, runtime, procs)
        }
    }

    #[test]
    fn shares_on_a_bound_fall_to_the_group_below() {
        let b = Bands::paper();
        // Out of 1000: 80 is exactly 8%, 81 just above.
        assert_eq!(b.group_of(81, 1000), 1);
        assert_eq!(b.group_of(80, 1000), 2);
        assert_eq!(b.group_of(21, 1000), 2);
        assert_eq!(b.group_of(20, 1000), 3);
        assert_eq!(b.group_of(11, 1000), 3);
        assert_eq!(b.group_of(10, 1000), 4);
        assert_eq!(b.group_of(1001, 1_000_000), 4);
        assert_eq!(b.group_of(1000, 1_000_000), 5);
        assert_eq!(b.group_of(0, 1000), 5);
        assert_eq!(b.group_of(1000, 1000), 1);
    }

    #[test]
    fn users_are_grouped_by_their_whole_consumption() {
        // Consumption (procs x run time): user 1 900, user 2 80 (8%
        // exactly: group 2), user 3 15 (1.5%: group 3), user 4 5 (0.5%:
        // group 4). Total 1000.
        let jobs = vec![
            job(1, 1, 10, 50),
            job(2, 2, 8, 10),
            job(3, 1, 4, 100),
            job(4, 3, 3, 5),
            job(5, 4, 1, 5),
        ];
        let w = Workload::new("t", 16, SwfHeader::default(), jobs);
        let shares = user_shares(&w, &Bands::paper());
        let got: Vec<(i64, u128, u8)> = shares
            .iter()
            .map(|s| (s.user, s.consumption, s.group))
            .collect();
        assert_eq!(got, vec![(1, 900, 1), (2, 80, 2), (3, 15, 3), (4, 5, 4)]);
        let w = assign(&w, &Bands::paper());
        let groups: Vec<u8> = w.jobs.iter().map(|j| j.user_group).collect();
        assert_eq!(groups, vec![1, 2, 1, 3, 4]);
    }

    #[test]
    fn bounds_are_checked_and_printed() {
        assert_eq!(Bands::paper().to_string(), "8% 2% 1% 0.1%");
        assert_eq!(percent(125), "0.0125%");
        assert_eq!(Bands::new(vec![]), Err(BandsError::Empty));
        assert_eq!(
            Bands::new(vec![20_000, 80_000]),
            Err(BandsError::NotDecreasing("8%".into(), "2%".into()))
        );
        assert_eq!(
            Bands::new(vec![PPM]),
            Err(BandsError::OutOfRange("100%".into()))
        );
        assert_eq!(Bands::new(vec![500_000]).unwrap().groups(), 2);
    }
}
