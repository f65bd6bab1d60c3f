//! GREEDY's sort criteria f1..f4 (section III-A), exactly as printed:
//!
//! ```text
//! f1(j,t) = w_i (K_i + a (t - r_j) / p_j      + b p_j / m_j)
//! f2(j,t) = w_i (K_i + a (t - r_j)            + b p_j m_j)
//! f3(j,t) = w_i (K_i + a (t - r_j) / (p_j m_j))
//! f4(j,t) = w_i (K_i + a (t - r_j)            + b p_j / m_j)
//! ```
//!
//! for job j of user group i, at time t, with r_j its submit time, p_j its
//! estimated run time (the paper's p̄_j: the scheduler never knows the real
//! one) and m_j its processors. The job with the largest value goes first.
//! Times are in seconds. f3 has no b. The paper's text says f2 "does not
//! require parameter w_i", but its printed f2 has w_i, which is what is
//! implemented (the issue asks for the criteria as printed); a trained w_i
//! of f2 simply scales the group's value.

use serde::Serialize;
use std::fmt;

/// Which of the four criteria.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    F1,
    F2,
    F3,
    F4,
}

impl Family {
    pub const ALL: [Family; 4] = [Family::F1, Family::F2, Family::F3, Family::F4];
    pub const NAMES: [&'static str; 4] = ["f1", "f2", "f3", "f4"];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Self::NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Self::ALL[i])
    }

    /// Whether the criterion has parameter b (all but f3).
    pub fn has_b(self) -> bool {
        self != Family::F3
    }

    /// The formula, for descriptions.
    pub fn formula(self) -> &'static str {
        match self {
            Family::F1 => "w_i * (K_i + a * wait / estimate + b * estimate / width)",
            Family::F2 => "w_i * (K_i + a * wait + b * estimate * width)",
            Family::F3 => "w_i * (K_i + a * wait / (estimate * width))",
            Family::F4 => "w_i * (K_i + a * wait + b * estimate / width)",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The paper's training box: w, a and b in [0, 1], K in [0, 5].
pub const W_RANGE: (f64, f64) = (0.0, 1.0);
pub const A_RANGE: (f64, f64) = (0.0, 1.0);
pub const B_RANGE: (f64, f64) = (0.0, 1.0);
pub const K_RANGE: (f64, f64) = (0.0, 5.0);

/// A job's criterion value as a function of its wait (see
/// [`Criterion::line`]). Both parts are finite and at least 0 for
/// parameters in the box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub constant: f64,
    /// Value gained per second of wait.
    pub slope: f64,
}

impl Line {
    /// The value after `wait` seconds.
    #[inline]
    pub fn at(self, wait: f64) -> f64 {
        self.constant + self.slope * wait
    }
}

/// One criterion with its parameters, for `w.len()` user groups.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Criterion {
    pub family: Family,
    pub a: f64,
    /// 0 for f3, which has none.
    pub b: f64,
    /// Per user group, group 1 first.
    pub w: Vec<f64>,
    pub k: Vec<f64>,
}

impl Criterion {
    /// The criterion's value for a job of user group `group` (1-based)
    /// that has waited `wait` seconds, with estimate `estimate` (at least
    /// 1) and `width` processors: [`Criterion::line`] at `wait`.
    #[inline]
    pub fn value(&self, group: u8, wait: f64, estimate: f64, width: f64) -> f64 {
        self.line(group, estimate, width).at(wait)
    }

    /// A job's value as a line in its wait: every criterion is
    /// `w_i K_i + w_i b g(job) + w_i a h(job) wait`, with `g` and `h` fixed
    /// for the job, so it is `constant + slope * wait`. The scheduler
    /// computes the line once per job and situation.
    #[inline]
    pub fn line(&self, group: u8, estimate: f64, width: f64) -> Line {
        let i = usize::from(group.max(1) - 1).min(self.w.len() - 1);
        let (w, k) = (self.w[i], self.k[i]);
        let (fixed, per_wait) = match self.family {
            Family::F1 => (self.b * estimate / width, self.a / estimate),
            Family::F2 => (self.b * estimate * width, self.a),
            Family::F3 => (0.0, self.a / (estimate * width)),
            Family::F4 => (self.b * estimate / width, self.a),
        };
        Line {
            constant: w * (k + fixed),
            slope: w * per_wait,
        }
    }

    /// Its parameters as one vector: a, b (not for f3), then w and K per
    /// group. The order training uses.
    pub fn to_vector(&self) -> Vec<f64> {
        let mut v = vec![self.a];
        if self.family.has_b() {
            v.push(self.b);
        }
        v.extend(&self.w);
        v.extend(&self.k);
        v
    }

    /// How many parameters a criterion of `family` has for `groups` groups.
    pub fn dimension(family: Family, groups: usize) -> usize {
        1 + usize::from(family.has_b()) + 2 * groups
    }

    /// The bounds of [`Criterion::to_vector`]'s entries.
    pub fn bounds(family: Family, groups: usize) -> Vec<(f64, f64)> {
        let mut v = vec![A_RANGE];
        if family.has_b() {
            v.push(B_RANGE);
        }
        v.extend(std::iter::repeat_n(W_RANGE, groups));
        v.extend(std::iter::repeat_n(K_RANGE, groups));
        v
    }

    /// The inverse of [`Criterion::to_vector`].
    pub fn from_vector(family: Family, groups: usize, v: &[f64]) -> Criterion {
        debug_assert_eq!(v.len(), Self::dimension(family, groups));
        let mut it = v.iter().copied();
        let a = it.next().unwrap_or(0.0);
        let b = if family.has_b() {
            it.next().unwrap_or(0.0)
        } else {
            0.0
        };
        let w: Vec<f64> = it.by_ref().take(groups).collect();
        let k: Vec<f64> = it.take(groups).collect();
        Criterion { family, a, b, w, k }
    }
}

impl fmt::Display for Criterion {
    /// As the language writes it: `f2 a 0.5 b 0.1 w 1 0.5 k 2 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        write!(f, "{} a {}", self.family, self.a)?;
        if self.family.has_b() {
            write!(f, " b {}", self.b)?;
        }
        write!(f, " w {} k {}", list(&self.w), list(&self.k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crit(family: Family) -> Criterion {
        Criterion {
            family,
            a: 0.5,
            b: 0.25,
            w: vec![1.0, 0.5],
            k: vec![2.0, 4.0],
        }
    }

    #[test]
    fn each_criterion_as_printed() {
        // A group-2 job (w 0.5, K 4) that waited 600 s, estimate 300 s, 4 wide.
        let v = |f| crit(f).value(2, 600.0, 300.0, 4.0);
        // f1 = 0.5 (4 + 0.5*600/300 + 0.25*300/4) = 0.5 (4 + 1 + 18.75)
        assert_eq!(v(Family::F1), 0.5 * 23.75);
        // f2 = 0.5 (4 + 0.5*600 + 0.25*300*4) = 0.5 (4 + 300 + 300)
        assert_eq!(v(Family::F2), 0.5 * 604.0);
        // f3 = 0.5 (4 + 0.5*600/(300*4)) = 0.5 (4 + 0.25)
        assert_eq!(v(Family::F3), 0.5 * 4.25);
        // f4 = 0.5 (4 + 0.5*600 + 0.25*300/4) = 0.5 (4 + 300 + 18.75)
        assert_eq!(v(Family::F4), 0.5 * 322.75);
        // Group 1: w 1, K 2; f4 = 2 + 300 + 18.75
        assert_eq!(crit(Family::F4).value(1, 600.0, 300.0, 4.0), 320.75);
    }

    #[test]
    fn vectors_round_trip_and_f3_has_no_b() {
        for f in Family::ALL {
            let c = Criterion {
                b: if f.has_b() { 0.25 } else { 0.0 },
                ..crit(f)
            };
            let v = c.to_vector();
            assert_eq!(v.len(), Criterion::dimension(f, 2));
            assert_eq!(Criterion::bounds(f, 2).len(), v.len());
            assert_eq!(Criterion::from_vector(f, 2, &v), c);
        }
        assert_eq!(Criterion::dimension(Family::F3, 5), 11);
        assert_eq!(Criterion::dimension(Family::F2, 5), 12);
        assert_eq!(
            crit(Family::F2).to_string(),
            "f2 a 0.5 b 0.25 w 1 0.5 k 2 4"
        );
    }
}
