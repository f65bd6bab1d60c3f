//! The system allocator, asking Linux for transparent huge pages on large
//! blocks.
//!
//! A whole-trace run is short, and a third of it went to the kernel filling
//! in the 4 KiB pages of the few large vectors (jobs, schedule, measures)
//! one fault at a time. Where THP is enabled only on request (`madvise`, the
//! common default), advising those blocks lets one fault map 2 MiB: KTH-SP2
//! under EASY from 4,300 faults to about 1,800. Advice is only advice: if
//! the kernel refuses, pages come in as before, and no data depends on it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Blocks at least this large are advised: smaller ones cannot hold a
/// whole aligned huge page, or hardly.
const ADVISE_FROM: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePages;

/// The program break last seen, so heap growth is advised once.
static HEAP_TOP: AtomicUsize = AtomicUsize::new(0);

/// Keeps freed memory for reuse: blocks up to 32 MiB (glibc's largest
/// threshold) come from the heap instead of their own mapping, and the heap
/// is never trimmed, so a block freed after reading is filled again by the
/// simulation without a fault per page. The heap grows 64 MiB at a time
/// (address space only: pages come in when touched), each growth advised
/// for huge pages. Threads other than the main one keep glibc's own arenas,
/// so the parallel runs of `bench` do not share one lock.
#[cfg(target_env = "gnu")]
pub fn tune() {
    // SAFETY: mallopt only changes glibc's allocation parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        HEAP_TOP.store(libc::sbrk(0) as usize, Ordering::Relaxed);
    }
    // Grows the heap now, by the pad, so one advice covers what a run uses.
    drop(Vec::<u8>::with_capacity(1 << 20));
}

/// Advises the heap grown since the last call.
fn advise_heap_growth() {
    let seen = HEAP_TOP.load(Ordering::Relaxed);
    if seen == 0 {
        return;
    }
    // SAFETY: sbrk(0) only reads the current break.
    let top = unsafe { libc::sbrk(0) } as usize;
    if top > seen
        && HEAP_TOP
            .compare_exchange(seen, top, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        let start = seen.next_multiple_of(4096);
        let end = top / 4096 * 4096;
        if end > start {
            // SAFETY: [start, end) lies inside the heap glibc just grew;
            // MADV_HUGEPAGE changes no contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

impl HugePages {
    /// Advises the aligned 2 MiB pages inside `[ptr, ptr + len)`.
    fn advise(ptr: *mut u8, len: usize) {
        if ptr.is_null() || len < ADVISE_FROM {
            return;
        }
        let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
        let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: the range lies inside a block just handed out by the
            // system allocator; MADV_HUGEPAGE changes no contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

// SAFETY: every call is passed to `System` unchanged; `advise` only adds
// advice on memory `System` returned.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc(layout);
        advise_heap_growth();
        Self::advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        advise_heap_growth();
        Self::advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let ptr = System.realloc(ptr, layout, new_size);
        advise_heap_growth();
        Self::advise(ptr, new_size);
        ptr
    }
}
