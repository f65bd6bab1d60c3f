//! Who submits each job; see "Users" in the parent module.

use super::USER_REPEAT;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// One user (1..=`count`) per job of the given sizes.
pub(super) fn assign(sizes: &[u32], count: u32, rng: &mut ChaCha8Rng) -> Vec<i64> {
    let activity = Activity::zipf(count);
    let mut latest: HashMap<u32, i64> = HashMap::new();
    sizes
        .iter()
        .map(|&size| {
            // Both numbers are drawn for every job, used or not, so job
            // i always reads draws 2i and 2i + 1 of the stream.
            let repeat: f64 = rng.gen();
            let fresh: f64 = rng.gen();
            let user = match latest.get(&size) {
                Some(&u) if repeat < USER_REPEAT => u,
                _ => activity.user_at(fresh),
            };
            latest.insert(size, user);
            user
        })
        .collect()
}

/// Users' activity: user k (1-based) submits a share proportional to
/// 1/k of the fresh draws.
pub(super) struct Activity {
    /// cumulative[k - 1]: the weights of users 1..=k.
    cumulative: Vec<f64>,
}

impl Activity {
    pub(super) fn zipf(count: u32) -> Self {
        // 1/k is one IEEE division and the sum runs in a fixed order:
        // the same bits everywhere, no math library involved.
        let mut total = 0.0;
        let cumulative = (1..=count)
            .map(|k| {
                total += 1.0 / f64::from(k);
                total
            })
            .collect();
        Activity { cumulative }
    }

    /// Share of fresh draws that go to user `k`.
    #[cfg(test)]
    pub(super) fn share(&self, k: u32) -> f64 {
        let total = self.cumulative[self.cumulative.len() - 1];
        1.0 / f64::from(k) / total
    }

    /// The user whose slice of [0, 1) holds `u` (inverse CDF).
    pub(super) fn user_at(&self, u: f64) -> i64 {
        let total = self.cumulative[self.cumulative.len() - 1];
        let x = u * total;
        let k = self.cumulative.partition_point(|&c| c <= x);
        // u < 1 keeps x below the total; the min guards rounding.
        k.min(self.cumulative.len() - 1) as i64 + 1
    }
}
