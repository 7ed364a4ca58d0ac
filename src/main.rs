//! The `toyc` command line. All work happens in `toyc::driver`.

/// The compiler allocates many small, short-lived objects (IR vectors,
/// maps, Cranelift's per-function data); mimalloc serves them in fewer
/// instructions than glibc's malloc. The collector takes its chunks from
/// the same allocator (`std::alloc`) and manages the objects in them itself.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = toyc::driver::cli::Cli::from_env();
    let code = toyc::driver::main_with_big_stack(cli);
    std::process::exit(code);
}
