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

/// `f` over `items`, in parallel when there are two or more; results in
/// the items' order, every item done.
pub(crate) fn map<T, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    if items.len() < 2 {
        items.iter().map(f).collect()
    } else {
        items.par_iter().map(f).collect()
    }
}

/// Cores one simulation may spread over: all of them (or `GOALC_CORES`,
/// when set to a number) when it is the only work, one when it is one of
/// several runs already spread over the thread pool.
pub(crate) fn cores_for_one_run() -> usize {
    if rayon::current_thread_index().is_some() {
        return 1;
    }
    let all = machine_cores();
    cores_setting().map_or(all, |n| n.min(all))
}

/// The cores this process may use, asked once: the standard library reads
/// the cgroup's quota files at every call, and a run asks before reading
/// its trace and again before simulating it.
fn machine_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `GOALC_CORES` when it is a whole number of at least 1; anything else
/// counts as unset (the command line warns of it).
pub fn cores_setting() -> Option<usize> {
    std::env::var("GOALC_CORES")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n >= 1)
}
