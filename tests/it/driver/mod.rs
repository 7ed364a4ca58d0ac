//! The command line.
mod cli;
mod warnings;
