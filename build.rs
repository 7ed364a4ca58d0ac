//! Link-time settings of the `toyc` binaries.
//!
//! On Linux with glibc the executables are linked statically:
//! `.cargo/config.toml` makes `.cargo/link-static` the linker, and the
//! marker below tells it which link lines are toyc's executables (build
//! scripts, proc macros and test executables are linked as rustc asks).
//! - A dynamically linked toyc spends its first millisecond in the dynamic
//!   loader: opening and mapping libc, libm and libgcc_s, then binding
//!   their symbols. Linked statically, `toyc run` of a one-line Bril program
//!   took 3.0 ms of CPU instead of 4.0 ms (medians of 100 interleaved runs),
//!   `core/ackermann` 4.1 ms instead of 5.5 ms.
//! - The executable is position-dependent (`-no-pie`): linked as a PIE,
//!   `toyc` carried about 100,000 relative relocations that were applied
//!   at every start (1.3 million instructions). The JIT's code and the heap
//!   are still placed at random addresses.
//! - Nothing in toyc resolves symbols at run time: the JIT looks up the
//!   runtime's functions and Cranelift's libcalls in its own table
//!   (`codegen::jit_module`), not with `dlsym`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
        // An absolute symbol nothing refers to: harmless to any linker, and
        // the sign `.cargo/link-static` looks for.
        println!("cargo:rustc-link-arg-bins=-Wl,--defsym=toyc_link_static=1");
    }
}
