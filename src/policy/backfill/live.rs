//! The running jobs' profile kept from epoch to epoch.
//!
//! Rebuilding the profile from every running job at every event costs
//! (events x running jobs), a cliff on machines where thousands of jobs run
//! at once. Kept instead, each event costs only its own changes: the past is
//! dropped, a job that ended early gives back the rest of its hold, a job
//! started here takes its hold, and the reservations planned in an epoch are
//! given back at its end.

use crate::sim::{Profile, State};
use crate::workload::Time;

pub(crate) struct LiveProfile {
    profile: Profile,
    /// Holds taken this epoch for reservations, given back by [`Self::end_epoch`].
    planned: Vec<(Time, Time, u32)>,
    /// The instant and epoch of the last sync; `None` before the first.
    synced: Option<(Time, u64)>,
}

impl LiveProfile {
    pub fn new() -> Self {
        LiveProfile {
            profile: Profile::new(1, 0),
            planned: Vec::new(),
            synced: None,
        }
    }

    /// Brings the profile to `state`: from now on, with the holds of the
    /// jobs running now. Call it at every epoch, before anything else, so
    /// that no early finish goes unseen; calls again in the same epoch (an
    /// admission at each arrival, then the epoch) change nothing, so an
    /// early finish is given back once.
    pub fn sync(&mut self, state: &State<'_>) {
        debug_assert!(self.planned.is_empty(), "reservations left from an epoch");
        if self.synced == Some((state.now, state.epoch)) && self.profile.procs() == state.procs {
            return;
        }
        let fresh =
            self.profile.procs() != state.procs || self.synced.is_none_or(|(t, _)| t > state.now);
        if fresh {
            self.profile = Profile::new(state.procs, state.now);
            state.running_profile(&mut self.profile);
        } else {
            self.profile.advance(state.now);
            state.release_early_finishes(&mut self.profile);
        }
        self.synced = Some((state.now, state.epoch));
        #[cfg(debug_assertions)]
        {
            let mut rebuilt = Profile::new(state.procs, state.now);
            state.running_profile(&mut rebuilt);
            debug_assert!(
                self.profile.steps().eq(rebuilt.steps()),
                "kept profile differs from the running jobs at {}",
                state.now
            );
        }
    }

    pub fn profile(&mut self) -> &mut Profile {
        &mut self.profile
    }

    /// Holds `p` over `[t, t + d)` for a job started now: it stays, as the
    /// running job.
    pub fn start(&mut self, t: Time, d: Time, p: u32) {
        self.profile.allocate(t, d, p);
    }

    /// Holds `p` over `[t, t + d)` for a reservation, until the epoch ends.
    pub fn reserve(&mut self, t: Time, d: Time, p: u32) {
        self.profile.allocate(t, d, p);
        self.planned.push((t, d, p));
    }

    /// Gives back this epoch's reservations: the next epoch plans afresh.
    pub fn end_epoch(&mut self) {
        for (t, d, p) in self.planned.drain(..).rev() {
            self.profile.release(t, d, p);
        }
    }
}
