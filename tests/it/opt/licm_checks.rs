//! LICM's check hoisting (`opt/licm_checks.rs`) on rotated loops: exactly
//! which runtime checks move to the preheader with their branch, which
//! element loads follow them, and what must stay: a check after a `print`,
//! a check in a conditional part of the body, a check after another check
//! that stays, an element load the loop may write through an alias or a
//! call, a `while`-shaped loop (not known to run), and an exception edge.
//! The interpreter's output must not change; the verifiers run after every
//! pass.

use crate::memssa_support;

use memssa_support::check_output as check;

const ROT_LICM: &[&str] = &["loops", "rotate", "licm"];

fn moved(c: &toyc::opt::Counters) -> (u64, u64) {
    (
        c.get("licm.hoisted_check_branches"),
        c.get("licm.hoisted_elem_loads"),
    )
}

#[test]
fn invariant_check_and_element_load_leave_the_rotated_loop() {
    // `a[i]` with `i` fixed: its bounds check and the load move out. With
    // n == 0 the loop never runs, so a bad `i` must not raise.
    let src = "fn f(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[i] * k; } return s; }\n\
        fn main() { print(f([1, 2, 3], 1, 4), f([1, 2, 3], 7, 0)); }\n";
    let (c, out) = check("hc1", src, ROT_LICM);
    assert_eq!(out, "12 0\n");
    assert_eq!(moved(&c), (1, 1));
}

#[test]
fn nested_element_of_element_moves_in_two_rounds() {
    // a[i] and its check move; then len(a[i]) is invariant, so the check
    // of a[i][j] and the load move too.
    let src = "fn f(a: [[int]], i: int, j: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[i][j]; } return s; }\n\
        fn main() { print(f([[1, 2], [3, 4]], 1, 0, 5), f([[1]], 3, 9, 0)); }\n";
    let (c, out) = check("hc2", src, ROT_LICM);
    assert_eq!(out, "15 0\n");
    assert_eq!(moved(&c), (2, 2));
}

#[test]
fn while_shaped_loop_keeps_its_checks() {
    // Without rotation the exit test comes first: the body may not run.
    let src = "fn f(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[i]; } return s; }\n\
        fn main() { print(f([1, 2, 3], 2, 3), f([1], 5, 0)); }\n";
    let (c, out) = check("hc3", src, &["loops", "licm"]);
    assert_eq!(out, "9 0\n");
    assert_eq!(moved(&c), (0, 0));
}

#[test]
fn check_after_print_or_in_a_conditional_part_stays() {
    let src = "fn f(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { print(k); s = s + a[i]; } return s; }\n\
        fn g(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { if k > 1 { s = s + a[i]; } } return s; }\n\
        fn main() { print(f([1, 2], 1, 2), g([1, 2], 0, 4), g([1], 9, 2)); }\n";
    let (c, out) = check("hc4", src, ROT_LICM);
    assert_eq!(out, "0\n1\n4 2 0\n");
    assert_eq!(moved(&c), (0, 0));
}

#[test]
fn check_after_a_check_that_stays_stays() {
    // a[k] varies, so b[i]'s check may not raise before it.
    let src = "fn f(a: [int], b: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[k] + b[i]; } return s; }\n\
        fn main() { print(f([1, 2, 3], [5], 0, 3)); }\n";
    let (c, out) = check("hc5", src, ROT_LICM);
    assert_eq!(out, "21\n");
    assert_eq!(moved(&c), (0, 0));
}

#[test]
fn element_load_written_through_an_alias_or_a_call_stays() {
    // The store through `b` (maybe `a`) and the call that writes `[int]`
    // elements clobber `a[i]` in the loop: its check moves (it comes first
    // and the length does not change), the load does not. In `f` the check
    // of `b[0]` moves too: only quiet statements come before it.
    let src = "fn set(c: [int]) { c[0] = c[0] + 1; }\n\
        fn f(a: [int], b: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[i]; b[0] = s; } return s; }\n\
        fn g(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { s = s + a[i]; set(a); } return s; }\n\
        fn main() { let a = [1, 2]; print(f(a, a, 0, 3), g([5, 6], 0, 3)); }\n";
    let (c, out) = check("hc6", src, ROT_LICM);
    assert_eq!(out, "4 18\n");
    assert_eq!(moved(&c), (3, 0));
}

#[test]
fn a_call_that_writes_before_the_check_keeps_it() {
    let src = "var g = 0;\nfn bump() { g = g + 1; }\n\
        fn f(a: [int], i: int, n: int) -> int { var s = 0; for k in 0..n { bump(); s = s + a[i]; } return s; }\n\
        fn main() { print(f([4], 0, 3), g); }\n";
    let (c, out) = check("hc7", src, ROT_LICM);
    assert_eq!(out, "12 3\n");
    assert_eq!(moved(&c), (0, 0));
}

#[test]
fn check_in_a_try_raises_into_the_same_handler_with_the_same_values() {
    // The hoisted check raises before the first iteration; the handler sees
    // the values stored before the loop (no ϒ runs before the check).
    let src = "fn f(a: [int], i: int, n: int) -> int {\n  var s = 10;\n  var j = 0;\n  try {\n    while j < n { s = s + a[i]; j = j + 1; }\n  } catch e {\n    print(\"caught\", e, s, j);\n  }\n  return s;\n}\n\
        fn main() { print(f([1, 2, 3], 1, 3)); print(f([1, 2, 3], 7, 2)); print(f([1, 2, 3], 7, 0)); }\n";
    let (c, out) = check("hc8", src, ROT_LICM);
    assert_eq!(
        out,
        "16\ncaught index out of bounds: index 7, length 3 10 0\n10\n10\n"
    );
    assert_eq!(moved(&c), (1, 1));
}

#[test]
fn check_whose_failure_path_reads_a_loop_value_stays() {
    // After the try, `len(a)` is the load in the loop header (gvn_load
    // forwards it), and the handler continues there: hoisting the division
    // check would give the handler a path that skips that load.
    let src = "var g = 0;\n\
        fn f(a: [int], d: int) -> int { for i in 0..3 { push(a, i); }\n\
        try { while len(a) / d > a[1] + g { g += 1; } } catch e { print(\"caught:\", e); }\n\
        a[0] = 1; return g; }\n\
        fn main() { print(f([1, 2], 1)); print(f([1, 2], 0)); }\n";
    let (c, out) = check("hc_try1", src, &["gvn_load", "licm"]);
    assert_eq!(out, "3\ncaught: division by zero\n3\n");
    assert_eq!(moved(&c), (0, 0));
    // The handler reads the loop variable `x`: the check of `x % len(v)`
    // by zero stays in the loop.
    let src = "var g = 0;\n\
        fn h(v: [int]) { for x in v { try { v[x % len(v)] = 2; } catch e { g = x; throw e; } } }\n\
        fn main() { h([1, 2]); print(g); }\n";
    let (c, out) = check("hc_try2", src, ROT_LICM);
    assert_eq!(out, "0\n");
    assert_eq!(moved(&c), (0, 0));
}

#[test]
fn check_whose_handler_reads_only_outside_values_still_moves() {
    // The same loop without a read of a loop value on the failure path:
    // the invariant division check leaves the loop.
    let src = "fn f(a: [int], d: int, n: int) -> int { var s = 0;\n\
        try { for k in 0..n { s = s + a[0] / d; } } catch e { print(\"caught:\", e, len(a)); }\n\
        return s; }\n\
        fn main() { print(f([6], 2, 3)); print(f([6], 0, 3)); print(f([6], 0, 0)); }\n";
    let (c, out) = check("hc_try3", src, ROT_LICM);
    assert_eq!(out, "9\ncaught: division by zero 1\n0\n0\n");
    assert_eq!(moved(&c).0, 2);
}
