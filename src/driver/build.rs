//! Building a program's IR from the command line's flags: the front end
//! (Toy or Bril), SSA construction, the verifier and the pass pipeline, and
//! the options the later stages take. The only place that reads the
//! environment variables of the stages below (`TOYC_VERIFY`,
//! `TOYC_REGALLOC`, `TOYC_CRANELIFT_OPT`, `TOYC_TRAMPOLINES`, `TOYC_GC*`,
//! `TOYC_TEST_CODEGEN_PANIC`).

use super::cli::BuildArgs;
use super::commands::{has_function, unknown_function};
use super::files::{check_file_warnings_on, load_main_file, report, show_warnings};
use crate::diag;
use crate::span::{FileId, SourceMap};
use std::path::Path;
use std::sync::Arc;

pub(super) fn codegen_options(build: &BuildArgs) -> crate::codegen::CodegenOptions {
    crate::codegen::CodegenOptions {
        optimize: build.opt.level > 0,
        // `TOYC_CRANELIFT_OPT=speed`: Cranelift's e-graph optimizer at -O1
        // and up (for measurements).
        egraph: build.opt.level > 0
            && std::env::var("TOYC_CRANELIFT_OPT").ok().as_deref() == Some("speed"),
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
        pool: pool_for(build),
        // `TOYC_TRAMPOLINES=compiled`: see the field.
        compiled_trampolines: std::env::var("TOYC_TRAMPOLINES").ok().as_deref() == Some("compiled"),
    }
}

/// The collector's configuration: `TOYC_GC=off` (no collection, for
/// comparison), `TOYC_GC_STRESS=1` (a collection at every safepoint),
/// `TOYC_GC_STATS=1` or `--gc-stats` (statistics on stderr at exit).
pub(super) fn gc_config(stats_flag: bool) -> crate::runtime::gc::GcConfig {
    let var = |name: &str| std::env::var(name).ok();
    crate::runtime::gc::GcConfig {
        collect: var("TOYC_GC").as_deref() != Some("off"),
        stress: var("TOYC_GC_STRESS").as_deref() == Some("1"),
        stats: stats_flag || var("TOYC_GC_STATS").as_deref() == Some("1"),
    }
}

/// The worker threads of one compilation, shared by SSA construction, the
/// function passes and Cranelift: `--threads N` runs every stage on N
/// threads whatever the program's size; by default one per core, for the
/// stages whose work reaches [`crate::par::MIN_PARALLEL_WORK`] statements
/// (a smaller program starts no thread).
pub(super) fn pool_for(build: &BuildArgs) -> crate::par::Pool {
    match build.threads {
        Some(n) => crate::par::Pool::new(n, 0),
        None => crate::par::Pool::per_core(crate::par::MIN_PARALLEL_WORK),
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
    build_ir_with_args(build, sources, None, &pool_for(build))
}

/// Reads and checks a Bril program (`.bril` text or `.json`); errors are
/// reported here and give the exit code.
pub(super) fn load_bril(
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
pub(super) fn build_bril_ir(
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
/// SSA construction and the passes run on `pool`'s threads.
pub fn build_ir_with_args(
    build: &BuildArgs,
    sources: &mut SourceMap,
    main_args: Option<&[String]>,
    pool: &crate::par::Pool,
) -> Result<crate::ir::Module, i32> {
    let mut opts = pipeline_options(build)?;
    opts.pool = pool.clone();
    // A run (`main_args`) that shows no IR, remark or counter optimises
    // only what it can execute.
    opts.reachable_only = main_args.is_some()
        && matches!(opts.print_before, crate::opt::PrintSel::None)
        && matches!(opts.print_after, crate::opt::PrintSel::None)
        && opts.print_changed.is_none()
        && !opts.remarks
        && !build.stats;
    if let Some(note) = build.opt.note() {
        eprintln!("{note}");
    }
    let mut module = if crate::bril::is_bril_path(&build.file) {
        checked_ssa(build, build_bril_ir(&build.file, sources, main_args)?)?
    } else {
        let policy = build.warnings.policy();
        let (program, warnings) = crate::timing::time("parse+check", || {
            check_file_warnings_on(&build.file, sources, policy, pool)
        })
        .map_err(|diags| report(sources, &diags))?;
        show_warnings(sources, &warnings);
        let module = crate::timing::time("ssa", || {
            crate::ssa::build_module_on(Arc::new(program), pool)
        });
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
        crate::timing::time("verify", || crate::opt::verify_on(&module, pool))
            .map_err(|errors| report_verifier_failure("after the pipeline: ", errors))?;
    }
    if build.stats {
        eprint!("{}", counters.render());
    }
    Ok(module)
}

/// The module SSA construction built, after the verifier when enabled;
/// `--fn NAME` naming no function of it is a command-line error.
pub(super) fn checked_ssa(
    build: &BuildArgs,
    module: crate::ir::Module,
) -> Result<crate::ir::Module, i32> {
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
pub(super) fn report_verifier_failure(when: &str, errors: Vec<String>) -> i32 {
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
        pool: pool_for(build),
        reachable_only: false,
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
