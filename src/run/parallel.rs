//! Independent pieces of work spread over threads, but only when there are
//! several: a single trace under a single policy (the common `goalc
//! simulate`) then runs without starting the thread pool, whose workers
//! would otherwise wake and spin on the cores the trace's inflating thread
//! and the simulation need.

use rayon::prelude::*;

/// `f` over `items`, in parallel when there are two or more; results in
/// the items' order, or the first error in that order.
pub(crate) fn try_map<T, R, E, F>(items: &[T], f: F) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
    F: Fn(&T) -> Result<R, E> + Sync + Send,
{
    if items.len() < 2 {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}
