//! The command line.
mod asm;
pub(crate) mod bril;
pub(crate) mod cli;
mod repl;
mod threads;
mod warnings;
