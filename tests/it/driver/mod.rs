//! The command line.
mod cli;
mod bril;
