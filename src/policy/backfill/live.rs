//! The running jobs' profile kept from epoch to epoch.
//!
//! Rebuilding the profile from every running job at every event costs
//! (events x running jobs), a cliff on machines where thousands of jobs run
//! at once. Kept instead, each event costs only its own changes: the past is
//! dropped, a job that ended early gives back the rest of its hold, a job
//! started here takes its hold, and the reservations planned in an epoch are
//! given back at its end.

use crate::sim::{Ends, Profile, State};
use crate::workload::Time;

pub(crate) struct LiveProfile {
    profile: Profile,
    /// Holds taken this epoch for reservations, given back by
    /// [`Self::end_epoch`], with where their ends were.
    planned: Vec<(Time, Time, u32, Option<Ends>)>,
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

    /// The profile, to read only.
    pub fn profile_ref(&self) -> &Profile {
        &self.profile
    }

    /// Holds `p` over `[t, t + d)` for a job started now: it stays, as the
    /// running job.
    pub fn start(&mut self, t: Time, d: Time, p: u32) {
        self.start_near(t, d, p, None);
    }

    /// [`Self::start`] with where the hold's ends are, if known (see
    /// [`Profile::earliest_start_near`]).
    pub fn start_near(&mut self, t: Time, d: Time, p: u32, near: Option<Ends>) {
        self.profile.allocate_near(t, d, p, near);
    }

    /// Holds `p` over `[t, t + d)` for a reservation, until the epoch ends.
    pub fn reserve(&mut self, t: Time, d: Time, p: u32) {
        self.reserve_near(t, d, p, None);
    }

    /// [`Self::reserve`] with where the hold's ends are, if known.
    pub fn reserve_near(&mut self, t: Time, d: Time, p: u32, near: Option<Ends>) {
        let ends = self.profile.allocate_near(t, d, p, near);
        self.planned.push((t, d, p, ends));
    }

    /// Gives back this epoch's reservations, last first: the next epoch
    /// plans afresh. Where no job started after a reservation, the steps
    /// are as it left them and its ends are found where they were.
    pub fn end_epoch(&mut self) {
        for (t, d, p, ends) in self.planned.drain(..).rev() {
            self.profile.release_near(t, d, p, ends);
        }
    }
}
