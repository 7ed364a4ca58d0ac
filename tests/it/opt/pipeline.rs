//! The pass pipeline: the table, pass lists and their order rules, the
//! command-line flags that select them, steps inside a pass, and SCCP's
//! integer semantics. What each pass does to a function is in the
//! filetests (`tests/filetests/*.ir`, run by `tests/it/filetests.rs`).

use toyc::ir::{BlockId, IrCode};
use toyc::opt::{self, Counters};

/// Runs function pass `pass` on a function (in no module, so any call it
/// makes may read and write everything), with verification.
fn run(pass: &str, ir: &mut IrCode) -> Counters {
    let mut ctx = opt::PassCtx::for_function(true);
    match opt::find_pass(pass).expect("pass exists").run {
        opt::PassFn::Function(run) => run(ir, &mut ctx),
        opt::PassFn::Module(_) => panic!("`{pass}` is a module pass; run it on a Module"),
    }
    assert!(
        ctx.errors.is_empty(),
        "MemorySSA verifier: {:?}",
        ctx.errors
    );
    ctx.counters
}

/// The statements of `fn f() -> TY { %1 = EXPR; return %1 }` after SCCP,
/// as the printer writes them, joined by `; `.
fn fold_one(expr: &str, ty: &str) -> String {
    let text = format!("fn f() -> {ty}\n1 ─ %1 = {expr}::{ty}\n└── return %1\n");
    let mut ir = toyc::ir::parse::parse_function(&text).expect("parses");
    run("sccp", &mut ir);
    let errors = toyc::ir::verify::verify_structure(&ir);
    assert!(errors.is_empty(), "verifier: {errors:?}");
    let program = toyc::sema::hir::Program::default();
    ir.stmts
        .inst
        .keys()
        .map(|v| toyc::ir::print::statement(&ir, &program, v))
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn sccp_integer_semantics() {
    let (min, max) = (i64::MIN, i64::MAX);
    let ret_min = format!("return {min}");
    assert_eq!(fold_one(&format!("iadd({max}, 1)"), "int"), ret_min);
    assert_eq!(fold_one(&format!("idiv({min}, -1)"), "int"), ret_min);
    assert_eq!(fold_one(&format!("irem({min}, -1)"), "int"), "return 0");
    assert_eq!(fold_one("idiv(-7, 2)", "int"), "return -3");
    assert_eq!(fold_one("irem(-7, 2)", "int"), "return -1");
    assert_eq!(fold_one("ishl(1, 65)", "int"), "return 2");
    assert_eq!(fold_one("ishr(-8, 66)", "int"), "return -2");
    assert_eq!(fold_one("iult(-1, 3)", "bool"), "return false");
    // Never folded: the division by zero must still happen at run time.
    assert_eq!(
        fold_one("idiv(1, 0)", "int"),
        "%1 = idiv(1, 0)::int; return %1"
    );
    assert_eq!(
        fold_one("irem(1, 0)", "int"),
        "%1 = irem(1, 0)::int; return %1"
    );
}

#[test]
fn pipeline_table_levels_and_pass_lists() {
    assert!(opt::default_passes(0).is_empty());
    assert_eq!(opt::default_passes(1), vec!["sccp", "dce", "simplifycfg"]);
    assert_eq!(
        opt::default_passes(2),
        vec![
            "sccp",
            "dce",
            "simplifycfg",
            "inline",
            "tailrec",
            "recinline",
            "loops",
            "cse",
            "knownbits",
            "checks",
            "rotate",
            "gvn_load",
            "licm",
            "version",
            "gvn_load.late",
            "cse.late",
            "simplifycfg.late",
            "divpair",
            "dse"
        ]
    );
    assert_eq!(opt::parse_pass_list("dce,sccp"), Ok(vec!["dce", "sccp"]));
    assert_eq!(opt::parse_pass_list("none"), Ok(vec![]));
    assert_eq!(opt::parse_pass_list(""), Ok(vec![]));
    assert!(opt::parse_pass_list("none,dce").is_err());
    let err = opt::parse_pass_list("dce,bogus").unwrap_err();
    assert!(err.contains("unknown pass `bogus`"), "{err}");
    assert_eq!(err.matches("`sccp`").count(), 0, "{err}");
    assert!(
        err.contains("sccp, dce, simplifycfg,") && err.contains("cse.late"),
        "every row is listed: {err}"
    );
    let mut c = Counters::default();
    c.add("sccp.consts", 3);
    c.add("dce.removed", 1);
    c.add("dce.blocks", 0);
    assert_eq!(c.render(), "dce.removed: 1\nsccp.consts: 3\n");
}

#[test]
fn pass_table_rows_are_unique_and_explicit() {
    let names: Vec<&str> = opt::PASSES.iter().map(|p| p.name).collect();
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "row name `{n}` is not unique");
    }
    // A later run is its own row, running the same function.
    let (early, late) = (
        opt::find_pass("cse").expect("cse"),
        opt::find_pass("cse.late").expect("cse.late"),
    );
    assert!(
        matches!((early.run, late.run), (opt::PassFn::Function(a), opt::PassFn::Function(b)) if a as usize == b as usize)
    );
    // `pi` is in no default pipeline, explicitly.
    assert_eq!(opt::find_pass("pi").expect("pi").level, None);
    assert!(!opt::default_passes(2).contains(&"pi"));
    let listing = opt::describe_passes();
    assert_eq!(listing.lines().count(), opt::PASSES.len());
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("pi ") && l.contains(" -  ")),
        "{listing}"
    );
}

#[test]
fn pass_order_prerequisites_are_checked() {
    for level in 0..=2 {
        assert_eq!(
            opt::check_order(&opt::default_passes(level)),
            Ok(()),
            "-O{level}"
        );
    }
    for pass in ["licm", "rotate", "version"] {
        let err = opt::parse_pass_list(&format!("sccp,{pass},loops")).unwrap_err();
        assert!(
            err.contains(&format!("pass `{pass}` needs `loops` earlier")),
            "{err}"
        );
        assert!(opt::parse_pass_list(&format!("loops,{pass}")).is_ok());
    }
}

#[test]
fn command_line_flags_select_the_pipeline() {
    use clap::Parser;
    use toyc::driver::cli::{Cli, Command, RunArgs};
    let cli = Cli::try_parse_from([
        "toyc",
        "ir",
        "--passes=dce,sccp",
        "--print-after=all",
        "--print-before=dce",
        "--stats",
        "--time-passes",
        "f.toy",
    ])
    .expect("flags parse");
    let Command::Ir { build, .. } = cli.command else {
        panic!("not the ir command")
    };
    assert!(build.stats && build.time_passes);
    let opts = toyc::driver::pipeline_options(&build).expect("valid options");
    assert_eq!(opts.passes, vec!["dce", "sccp"]);
    assert_eq!(opts.print_after, opt::PrintSel::All);
    assert_eq!(opts.print_before, opt::PrintSel::Passes(vec!["dce".into()]));
    let cli = Cli::try_parse_from(["toyc", "run", "-O0", "--interp", "--profile", "f.toy"])
        .expect("flags parse");
    let Command::Run(RunArgs {
        build,
        interp,
        profile,
        ..
    }) = cli.command
    else {
        panic!("not the run command")
    };
    assert!(interp && profile);
    assert!(
        toyc::driver::pipeline_options(&build)
            .expect("valid")
            .passes
            .is_empty()
    );
    let cli = Cli::try_parse_from(["toyc", "run", "--passes=nope", "f.toy"]).expect("flags parse");
    let Command::Run(RunArgs { build, .. }) = cli.command else {
        panic!("not the run command")
    };
    assert_eq!(toyc::driver::pipeline_options(&build).err(), Some(2));
}

/// A step that breaks the IR: it points the entry block's range one
/// statement too far.
fn corrupting_step(ir: &mut IrCode, ctx: &mut opt::PassCtx) {
    ir.cfg.blocks[BlockId(0)].stmts.end += 1;
    ctx.counters.add("broken.edits", 1);
}

#[test]
fn a_pass_step_is_verified_and_its_counters_reported_under_the_pass() {
    let m = crate::memssa_support::compile(
        "step",
        "fn f(n: int) -> int { var s = 0; var i = 0; while i < n { s += i; i += 1; } return s; }\n\
         fn main() { print(f(4)); }\n",
    );
    let f = m.funcs.iter().find(|f| f.name == "f").expect("f");
    // A real step: `loops` as `rotate` runs it, counted under `rotate.`.
    let mut ir = f.clone();
    let mut ctx = opt::PassCtx::for_function(true);
    ctx.run_step("rotate", "loops", &mut ir, opt::loops::run);
    assert!(ctx.errors.is_empty(), "{:?}", ctx.errors);
    assert!(
        ctx.counters
            .0
            .keys()
            .all(|k| k.starts_with("rotate.loops.")),
        "{:?}",
        ctx.counters
    );
    // A broken step: the failure names the step; counters stay prefixed.
    let mut ir = f.clone();
    ctx.run_step("checks", "broken", &mut ir, corrupting_step);
    assert_eq!(ctx.counters.get("checks.broken.edits"), 1);
    assert!(
        ctx.errors
            .first()
            .is_some_and(|e| e.starts_with("after its step `broken`: fn f:")),
        "{:?}",
        ctx.errors
    );
    // Without verification nothing is checked.
    let mut quiet = opt::PassCtx::for_function(false);
    quiet.run_step("checks", "broken", &mut f.clone(), corrupting_step);
    assert!(quiet.errors.is_empty());
}

/// Records what the pipeline shows an observer: each row's counters by
/// function, in row order.
struct Rows {
    watch: bool,
    seen: Vec<(String, std::collections::BTreeMap<String, Counters>)>,
    by_function: bool,
}

impl opt::PassObserver for Rows {
    fn watches_each_row(&self) -> bool {
        self.watch
    }
    fn counts_by_function(&self) -> bool {
        self.by_function
    }
    fn after(
        &mut self,
        pass: &str,
        _module: &toyc::ir::Module,
        counters: &std::collections::BTreeMap<String, Counters>,
    ) {
        self.seen.push((pass.to_string(), counters.clone()));
    }
}

/// The -O2 pipeline with the verifier and remarks on two threads, run in
/// stages (`opt/stages.rs`: consecutive function rows per function) and
/// row by row (an observer that watches every row): the same IR, counters,
/// remarks and per-row counters by function, on every example and
/// benchmark program.
#[test]
fn stages_give_what_rows_one_by_one_give() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["examples", "bench/toy"] {
        for e in std::fs::read_dir(root.join(dir)).expect("dir") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "toy") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut staged_rows = 0;
    for path in &files {
        let src = std::fs::read_to_string(path).expect("read");
        let Ok(base) = std::panic::catch_unwind(|| crate::ssa_support::ir_of(&src)) else {
            continue;
        };
        let run = |watch: bool| {
            let mut m = toyc::ir::Module {
                funcs: base.funcs.clone(),
                program: base.program.clone(),
            };
            let opts = opt::PipelineOptions {
                passes: opt::default_passes(2),
                verify: true,
                remarks: true,
                pool: toyc::par::Pool::new(2, 0),
                ..Default::default()
            };
            let mut counters = Counters::default();
            let mut rows = Rows {
                watch,
                seen: Vec::new(),
                by_function: true,
            };
            let remarks = opt::run_pipeline_observed(&mut m, &opts, &mut counters, &mut rows)
                .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            let text: Vec<String> = m
                .funcs
                .iter()
                .map(|f| toyc::ir::print::print_function(f, &m.program, None))
                .collect();
            (text, counters, format!("{remarks:?}"), rows.seen)
        };
        let (staged, by_rows) = (run(false), run(true));
        assert_eq!(staged, by_rows, "{}", path.display());
        staged_rows += staged.3.len();
    }
    assert!(staged_rows > 100, "only {staged_rows} rows observed");
}

/// The counters by function are kept only for an observer that reads
/// them: without, every row reports none, and the module's counters are
/// the same.
#[test]
fn counters_by_function_only_for_an_observer_that_reads_them() {
    let src = "fn sq(x: int) -> int { return x * x; }\n\
               fn main() { var s = 0; for i in 0..10 { s += sq(i) + 0; } print(s); }\n";
    let run = |by_function: bool| {
        let mut m = crate::ssa_support::ir_of(src);
        let opts = opt::PipelineOptions {
            passes: opt::default_passes(2),
            ..Default::default()
        };
        let mut counters = Counters::default();
        let mut rows = Rows {
            watch: false,
            seen: Vec::new(),
            by_function,
        };
        opt::run_pipeline_observed(&mut m, &opts, &mut counters, &mut rows).expect("pipeline");
        let counted: usize = rows.seen.iter().map(|(_, by_fn)| by_fn.len()).sum();
        (counters.render(), counted, rows.seen.len())
    };
    let (with, without) = (run(true), run(false));
    assert_eq!(with.0, without.0, "module counters");
    assert_eq!(with.2, without.2, "rows observed");
    assert!(with.1 > 0, "some row counted in some function");
    assert_eq!(without.1, 0);
    assert!(with.0.contains("inline.inlined: 1"), "{}", with.0);
}
