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

/// Blocks at least this large are advised: smaller ones cannot hold a
/// whole aligned huge page, or hardly.
const ADVISE_FROM: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

pub struct HugePages;

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
        Self::advise(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = System.alloc_zeroed(layout);
        Self::advise(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let ptr = System.realloc(ptr, layout, new_size);
        Self::advise(ptr, new_size);
        ptr
    }
}
