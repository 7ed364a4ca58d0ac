//! The command line.
mod bril;
mod cli;
