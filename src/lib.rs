//! toyc: the compiler for Toy. See ARCHITECTURE.md for a map of the code.
//!
//! The pipeline, one module per stage:
//! `syntax` (chumsky parser → AST) → `sema` (names, types → typed HIR) →
//! `ssa` (Braun et al. construction → `ir::IrCode`) → passes → `codegen`
//! (Cranelift JIT) → `runtime` (the `extern "C"` support library).
//! `fuzz` (the differential fuzzer) runs the `toyc` binary as a subprocess
//! and uses no other module.

pub mod bril;
pub mod bril_out;
pub mod codegen;
pub mod diag;
pub mod driver;
pub mod explore;
pub mod fuzz;
pub mod interp;
pub mod ir;
pub mod memssa;
pub mod opt;
pub mod par;
pub mod rtfns;
pub mod runtime;
pub mod sema;
pub mod span;
pub mod ssa;
pub mod syntax;
pub mod timing;
pub mod type_tags;
pub mod types;
