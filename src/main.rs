//! The `toyc` command line. All work happens in `toyc::driver`.
//!
//! toyc has its own C `main` instead of Rust's start-up (`#![no_main]`).
//! Rust's start-up finds the main thread's stack bounds, for which glibc
//! reads and parses `/proc/self/maps`, and installs its stack-overflow
//! handler: about 0.3 ms and 18 page faults of a 2 ms `toyc run` (one-line
//! Bril program, 150 interleaved runs, 2026-11-27). toyc's main thread only
//! starts the compiler's thread. What the start-up did that toyc needs,
//! `main` does: it ignores `SIGPIPE` (so that writing to a closed pipe is
//! an error the output code sees, not the end of the process). A stack
//! overflow in the compiler's thread, which input limits bound (the
//! parser's nesting limit), would end the process with `SIGSEGV` instead
//! of Rust's message; a Toy program's own overflow is checked in its code
//! and reported as a runtime error.
// The test harness of this crate (it has no tests) keeps its own `main`.
#![cfg_attr(not(test), no_main)]

/// The compiler allocates many small, short-lived objects (IR vectors,
/// maps, Cranelift's per-function data); mimalloc serves them in fewer
/// instructions than glibc's malloc. The collector takes its chunks from
/// the same allocator (`std::alloc`) and manages the objects in them itself.
///
/// Every page toyc touches is a 4 KiB one. A transparent huge page costs
/// the kernel 2 MiB of zeroing at its first touch, most of it memory that
/// a run of a few milliseconds never uses. mimalloc is built with `no_thp`
/// (it would otherwise `madvise(MADV_HUGEPAGE)` its arenas, before `main`
/// runs), and `main` turns huge pages off for the rest of the process,
/// for kernels that use them without being asked.
///
/// Memory a compilation frees is soon needed again: the syntax tree's
/// pages for the IR, one function's Cranelift data for the next
/// function's. mimalloc returns freed pages to the kernel after its purge
/// delay, 10 ms by default, and taking such a page back costs a page fault
/// (a few microseconds in a VM); `main` lengthens the delay
/// (`lengthen_purge_delay`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The process's entry point, called by the C runtime. The arguments are
/// read through `std::env::args_os`, which has them on every Unix.
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    // SAFETY: setting a signal's disposition to `SIG_IGN` has no
    // preconditions; no other thread runs yet.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process; its
    // other arguments must be zero.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    lengthen_purge_delay();
    let code = toyc::driver::main_with_big_stack(toyc::driver::cli::Cli::from_env);
    std::process::exit(code);
}

/// Sets mimalloc's purge delay to 100 ms, unless `MIMALLOC_PURGE_DELAY`
/// chose one: long enough that the memory one stage of a compilation frees
/// is still there for the next (a 100k-line `toyc run`: about 61,000 page
/// faults with mimalloc's 10 ms, 46,000 with 100 ms), short enough that a
/// running program's freed memory goes back to the kernel a tenth of a
/// second later.
#[cfg(not(test))]
fn lengthen_purge_delay() {
    const PURGE_DELAY_MS: libc::c_long = 100;
    // mimalloc's own default, which `MIMALLOC_PURGE_DELAY` unset leaves.
    const MIMALLOC_DEFAULT_MS: libc::c_long = 10;
    // `mi_option_purge_delay` of mimalloc v2's `mimalloc.h`, which
    // libmimalloc-sys does not name: the option between its
    // `mi_option_eager_commit_delay` (14) and `mi_option_use_numa_nodes` (16).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t =
        libmimalloc_sys::mi_option_eager_commit_delay + 1;
    // SAFETY: mimalloc's options may be read and set at any time; it read
    // `MIMALLOC_PURGE_DELAY` when the process was loaded.
    unsafe {
        use libmimalloc_sys::{mi_option_get, mi_option_set};
        if mi_option_get(PURGE_DELAY) == MIMALLOC_DEFAULT_MS {
            mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}
