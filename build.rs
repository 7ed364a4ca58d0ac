//! Link-time settings of the `toyc` binaries.
//!
//! On Linux with glibc the executables are linked as position-dependent
//! (`-no-pie`). Linked as a PIE, `toyc` carries about 100,000 relative
//! relocations that the dynamic loader applies at every start: 1.3 million
//! instructions, which was 42% of a run of a three-line program (and of
//! every Bril benchmark's fixed cost). A position-dependent executable has
//! them resolved at link time. The libraries it loads (and the JIT's code)
//! are still placed at random addresses; only the executable's own image
//! is at a fixed one. Test executables are not affected.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
