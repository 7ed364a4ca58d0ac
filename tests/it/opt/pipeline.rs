//! The passes of src/opt on hand-built IrCode: what each folds or removes,
//! and its counters. Values and blocks are written 1-based, as printed.

use toyc::ir::handbuild::ir_from_blocks;
use toyc::ir::{
    BinaryOp, BlockId, Cmp, Fact, Inst, IrCode, Operand, RaiseKind, RuntimeFn, Type, Value,
};
use toyc::opt::{self, Counters};

fn v(n: u32) -> Operand {
    Operand::Value(Value(n - 1))
}
fn b(n: u32) -> BlockId {
    BlockId(n - 1)
}
fn bin(op: BinaryOp, x: Operand, y: Operand) -> (Inst, Type) {
    let ty = match op {
        BinaryOp::ICmp(_) | BinaryOp::FCmp(_) => Type::Bool,
        BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem => {
            Type::Float
        }
        _ => Type::Int,
    };
    (Inst::Binary(op, x, y), ty)
}
fn ret(x: Operand) -> (Inst, Type) {
    (Inst::Return(Some(x)), Type::Void)
}
fn phi(pairs: &[(u32, Operand)]) -> (Inst, Type) {
    (
        Inst::Phi {
            edges: pairs.iter().map(|p| b(p.0)).collect(),
            values: pairs.iter().map(|p| p.1).collect(),
        },
        Type::Int,
    )
}
fn br(cond: Operand, dest: u32) -> (Inst, Type) {
    (
        Inst::GotoIfNot {
            cond,
            dest: b(dest),
        },
        Type::Void,
    )
}
fn goto(dest: u32) -> (Inst, Type) {
    (Inst::Goto(b(dest)), Type::Void)
}
fn print(x: Operand) -> (Inst, Type) {
    (
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![x],
        },
        Type::Void,
    )
}
/// The dump of `ir` after checking it with the verifier.
fn dump(ir: &toyc::ir::IrCode) -> String {
    let errors = toyc::ir::verify::verify_function(ir, &toyc::sema::hir::Program::default());
    assert!(
        errors.is_empty(),
        "verifier: {errors:?}\n{}",
        toyc::ir::handbuild::dump(ir)
    );
    toyc::ir::handbuild::dump(ir)
}
fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}
/// Runs function pass `pass` on a hand-built function (in no module, so
/// any call it makes may read and write everything), with verification.
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

#[test]
fn sccp_folds_through_a_loop_phi_and_a_branch() {
    // x = 5; i = φ(0, i+1) loop; y = x * 2 (constant through the φ of x);
    // if y == 10 print(1) else print(2).
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Int],
        Type::Int,
        vec![
            vec![bin(BinaryOp::IAdd, Operand::Int(2), Operand::Int(3))], // #1 %1 = 5
            vec![
                phi(&[(1, v(1)), (2, v(3))]),  // %2 x = φ(5, x)
                (Inst::Copy(v(2)), Type::Int), // %3 x' = x
                bin(BinaryOp::ICmp(Cmp::Lt), Operand::Arg(0), Operand::Int(9)), // %4
                br(v(4), 2),                   // %5 loop while !(%4)
            ],
            vec![
                bin(BinaryOp::IMul, v(2), Operand::Int(2)),
                bin(BinaryOp::ICmp(Cmp::Eq), v(6), Operand::Int(10)),
                br(v(7), 5),
            ], // #3 %6 %7 %8
            vec![print(Operand::Int(1)), ret(Operand::Int(0))], // #4 %9 %10
            vec![print(Operand::Int(2)), ret(Operand::Int(1))], // #5 %11 %12
        ],
    );
    let c = run("sccp", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2)",
            "  %1 = nothing",
            "#2 (#1,#2) -> (#3,#2)",
            "  %2 = ICmp(Lt)(_1, 9)",
            "  %3 = goto #2 if not %2",
            "#3 (#2) -> (#4)",
            "  %4 = nothing",
            "#4 (#3) -> ()",
            "  %5 = PrintInt(1)",
            "  %6 = return 0",
        ])
    );
    assert_eq!(c.get("sccp.consts"), 4); // %1, %2, %6, %7
    assert_eq!(c.get("sccp.branches"), 1);
    assert_eq!(c.get("sccp.blocks"), 1);
}

fn fold_one(op: BinaryOp, x: Operand, y: Operand) -> String {
    let stmt = bin(op, x, y);
    let ty = stmt.1.clone();
    let mut ir = ir_from_blocks("f", vec![], ty, vec![vec![stmt, ret(v(1))]]);
    run("sccp", &mut ir);
    dump(&ir)
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[test]
fn sccp_integer_semantics() {
    assert_eq!(
        fold_one(BinaryOp::IAdd, Operand::Int(i64::MAX), Operand::Int(1)),
        format!("%1 = return {}", i64::MIN)
    );
    assert_eq!(
        fold_one(BinaryOp::IDiv, Operand::Int(i64::MIN), Operand::Int(-1)),
        format!("%1 = return {}", i64::MIN)
    );
    assert_eq!(
        fold_one(BinaryOp::IRem, Operand::Int(i64::MIN), Operand::Int(-1)),
        "%1 = return 0"
    );
    assert_eq!(
        fold_one(BinaryOp::IDiv, Operand::Int(-7), Operand::Int(2)),
        "%1 = return -3"
    );
    assert_eq!(
        fold_one(BinaryOp::IRem, Operand::Int(-7), Operand::Int(2)),
        "%1 = return -1"
    );
    assert_eq!(
        fold_one(BinaryOp::IShl, Operand::Int(1), Operand::Int(65)),
        "%1 = return 2"
    );
    assert_eq!(
        fold_one(BinaryOp::IShr, Operand::Int(-8), Operand::Int(66)),
        "%1 = return -2"
    );
    assert_eq!(
        fold_one(BinaryOp::ICmp(Cmp::Ult), Operand::Int(-1), Operand::Int(3)),
        "%1 = return false"
    );
    // Never folded: the division by zero must still happen at run time.
    assert_eq!(
        fold_one(BinaryOp::IDiv, Operand::Int(1), Operand::Int(0)),
        "%2 = return %1"
    );
    assert_eq!(
        fold_one(BinaryOp::IRem, Operand::Int(1), Operand::Int(0)),
        "%2 = return %1"
    );
}

#[test]
fn sccp_keeps_the_raise_of_a_constant_division_by_zero() {
    // d = 0; if d == 0 { raise DivisionByZero; unwind } else { return 10 / d }
    let mut ir = ir_from_blocks(
        "f",
        vec![],
        Type::Int,
        vec![
            vec![
                (Inst::Copy(Operand::Int(0)), Type::Int),
                bin(BinaryOp::ICmp(Cmp::Ne), v(1), Operand::Int(0)),
                br(v(2), 3),
            ],
            vec![bin(BinaryOp::IDiv, Operand::Int(10), v(1)), ret(v(4))],
            vec![
                (
                    Inst::Raise {
                        kind: RaiseKind::DivisionByZero,
                        args: vec![],
                    },
                    Type::Void,
                ),
                (Inst::Unwind, Type::Void),
            ],
        ],
    );
    let c = run("sccp", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2)",
            "  %1 = goto #2",
            "#2 (#1) -> ()",
            "  %2 = raise DivisionByZero()",
            "  %3 = unwind"
        ])
    );
    assert_eq!(c.get("sccp.branches"), 1);
}

#[test]
fn dce_removes_a_dead_phi_cycle_but_keeps_effects() {
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Int],
        Type::Int,
        vec![
            vec![print(Operand::Int(0))],
            vec![
                phi(&[(1, Operand::Int(0)), (2, v(3))]),
                bin(BinaryOp::IAdd, v(2), Operand::Int(1)),
                bin(BinaryOp::ICmp(Cmp::Lt), Operand::Arg(0), Operand::Int(3)),
                br(v(4), 2),
            ],
            vec![ret(Operand::Int(0))],
        ],
    );
    let c = run("dce", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2)",
            "  %1 = PrintInt(0)",
            "#2 (#1,#2) -> (#3,#2)",
            "  %2 = ICmp(Lt)(_1, 3)",
            "  %3 = goto #2 if not %2",
            "#3 (#2) -> ()",
            "  %4 = return 0",
        ])
    );
    assert_eq!(c.get("dce.removed"), 2);
}

#[test]
fn dce_keeps_the_fact_bounds_of_a_live_pi() {
    // %2 = _1 + 1 is used only as the bound of the π, which is printed:
    // a fact bound is a use, so %2 stays; the unused %3 goes.
    let pi = |hi: Operand| {
        (
            Inst::Pi {
                value: Operand::Arg(0),
                fact: Fact::Range {
                    lo: None,
                    hi: Some(hi),
                },
            },
            Type::Int,
        )
    };
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Int],
        Type::Int,
        vec![vec![
            bin(BinaryOp::IAdd, Operand::Arg(0), Operand::Int(1)),
            pi(v(1)),
            bin(BinaryOp::IMul, Operand::Arg(0), Operand::Int(2)),
            print(v(2)),
            ret(Operand::Int(0)),
        ]],
    );
    let c = run("dce", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> ()",
            "  %1 = IAdd(_1, 1)",
            "  %2 = π (_1, ..%1)",
            "  %3 = PrintInt(%2)",
            "  %4 = return 0",
        ])
    );
    assert_eq!(c.get("dce.removed"), 1);
}

#[test]
fn simplifycfg_threads_empty_blocks_and_merges_chains() {
    // #1 -> #2 (empty) -> #4 ; #1 -> #3 (empty) -> #4 ; #4 -> #5 -> return
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Bool],
        Type::Int,
        vec![
            vec![br(Operand::Arg(0), 3)],                                      // #1
            vec![goto(4)],                                                     // #2
            vec![goto(4)],                                                     // #3
            vec![phi(&[(2, Operand::Int(1)), (3, Operand::Int(2))]), goto(5)], // #4 %4 %5
            vec![print(v(4)), goto(6)],                                        // #5
            vec![ret(Operand::Int(0))],                                        // #6
        ],
    );
    let c = run("simplifycfg", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2,#3)",
            "  %1 = goto #3 if not _1",
            "#2 (#1) -> (#3)",
            "  %2 = goto #3",
            "#3 (#1,#2) -> ()",
            "  %3 = φ (#2 => 1, #1 => 2)",
            "  %4 = PrintInt(%3)",
            "  %5 = return 0",
        ])
    );
    assert_eq!(c.get("simplifycfg.merged"), 2);
    assert!(c.get("simplifycfg.threaded") >= 1);
}

#[test]
fn simplifycfg_folds_a_constant_branch() {
    let mut ir = ir_from_blocks(
        "f",
        vec![],
        Type::Int,
        vec![
            vec![br(Operand::Bool(false), 3)],
            vec![print(Operand::Int(1)), goto(4)],
            vec![print(Operand::Int(2)), goto(4)],
            vec![
                phi(&[(2, Operand::Int(1)), (3, Operand::Int(2))]),
                ret(v(6)),
            ],
        ],
    );
    let c = run("simplifycfg", &mut ir);
    assert_eq!(
        dump(&ir),
        text(&["#1 () -> ()", "  %1 = PrintInt(2)", "  %2 = return 2"])
    );
    assert_eq!(c.get("simplifycfg.branches"), 1);
}

#[test]
fn loops_get_a_dedicated_preheader_and_exit() {
    // Loop #3 with a dedicated preheader #2; its exit #4 is also entered
    // from #1, so the exit edge gets a block of its own.
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Bool, Type::Int],
        Type::Int,
        vec![
            vec![br(Operand::Arg(0), 4)], // #1 %1: true -> #2, false -> #4
            vec![print(Operand::Int(2))], // #2 %2 falls into #3
            vec![
                phi(&[(2, Operand::Int(0)), (3, v(4))]),             // #3 %3
                bin(BinaryOp::IAdd, v(3), Operand::Int(1)),          // %4
                bin(BinaryOp::ICmp(Cmp::Lt), v(4), Operand::Arg(1)), // %5
                br(v(5), 3),                                         // %6: loop back while %5 false
            ],
            vec![phi(&[(1, Operand::Int(-1)), (3, v(4))]), ret(v(7))], // #4 %7 %8
        ],
    );
    let c = run("loops", &mut ir);
    assert_eq!(c.get("loops.exits"), 1);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2,#5)",
            "  %1 = goto #5 if not _1",
            "#2 (#1) -> (#3)",
            "  %2 = PrintInt(2)",
            "#3 (#2,#3) -> (#4,#3)",
            "  %3 = φ (#2 => 0, #3 => %4)",
            "  %4 = IAdd(%3, 1)",
            "  %5 = ICmp(Lt)(%4, _2)",
            "  %6 = goto #3 if not %5",
            "#4 (#3) -> (#5)",
            "  %7 = goto #5",
            "#5 (#1,#4) -> ()",
            "  %8 = φ (#1 => -1, #4 => %4)",
            "  %9 = return %8",
        ])
    );
}

#[test]
fn loops_merge_two_outside_entries_in_a_preheader_phi() {
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Bool, Type::Int],
        Type::Int,
        vec![
            vec![br(Operand::Arg(0), 3)], // #1 -> #2 | #3
            vec![goto(3)],                // #2 -> #3 (second entry edge... see below)
            vec![
                phi(&[(1, Operand::Int(10)), (2, Operand::Int(20)), (3, v(4))]),
                bin(BinaryOp::IAdd, v(3), Operand::Int(1)),
                bin(BinaryOp::ICmp(Cmp::Lt), v(4), Operand::Arg(1)),
                br(v(5), 3),
            ],
            vec![ret(v(4))],
        ],
    );
    let c = run("loops", &mut ir);
    assert_eq!(c.get("loops.preheaders"), 1);
    assert_eq!(
        dump(&ir),
        text(&[
            "#1 () -> (#2,#3)",
            "  %1 = goto #3 if not _1",
            "#2 (#1) -> (#3)",
            "  %2 = goto #3",
            "#3 (#1,#2) -> (#4)",
            "  %3 = φ (#1 => 10, #2 => 20)",
            "#4 (#3,#4) -> (#5,#4)",
            "  %4 = φ (#4 => %5, #3 => %3)",
            "  %5 = IAdd(%4, 1)",
            "  %6 = ICmp(Lt)(%5, _2)",
            "  %7 = goto #4 if not %6",
            "#5 (#4) -> ()",
            "  %8 = return %5",
        ])
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
            "loops",
            "cse",
            "checks",
            "rotate",
            "gvn_load",
            "licm",
            "gvn_load.late",
            "cse.late",
            "simplifycfg.late",
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
    for pass in ["licm", "rotate"] {
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
    use toyc::driver::cli::{Cli, Command};
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
    assert_eq!(opts.print_before, opt::PrintSel::Pass("dce".into()));
    let cli = Cli::try_parse_from(["toyc", "run", "-O0", "--interp", "--profile", "f.toy"])
        .expect("flags parse");
    let Command::Run {
        build,
        interp,
        profile,
        ..
    } = cli.command
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
    let Command::Run { build, .. } = cli.command else {
        panic!("not the run command")
    };
    assert_eq!(toyc::driver::pipeline_options(&build).err(), Some(2));
}

/// A step that breaks the IR: it points the entry block's range one
/// statement too far.
fn corrupting_step(ir: &mut IrCode, ctx: &mut opt::PassCtx) {
    ir.cfg.blocks[0].stmts.end += 1;
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
