//! The command line.
mod asm;
mod bril;
mod cli;
mod repl;
mod threads;
mod warnings;
