//! When a policy keeps something that pays only on a long queue.

/// Queue lengths at which a policy starts and stops keeping something that
/// costs every arrival and start and pays only on a long queue (a queue in
/// order, width classes, a second order): apart, so that a queue near one
/// length does not make and drop it at every epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LongQueue {
    /// Kept once this many jobs wait...
    pub from: usize,
    /// ...until fewer than this many do.
    pub below: usize,
}

impl LongQueue {
    /// For backfilling's kept queues: below 512 waiting jobs, keeping them
    /// cost more than it saved on the shared traces (see docs/performance.md). Small
    /// for unit tests, which then take every path.
    pub const BACKFILL: LongQueue = if cfg!(test) {
        LongQueue { from: 8, below: 4 }
    } else {
        LongQueue {
            from: 512,
            below: 128,
        }
    };

    /// Whether to keep it while `len` jobs wait, `kept` telling whether it
    /// is kept now.
    pub fn keeps(self, kept: bool, len: usize) -> bool {
        len >= if kept { self.below } else { self.from }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_between_the_two_lengths_only_once_made() {
        let q = LongQueue {
            from: 512,
            below: 128,
        };
        assert!(!q.keeps(false, 511) && q.keeps(false, 512));
        assert!(q.keeps(true, 128) && !q.keeps(true, 127));
        assert!(q.keeps(true, 300) && !q.keeps(false, 300));
    }
}
