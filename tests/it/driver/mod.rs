//! The command line.
mod asm;
mod cli;
