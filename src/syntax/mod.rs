//! Parsing: source text → [`ast::Module`] plus every syntax error found.
pub mod ast;

use crate::diag::Diagnostic;
use crate::span::FileId;

/// Parses one file. Always returns a module (with `Error` nodes where the
/// text did not parse) together with every syntax error found.
pub fn parse(file: FileId, text: &str) -> (ast::Module, Vec<Diagnostic>) {
    let _ = (file, text);
    todo!("syntax::parse: being written")
}
