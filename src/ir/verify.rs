//! The IR verifier.

/// Checks every function; returns every violation found, each naming the
/// function, the statement or block, and the invariant.
pub fn verify_module(module: &crate::ir::Module) -> Result<(), Vec<String>> {
    let _ = module;
    todo!("ir::verify::verify_module: being written")
}
