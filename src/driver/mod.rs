//! Glue between the stages: reading files, running the pipeline on a thread
//! with a large stack, rendering diagnostics, and exit codes.
//!
//! Exit codes (LANGUAGE.md): 0 success, 1 compile error, 2 bad command line
//! (clap), 101 uncaught runtime error.

pub mod cli;

use crate::diag::{self, Diagnostic};
use crate::span::{FileId, SourceMap};
use cli::{Cli, Command};
use std::path::Path;

/// Stack size for the compiler thread. Deeply nested input (10,000 nested
/// parentheses) recurses in the parser and type checker; this bounds it
/// together with the parser's nesting limit.
pub const COMPILER_STACK: usize = 1 << 30;

/// Runs `cli` on a thread with a large stack and returns the exit code.
pub fn main_with_big_stack(cli: Cli) -> i32 {
    let handle = std::thread::Builder::new()
        .name("toyc".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || run_cli(cli))
        .expect("cannot spawn the compiler thread");
    match handle.join() {
        Ok(code) => code,
        Err(_) => {
            eprintln!("error: internal compiler error (a panic); please report this program");
            70
        }
    }
}

fn run_cli(cli: Cli) -> i32 {
    match cli.command {
        Command::Check { file } => {
            let mut sources = SourceMap::new();
            match check_file(&file, &mut sources) {
                Ok(_) => 0,
                Err(diags) => report(&sources, &diags),
            }
        }
    }
}

/// Prints diagnostics to stderr and returns exit code 1.
pub fn report(sources: &SourceMap, diags: &[Diagnostic]) -> i32 {
    eprint!("{}", diag::render(sources, diags, diag::use_colour()));
    1
}

/// Reads the main file into `sources`. A file that cannot be read or is not
/// UTF-8 is an error with the reason; invalid UTF-8 names the byte offset.
pub fn load_main_file(path: &Path, sources: &mut SourceMap) -> Result<FileId, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{}`: {}", path.display(), e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!("`{}` is not valid UTF-8 (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
    })?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    Ok(sources.add(path.display().to_string(), Some(canonical), text))
}

/// Parses and type-checks the program rooted at `path`.
pub fn check_file(path: &Path, sources: &mut SourceMap) -> Result<crate::sema::hir::Program, Vec<Diagnostic>> {
    let main = match load_main_file(path, sources) {
        Ok(id) => id,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Err(Vec::new());
        }
    };
    crate::sema::analyze(sources, main)
}
