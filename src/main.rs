//! The `toyc` command line. All work happens in `toyc::driver`.

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

fn main() {
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process; its
    // other arguments must be zero.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    let code = toyc::driver::main_with_big_stack(toyc::driver::cli::Cli::from_env);
    std::process::exit(code);
}
