//! The command line.
mod asm;
mod cli;
mod repl;
mod warnings;
