//! The `rotate` pass: exactly which loops are rotated and which must not
//! be, that values live after a loop still reach their uses, and that the
//! program's output is unchanged. The IR verifier runs after every pass.

use crate::memssa_support;

use memssa_support::check_module as check;
use memssa_support::*;

const ROT: &[&str] = &["loops", "rotate"];

#[test]
fn simple_loop_becomes_guard_and_do_while() {
    let src = "fn sum(n: int) -> int {\n    var s = 0;\n    var i = 0;\n    while i < n {\n        s = s + i;\n        i = i + 1;\n    }\n    return s;\n}\nfn main() { print(sum(0), sum(5)); }\n";
    let (c, out, m) = check("rot_simple", src, ROT);
    assert_eq!(out, "0 10\n");
    assert_eq!(c.get("rotate.rotated"), 1);
    insta::assert_snapshot!(ir_text(&m, "sum"));
}

#[test]
fn values_of_the_header_live_after_the_loop_get_exit_phis() {
    // `i` is used after the loop; `s` too; both loops (one with a break
    // whose value reaches the exit) are rotated.
    let src = "fn f(n: int) -> int { var i = 0; while i < n { i = i + 1; } return i; }\n\
        fn g(a: [int], x: int) -> int { var i = 0; while i < len(a) { if a[i] == x { break; } i = i + 1; } return i; }\n\
        fn main() { print(f(0), f(7), g([1, 2, 3], 2), g([1, 2, 3], 9), g([], 1)); }\n";
    let (c, out, m) = check("rot_exit", src, ROT);
    assert_eq!(out, "0 7 1 3 0\n");
    assert_eq!(c.get("rotate.rotated"), 2);
    // f: the exit merges the guard's `0` and the latch's `i + 1`.
    let f = ir_text(&m, "f");
    assert!(f.contains("=> 0") && f.matches("φ").count() == 2, "{f}");
}

#[test]
fn nested_loops_are_both_rotated() {
    let src = "fn f(n: int) -> int { var s = 0; for i in 0..n { for j in 0..i { s = s + i * j; } } return s; }\n\
        fn main() { print(f(0), f(1), f(6)); }\n";
    let (c, out, _) = check("rot_nested", src, ROT);
    assert_eq!(out, "0 0 85\n");
    assert_eq!(c.get("rotate.rotated"), 2);
}

#[test]
fn headers_with_calls_are_not_rotated() {
    // A call in the test (it may throw: a copy in the guard would throw
    // before the loop).
    let src = "fn more(i: int) -> bool { return i < 3; }\n\
        fn f() -> int { var i = 0; while more(i) { i = i + 1; } return i; }\n\
        fn main() { print(f()); }\n";
    let (c, out, _) = check("rot_no", src, ROT);
    assert_eq!(out, "3\n");
    assert_eq!(c.get("rotate.rotated"), 0);
}

#[test]
fn several_latches_are_merged_then_rotated() {
    // In `g`, `continue` makes a second latch; a new block merges the two,
    // and the loop is rotated. (`h`'s if/else meets in one latch.)
    let src = "fn g(n: int) -> int { var i = 0; var s = 0; while i < n { i = i + 1; if i % 2 == 0 { continue; } s = s + i; } return s; }\n\
        fn h(a: [int]) -> int { var i = 0; var s = 0; while i < len(a) { if a[i] < 0 { i = i + 2; } else { s = s + a[i]; i = i + 1; } } return s; }\n\
        fn main() { print(g(7), g(0), h([1, -1, 5, 2]), h([])); }\n";
    let (c, out, _) = check("rot_latches", src, ROT);
    assert_eq!(out, "16 0 3 0\n");
    assert_eq!(c.get("rotate.latches_merged"), 1);
    assert_eq!(c.get("rotate.rotated"), 2);
}

#[test]
fn a_rotated_loop_is_not_rotated_again() {
    let src = "fn f(n: int) -> int { var i = 0; while i < n { i = i + 1; } return i; }\nfn main() { print(f(4)); }\n";
    let (mut m, _) = compile_with_sources("rot_twice", src);
    assert_eq!(run_passes(&mut m, ROT).get("rotate.rotated"), 1);
    let once = ir_text(&m, "f");
    assert_eq!(run_passes(&mut m, &["rotate"]).get("rotate.rotated"), 0);
    assert_eq!(ir_text(&m, "f"), once);
}

#[test]
fn loop_in_try_keeps_its_catch_values() {
    // The body raises on the first iteration (or on a later one); the
    // handler prints the values its ϒs stored.
    let src = "fn f(a: [int], k: int, n: int) -> int {\n  var s = 0;\n  var j = 0;\n  try {\n    while j < n { s = s + a[k + j]; j = j + 1; }\n  } catch e {\n    print(\"caught\", e, s, j);\n  }\n  return s;\n}\n\
        fn main() { print(f([1, 2, 3], 0, 3)); print(f([1, 2, 3], 5, 2)); print(f([1, 2, 3], 1, 5)); print(f([1, 2, 3], 9, 0)); }\n";
    let (c, out, _) = check("rot_try", src, ROT);
    assert_eq!(
        out,
        "6\ncaught index out of bounds: index 5, length 3 0 0\n0\ncaught index out of bounds: index 3, length 3 5 2\n5\n0\n"
    );
    assert_eq!(c.get("rotate.rotated"), 1);
}

#[test]
fn a_guard_on_constants_folds_away() {
    // `0 < 4` holds: the guard goes and the preheader falls into the body.
    // `10 < 4` does not: the guard skips the loop, which is then dead.
    let src = "fn f() -> int { var s = 0; for i in 0..4 { s = s + i; } return s; }\n\
        fn g() -> int { var i = 10; while i < 4 { i = i + 1; } return i; }\n\
        fn main() { print(f(), g()); }\n";
    let (c, out, m) = check("rot_const_guard", src, ROT);
    assert_eq!(out, "6 10\n");
    assert_eq!(c.get("rotate.rotated"), 2);
    let f = ir_text(&m, "f");
    assert_eq!(
        f.matches(" if not ").count(),
        1,
        "only the latch's test: {f}"
    );
    assert!(!f.contains("ilt(0, 4)"), "{f}");
    let g = ir_text(&m, "g");
    assert!(
        !g.contains(" if not ") && !g.contains("φ"),
        "no loop left: {g}"
    );
    assert!(g.contains("return 10"), "{g}");
}
