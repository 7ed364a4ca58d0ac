//! The command line.
mod asm;
pub(crate) mod bril;
mod cli;
mod repl;
mod threads;
mod warnings;
