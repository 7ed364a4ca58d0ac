//! The `toyc` command line. All work happens in `toyc::driver`.

/// The compiler allocates many small, short-lived objects (IR vectors,
/// maps, Cranelift's per-function data); mimalloc serves them in fewer
/// instructions than glibc's malloc. The collector takes its chunks from
/// the same allocator (`std::alloc`) and manages the objects in them itself.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // mimalloc asks for transparent huge pages, and the kernel then zeroes
    // 2 MiB at the first touch of each: for a compilation of a few
    // milliseconds that was most of its system time (`perf record`: 12% of
    // all samples in `clear_page_erms`), while the process's memory is
    // small. Without them every page is a 4 KiB one, as with glibc's malloc.
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process; its
    // other arguments must be zero.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    let cli = toyc::driver::cli::Cli::from_env();
    let code = toyc::driver::main_with_big_stack(cli);
    std::process::exit(code);
}
