//! Glue between the stages: reading files, running the pipeline on a thread
//! with a large stack, rendering diagnostics, and exit codes.
//!
//! Exit codes (LANGUAGE.md): 0 success (or `main`'s int, or `exit(n)`),
//! 1 compile error, 2 bad command line (clap, or a flag combination
//! checked here), 70 internal compiler error
//! (a verifier failure or a panic, reported with `diag::ICE_HELP`), 101
//! uncaught runtime error.

pub mod cli;

use crate::diag::{self, Diagnostic};
use crate::span::{FileId, SourceMap};
use cli::{BuildArgs, Cli, Command};
use std::path::Path;
use std::sync::Arc;

/// Stack size for the compiler thread. Deeply nested input (10,000 nested
/// parentheses) recurses in the parser and type checker; this bounds it
/// together with the parser's nesting limit.
pub const COMPILER_STACK: usize = 1 << 30;

/// Runs `cli` on a thread with a large stack and returns the exit code.
/// A panic anywhere in the compiler (toyc's or Cranelift's) is reported as
/// an internal compiler error (exit code 70), never as a Rust panic message.
pub fn main_with_big_stack(cli: Cli) -> i32 {
    std::panic::set_hook(Box::new(report_panic));
    let handle = std::thread::Builder::new()
        .name("toyc".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || run_cli(cli))
        .expect("cannot spawn the compiler thread");
    match handle.join() {
        Ok(code) => code,
        Err(_) => {
            eprintln!("{}", diag::ICE_HELP);
            70
        }
    }
}

/// The panic hook: the first line of an internal compiler error report,
/// with the panic's message and where in toyc (or Cranelift) it happened.
/// Whoever catches the panic adds context and [`diag::ICE_HELP`].
fn report_panic(info: &std::panic::PanicHookInfo<'_>) {
    crate::runtime::output::flush();
    let payload = info.payload();
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
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

fn run_cli(cli: Cli) -> i32 {
    let time_passes = match &cli.command {
        Command::Run { build, .. }
        | Command::Ir { build, .. }
        | Command::Cfg { build, .. }
        | Command::Clif { build, .. } => build.time_passes,
        Command::Check { .. }
        | Command::Passes
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

fn run_command(cli: Cli) -> i32 {
    let mut sources = SourceMap::new();
    match cli.command {
        Command::Passes => {
            print!("{}", crate::opt::describe_passes());
            0
        }
        Command::Check { file, format } if format == "json" => check_json(&file),
        Command::Check { file, .. } if crate::bril::is_bril_path(&file) => {
            match load_bril(&file, &mut sources) {
                Ok(_) => 0,
                Err(code) => code,
            }
        }
        Command::Check { file, .. } => match check_file(&file, &mut sources) {
            Ok(_) => 0,
            Err(diags) => report(&sources, &diags),
        },
        Command::Run {
            profile: true,
            interp: false,
            ..
        } => {
            eprintln!(
                "error: `--profile` counts the statements the IR interpreter executes, \
                 so it needs `--interp`\n  hint: toyc run --interp --profile FILE"
            );
            2
        }
        Command::Run {
            build,
            interp,
            profile,
            gc_stats,
            args,
        } => match build_ir_with_args(&build, &mut sources, Some(&args)) {
            Ok(module) if interp => crate::timing::time("interp", || {
                let gc = gc_config(gc_stats);
                crate::interp::run_module(&module, &sources, &args, profile, gc)
            }),
            // The backend records its own phases: clif, cranelift, jit, run.
            Ok(module) => {
                let opts = crate::codegen::CodegenOptions {
                    gc: gc_config(gc_stats),
                    ..codegen_options(&build)
                };
                crate::codegen::run_module(&module, &sources, &opts, &args)
            }
            Err(code) => code,
        },
        Command::Ir {
            build,
            func,
            dot: true,
            ..
        }
        | Command::Cfg { build, func } => match build_ir(&build, &mut sources) {
            Ok(module) if !has_function(&module, func.as_deref()) => {
                unknown_function(&module, func.as_deref())
            }
            Ok(module) => {
                for f in &module.funcs {
                    if func.as_deref().is_none_or(|n| n == f.name) {
                        print!("{}", crate::ir::dot::function_dot(f, &module.program));
                    }
                }
                0
            }
            Err(code) => code,
        },
        Command::Ir {
            build,
            func,
            memssa,
            flags,
            ..
        } => match build_ir(&build, &mut sources) {
            Ok(module) if !has_function(&module, func.as_deref()) => {
                unknown_function(&module, func.as_deref())
            }
            Ok(module) => {
                match memssa {
                    Some(mode) => print!(
                        "{}",
                        crate::memssa::print::print_module(
                            &module,
                            &sources,
                            func.as_deref(),
                            mode == "walker"
                        )
                    ),
                    None => print!(
                        "{}",
                        crate::ir::print::print_module_with(
                            &module,
                            Some(&sources),
                            func.as_deref(),
                            flags
                        )
                    ),
                }
                0
            }
            Err(code) => code,
        },
        Command::Opt {
            file,
            passes,
            flags,
            stats,
        } => opt_command(&file, &passes, flags, stats),
        Command::Fuzz(args) => fuzz_command(&args),
        Command::Bisect {
            file,
            interp,
            timeout,
        } => match this_exe() {
            Ok(exe) => crate::fuzz::bisect::bisect_command(
                &exe,
                &file,
                &o2_passes(),
                interp,
                seconds(timeout),
            ),
            Err(code) => code,
        },
        Command::Clif { build, func } => match build_ir(&build, &mut sources) {
            Ok(module) if !has_function(&module, func.as_deref()) => {
                unknown_function(&module, func.as_deref())
            }
            Ok(module) => {
                match crate::codegen::clif_text(
                    &module,
                    &sources,
                    &codegen_options(&build),
                    func.as_deref(),
                ) {
                    Ok(text) => {
                        print!("{text}");
                        0
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        1
                    }
                }
            }
            Err(code) => code,
        },
    }
}

/// `toyc check --format=json FILE`: the diagnostics as JSON Lines on
/// stdout ([`diag::render_json`]); a main file that cannot be read is one
/// object without a position (line and col 0). Exit codes as for `check`.
fn check_json(file: &Path) -> i32 {
    let mut sources = SourceMap::new();
    let main = match load_main_file(file, &mut sources) {
        Ok(id) => id,
        Err(msg) => {
            let name = file.display().to_string();
            let d = diag::JsonDiag {
                file: &name,
                start: (0, 0),
                end: (0, 0),
                severity: "error",
                message: &msg,
                label: &msg,
                notes: &[],
            };
            print!("{}", d.to_line());
            return 1;
        }
    };
    let checked = if crate::bril::is_bril_path(file) {
        crate::bril::load(&sources, main).map(|_| ())
    } else {
        crate::sema::analyze(&mut sources, main).map(|_| ())
    };
    match checked {
        Ok(()) => 0,
        Err(diags) => {
            print!("{}", diag::render_json(&sources, &diags));
            1
        }
    }
}

/// `toyc opt FILE --passes=..`: parses the IR text (of a filetest: the
/// part before `; expect:`; syntax and verifier errors are compile errors,
/// exit 1, as `FILE:line:col: message`), runs the named passes with the
/// verifier after each, prints the module.
fn opt_command(file: &Path, passes: &str, flags: bool, stats: bool) -> i32 {
    let mut names = Vec::new();
    for name in passes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match crate::opt::find_pass(name) {
            Some(p) => names.push(p.name),
            None => {
                eprintln!("error: --passes: unknown pass `{name}` (`toyc passes` lists them)");
                return 2;
            }
        }
    }
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", file.display());
            return 1;
        }
    };
    // A filetest (tests/filetests) is its input up to `; expect:`.
    let input = text.split("\n; expect:\n").next().unwrap_or_default();
    let mut module = match crate::ir::parse::parse(input) {
        Ok(m) => m,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {}:{e}", file.display());
            }
            return 1;
        }
    };
    let opts = crate::opt::PipelineOptions {
        passes: names,
        verify: true,
        ..Default::default()
    };
    let mut counters = crate::opt::Counters::default();
    let printer = |m: &crate::ir::Module| crate::ir::print::print_module_with(m, None, None, flags);
    if let Err(errors) = crate::opt::run_pipeline(&mut module, &opts, &mut counters, &printer) {
        return report_verifier_failure("", errors);
    }
    if stats {
        eprint!("{}", counters.render());
    }
    print!("{}", printer(&module));
    0
}

/// `toyc fuzz`: the fuzzer runs this binary (or `--toyc PATH`) as a
/// subprocess; it needs nothing else of the compiler but the -O2 pass list.
fn fuzz_command(args: &cli::FuzzArgs) -> i32 {
    let exe = match &args.toyc {
        Some(p) => p.clone(),
        None => match this_exe() {
            Ok(p) => p,
            Err(code) => return code,
        },
    };
    let count = args
        .count
        .unwrap_or(if args.time.is_some() { u64::MAX } else { 1000 });
    let opts = crate::fuzz::Options {
        seed: args.seed,
        count,
        time: args.time.map(seconds),
        keep: args.keep.clone(),
        jobs: args.jobs.max(1),
        exe,
        timeout: seconds(args.timeout),
        passes: o2_passes(),
        shrink: !args.no_shrink,
    };
    crate::fuzz::run(&opts)
}

fn this_exe() -> Result<std::path::PathBuf, i32> {
    std::env::current_exe().map_err(|e| {
        eprintln!("error: cannot find the toyc binary: {e}");
        2
    })
}

fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::from_secs_f64(s.clamp(0.001, 1e6))
}

/// The -O2 pipeline, a pass per entry (a pass that runs twice is listed twice).
fn o2_passes() -> Vec<String> {
    crate::opt::default_passes(2)
        .into_iter()
        .map(String::from)
        .collect()
}

/// Whether `--fn NAME` (if given) names a function of the program.
fn has_function(module: &crate::ir::Module, name: Option<&str>) -> bool {
    name.is_none_or(|n| module.funcs.iter().any(|f| f.name == n))
}

/// `--fn NAME` names no function: a command-line error (exit 2) that lists
/// the names there are.
fn unknown_function(module: &crate::ir::Module, name: Option<&str>) -> i32 {
    let names: Vec<&str> = module.funcs.iter().map(|f| f.name.as_str()).collect();
    eprintln!(
        "error: --fn: no function named `{}` (functions: {})",
        name.unwrap_or(""),
        names.join(", ")
    );
    2
}

fn codegen_options(build: &BuildArgs) -> crate::codegen::CodegenOptions {
    crate::codegen::CodegenOptions {
        optimize: build.opt.level > 0,
        // Cranelift's verifier runs whenever ours does.
        verify: verify_enabled(),
        // `TOYC_REGALLOC=single_pass|backtracking`: one allocator for all
        // functions (for measurements).
        regalloc: crate::codegen::RegallocChoice::parse(
            std::env::var("TOYC_REGALLOC").ok().as_deref(),
        ),
        // `TOYC_DISASM=1`: the machine code of every function on stderr.
        disasm: std::env::var_os("TOYC_DISASM").is_some_and(|v| v == "1"),
        gc: crate::runtime::gc::GcConfig::default(),
        // Tests only: see `CodegenOptions::panic_in`.
        panic_in: std::env::var("TOYC_TEST_CODEGEN_PANIC").ok(),
    }
}

/// The collector's configuration: `TOYC_GC=off` (no collection, for
/// comparison), `TOYC_GC_STRESS=1` (a collection at every safepoint),
/// `TOYC_GC_STATS=1` or `--gc-stats` (statistics on stderr at exit).
fn gc_config(stats_flag: bool) -> crate::runtime::gc::GcConfig {
    let var = |name: &str| std::env::var(name).ok();
    crate::runtime::gc::GcConfig {
        collect: var("TOYC_GC").as_deref() != Some("off"),
        stress: var("TOYC_GC_STRESS").as_deref() == Some("1"),
        stats: stats_flag || var("TOYC_GC_STATS").as_deref() == Some("1"),
    }
}

/// Whether the IR verifier runs after construction and after every pass:
/// always in debug builds and tests, and in release when `TOYC_VERIFY=1`.
pub fn verify_enabled() -> bool {
    cfg!(debug_assertions) || std::env::var_os("TOYC_VERIFY").is_some_and(|v| v == "1")
}

/// Front end plus SSA construction (and the verifier when enabled).
/// On failure, diagnostics are printed and the exit code returned.
pub fn build_ir(build: &BuildArgs, sources: &mut SourceMap) -> Result<crate::ir::Module, i32> {
    build_ir_with_args(build, sources, None)
}

/// Reads and checks a Bril program (`.bril` text or `.json`); errors are
/// reported here and give the exit code.
fn load_bril(
    path: &Path,
    sources: &mut SourceMap,
) -> Result<(crate::bril::ast::Program, crate::bril::check::Checked), i32> {
    let file = load_main_file(path, sources).map_err(|msg| {
        eprintln!("error: {msg}");
        1
    })?;
    crate::bril::load(sources, file).map_err(|diags| report(sources, &diags))
}

/// The IR of a Bril program. `main_args` are the command line's values
/// for `main`'s parameters (`toyc run`); without them (`ir`, `clif`) the
/// entry passes zeros.
fn build_bril_ir(
    path: &Path,
    sources: &mut SourceMap,
    main_args: Option<&[String]>,
) -> Result<crate::ir::Module, i32> {
    let (prog, checked) = crate::timing::time("parse+check", || load_bril(path, sources))?;
    let values = match main_args {
        Some(args) => {
            let main = prog.functions.iter().find(|f| f.name == "main");
            let params = main.map_or(&[][..], |f| &f.params[..]);
            Some(crate::bril::parse_main_args(params, args).map_err(|msg| {
                eprintln!("error: {msg}");
                2
            })?)
        }
        None => None,
    };
    Ok(crate::timing::time("ssa", || {
        crate::ssa::bril::build_bril_module(&prog, &checked, values.as_deref())
    }))
}

/// [`build_ir`]; for a Bril program, `main_args` as in [`build_bril_ir`].
pub fn build_ir_with_args(
    build: &BuildArgs,
    sources: &mut SourceMap,
    main_args: Option<&[String]>,
) -> Result<crate::ir::Module, i32> {
    let opts = pipeline_options(build)?;
    if let Some(note) = build.opt.note() {
        eprintln!("{note}");
    }
    let mut module = if crate::bril::is_bril_path(&build.file) {
        build_bril_ir(&build.file, sources, main_args)?
    } else {
        let program = crate::timing::time("parse+check", || check_file(&build.file, sources))
            .map_err(|diags| report(sources, &diags))?;
        crate::timing::time("ssa", || crate::ssa::build_module(Arc::new(program)))
    };
    if opts.verify
        && let Err(errors) = crate::ir::verify::verify_module(&module)
    {
        return Err(report_verifier_failure("after SSA construction: ", errors));
    }
    let mut counters = crate::opt::Counters::default();
    let printer = |m: &crate::ir::Module| crate::ir::print::print_module(m, sources, None);
    crate::opt::run_pipeline(&mut module, &opts, &mut counters, &printer)
        .map_err(|errors| report_verifier_failure("", errors))?;
    // Without the per-pass verifier, the optimised module is still verified
    // once, so wrong IR never reaches the backend silently.
    if !opts.verify && !opts.passes.is_empty() {
        crate::timing::time("verify", || crate::ir::verify::verify_module(&module))
            .map_err(|errors| report_verifier_failure("after the pipeline: ", errors))?;
    }
    if build.stats {
        eprint!("{}", counters.render());
    }
    Ok(module)
}

/// Reports a verifier failure as an internal compiler error (each error
/// prefixed with `when`) and returns its exit code, 70.
fn report_verifier_failure(when: &str, errors: Vec<String>) -> i32 {
    eprintln!("error: internal compiler error: the IR verifier failed");
    for e in errors {
        eprintln!("  {when}{e}");
    }
    eprintln!("{}", diag::ICE_HELP);
    70
}

/// The pass pipeline the flags ask for (`--passes` overrides `-O`). An
/// unknown pass name is a command-line error (exit code 2).
pub fn pipeline_options(build: &BuildArgs) -> Result<crate::opt::PipelineOptions, i32> {
    let passes = match &build.passes {
        Some(list) => crate::opt::parse_pass_list(list).map_err(|e| {
            eprintln!("error: --passes: {e}");
            2
        })?,
        None => crate::opt::default_passes(build.opt.level),
    };
    for sel in [&build.print_after, &build.print_before]
        .into_iter()
        .flatten()
    {
        let is_step = crate::opt::STEPS.contains(&sel.as_str());
        if is_step && build.print_before.as_ref() == Some(sel) {
            eprintln!(
                "error: --print-before: `{sel}` is a step inside a pass; --print-after prints after it"
            );
            return Err(2);
        }
        if sel != "all" && !is_step && crate::opt::find_pass(sel).is_none() {
            eprintln!(
                "error: unknown pass `{sel}` in --print-after/--print-before (`toyc passes` lists them; \
                 the steps inside passes are {})",
                crate::opt::STEPS.join(", ")
            );
            return Err(2);
        }
    }
    Ok(crate::opt::PipelineOptions {
        passes,
        print_before: crate::opt::PrintSel::parse(build.print_before.as_deref()),
        print_after: crate::opt::PrintSel::parse(build.print_after.as_deref()),
        verify: verify_enabled(),
    })
}

/// Prints diagnostics to stderr and returns exit code 1.
pub fn report(sources: &SourceMap, diags: &[Diagnostic]) -> i32 {
    eprint!("{}", diag::render(sources, diags, use_colour()));
    1
}

/// Whether reports should use colour: only on a terminal, and never when
/// `NO_COLOR` is set (to anything).
fn use_colour() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// Whether `path` is `-`, which names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name a program read from stdin (`toyc run -`) has in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads the main file into `sources`. A file that cannot be read or is not
/// UTF-8 is an error with the reason; invalid UTF-8 names the byte offset.
/// For `-`, the program is all of stdin, named [`STDIN_NAME`], with its
/// imports beside it in the current directory; the runtime's input is then
/// empty (the program's `read_line` sees the end of input).
pub fn load_main_file(path: &Path, sources: &mut SourceMap) -> Result<FileId, String> {
    if is_stdin(path) {
        return load_stdin(sources);
    }
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {}", path.display(), e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{}` is not valid UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    Ok(sources.add(path.display().to_string(), Some(canonical), text))
}

/// [`load_main_file`] for `-`.
fn load_stdin(sources: &mut SourceMap) -> Result<FileId, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the program from stdin: {e}"))?;
    crate::runtime::io::set_input(Some(Vec::new()));
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "the program on stdin is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    // The path only places imports: nothing reads it.
    let dir = std::env::current_dir().unwrap_or_default();
    Ok(sources.add(STDIN_NAME.into(), Some(dir.join(STDIN_NAME)), text))
}

/// Parses and type-checks the program rooted at `path`. An unreadable main
/// file is reported on stderr here and gives an empty error list.
pub fn check_file(
    path: &Path,
    sources: &mut SourceMap,
) -> Result<crate::sema::hir::Program, Vec<Diagnostic>> {
    let main = match load_main_file(path, sources) {
        Ok(id) => id,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Err(Vec::new());
        }
    };
    crate::sema::analyze(sources, main)
}

/// The front end on one in-memory source text, for fuzzing: parse, check
/// and, for a valid program, build SSA and run the IR verifier. Returns how
/// many diagnostics the program got (0: it is valid and its IR verifies);
/// `Err` is a verifier failure, a compiler bug. Imports resolve against the
/// standard library only. Call it on a thread with [`COMPILER_STACK`].
pub fn front_end_on_text(text: &str) -> Result<usize, String> {
    let mut sources = SourceMap::new();
    let main = sources.add("fuzz.toy".into(), None, text.to_string());
    match crate::sema::analyze(&mut sources, main) {
        Err(diags) => Ok(diags.len()),
        Ok(program) => {
            let module = crate::ssa::build_module(Arc::new(program));
            crate::ir::verify::verify_module(&module)
                .map(|()| 0)
                .map_err(|errs| errs.join("\n"))
        }
    }
}
