//! Command-line definitions (clap derive).
use clap::{Args, Parser, Subcommand};
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
    /// Compile a program with the JIT and run it.
    Run {
        #[command(flatten)]
        build: BuildArgs,
        /// Arguments for the program (after `--`), returned by `args()`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Print the SSA IR (Julia IRCode style) of a program.
    Ir {
        #[command(flatten)]
        build: BuildArgs,
        /// Print only this function.
        #[arg(long = "fn", value_name = "NAME")]
        func: Option<String>,
    },
    /// Print the Cranelift IR that toyc generates.
    Clif {
        #[command(flatten)]
        build: BuildArgs,
        /// Print only this function.
        #[arg(long = "fn", value_name = "NAME")]
        func: Option<String>,
    },
}

/// Options shared by the commands that compile.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// The `.toy` file.
    pub file: PathBuf,
    /// Optimization level: `-O0` (no passes, Cranelift `none`) or `-O2`.
    #[arg(short = 'O', default_value = "2", value_parser = clap::value_parser!(u8).range(0..=2))]
    pub opt: u8,
}
