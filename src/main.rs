//! The `toyc` command line. All work happens in `toyc::driver`.
use clap::Parser;

fn main() {
    let cli = toyc::driver::cli::Cli::parse();
    let code = toyc::driver::main_with_big_stack(cli);
    std::process::exit(code);
}
