//! The inliner (`inline`, a module pass): which calls are inlined
//! (`inline.inlined`) and which must not be (`inline.skipped_*`:
//! recursion, mutual recursion, a callee too big, a caller over its growth
//! budget, a callee that never returns), the IR it leaves, exceptions
//! leaving inlined code, and the module pass kind through the pipeline
//! flags. The interpreter's output and exit code are the same before and
//! after; the IR verifier runs after every pass.

use crate::memssa_support;

use memssa_support::*;
use std::process::Command;
use toyc::opt::Counters;
use toyc::opt::inline::{MAX_CALLEE_STMTS, MIN_GROWTH};

/// Runs `passes` on `src`; checks that the interpreter's output and exit
/// code are unchanged; returns the counters, the output and the module.
fn check(
    name: &str,
    src: &str,
    passes: &[&'static str],
) -> (Counters, String, i32, toyc::ir::Module) {
    let (mut module, sources) = compile_with_sources(name, src);
    let (before, code0, _) = interp(&module, &sources);
    let c = run_passes(&mut module, passes);
    let (after, code1, _) = interp(&module, &sources);
    assert_eq!(
        (before.as_str(), code0),
        (after.as_str(), code1),
        "behaviour changed by {passes:?}"
    );
    (c, after, code1, module)
}

fn invokes(module: &toyc::ir::Module, f: &str) -> usize {
    ir_text(module, f)
        .lines()
        .filter(|l| l.contains("invoke"))
        .count()
}

#[test]
fn inlines_a_leaf_with_its_effects_and_arguments() {
    let src = "var g = 0;\n\
        fn add(a: int, b: int) -> int { g = g + 1; return a + b; }\n\
        fn main() { print(add(1, 2), add(g, 5)); }\n";
    let (c, out, _, m) = check("i1", src, &["inline"]);
    assert_eq!(out, "3 6\n");
    assert_eq!(c.get("inline.inlined"), 2);
    assert_eq!(c.get("inline.sccp.consts"), 1);
    assert_eq!(c.get("inline.simplifycfg.merged"), 4);
    // The arguments became the operands (the second call's is the load
    // between the calls, which is now the value of `add`'s `a`); the cleanup folded `1 + 2` and merged the blocks
    // split at the calls into one.
    let want = "fn main()\n \
        1 ─ %1  = load @g::int\n \
        │   %2  = iadd(%1, 1)::int\n \
        │         store @g = %2\n \
        │   %4  = load @g::int  # add::a\n \
        │   %5  = load @g::int\n \
        │   %6  = iadd(%5, 1)::int\n \
        │         store @g = %6\n \
        │   %8  = iadd(%4, 5)::int\n \
        │         runtime print_int(3)\n \
        │         runtime print_space()\n \
        │         runtime print_int(%8)\n \
        │         runtime print_newline()\n \
        └──       return\n";
    assert_eq!(ir_text(&m, "main"), want);
    // The callee itself is kept (other callers, and the printer).
    assert_eq!(ir_text(&m, "add").lines().count(), 6);
}

#[test]
fn the_default_pipeline_cleans_up_after_inlining() {
    // Constant arguments fold and the split blocks merge (the inliner's
    // cleanup): `main` becomes one block.
    let src = "fn sq(x: int) -> int { return x * x; }\n\
        fn main() { print(sq(7) + sq(2)); }\n";
    let all = toyc::opt::default_passes(2);
    let (c, out, _, m) = check("i2", src, &all);
    assert_eq!(out, "53\n");
    assert_eq!(c.get("inline.inlined"), 2);
    let want = "fn main()\n \
        1 ─      runtime print_int(53)\n \
        │        runtime print_newline()\n \
        └──      return\n";
    assert_eq!(ir_text(&m, "main"), want);
}

#[test]
fn recursion_and_mutual_recursion_are_never_inlined() {
    let src = "fn fact(n: int) -> int { if n <= 1 { return 1; } return n * fact(n - 1); }\n\
        fn even(n: int) -> bool { if n == 0 { return true; } return odd(n - 1); }\n\
        fn odd(n: int) -> bool { if n == 0 { return false; } return even(n - 1); }\n\
        fn main() { print(fact(5), even(10), odd(7)); }\n";
    let (c, out, _, m) = check("i3", src, &["inline"]);
    assert_eq!(out, "120 true true\n");
    // fact→fact, even→odd, odd→even, and main's three calls.
    assert_eq!(c.get("inline.skipped_recursive"), 6);
    assert_eq!(c.get("inline.inlined"), 0);
    assert_eq!(invokes(&m, "main"), 3);
    assert_eq!(invokes(&m, "fact"), 1);
}

#[test]
fn small_callees_of_a_recursive_function_are_inlined_into_it() {
    let src = "fn half(n: int) -> int { return n / 2; }\n\
        fn steps(n: int) -> int { if n <= 1 { return 0; } return 1 + steps(half(n)); }\n\
        fn main() { print(steps(1000)); }\n";
    let (c, out, _, m) = check("i4", src, &["inline"]);
    assert_eq!(out, "9\n");
    assert_eq!(c.get("inline.inlined"), 1); // half into steps
    assert_eq!(c.get("inline.skipped_recursive"), 2); // steps→steps, main→steps
    assert_eq!(invokes(&m, "steps"), 1);
    assert!(!ir_text(&m, "steps").contains("invoke half"));
}

/// A function of exactly `n` statements (`n >= 2`): `n - 1` additions and
/// the return.
fn sized_fn(name: &str, n: usize) -> String {
    let mut body = String::from("var s = x;");
    for k in 0..n - 1 {
        body += &format!(" s = s + {};", k + 1);
    }
    // The additions chain on `s`; constants do not fold because `x` is an
    // argument.
    format!("fn {name}(x: int) -> int {{ {body} return s; }}\n")
}

#[test]
fn a_callee_over_the_size_threshold_is_not_inlined() {
    let src = format!(
        "{}{}fn main() {{ print(fits(1), too_big(1)); }}\n",
        sized_fn("fits", MAX_CALLEE_STMTS),
        sized_fn("too_big", MAX_CALLEE_STMTS + 1)
    );
    let (mut m, _) = compile_with_sources("i5", &src);
    assert_eq!(
        m.funcs[func_index(&m, "fits")].stmts.len(),
        MAX_CALLEE_STMTS
    );
    assert_eq!(
        m.funcs[func_index(&m, "too_big")].stmts.len(),
        MAX_CALLEE_STMTS + 1
    );
    let c = run_passes(&mut m, &["inline"]);
    assert_eq!(c.get("inline.inlined"), 1);
    assert_eq!(c.get("inline.skipped_too_big"), 1);
    let main = ir_text(&m, "main");
    assert!(
        main.contains("invoke too_big(1)") && !main.contains("invoke fits"),
        "{main}"
    );
}

#[test]
fn a_caller_stops_growing_at_its_budget() {
    // main is small, so its budget is MIN_GROWTH statements: 30-statement
    // callees fit four times (120), the fifth and sixth calls stay.
    assert_eq!(MIN_GROWTH, 128);
    let src = format!(
        "{}fn main() {{ print(f(1) + f(2) + f(3) + f(4) + f(5) + f(6)); }}\n",
        sized_fn("f", 30)
    );
    let (c, out, _, m) = check("i6", &src, &["inline"]);
    assert_eq!(
        out,
        format!("{}\n", (1..=6).sum::<i64>() + 6 * (1..30).sum::<i64>())
    );
    assert_eq!(c.get("inline.inlined"), 4);
    assert_eq!(c.get("inline.skipped_budget"), 2);
    assert_eq!(invokes(&m, "main"), 2);
    assert!(ir_text(&m, "main").contains("invoke f(5)"));
}

#[test]
fn bottom_up_a_callee_is_final_before_its_callers() {
    let src = "fn c(x: int) -> int { return x + 1; }\n\
        fn b(x: int) -> int { return c(x) * 2; }\n\
        fn a(x: int) -> int { return b(x) - 3; }\n\
        fn main() { print(a(10)); }\n";
    let (c, out, _, m) = check("i7", src, &["inline"]);
    assert_eq!(out, "19\n");
    // c into b; the new b into a; the new a into main.
    assert_eq!(c.get("inline.inlined"), 3);
    for f in ["main", "a", "b"] {
        assert_eq!(invokes(&m, f), 0, "{f}: {}", ir_text(&m, f));
    }
}

#[test]
fn a_callee_that_never_returns_is_left() {
    let src = "fn fail(n: int) -> int { throw \"no \" + str(n); }\n\
        fn main() { try { print(fail(3)); } catch e { print(e); } }\n";
    let (c, out, _, _) = check("i8", src, &["inline"]);
    assert_eq!(out, "no 3\n");
    assert_eq!(c.get("inline.skipped_shape"), 1);
    assert_eq!(c.get("inline.inlined"), 0);
}

#[test]
fn an_exception_in_inlined_code_goes_to_the_callers_handler() {
    // `x` is assigned before and after the call inside the try: the
    // handler's φᶜ must see 2 (the ϒ before the call), not 3.
    let src = "fn div(a: int, b: int) -> int { return a / b; }\n\
        fn main() { var x = 1; try { x = 2; let q = div(10, 0); x = 3; print(q); } catch e { print(e, x); } print(x); }\n";
    let (c, out, _, m) = check("i9", src, &["inline"]);
    assert_eq!(out, "division by zero 2\n2\n");
    assert_eq!(c.get("inline.inlined"), 1);
    let main = ir_text(&m, "main");
    // The callee's raise now jumps to main's handler; no call, no
    // `no_exception` check and no `unwind` are left.
    assert!(main.contains("raise division_by_zero()"), "{main}");
    assert!(
        !main.contains("invoke") && !main.contains("no_exception") && !main.contains("unwind"),
        "{main}"
    );
}

#[test]
fn an_uncaught_exception_in_inlined_code_leaves_the_caller() {
    let src = "fn get(a: [int], i: int) -> int { return a[i]; }\n\
        fn main() { let a = [1, 2]; print(get(a, 1)); print(get(a, 2)); }\n";
    let (c, out, code, m) = check("i10", src, &["inline"]);
    assert_eq!((out.as_str(), code), ("2\n", 101));
    assert_eq!(c.get("inline.inlined"), 2);
    let main = ir_text(&m, "main");
    assert!(
        !main.contains("invoke")
            && main.contains("raise index_out_of_bounds")
            && main.contains("unwind"),
        "{main}"
    );
}

/// `g(x)` raises division by zero when `x > 7`, else returns `x + 1`;
/// `f(x)` makes two checked calls of `g` whose exception target `#6` has
/// a φ (10 from the first call's block, 20 from the second's), which
/// prints it and unwinds; `main` prints `f(3)` and `f(6)`.
const THROWING_CALLS: &str = "fn g(_1::int) -> int
1 ─ %1 = igt(_1, 7)::bool
└──      goto #3 if not %1
2 ─      raise division_by_zero()
└──      unwind
3 ─ %5 = iadd(_1, 1)::int
└──      return %5

fn f(_1::int) -> int
1 ─ %1 = ilt(_1, 5)::bool
└──      goto #4 if not %1
2 ─ %3 = invoke g(_1)::int
│   %4 = no_exception()::bool
└──      goto #6 if not %4
3 ─      goto #7
4 ─ %7 = invoke g(100)::int
│   %8 = no_exception()::bool
└──      goto #6 if not %8
5 ─      goto #7
6 ┄ %11 = φ (#2 => 10, #4 => 20)::int
│        runtime print_int(%11)
│        runtime print_newline()
└──      unwind
7 ┄ %15 = φ (#3 => %3, #5 => %7)::int
└──      return %15

fn main()
1 ─ %1 = invoke f(3)::int
│   %2 = no_exception()::bool
└──      goto #4 if not %2
2 ─      runtime print_int(%1)
│        runtime print_newline()
│   %6 = invoke f(6)::int
│   %7 = no_exception()::bool
└──      goto #4 if not %7
3 ─      runtime print_int(%6)
│        runtime print_newline()
└──      return
4 ┄      unwind

fn <init>()
1 ─      return
";

#[test]
fn a_phi_at_the_exception_target_gets_the_call_blocks_value_on_every_new_edge() {
    let mut m = toyc::ir::parse::parse(THROWING_CALLS).unwrap_or_else(|e| panic!("{e:?}"));
    let mut sources = toyc::span::SourceMap::new();
    sources.add("i11.ir".into(), None, THROWING_CALLS.into());
    let (before, code0, _) = interp(&m, &sources);
    assert_eq!((before.as_str(), code0), ("4\n20\n", 101));
    let c = run_passes(&mut m, &["inline"]);
    assert_eq!(interp(&m, &sources).0, before);
    assert_eq!(interp(&m, &sources).1, 101);
    // g into f twice; the new f (24 statements) into main twice.
    assert_eq!(c.get("inline.inlined"), 4);
    // g's `unwind`s jump to #6, whose φ has the old call blocks' values
    // (10, 20) on the new edges from the copies' raise blocks #3 and #5.
    // The cleanup folded `100 > 7` (the second copy always raises) and
    // merged the split blocks; the join φs folded to the one return left.
    let want = "fn f(_1::int) -> int
 1 ─ %1  = ilt(_1, 5)::bool
 └──       goto #5 if not %1
 2 ─ %3  = igt(_1, 7)::bool
 └──       goto #4 if not %3
 3 ─       raise division_by_zero()
 └──       goto #6
 4 ─ %7  = iadd(_1, 1)::int
 └──       return %7
 5 ─       raise division_by_zero()
 6 ┄ %10 = φ (#3 => 10, #5 => 20)::int
 │         runtime print_int(%10)
 │         runtime print_newline()
 └──       unwind
";
    let got = toyc::ir::print::print_function(&m.funcs[1], &m.program, None);
    assert_eq!(got, want, "{got}");
}

#[test]
fn the_module_pass_kind_works_with_every_pipeline_flag() {
    let dir = std::env::temp_dir().join(format!("toyc-inline-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("m.toy");
    std::fs::write(
        &path,
        "fn sq(x: int) -> int { return x * x; }\nfn main() { print(sq(9)); }\n",
    )
    .expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args([
            "run",
            "--passes=inline,sccp",
            "--print-before=inline",
            "--print-after=inline",
            "--stats",
            "--time-passes",
        ])
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "81\n");
    assert_eq!(out.status.code(), Some(0));
    let before = stderr
        .find("*** IR before inline ***")
        .expect("print-before");
    let after = stderr.find("*** IR after inline ***").expect("print-after");
    assert!(before < after);
    // Printed per function: before, main calls sq; after, it does not.
    assert!(
        stderr[before..after].contains("fn sq(_1::int) -> int")
            && stderr[before..after].contains("invoke sq(9)")
    );
    assert!(!stderr[after..].contains("invoke sq"), "{stderr}");
    assert!(stderr.contains("inline.inlined: 1\n"), "{stderr}");
    assert!(stderr.contains("time.pass.inline: "), "{stderr}");
    assert!(!stderr.contains("internal compiler error"), "{stderr}");
}

/// A run optimises only what it can execute
/// (`PipelineOptions::reachable_only`): a function never called, and one
/// every call of which was inlined, keep the IR they had when they became
/// unreachable; with every function optimised, the loop of the one never
/// called is rotated.
#[test]
fn a_run_leaves_functions_it_cannot_reach_as_they_are() {
    let src = "fn helper(x: int) -> int { var k = 2; k = k + 3; return x * k; }\n\
        fn unused(x: int) -> int { var k = 4; var i = 0; while i < x { k = k * 5; i += 1; } return k; }\n\
        fn main() { print(helper(7)); }\n";
    let run = |reachable_only: bool| {
        let (mut module, sources) = compile_with_sources("reach", src);
        let before = ir_text(&module, "unused");
        let opts = toyc::opt::PipelineOptions {
            passes: toyc::opt::default_passes(2),
            verify: true,
            reachable_only,
            ..Default::default()
        };
        let mut c = Counters::default();
        toyc::opt::run_pipeline(&mut module, &opts, &mut c, &|_| String::new()).expect("verifies");
        assert_eq!(interp(&module, &sources).0, "35\n");
        (before, module, c)
    };
    let (before, m, c) = run(true);
    assert_eq!(c.get("inline.inlined"), 1);
    assert_eq!(ir_text(&m, "unused"), before, "never reachable: untouched");
    assert_eq!(invokes(&m, "main"), 0);
    assert!(ir_text(&m, "main").contains("print_int(35)"));
    let (before, m, _) = run(false);
    assert_ne!(
        ir_text(&m, "unused"),
        before,
        "optimised when every function is"
    );
    // Rotated: the guard `0 < x` before the loop.
    assert!(
        ir_text(&m, "unused").contains("ilt(0, _1)"),
        "{}",
        ir_text(&m, "unused")
    );
}
