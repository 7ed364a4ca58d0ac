//! Glue between the stages: reading files, running the pipeline on a thread
//! with a large stack, rendering diagnostics, and exit codes.
//!
//! Exit codes (LANGUAGE.md): 0 success (or `main`'s int, or `exit(n)`),
//! 1 compile error, 2 bad command line (clap, or a flag combination
//! checked here), 70 internal compiler error
//! (a verifier failure or a panic, reported with `diag::ICE_HELP`), 101
//! uncaught runtime error.

mod build;
pub mod cli;
mod commands;
mod files;
mod repl;

pub use build::{build_ir, build_ir_with_args, pipeline_options, render_remarks, verify_enabled};
pub use files::{
    STDIN_NAME, check_file, check_file_warnings, front_end_on_text, is_stdin, load_main_file,
    report,
};

use crate::diag;
use crate::span::SourceMap;
use cli::{Cli, Command, RunArgs};

/// Stack size for the compiler thread. Deeply nested input (10,000 nested
/// parentheses) recurses in the parser and type checker; this bounds it
/// together with the parser's nesting limit.
pub const COMPILER_STACK: usize = 1 << 30;

/// Parses the command line with `parse` and runs it, both on a thread with
/// a large stack; that thread ends the process with the command's exit
/// code ([`exit_now`]). What returns is the exit code of a panic anywhere
/// in the compiler (toyc's or Cranelift's): it is reported as an internal
/// compiler error (exit code 70), never as a Rust panic message.
///
/// The command line is parsed on the compiler's thread, not before it
/// starts: each thread allocates from memory of its own, and the pages
/// the parse touches there are the ones the compilation goes on to use.
pub fn main_with_big_stack(parse: impl FnOnce() -> Cli + Send + 'static) -> i32 {
    std::panic::set_hook(Box::new(report_panic));
    let handle = std::thread::Builder::new()
        .name("toyc".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || -> i32 { exit_now(run_cli(parse())) })
        .expect("cannot spawn the compiler thread");
    match handle.join() {
        Ok(code) => code,
        Err(_) => {
            eprintln!("{}", diag::ICE_HELP);
            70
        }
    }
}

/// Ends the process with `code` from the compiler thread, once every
/// output buffer is written: the kernel frees the whole address space at
/// once, which costs less than returning through the thread's teardown
/// (its 1 GiB stack is `madvise`d away) and the allocator's purge at exit.
fn exit_now(code: i32) -> ! {
    use std::io::Write;
    crate::runtime::output::flush();
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process; the buffers that hold output
    // were flushed above, and nothing else needs to run at exit.
    unsafe { libc::_exit(code) }
}

/// The panic hook: the first line of an internal compiler error report,
/// with the panic's message and where in toyc (or Cranelift) it happened.
/// Whoever catches the panic adds context and [`diag::ICE_HELP`].
///
/// A print to a closed standard output or error (`toyc ir prog.toy |
/// head`) is no error of the compiler's: toyc then stops at once, quietly,
/// with exit code 0, as it does when the program it runs prints into a
/// closed pipe.
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    crate::runtime::output::flush();
    let payload = info.payload();
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    if is_closed_output(&msg) {
        // SAFETY: `_exit` ends the process; nothing can be written to
        // that output any more.
        unsafe { libc::_exit(0) }
    }
    match info.location() {
        Some(l) => eprintln!(
            "error: internal compiler error: {msg}\n  at {}:{}:{} (in the compiler)",
            l.file(),
            l.line(),
            l.column()
        ),
        None => eprintln!("error: internal compiler error: {msg}"),
    }
}

/// Whether a panic message is the standard library's report of a print
/// to standard output or error after its reader went away (`EPIPE`; toyc
/// ignores `SIGPIPE`).
fn is_closed_output(msg: &str) -> bool {
    (msg.starts_with("failed printing to stdout") || msg.starts_with("failed printing to stderr"))
        && msg.ends_with(&format!("(os error {})", libc::EPIPE))
}

fn run_cli(cli: Cli) -> i32 {
    let time_passes = match &cli.command {
        Command::Run(RunArgs { build, .. })
        | Command::Ir { build, .. }
        | Command::Cfg { build, .. }
        | Command::Clif { build, .. }
        | Command::Asm { build, .. }
        | Command::Explore { build, .. } => build.time_passes,
        Command::Check { .. }
        | Command::Passes
        | Command::Repl { .. }
        | Command::Opt { .. }
        | Command::Fuzz(_)
        | Command::Bisect { .. } => false,
    };
    let code = run_command(cli);
    if time_passes {
        eprint!("{}", crate::timing::take_report());
    }
    code
}

/// Dispatches a command to its function; each returns the exit code.
fn run_command(cli: Cli) -> i32 {
    let mut sources = SourceMap::new();
    match cli.command {
        Command::Passes => {
            print!("{}", crate::opt::describe_passes());
            0
        }
        Command::Repl { opt } => {
            if let Some(note) = opt.note() {
                eprintln!("{note}");
            }
            repl::run(opt.level)
        }
        Command::Check {
            file,
            format,
            warnings,
        } => commands::check_command(&file, &format, warnings.policy()),
        Command::Run(RunArgs {
            build,
            interp,
            profile,
            gc_stats,
            args,
        }) => commands::run_program(&build, interp, profile, gc_stats, &args),
        Command::Ir {
            build, dot: true, ..
        }
        | Command::Cfg { build } => commands::dot_command(&build, &mut sources),
        Command::Ir {
            build,
            bril,
            bril_json,
            ..
        } if bril || bril_json => commands::bril_command(&build, bril_json, &mut sources),
        Command::Ir {
            build,
            memssa,
            flags,
            ..
        } => commands::ir_command(&build, memssa.as_deref(), flags, &mut sources),
        Command::Explore { build, output } => commands::explore_command(&build, output.as_deref()),
        Command::Opt {
            file,
            passes,
            flags,
            stats,
        } => commands::opt_command(&file, &passes, flags, stats),
        Command::Fuzz(args) => commands::fuzz_command(&args),
        Command::Bisect {
            file,
            interp,
            timeout,
        } => commands::bisect_command(&file, interp, timeout),
        Command::Clif { build, optimized } => {
            use crate::codegen::asm::Listing;
            let kind = if optimized {
                Listing::OptimizedClif
            } else {
                Listing::Clif
            };
            commands::listing_command(&build, kind, &mut sources)
        }
        Command::Asm { build } => {
            commands::listing_command(&build, crate::codegen::asm::Listing::Asm, &mut sources)
        }
    }
}
