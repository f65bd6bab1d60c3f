//! Backfilling: jobs later in the queue may start ahead of earlier ones when
//! they do not delay the reservations of those earlier ones.
//!
//! - [`Easy`]: reservations for the first N blocked jobs (N = 1 is EASY, the
//!   aggressive backfilling of the EASY scheduler);
//! - [`Conservative`]: every waiting job holds a reservation, and
//!   reservations only ever move earlier;
//! - [`NoGuarantee`]: no reservations at all; any job that fits starts.
//!
//! On long queues, FCFS EASY and conservative search the queue as a tree
//! ([`WaitingQueue`]) instead of walking it.

mod conservative;
mod easy;
mod fair;
mod free_runs;
mod live;
mod no_guarantee;
mod ranked;
mod running_ends;
mod starving;
mod waiting;

pub use conservative::Conservative;
pub(crate) use easy::backfill_pass;
pub use easy::Easy;
pub(crate) use free_runs::FreeRuns;
pub(crate) use live::LiveProfile;
pub use no_guarantee::NoGuarantee;
pub(crate) use running_ends::RunningEnds;
pub(crate) use starving::StarvingQueues;
pub(crate) use waiting::{JobTest, WaitingQueue};
