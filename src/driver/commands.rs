//! One function per command that is more than a call: each reads its
//! arguments, runs the stages through [`super::build`] and returns the exit
//! code.

use super::build::{
    build_bril_ir, build_ir, build_ir_with_args, checked_ssa, codegen_options, gc_config,
    load_bril, pipeline_options, pool_for, report_verifier_failure,
};
use super::cli::{self, BuildArgs, WarningPolicy};
use super::files::{
    apply_policy, check_file, check_file_warnings_on, is_stdin, load_main_file, report,
    show_warnings,
};
use crate::diag;
use crate::span::SourceMap;
use std::path::Path;
use std::sync::Arc;

/// `toyc check FILE [--format=json]`: diagnostics and warnings, exit 0 or 1.
pub(super) fn check_command(file: &Path, format: &str, policy: WarningPolicy) -> i32 {
    let mut sources = SourceMap::new();
    if format == "json" {
        return check_json(file, policy);
    }
    if crate::bril::is_bril_path(file) {
        return match load_bril(file, &mut sources) {
            Ok(_) => 0,
            Err(code) => code,
        };
    }
    let pool = crate::par::Pool::per_core(crate::par::MIN_PARALLEL_WORK);
    match check_file_warnings_on(file, &mut sources, policy, &pool) {
        Ok((_, warnings)) => {
            show_warnings(&sources, &warnings);
            0
        }
        Err(diags) => report(&sources, &diags),
    }
}

/// `toyc run FILE [-- ARGS]`: JIT-compiles and runs, or interprets with
/// `--interp` (`--profile` counts statements, so it needs `--interp`).
pub(super) fn run_program(
    build: &BuildArgs,
    interp: bool,
    profile: bool,
    gc_stats: bool,
    args: &[String],
) -> i32 {
    if profile && !interp {
        eprintln!(
            "error: `--profile` counts the statements the IR interpreter executes, \
             so it needs `--interp`\n  hint: toyc run --interp --profile FILE"
        );
        return 2;
    }
    let mut sources = SourceMap::new();
    let pool = pool_for(build);
    match build_ir_with_args(build, &mut sources, Some(args), &pool) {
        Ok(module) if interp => {
            let code = crate::timing::time("interp", || {
                let gc = gc_config(gc_stats);
                crate::interp::run_module(&module, &sources, args, profile, gc)
            });
            left_for_exit(module);
            code
        }
        // The backend records its own phases: clif, cranelift, jit, run.
        Ok(module) => {
            let opts = crate::codegen::CodegenOptions {
                gc: gc_config(gc_stats),
                pool,
                ..codegen_options(build)
            };
            let code = crate::codegen::run_module(&module, &sources, &opts, args);
            left_for_exit(module);
            code
        }
        Err(code) => code,
    }
}

/// Leaves the module of a `toyc run` unfreed: the process ends as soon as
/// the program has run (`exit_now`), and freeing a large program's IR and
/// syntax tree first would only delay that (about 25 ms of a
/// 100,000-line program).
fn left_for_exit(module: crate::ir::Module) {
    std::mem::forget(module);
}

/// `toyc cfg` and `toyc ir --dot`: each function's CFG in Graphviz.
pub(super) fn dot_command(build: &BuildArgs, sources: &mut SourceMap) -> i32 {
    match build_ir(build, sources) {
        Ok(module) => {
            for f in &module.funcs {
                if build.func.as_deref().is_none_or(|n| n == f.name) {
                    print!("{}", crate::ir::dot::function_dot(f, &module.program));
                }
            }
            0
        }
        Err(code) => code,
    }
}

/// `toyc ir`: the IR after the pipeline, or its MemorySSA with `--memssa`.
pub(super) fn ir_command(
    build: &BuildArgs,
    memssa: Option<&str>,
    flags: bool,
    sources: &mut SourceMap,
) -> i32 {
    let module = match build_ir(build, sources) {
        Ok(module) => module,
        Err(code) => return code,
    };
    let func = build.func.as_deref();
    match memssa {
        Some(mode) => print!(
            "{}",
            crate::memssa::print::print_module(&module, sources, func, mode == "walker")
        ),
        None => print!(
            "{}",
            crate::ir::print::print_module_with(&module, Some(sources), func, flags)
        ),
    }
    0
}

/// `toyc ir --bril` / `--bril-json`: the optimised program as Bril text
/// or JSON ([`crate::bril_out`]); a construct with no Bril form is a
/// compile error (exit 1).
pub(super) fn bril_command(build: &BuildArgs, json: bool, sources: &mut SourceMap) -> i32 {
    let module = match build_ir(build, sources) {
        Ok(module) => module,
        Err(code) => return code,
    };
    match crate::bril_out::emit_module(&module, build.func.as_deref()) {
        Ok(prog) if json => {
            print!("{}", crate::bril::print::to_json(&prog));
            0
        }
        Ok(prog) => {
            print!("{}", crate::bril::print::to_text(&prog));
            0
        }
        Err(diags) => report(sources, &diags),
    }
}

/// `toyc bisect FILE`: which pass of -O2 first changes the program's output.
pub(super) fn bisect_command(file: &Path, interp: bool, timeout: f64) -> i32 {
    match this_exe() {
        Ok(exe) => {
            crate::fuzz::bisect::bisect_command(&exe, file, &o2_passes(), interp, seconds(timeout))
        }
        Err(code) => code,
    }
}

/// `toyc clif` and `toyc asm`: the backend's listing of every function,
/// or of `--fn NAME`, on stdout.
pub(super) fn listing_command(
    build: &BuildArgs,
    kind: crate::codegen::asm::Listing,
    sources: &mut SourceMap,
) -> i32 {
    let pool = pool_for(build);
    let module = match build_ir_with_args(build, sources, None, &pool) {
        Ok(module) => module,
        Err(code) => return code,
    };
    let opts = crate::codegen::CodegenOptions {
        pool,
        ..codegen_options(build)
    };
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
pub(super) fn opt_command(file: &Path, passes: &str, flags: bool, stats: bool) -> i32 {
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
pub(super) fn explore_command(build: &BuildArgs, output: Option<&Path>) -> i32 {
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
        codegen: &crate::codegen::CodegenOptions {
            pool: opts.pool.clone(),
            ..codegen_options(build)
        },
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
pub(super) fn fuzz_command(args: &cli::FuzzArgs) -> i32 {
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
pub(super) fn has_function(module: &crate::ir::Module, name: Option<&str>) -> bool {
    name.is_none_or(|n| module.funcs.iter().any(|f| f.name == n))
}

/// `--fn NAME` names no function: a command-line error (exit 2) that lists
/// the names there are.
pub(super) fn unknown_function(module: &crate::ir::Module, name: Option<&str>) -> i32 {
    let names: Vec<&str> = module.funcs.iter().map(|f| f.name.as_str()).collect();
    eprintln!(
        "error: --fn: no function named `{}` (functions: {})",
        name.unwrap_or(""),
        names.join(", ")
    );
    2
}
