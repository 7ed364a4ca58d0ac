//! Glue between the stages: reading files, running the pipeline on a thread
//! with a large stack, rendering diagnostics, and exit codes.
//!
//! Exit codes (LANGUAGE.md): 0 success (or `main`'s int, or `exit(n)`),
//! 1 compile error, 2 bad command line (clap, or a flag combination
//! checked here), 70 internal compiler error
//! (a verifier failure or a panic, reported with `diag::ICE_HELP`), 101
//! uncaught runtime error.

pub mod cli;
mod repl;

use crate::diag::{self, Diagnostic};
use crate::span::{FileId, SourceMap};
use cli::{BuildArgs, Cli, Command, WarningPolicy};
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
        } if format == "json" => check_json(&file, warnings.policy()),
        Command::Check { file, .. } if crate::bril::is_bril_path(&file) => {
            match load_bril(&file, &mut sources) {
                Ok(_) => 0,
                Err(code) => code,
            }
        }
        Command::Check { file, warnings, .. } => {
            match check_file_warnings(&file, &mut sources, warnings.policy()) {
                Ok((_, warnings)) => {
                    show_warnings(&sources, &warnings);
                    0
                }
                Err(diags) => report(&sources, &diags),
            }
        }
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
            build, dot: true, ..
        }
        | Command::Cfg { build } => match build_ir(&build, &mut sources) {
            Ok(module) => {
                for f in &module.funcs {
                    if build.func.as_deref().is_none_or(|n| n == f.name) {
                        print!("{}", crate::ir::dot::function_dot(f, &module.program));
                    }
                }
                0
            }
            Err(code) => code,
        },
        Command::Ir {
            build,
            memssa,
            flags,
            ..
        } => match build_ir(&build, &mut sources) {
            Ok(module) => {
                let func = &build.func;
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
        Command::Explore { build, output } => explore_command(&build, output.as_deref()),
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
        Command::Clif { build, optimized } => {
            use crate::codegen::asm::Listing;
            let kind = if optimized {
                Listing::OptimizedClif
            } else {
                Listing::Clif
            };
            listing_command(&build, kind, &mut sources)
        }
        Command::Asm { build } => {
            listing_command(&build, crate::codegen::asm::Listing::Asm, &mut sources)
        }
    }
}

/// `toyc clif` and `toyc asm`: the backend's listing of every function,
/// or of `--fn NAME`, on stdout.
fn listing_command(
    build: &BuildArgs,
    kind: crate::codegen::asm::Listing,
    sources: &mut SourceMap,
) -> i32 {
    let module = match build_ir(build, sources) {
        Ok(module) => module,
        Err(code) => return code,
    };
    let opts = codegen_options(build);
    match crate::codegen::asm::module_listing(&module, sources, &opts, build.func.as_deref(), kind)
    {
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

/// `toyc check --format=json FILE`: the diagnostics as JSON Lines on
/// stdout ([`diag::render_json`]); a main file that cannot be read is one
/// object without a position (line and col 0). Exit codes as for `check`.
fn check_json(file: &Path, policy: WarningPolicy) -> i32 {
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
        crate::bril::load(&sources, main).map(|_| Vec::new())
    } else {
        apply_policy(crate::sema::check(&mut sources, main), policy).map(|(_, w)| w)
    };
    match checked {
        Ok(warnings) => {
            print!("{}", diag::render_json(&sources, &warnings));
            0
        }
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
    let program = module.program.clone();
    let printer =
        |f: &crate::ir::IrCode| crate::ir::print::print_function_with(f, &program, None, flags);
    if let Err(errors) = crate::opt::run_pipeline(&mut module, &opts, &mut counters, &printer) {
        return report_verifier_failure("", errors);
    }
    if stats {
        eprint!("{}", counters.render());
    }
    print!(
        "{}",
        crate::ir::print::print_module_with(&module, None, None, flags)
    );
    0
}

/// `toyc explore FILE [--fn NAME] [-o OUT.html]`: builds the page
/// (crate::explore) and writes it; says where on stderr.
fn explore_command(build: &BuildArgs, output: Option<&Path>) -> i32 {
    let mut sources = SourceMap::new();
    let opts = match pipeline_options(build) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let built = if crate::bril::is_bril_path(&build.file) {
        build_bril_ir(&build.file, &mut sources, None)
    } else {
        check_file(&build.file, &mut sources)
            .map(|program| crate::ssa::build_module(Arc::new(program)))
            .map_err(|diags| report(&sources, &diags))
    };
    let module = match built.and_then(|m| checked_ssa(build, m)) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let inputs = crate::explore::collect::Inputs {
        sources: &sources,
        main: crate::span::FileId(0),
        pipeline: &opts,
        codegen: &codegen_options(build),
        only: build.func.as_deref(),
    };
    let page = match crate::explore::collect::build_page(module, &inputs) {
        Ok(p) => p,
        Err(e) => return report_verifier_failure("", vec![e]),
    };
    let html = crate::explore::html::render(&page);
    let path = match output {
        Some(p) => p.to_path_buf(),
        None => {
            let stem = build.file.file_stem().unwrap_or_default().to_string_lossy();
            let stem = if is_stdin(&build.file) {
                "stdin".into()
            } else {
                stem
            };
            std::path::PathBuf::from(format!("{stem}.html"))
        }
    };
    if is_stdin(&path) {
        print!("{html}");
        return 0;
    }
    match std::fs::write(&path, html) {
        Ok(()) => {
            eprintln!("wrote {}", path.display());
            0
        }
        Err(e) => {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            1
        }
    }
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
/// `--remarks` are printed on stderr (only those about `--fn NAME` when
/// given).
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
        checked_ssa(build, build_bril_ir(&build.file, sources, main_args)?)?
    } else {
        let policy = build.warnings.policy();
        let (program, warnings) = crate::timing::time("parse+check", || {
            check_file_warnings(&build.file, sources, policy)
        })
        .map_err(|diags| report(sources, &diags))?;
        show_warnings(sources, &warnings);
        let module = crate::timing::time("ssa", || crate::ssa::build_module(Arc::new(program)));
        checked_ssa(build, module)?
    };
    let mut counters = crate::opt::Counters::default();
    let program = module.program.clone();
    let print =
        |f: &crate::ir::IrCode| crate::ir::print::print_function(f, &program, Some(sources));
    let mut printer = crate::opt::print::PrintObserver::new(&opts, &print);
    let remarks =
        crate::opt::run_pipeline_observed(&mut module, &opts, &mut counters, &mut printer)
            .map_err(|errors| report_verifier_failure("", errors))?;
    if build.func.is_some() {
        counters = printer.counters().clone();
    }
    if let Some(sel) = &build.remarks {
        eprint!(
            "{}",
            render_remarks(&remarks, sources, sel, build.func.as_deref())
        );
    }
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

/// The module SSA construction built, after the verifier when enabled;
/// `--fn NAME` naming no function of it is a command-line error.
fn checked_ssa(build: &BuildArgs, module: crate::ir::Module) -> Result<crate::ir::Module, i32> {
    if !has_function(&module, build.func.as_deref()) {
        return Err(unknown_function(&module, build.func.as_deref()));
    }
    if verify_enabled()
        && let Err(errors) = crate::ir::verify::verify_module(&module)
    {
        return Err(report_verifier_failure("after SSA construction: ", errors));
    }
    Ok(module)
}

/// The remarks `--remarks=sel` (`all`: every pass) and `--fn only` select,
/// one line each, positions as `line:col` in the main file and
/// `file:line:col` elsewhere (inlined or stdlib code).
pub fn render_remarks(
    remarks: &[crate::opt::remarks::Remark],
    sources: &SourceMap,
    sel: &str,
    only: Option<&str>,
) -> String {
    let pos = |span: crate::span::Span| {
        if sources.files().nth(span.file.0 as usize).is_none() {
            return "?".to_string();
        }
        let (l, c) = sources.get(span.file).line_col(span.start);
        if span.file == FileId(0) {
            format!("{l}:{c}")
        } else {
            format!("{}:{l}:{c}", sources.get(span.file).name)
        }
    };
    remarks
        .iter()
        .filter(|r| sel == "all" || r.selected_by(sel))
        .filter(|r| only.is_none_or(|f| f == r.func))
        .map(|r| r.render(&pos) + "\n")
        .collect()
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
    let print_before = crate::opt::PrintSel::parse(build.print_before.as_deref());
    let print_after = crate::opt::PrintSel::parse(build.print_after.as_deref());
    for (flag, sel) in [
        ("--print-before", &print_before),
        ("--print-after", &print_after),
    ] {
        for name in sel.names() {
            check_print_name(flag, name)?;
        }
    }
    if let Some(sel) = build.remarks.as_deref()
        && sel != "all"
        && !crate::opt::PASSES
            .iter()
            .any(|p| p.name == sel || p.name.split('.').next() == Some(sel))
    {
        let known: Vec<&str> = crate::opt::PASSES.iter().map(|p| p.name).collect();
        eprintln!(
            "error: --remarks: unknown pass `{sel}` (known passes: {})",
            known.join(", ")
        );
        return Err(2);
    }
    Ok(crate::opt::PipelineOptions {
        passes,
        print_before,
        print_after,
        print_changed: build.print_changed.as_deref().map(|m| match m {
            "diff" => crate::opt::PrintChanged::Diff,
            _ => crate::opt::PrintChanged::Full,
        }),
        only: build.func.clone(),
        verify: verify_enabled(),
        remarks: build.remarks.is_some(),
    })
}

/// A name in `flag`'s list must be a pass, or for `--print-after` a step
/// inside one; otherwise a command-line error (exit 2) listing the names
/// there are.
fn check_print_name(flag: &str, name: &str) -> Result<(), i32> {
    let is_step = crate::opt::STEPS.contains(&name);
    if is_step && flag == "--print-before" {
        eprintln!(
            "error: --print-before: `{name}` is a step inside a pass; --print-after prints after it"
        );
        return Err(2);
    }
    if !is_step && crate::opt::find_pass(name).is_none() {
        let passes: Vec<&str> = crate::opt::PASSES.iter().map(|p| p.name).collect();
        eprintln!(
            "error: {flag}: unknown pass `{name}`\n  known passes: {}\n  steps inside passes (--print-after only): {}",
            passes.join(", "),
            crate::opt::STEPS.join(", ")
        );
        return Err(2);
    }
    Ok(())
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

/// Parses and type-checks the program rooted at `path`, ignoring warnings.
/// An unreadable main file is reported on stderr here and gives an empty
/// error list.
pub fn check_file(
    path: &Path,
    sources: &mut SourceMap,
) -> Result<crate::sema::hir::Program, Vec<Diagnostic>> {
    check_file_warnings(path, sources, WarningPolicy::Allow).map(|(program, _)| program)
}

/// [`check_file`] with the warnings `policy` lets through: none with
/// `-A warnings`; with `-W error` any warning makes the result `Err`, every
/// warning turned into an error.
pub fn check_file_warnings(
    path: &Path,
    sources: &mut SourceMap,
    policy: WarningPolicy,
) -> Result<(crate::sema::hir::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    let main = match load_main_file(path, sources) {
        Ok(id) => id,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Err(Vec::new());
        }
    };
    apply_policy(crate::sema::check(sources, main), policy)
}

/// The program and the warnings to report under `policy`, or the errors.
fn apply_policy(
    checked: Result<crate::sema::Checked, Vec<Diagnostic>>,
    policy: WarningPolicy,
) -> Result<(crate::sema::hir::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    let crate::sema::Checked { program, warnings } = checked?;
    match policy {
        WarningPolicy::Show => Ok((program, warnings)),
        WarningPolicy::Allow => Ok((program, Vec::new())),
        WarningPolicy::Deny if warnings.is_empty() => Ok((program, warnings)),
        WarningPolicy::Deny => Err(warnings
            .into_iter()
            .map(|w| Diagnostic {
                severity: diag::Severity::Error,
                ..w.with_note("`-W error` turns warnings into errors")
            })
            .collect()),
    }
}

/// Prints warnings to stderr (nothing when there are none).
fn show_warnings(sources: &SourceMap, warnings: &[Diagnostic]) {
    if !warnings.is_empty() {
        eprint!("{}", diag::render(sources, warnings, use_colour()));
    }
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
