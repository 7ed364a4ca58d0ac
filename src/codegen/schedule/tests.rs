//! [`block_order`] on functions written as IR text (values 1-based as
//! printed, `Value(n - 1)` here).

use super::block_order;
use crate::ir::{BlockId, IrCode, Value};

fn ir(text: &str) -> IrCode {
    crate::ir::parse::parse_function(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

/// The order of block `b` (1-based), as printed statement numbers.
fn order(code: &IrCode, b: u32) -> Vec<u32> {
    let (mut out, mut starts) = (Vec::new(), Vec::new());
    block_order(code, BlockId(b - 1), &mut out, &mut starts);
    out.iter().map(|v| v.0 + 1).collect()
}

/// The inner loop of an escape-time fractal: two chains written one after
/// the other interleave by earliest start (`%1` and `%4` start at once,
/// then `%2` and `%5`, ...), and the loop counter's increment and compare,
/// ready at once, come before the float chains' second steps.
#[test]
fn independent_chains_interleave_by_earliest_start() {
    let code = ir(
        "fn f(_1::float, _2::float, _3::float, _4::float, _5::float, _6::float, _7::int) -> bool
1 ─ %1 = fmul(2.0, _1)::float
│   %2 = fmul(%1, _2)::float
│   %3 = fadd(%2, _6)::float
│   %4 = fsub(_3, _4)::float
│   %5 = fadd(%4, _5)::float
│   %6 = fmul(%5, %5)::float
│   %7 = fmul(%3, %3)::float
│   %8 = iadd(_7, 1)::int
│   %9 = ilt(%8, 50)::bool
└──      return %9
",
    );
    // Starts: %1 0, %2 3, %3 6, %4 0, %5 3, %6 6, %7 9, %8 0, %9 1.
    assert_eq!(order(&code, 1), vec![1, 4, 8, 9, 2, 5, 3, 6, 7, 10]);
}

/// Loads, stores, calls and float divisions keep their places; only the
/// arithmetic between two of them moves, and never across one.
#[test]
fn other_statements_stay_in_place() {
    let code = ir("fn f(_1::[float], _2::float, _3::float) -> float
1 ─ %1 = fmul(_2, _2)::float
│   %2 = fadd(%1, 1.0)::float
│   %3 = fmul(_3, _3)::float
│   %4 = load _1[0]::float
│   %5 = fdiv(%2, %4)::float
│   %6 = fdiv(%3, %4)::float
│   %7 = fmul(%5, %5)::float
│   %8 = fadd(%7, 1.0)::float
│   %9 = fmul(%6, %6)::float
│        runtime print_float(%8)
│   %11 = fadd(%9, %8)::float
└──      return %11
");
    assert_eq!(order(&code, 1), vec![1, 3, 2, 4, 5, 6, 7, 9, 8, 10, 11, 12]);
}

/// `sqrt` is one instruction and schedulable, with its latency: what
/// does not wait for it goes before what does.
#[test]
fn sqrt_is_scheduled_with_its_latency() {
    let code = ir("fn f(_1::float, _2::float) -> float
1 ─ %1 = runtime sqrt(_1)::float
│   %2 = fmul(%1, 2.0)::float
│   %3 = fmul(_2, _2)::float
│   %4 = fadd(%3, 1.0)::float
│   %5 = fadd(%2, %4)::float
└──      return %5
");
    // Starts: %1 0, %2 15, %3 0, %4 3, %5 18.
    assert_eq!(order(&code, 1), vec![1, 3, 4, 2, 5, 6]);
}

/// A run that is one chain, or of fewer than three statements, is left as
/// it is.
#[test]
fn dependent_runs_keep_their_order() {
    let code = ir("fn f(_1::int, _2::int) -> int
1 ─ %1 = imul(_1, _2)::int
│   %2 = iadd(%1, 1)::int
│   %3 = ishl(%2, 3)::int
│   %4 = isub(_1, _2)::int
└──      return %3
");
    // %4 starts at 0 but is unused: it still moves up beside %1.
    assert_eq!(order(&code, 1), vec![1, 4, 2, 3, 5]);
    let code = ir("fn f(_1::int, _2::int) -> int
1 ─ %1 = iadd(_1, _2)::int
│   %2 = imul(%1, %1)::int
│   %3 = isub(%2, %1)::int
└──      return %3
");
    assert_eq!(order(&code, 1), vec![1, 2, 3, 4]);
}

/// A long run of independent products summed one by one: each window of
/// [`super::WINDOW`] statements puts its products first, and no statement
/// leaves its window.
#[test]
fn long_runs_are_scheduled_a_window_at_a_time() {
    let mut text = String::from("fn f(_1::float, _2::float) -> float\n");
    // %1 = 0.0 + 0.0 (a float zero), then pairs: a product and a sum.
    text.push_str("1 ─ %1 = fadd(0.0, 0.0)::float\n");
    let mut last = 1;
    for k in 0..20 {
        let p = 2 + 2 * k;
        text.push_str(&format!("│   %{p} = fmul(_1, {k}.5)::float\n"));
        text.push_str(&format!("│   %{} = fadd(%{last}, %{p})::float\n", p + 1));
        last = p + 1;
    }
    text.push_str(&format!("└──      return %{last}\n"));
    let code = ir(&text);
    let got = order(&code, 1);
    let window = super::WINDOW as u32;
    for (k, &s) in got.iter().enumerate().take(41) {
        assert_eq!(
            (s - 1) / window,
            k as u32 / window,
            "%{s} left its window: {got:?}"
        );
    }
    // The first window: %1 and the products %2, %4, ..., %16 start at
    // once, then the sums %3, %5, ..., %15 in turn.
    let first: Vec<u32> = got[..16].to_vec();
    assert_eq!(
        first,
        vec![1, 2, 4, 6, 8, 10, 12, 14, 16, 3, 5, 7, 9, 11, 13, 15]
    );
}

/// The program rooted at `path` through the -O2 pipeline (`None` when it
/// has compile errors: some examples show them).
fn optimized(path: &std::path::Path) -> Option<crate::ir::Module> {
    let mut sources = crate::span::SourceMap::new();
    let program = crate::driver::check_file(path, &mut sources).ok()?;
    let mut module = crate::ssa::build_module(std::sync::Arc::new(program));
    let opts = crate::opt::PipelineOptions {
        passes: crate::opt::default_passes(2),
        ..Default::default()
    };
    crate::opt::run_pipeline(&mut module, &opts, &mut Default::default(), &|_| {
        String::new()
    })
    .ok()?;
    Some(module)
}

/// The invariants of the module doc on every block of every function of
/// the benchmark and example programs, at -O2.
#[test]
fn orders_are_permutations_that_define_before_use() {
    use crate::ir::edit::for_each_operand;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = ["bench/toy", "examples"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("directory"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toy"))
        .collect();
    files.sort();
    let (mut out, mut starts) = (Vec::new(), Vec::new());
    let mut moved = 0;
    for path in &files {
        let Some(module) = optimized(path) else {
            continue;
        };
        for code in &module.funcs {
            for (bi, bb) in code.cfg.blocks.iter() {
                block_order(code, bi, &mut out, &mut starts);
                let ir_order: Vec<Value> = bb.values().collect();
                let mut sorted = out.clone();
                sorted.sort();
                assert_eq!(sorted, ir_order, "{}: not a permutation", code.name);
                let pos = |v: Value| out.iter().position(|&x| x == v);
                for (k, (&s, &t)) in ir_order.iter().zip(&out).enumerate() {
                    if !super::schedulable(&code.stmts.inst[s]) {
                        assert_eq!(s, t, "{} {bi}: {s} moved from {k}", code.name);
                    }
                    moved += usize::from(s != t);
                    for_each_operand(&code.stmts.inst[t], |op| {
                        if let crate::ir::Operand::Value(v) = *op
                            && let Some(p) = pos(v)
                            && !matches!(code.stmts.inst[t], crate::ir::Inst::Phi { .. })
                        {
                            assert!(
                                p < k,
                                "{} {bi}: {v} used at {k} before it is defined",
                                code.name
                            );
                        }
                    });
                }
            }
        }
    }
    assert!(moved > 0, "no statement moved in {} files", files.len());
}
