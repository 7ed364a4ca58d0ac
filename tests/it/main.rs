//! Every integration test except the lang-tests, as one test binary (one
//! link and one executable instead of one per file), grouped by the stage
//! of the pipeline it tests. Test names are `STAGE::FILE::TEST`, e.g.
//! `cargo test --test it opt::licm_checks::`.
//!
//! The lang-tests (`tests/lang_tests/`) stay a binary of their own: they
//! use their own harness (libtest-mimic), one trial per file and mode.

mod memssa_support;
mod ssa_support;

mod bril_out;
mod codegen;
mod driver;
mod explore;
mod filetests;
mod fuzz;
mod fuzz_lib;
mod gc;
mod interp;
mod ir;
mod layering;
mod memssa;
mod opt;
mod rtfns;
mod ssa;
mod syntax;
