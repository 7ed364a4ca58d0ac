//! Command-line definitions (clap derive).
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "toyc", version, about = "The Toy compiler: parse, check, build SSA, optimize, JIT-compile and run Toy programs")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse and type-check a program; print every error found.
    Check {
        /// The `.toy` file to check.
        file: PathBuf,
    },
}
