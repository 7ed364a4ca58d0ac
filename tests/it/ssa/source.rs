//! SSA construction from Toy source: φ counts (minimal and pruned), the
//! evaluation rules of loops and `&&`, folding and value numbering. The
//! verifier and the backend's translation run on every result.
use crate::ssa_support;
use ssa_support::*;
use toyc::ir::{BinaryOp, BlockId, Inst, Loc, RuntimeFn};

fn phis_in(src: &str, name: &str) -> usize {
    let m = ir_of(src);
    phis(func(&m, name))
}

#[test]
fn phi_counts() {
    let cases: &[(&str, usize)] = &[
        // Straight line.
        ("fn f(a: int) -> int { let x = a + 1; var y = x * 2; y += 3; return y; }", 0),
        // Diamond: x and y change in an arm and are used; z is not changed;
        // w changes in both arms but is dead.
        (
            "fn f(a: int, c: bool) -> int { var x = 1; var y = 2; let z = a; var w = 0;
               if c { x = a; y = 3; w = 1; } else { x = 4; w = 2; } return x + y + z; }",
            2,
        ),
        // A variable unchanged in a loop gets none.
        ("fn f(n: int) -> int { var i = 0; var s = 0; let k = n * 2; while i < n { s += k; i += 1; } return s; }", 2),
        // Nested loops: counter and s at each header.
        ("fn f(n: int) -> int { var s = 0; for i in 0..n { for j in 0..n { s += i * j; } } return s; }", 4),
        // Several breaks and a continue.
        (
            "fn f(a: bool, b: bool, c: bool) -> int { var x = 0;
               while true { if a { x = 1; break; } if b { x = 2; break; } x += 1; if c { continue; } x += 1; }
               return x; }",
            2,
        ),
        // φs that only feed each other (a swap of equal values).
        (
            "fn f(a: int, c1: bool, c2: bool) -> int { var x = a; var y = a;
               while c1 { if c2 { let t = x; x = y; y = t; } } return x + y; }",
            0,
        ),
        // A constant, a parameter copied in a loop: the φs of the header and
        // the join only merge the value from before the loop.
        (
            "fn f(c: bool, d: bool) -> int { var x = 0;
               while c { if d { x = 0; } } return x; }",
            0,
        ),
        (
            "fn f(a: int, c: bool, d: bool) -> int { var x = a;
               while c { if d { x = a; } } return x; }",
            0,
        ),
        // A variable declared in the outer loop, copied in the inner one: no
        // φ for t (its value is a throughout); one for r at the outer header.
        (
            "fn f(a: int, c: bool, d: bool, e: bool) -> int { var r = 0;
               while c { var t = a; while d { if e { t = a; } } r += t; } return r; }",
            1,
        ),
        // An else-if chain assigning one variable: one φ at the join.
        (
            "fn f(n: int) -> int { var r = 0; if n < 0 { r = -1; } else if n == 0 { r = 0; } else { r = 1; } return r; }",
            2,
        ),
    ];
    for (src, want) in cases {
        assert_eq!(
            phis_in(src, "f"),
            *want,
            "{src}\n{}",
            show(&ir_of(src), "f")
        );
    }
}

#[test]
fn value_numbering_and_folding() {
    let m = ir_of(
        "fn f(a: int) -> int { let p = a * 2; let q = a * 2; let k = 2 + 3 * 4; return p + q + k; }",
    );
    let f = func(&m, "f");
    assert_eq!(
        count(f, |i| matches!(i, Inst::Binary(BinaryOp::IMul, ..))),
        1,
        "{}",
        show(&m, "f")
    );
    assert!(f.stmts.inst.values().any(|i| matches!(
        i,
        Inst::Binary(BinaryOp::IAdd, _, toyc::ir::Operand::Int(14))
    )));
}

#[test]
fn a_local_with_one_definition_is_its_value_in_loops() {
    // `t` (a `let`) and `x` (a parameter never assigned) are read in the
    // loop as their one definition, not through a φ of the header made
    // before the loop's end is known: `t` is the constant 0 there, so
    // `s + t` folds away and only `s + x` and `i + 1` are left to add.
    let m = ir_of(
        "fn f(x: int, n: int) -> int { let t = (x - x) % 7; var s = 0; var i = 0;
           while i < n { s = s + t + x; i = i + 1; } return s; }",
    );
    let f = func(&m, "f");
    assert_eq!(phis(f), 2, "{}", show(&m, "f"));
    assert_eq!(
        count(f, |i| matches!(i, Inst::Binary(BinaryOp::IAdd, ..))),
        2,
        "{}",
        show(&m, "f")
    );
}

#[test]
fn a_for_loop_steps_in_its_body_block_unless_a_continue_needs_a_latch() {
    // No `continue`: the step `i + 1` is built in the body's block, where
    // value numbering finds the body's `i + 1`.
    let m = ir_of("fn f(n: int) -> int { var s = 0; for i in 0..n { s += i + 1; } return s; }");
    let f = func(&m, "f");
    let adds = count(f, |i| matches!(i, Inst::Binary(BinaryOp::IAdd, ..)));
    assert_eq!(adds, 2, "{}", show(&m, "f"));
    // With one, the step is in the latch both paths reach: two `i + 1`s.
    let m = ir_of(
        "fn f(n: int) -> int { var s = 0;
           for i in 0..n { s += i + 1; if s > 10 { continue; } s += 2; } return s; }",
    );
    let f = func(&m, "f");
    let one = |i: &Inst| {
        matches!(
            i,
            Inst::Binary(BinaryOp::IAdd, _, toyc::ir::Operand::Int(1))
        )
    };
    assert_eq!(count(f, one), 2, "{}", show(&m, "f"));
}

#[test]
fn range_end_is_evaluated_once() {
    let m = ir_of(
        "fn g() -> int { return 5; } fn f() -> int { var s = 0; for i in 0..g() { s += i; } return s; }",
    );
    let f = func(&m, "f");
    assert_eq!(
        count(f, |i| matches!(i, Inst::Call { .. })),
        1,
        "{}",
        show(&m, "f")
    );
    // The call is in the entry block, before the loop.
    let call = f
        .stmts
        .inst
        .values()
        .position(|i| matches!(i, Inst::Call { .. }))
        .unwrap();
    assert!(
        f.cfg.blocks[BlockId(0)].stmts.contains(&(call as u32)),
        "{}",
        show(&m, "f")
    );
}

#[test]
fn for_each_reads_the_length_in_the_loop() {
    let m =
        ir_of("fn f(a: [int]) -> int { var s = 0; for x in a { push(a, x); s += x; } return s; }");
    let f = func(&m, "f");
    let len = f
        .stmts
        .inst
        .values()
        .position(|i| {
            matches!(
                i,
                Inst::Load {
                    loc: Loc::ArrayLen,
                    ..
                }
            )
        })
        .unwrap();
    let blk = f
        .cfg
        .blocks
        .values()
        .find(|b| b.stmts.contains(&(len as u32)))
        .unwrap();
    assert!(
        blk.preds.len() == 2,
        "the length is loaded in the loop header\n{}",
        show(&m, "f")
    );
    assert_eq!(
        count(f, |i| matches!(
            i,
            Inst::Runtime {
                func: RuntimeFn::ArrayPush,
                ..
            }
        )),
        1
    );
}

#[test]
fn and_evaluates_its_right_side_only_when_needed() {
    let m = ir_of(
        "fn g(x: int) -> bool { print(x); return x > 0; }
         fn f(a: int) -> bool { return a > 0 && g(a); }",
    );
    let f = func(&m, "f");
    let call = f
        .stmts
        .inst
        .values()
        .position(|i| matches!(i, Inst::Call { .. }))
        .unwrap() as u32;
    assert!(
        !f.cfg.blocks[BlockId(0)].stmts.contains(&call),
        "the call is not in the entry block\n{}",
        show(&m, "f")
    );
    assert_eq!(phis(f), 1, "{}", show(&m, "f"));
}

#[test]
fn uncaught_errors_unwind_and_callers_check() {
    let m = ir_of(
        "fn d(a: int, b: int) -> int { return a / b; }
         fn main() { print(d(1, 0)); }",
    );
    assert_eq!(count(func(&m, "d"), |i| matches!(i, Inst::Unwind)), 1);
    assert_eq!(
        count(func(&m, "main"), |i| matches!(i, Inst::NoException)),
        1,
        "{}",
        show(&m, "main")
    );
    // A catch in the caller removes the need to unwind.
    let m = ir_of(
        "fn d(a: int, b: int) -> int { return a / b; }
         fn main() { try { print(d(1, 0)); } catch e { print(e); } }",
    );
    assert_eq!(
        count(func(&m, "main"), |i| matches!(i, Inst::Unwind)),
        0,
        "{}",
        show(&m, "main")
    );
}

#[test]
fn locals_live_into_a_handler_get_phic_and_upsilons() {
    let m = ir_of(
        "fn main() { var a = 1; var b = 2; var c = 3;
           try { a = 10; b = 20; throw \"x\"; } catch e { print(a); }
           print(c); }",
    );
    let f = func(&m, "main");
    // a is read in the handler; b is dead; c is unchanged in the region,
    // so its only ϒ is the one at the entry and it needs no φᶜ.
    assert_eq!(
        count(f, |i| matches!(i, Inst::PhiC { .. })),
        1,
        "{}",
        show(&m, "main")
    );
    assert_eq!(
        count(f, |i| matches!(i, Inst::Upsilon(_))),
        2,
        "{}",
        show(&m, "main")
    );
}
