//! Transparent huge pages, for a process that will touch a lot of memory.
//!
//! `main` turns them off (`PR_SET_THP_DISABLE`): a small program touches a
//! few hundred pages, and zeroing 2 MiB pages for it costs more than the
//! page faults they save. A large source file (a compilation that touches
//! hundreds of megabytes) or a large array turns them on for the rest of the
//! process ([`use_huge_pages`]): mimalloc then advises huge pages on the
//! memory it maps from the system from then on, which takes a fraction of
//! the page faults and of the TLB misses.
//!
//! Invariant: only memory the allocator maps after the switch is affected,
//! and nothing a program computes or prints depends on the page size.

use std::sync::atomic::{AtomicBool, Ordering};

/// A source file at least this large is compiled with huge pages.
pub const LARGE_SOURCE_BYTES: usize = 128 * 1024;

/// An allocation of at least this many bytes (a large array) turns huge
/// pages on before it is made.
pub const LARGE_ALLOCATION_BYTES: usize = 4 << 20;

/// Whether [`use_huge_pages`] ran: a process-wide switch of the operating
/// system and the allocator, not compiler state.
static ON: AtomicBool = AtomicBool::new(false);

/// Lets the process use transparent huge pages from now on (once; later
/// calls do nothing).
pub fn use_huge_pages() {
    if ON.swap(true, Ordering::Relaxed) {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process; its
    // other arguments must be zero.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
    }
    // SAFETY: setting an option of mimalloc is allowed at any time, from
    // any thread; when mimalloc is not the global allocator (tests) it
    // changes nothing that runs.
    unsafe {
        libmimalloc_sys::mi_option_set(libmimalloc_sys::mi_option_large_os_pages, 1);
    }
}

/// Whether huge pages were turned on.
pub fn huge_pages_on() -> bool {
    ON.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Huge pages stay on once on (tests share the process, so only the
    /// switching on is observable here): a source of
    /// [`LARGE_SOURCE_BYTES`] read as the main file turns them on, and the
    /// switch is idempotent.
    #[test]
    fn a_large_main_file_turns_huge_pages_on() {
        let dir = std::env::temp_dir().join(format!("toyc-pages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("large.toy");
        let line = "// a comment line that pads the file to a large size\n";
        let text = line.repeat(LARGE_SOURCE_BYTES / line.len() + 1);
        std::fs::write(&path, &text).expect("write");
        let mut sources = crate::span::SourceMap::new();
        let file = crate::driver::load_main_file(&path, &mut sources).expect("load");
        assert_eq!(sources.get(file).text.len(), text.len());
        assert!(huge_pages_on());
        use_huge_pages();
        assert!(huge_pages_on());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
