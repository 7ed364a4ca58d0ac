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
    let code = toyc::driver::main_with_big_stack(toyc::driver::cli::Cli::from_env);
    std::process::exit(code);
}
