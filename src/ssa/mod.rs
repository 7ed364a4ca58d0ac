//! SSA construction straight from the typed HIR (Braun et al. 2013).
use crate::sema::hir::Program;
use std::sync::Arc;

/// Builds the IR of every function of `program` (same indices as
/// `program.functions`).
pub fn build_module(program: Arc<Program>) -> crate::ir::Module {
    let _ = program;
    todo!("ssa::build_module: being written")
}
