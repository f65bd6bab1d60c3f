//! How a moldable job's run time depends on its width: Downey's model of
//! speedup ("A model for speedup of parallel programs", 1997), as the MOLD
//! paper uses it (Sabin, Lang and Sadayappan, section 3.2).
//!
//! Two parameters describe a job: `A`, its average parallelism (the most
//! speedup it can reach), and `sigma`, how far its parallelism varies
//! (0: linear speedup up to `A`; larger: further from linear; 0 to 2 is
//! typical). With `L` the run time on one processor, the run time on `n` is
//! `L / S(n)`. Traces record one width `w` and one run time `T` per job, so
//! `L = T * S(w)` and the run time on `n` is `T * S(w) / S(n)`; the user's
//! estimate scales the same way.

use crate::workload::Time;
use serde::Serialize;

/// A duration measured on one width, to be taken on others (see
/// [`Downey::scaling`]).
#[derive(Debug, Clone, Copy)]
pub struct Scaling {
    model: Downey,
    t: Time,
    width: u32,
    /// `t * S(width)`.
    work: f64,
}

impl Scaling {
    /// The duration on `n` processors: [`Downey::scale`].
    pub fn on(&self, n: u32) -> Time {
        if n == self.width {
            return self.t;
        }
        // Times are at most MAX_TIME (2^53 - 1), exact as f64; a job moved
        // to fewer processors can grow past it only by the speedup ratio,
        // which the cast saturates.
        ceil_time(self.work / self.model.speedup(n)).max(1)
    }
}

/// `x.ceil() as Time` (saturating, NaN to 0) without the call to the C
/// library's `ceil` that the baseline x86-64 target makes: the widths of a
/// moldable job are tried by the hundred at every epoch.
#[inline]
fn ceil_time(x: f64) -> Time {
    let t = x as Time;
    // Below 2^52 a fraction truncates toward zero, up for a negative `x`
    // (its ceiling) and down for a positive one; from 2^52 on floats are
    // integers.
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Downey's speedup model of one job.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Downey {
    /// Average parallelism, at least 1.
    pub a: f64,
    /// Variance in parallelism, at least 0.
    pub sigma: f64,
}

impl Downey {
    /// A model with `a >= 1` and `sigma >= 0`, both finite.
    pub fn new(a: f64, sigma: f64) -> Result<Self, String> {
        if !(a.is_finite() && a >= 1.0) {
            return Err(format!("average parallelism A must be at least 1, not {a}"));
        }
        if !(sigma.is_finite() && sigma >= 0.0) {
            return Err(format!("sigma must be at least 0, not {sigma}"));
        }
        Ok(Downey { a, sigma })
    }

    /// Speedup on `n` processors (`n >= 1`): the paper's two regimes, low
    /// variance (sigma <= 1) and high (sigma >= 1), which agree at 1.
    pub fn speedup(&self, n: u32) -> f64 {
        let (a, s, n) = (self.a, self.sigma, f64::from(n.max(1)));
        if s <= 1.0 {
            if n <= a {
                a * n / (a + s * (n - 1.0) / 2.0)
            } else if n <= 2.0 * a - 1.0 {
                a * n / (s * (a - 0.5) + n * (1.0 - s / 2.0))
            } else {
                a
            }
        } else if n <= a + a * s - s {
            n * a * (s + 1.0) / (s * (n + a - 1.0) + a)
        } else {
            a
        }
    }

    /// Efficiency on `n` processors: speedup per processor.
    pub fn efficiency(&self, n: u32) -> f64 {
        self.speedup(n) / f64::from(n.max(1))
    }

    /// The widest partition a job may get: its average parallelism, whole
    /// (and at least 1); wider adds little or nothing.
    pub fn widest(&self) -> u32 {
        // `a` is at least 1; beyond u32 the machine is the bound anyway.
        self.a.floor().min(f64::from(u32::MAX)) as u32
    }

    /// A duration measured on `width` processors (a run time or an
    /// estimate), taken on `n` instead: `t * S(width) / S(n)`, rounded up
    /// to whole seconds and never below 1 (every job takes some time).
    pub fn scale(&self, t: Time, width: u32, n: u32) -> Time {
        self.scaling(t, width).on(n)
    }

    /// [`Downey::scale`] of one duration to many widths: what does not
    /// depend on the width is computed once.
    pub fn scaling(&self, t: Time, width: u32) -> Scaling {
        Scaling {
            model: *self,
            t,
            width,
            work: t as f64 * self.speedup(width),
        }
    }

    /// The work of a job that ran `t` on `width` processors, in
    /// processor-seconds at perfect efficiency: its time on one processor,
    /// `t * S(width)`. The MOLD paper's effective load sums these.
    pub fn work(&self, t: Time, width: u32) -> f64 {
        t as f64 * self.speedup(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn ceil_time_is_the_ceiling_cast() {
        let edge = [
            0.0,
            -0.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            -0.5,
            -1.5,
            2.5,
            4503599627370495.5,
            4503599627370497.0,
            9007199254740993.0,
            9.3e18,
            -9.3e18,
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-300,
            -1e-300,
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let random = (0..100_000).map(|_| {
            let x: f64 = rand::Rng::gen(&mut rng);
            (x - 0.5) * 10f64.powi(rand::Rng::gen_range(&mut rng, 0..20))
        });
        for x in edge.into_iter().chain(random) {
            assert_eq!(ceil_time(x), x.ceil() as Time, "{x}");
        }
    }

    #[test]
    fn linear_up_to_a_when_sigma_is_zero() {
        let m = Downey::new(8.0, 0.0).unwrap();
        for n in 1..=8 {
            assert!(close(m.speedup(n), f64::from(n)), "n = {n}");
        }
        // A <= n <= 2A - 1: A n / n = A; beyond: A.
        assert!(close(m.speedup(12), 8.0));
        assert!(close(m.speedup(100), 8.0));
    }

    #[test]
    fn sigma_one_by_hand() {
        // S(n) = 2 A n / (2 A + n - 1) for n <= A, A = 8:
        // n = 4: 64 / 19; n = 8: 128 / 23.
        let m = Downey::new(8.0, 1.0).unwrap();
        assert!(close(m.speedup(1), 1.0));
        assert!(close(m.speedup(4), 64.0 / 19.0));
        assert!(close(m.speedup(8), 128.0 / 23.0));
        // Between A and 2A - 1 = 15: A n / ((A - 1/2) + n / 2), n = 12:
        // 96 / 13.5.
        assert!(close(m.speedup(12), 96.0 / 13.5));
        // The high-variance formula at sigma 1 gives the same values, and
        // reaches A at A + A - 1 = 15.
        let high = |n: f64| n * 8.0 * 2.0 / ((n + 8.0 - 1.0) + 8.0);
        assert!(close(m.speedup(4), high(4.0)));
        assert!(close(m.speedup(15), 8.0));
        assert!(close(m.speedup(16), 8.0));
    }

    #[test]
    fn sigma_two_by_hand() {
        // S(n) = 3 A n / (2 (n + A - 1) + A) up to A + 2A - 2 = 22, A = 8:
        // n = 2: 48 / 26; n = 8: 192 / 38; n = 22: 528 / 66 = 8.
        let m = Downey::new(8.0, 2.0).unwrap();
        assert!(close(m.speedup(1), 1.0));
        assert!(close(m.speedup(2), 48.0 / 26.0));
        assert!(close(m.speedup(8), 192.0 / 38.0));
        assert!(close(m.speedup(22), 8.0));
        assert!(close(m.speedup(40), 8.0));
    }

    #[test]
    fn speedup_never_falls_with_width_nor_passes_a() {
        for a in [1.0, 1.5, 7.0, 64.0, 430.0] {
            for sigma in [0.0, 0.3, 1.0, 1.7, 2.0] {
                let m = Downey::new(a, sigma).unwrap();
                let mut before = 0.0;
                for n in 1..=1000 {
                    let s = m.speedup(n);
                    assert!(
                        s >= before - 1e-12 && s <= a + 1e-9,
                        "A {a} sigma {sigma} n {n}: {s}"
                    );
                    before = s;
                }
            }
        }
    }

    #[test]
    fn times_scale_by_the_ratio_of_speedups() {
        // Linear to 8: 1000 s on 4 processors is 500 s on 8, 4000 s on 1.
        let m = Downey::new(8.0, 0.0).unwrap();
        assert_eq!(m.scale(1000, 4, 8), 500);
        assert_eq!(m.scale(1000, 4, 1), 4000);
        assert_eq!(m.scale(1000, 4, 4), 1000);
        // Rounded up, never below a second.
        assert_eq!(m.scale(1001, 4, 8), 501);
        assert_eq!(m.scale(1, 1, 8), 1);
        // The paper's example: 1000 s on 5 processors at 50% efficiency is
        // 2500 processor-seconds of work.
        let half = Downey::new(5.0, 2.0).unwrap();
        let e = half.efficiency(5);
        assert!(close(half.work(1000, 5), 1000.0 * 5.0 * e));
        assert!(close(Downey::new(9.0, 0.0).unwrap().work(1000, 5), 5000.0));
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Downey::new(0.5, 1.0).is_err());
        assert!(Downey::new(f64::NAN, 1.0).is_err());
        assert!(Downey::new(4.0, -0.1).is_err());
        assert!(Downey::new(4.0, f64::INFINITY).is_err());
        assert_eq!(Downey::new(4.7, 1.0).unwrap().widest(), 4);
        // Whole parallelisms stay whole, and past u32 the bound is u32.
        for (a, widest) in [
            (1.0, 1),
            (1.999, 1),
            (338.0, 338),
            (4294967295.5, u32::MAX),
            (1e30, u32::MAX),
        ] {
            assert_eq!(Downey::new(a, 0.5).unwrap().widest(), widest, "A {a}");
        }
    }
}
