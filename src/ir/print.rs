//! The Julia-style IR printer.
use crate::span::SourceMap;

/// Prints every function (or only the one named `only`).
pub fn print_module(module: &crate::ir::Module, sources: &SourceMap, only: Option<&str>) -> String {
    let _ = (module, sources, only);
    todo!("ir::print::print_module: being written")
}
