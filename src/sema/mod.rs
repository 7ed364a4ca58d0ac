//! Names and types: AST modules → the typed [`hir::Program`].
pub mod hir;

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap};

/// Parses the main file `main` (already in `sources`), loads its imports
/// (adding them to `sources`), resolves names and checks types. Returns
/// every error found, in source order per file.
pub fn analyze(sources: &mut SourceMap, main: FileId) -> Result<hir::Program, Vec<Diagnostic>> {
    let _ = (sources, main);
    todo!("sema::analyze: being written")
}
