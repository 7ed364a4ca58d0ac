//! Scalar promotion of array elements (`licm.promoted`): `a[i]` with `a`
//! and `i` defined outside the loop and `i` known in bounds at the
//! preheader lives in a register inside the loop; what must stay in memory:
//! a possibly aliasing array, a call that reads or writes elements, an
//! index that varies, a `print` of the array, an element not known to
//! exist, arrays whose length may shrink, and LLVM #195513's array variable
//! that names the stored array in one iteration only. The interpreter's
//! output is the same before and after; the IR and MemorySSA verifiers run
//! after every pass.

use crate::memssa_support;

use memssa_support::*;

const LICM: &[&str] = &["loops", "checks", "licm"];

/// The lines of the tests' single loop: from the first φ (the header)
/// to its back edge `goto {header}`.
fn loop_lines(ir: &str, header: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in ir.lines() {
        if l.contains(" = φ") {
            inside = true;
        }
        if inside {
            out.push(l.to_string());
            if l.trim_end().ends_with(&format!("goto {header}")) {
                break;
            }
        }
    }
    out
}

#[test]
fn promotes_an_accumulator_element() {
    // `acc[0]` of a fresh `[0; 1]`: constant index below the constant
    // length, and `x` (an argument) is a different object. One load before
    // the loop, the store at the exit.
    let src = "fn sum(x: [int]) -> int { let acc = [0; 1]; var j = 0; \
        while j < len(x) { acc[0] = acc[0] + x[j]; j = j + 1; } return acc[0]; }\n\
        fn main() { print(sum([1, 2, 3, 4]), sum([])); }\n";
    let (c, out, ir) = check("e1", src, LICM, "sum");
    assert_eq!(out, "10 0\n");
    assert_eq!(c.get("licm.promoted"), 1);
    let want = "fn sum(_1::[int]) -> int  # x\n \
        1 ─ %1  = new [int](len 1, fill 0)::[int]  # acc\n \
        │   %2  = load len(_1)::int\n \
        └── %3  = load %1[0]::int\n \
        2 ┄ %4  = φ (#1 => %3, #3 => %9)::int\n \
        │   %5  = φ (#1 => 0, #3 => %10)::int  # j\n \
        │   %6  = ilt(%5, %2)::bool\n \
        └──       goto #4 if not %6\n \
        3 ─ %8  = load _1[%5]::int\n \
        │   %9  = iadd(%4, %8)::int\n \
        │   %10 = iadd(%5, 1)::int  # j\n \
        └──       goto #2\n \
        4 ─       store %1[0] = %4\n \
        │   %13 = load %1[0]::int\n \
        └──       return %13\n";
    assert_eq!(ir, want);
}

#[test]
fn a_store_in_the_preheader_is_the_value_entering_the_loop() {
    // `acc[0] = 0` ends the preheader: the promoted value starts as 0, no
    // load is added.
    let src = "fn sum(x: [int]) -> int { let acc = [0; 1]; acc[0] = 0; var j = 0; \
        while j < len(x) { acc[0] = acc[0] + x[j]; j = j + 1; } return acc[0]; }\n\
        fn main() { print(sum([1, 2, 3, 4]), sum([])); }\n";
    let (c, out, ir) = check("e1b", src, LICM, "sum");
    assert_eq!(out, "10 0\n");
    assert_eq!(c.get("licm.promoted"), 1);
    let want = "fn sum(_1::[int]) -> int  # x\n \
        1 ─ %1  = new [int](len 1, fill 0)::[int]  # acc\n \
        │         store %1[0] = 0\n \
        └── %3  = load len(_1)::int\n \
        2 ┄ %4  = φ (#1 => 0, #3 => %9)::int\n \
        │   %5  = φ (#1 => 0, #3 => %10)::int  # j\n \
        │   %6  = ilt(%5, %3)::bool\n \
        └──       goto #4 if not %6\n \
        3 ─ %8  = load _1[%5]::int\n \
        │   %9  = iadd(%4, %8)::int\n \
        │   %10 = iadd(%5, 1)::int  # j\n \
        └──       goto #2\n \
        4 ─       store %1[0] = %4\n \
        │   %13 = load %1[0]::int\n \
        └──       return %13\n";
    assert_eq!(ir, want);
}

#[test]
fn promotes_after_a_dominating_bounds_check_with_a_store_on_some_paths() {
    // `h[k] = 0` checks `k` against `len(h)` before the loop; the loop
    // stores `h[k]` only when `x > 0.5`, so the exit store writes back the
    // unchanged value on the other paths (the element exists: allowed).
    // `xs` holds floats: a different class.
    let src = "fn hist(h: [int], xs: [float], k: int) { h[k] = 0; for x in xs { if x > 0.5 { h[k] = h[k] + 1; } } }\n\
        fn main() { let h = [9, 9, 9]; hist(h, [0.1, 0.7, 0.9, 0.2], 1); print(h); hist(h, [], 2); print(h); }\n";
    let (c, out, ir) = check("e2", src, LICM, "hist");
    assert_eq!(out, "[9, 2, 9]\n[9, 2, 0]\n");
    assert_eq!(c.get("licm.promoted"), 1);
    // The store before the loop (its value enters the loop), the exit
    // store; no load is left.
    assert_eq!(count(&ir, "store _1[_3]"), 2, "{ir}");
    assert_eq!(count(&ir, "load _1[_3]"), 0, "{ir}");
    assert!(
        loop_lines(&ir, "#3").iter().all(|l| !l.contains("_1[")),
        "{ir}"
    );
    // The same through the π fact of the check (`pi` keeps its πs).
    let (c, _, _) = check("e2pi", src, &["loops", "pi", "licm"], "hist");
    assert_eq!(c.get("licm.promoted"), 1);
}

#[test]
fn promotes_distinct_elements_of_one_array() {
    // a[0] and a[1] (constant indices that differ), and a[i], a[i + 1] with
    // the invariant root i; `i + 1` computed twice is one location. The
    // fresh `t` allocated in the loop is a different array every time.
    let src = "fn two(n: int) -> int { let a = [0; 2]; var j = 0; \
        while j < n { a[0] = a[0] + j; a[1] = a[1] + a[0]; let t = [j; 2]; t[0] = t[1] + a[1]; print(t[0]); j = j + 1; } \
        return a[0] * 1000 + a[1]; }\n\
        fn pair(a: [int], i: int, n: int) { a[i] = 0; a[i + 1] = 1; var j = 0; \
        while j < n { a[i] = a[i] + a[i + 1]; a[i + 1] = a[i + 1] * 2; j = j + 1; } }\n\
        fn main() { print(two(3), two(0)); let p = [5, 5, 5, 5]; pair(p, 1, 4); print(p); pair(p, 2, 0); print(p); }\n";
    let (c, out, two) = check("e3", src, LICM, "two");
    assert_eq!(out, "0\n2\n6\n3004 0\n[5, 15, 16, 5]\n[5, 15, 0, 1]\n");
    assert_eq!(c.get("licm.promoted"), 4);
    assert_eq!(count(&two, "load %1[0]"), 2, "{two}"); // preheader + return
    assert_eq!(count(&two, "load %1[1]"), 2, "{two}");
    let (_, _, pair) = check("e3b", src, LICM, "pair");
    assert!(
        loop_lines(&pair, "#4")
            .iter()
            .all(|l| !l.contains("load _1[") && !l.contains("store _1[")),
        "{pair}"
    );
}

#[test]
fn does_not_promote_through_a_shared_array() {
    // a and b are [int] arguments: they may be one array (first call).
    let src = "fn shared(a: [int], b: [int], n: int) { a[0] = 0; var j = 0; while j < n { a[0] = a[0] + b[j]; j = j + 1; } }\n\
        fn main() { let x = [1, 2, 3]; shared(x, x, 3); print(x); let y = [1, 2, 3]; shared(x, y, 3); print(x); }\n";
    let (c, out, _) = check("e4", src, LICM, "shared");
    assert_eq!(out, "[5, 2, 3]\n[6, 2, 3]\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn calls_block_promotion_only_when_they_touch_such_elements() {
    // bump writes [int] elements, peek reads them: neither loop promotes.
    // scale writes only [float] elements: c[0] is promoted around it.
    let src = "fn bump(a: [int]) { a[0] = a[0] + 100; }\nfn peek(a: [int]) -> int { return a[1]; }\n\
        fn scale(f: [float]) { f[0] = f[0] * 2.0; }\n\
        fn w(n: int) -> int { let a = [0; 2]; var j = 0; while j < n { a[0] = a[0] + 1; bump(a); j = j + 1; } return a[0]; }\n\
        fn r(n: int) -> int { let c = [0; 2]; var j = 0; var s = 0; while j < n { c[1] = c[1] + 1; s = s + peek(c); j = j + 1; } return s; }\n\
        fn ok(n: int) -> int { let c = [0; 1]; let f = [1.0]; var j = 0; while j < n { c[0] = c[0] + 1; scale(f); j = j + 1; } print(f[0]); return c[0]; }\n\
        fn main() { print(w(3), r(3), ok(3)); }\n";
    let (c, out, _) = check("e5", src, LICM, "w");
    assert_eq!(out, "8.0\n303 6 3\n");
    assert_eq!(c.get("licm.promoted"), 1);
    for f in ["w", "r"] {
        let (_, _, ir) = check("e5b", src, LICM, f);
        assert!(
            loop_lines(&ir, "#2")
                .iter()
                .any(|l| l.contains("store %1[")),
            "{f} keeps its stores:\n{ir}"
        );
    }
    let (_, _, ok) = check("e5c", src, LICM, "ok");
    // Stored at the normal exit and on the unwind edge of `invoke scale`.
    assert_eq!(count(&ok, "store %1[0]"), 2, "{ok}");
}

#[test]
fn does_not_promote_with_a_variant_index_or_a_print() {
    // a[j % 4] may be a[0] in some iteration; print(a) reads every element.
    let src = "fn variant(n: int) -> int { let a = [0; 4]; var j = 0; var s = 0; while j < n { a[0] = a[0] + 1; s = s + a[j % 4]; j = j + 1; } return s; }\n\
        fn printed(n: int) { let a = [0; 2]; a[1] = 5; var j = 0; while j < n { a[1] = a[1] + 1; print(a); j = j + 1; } }\n\
        fn main() { print(variant(6)); printed(2); }\n";
    let (c, out, _) = check("e6", src, LICM, "variant");
    assert_eq!(out, "6\n[0, 6]\n[0, 7]\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn does_not_promote_an_element_not_known_to_exist() {
    // No check before the loop: a load of a[i] in the preheader would raise
    // for a loop that runs zero times (first call).
    let src = "fn f(a: [int], i: int, n: int) -> int { var j = 0; while j < n { a[i] = a[i] + j; j = j + 1; } return j; }\n\
        fn main() { print(f([1, 2], 5, 0)); let a = [1, 2]; print(f(a, 1, 3), a); print(f(a, 5, 1)); }\n";
    let (c, out, _) = check("e7", src, LICM, "f");
    assert_eq!(out, "0\n3 [1, 5]\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn does_not_promote_when_lengths_may_shrink() {
    // a[2] was checked, then pop shrinks a: a preheader load would be out of
    // bounds. Any pop of an [int] in the function disables the facts.
    let src = "fn popped(n: int) -> int { let a = [1, 2, 3]; a[2] = 7; pop(a); var j = 0; \
        try { while j < n { a[2] = a[2] + 1; j = j + 1; } } catch e { print(e); } return j; }\n\
        fn main() { print(popped(2), popped(0)); }\n";
    let (c, out, _) = check("e8", src, LICM, "popped");
    assert_eq!(out, "index out of bounds: index 2, length 2\n0 0\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn llvm_195513_an_array_variable_that_names_the_stored_array_in_one_iteration() {
    // `first`: p is a before the loop and b inside it: p[0] reads a[0] in
    // the first iteration only, before the store to a[0] (LLVM #195513's
    // shape, where the clobber walk of p[0] answers "outside the loop").
    // `later`: p names a from the second iteration on. Fresh arrays in
    // `local` (the walker can tell a and b apart there). None is promoted.
    let src = "fn first(a: [int], b: [int]) -> int { var p = a; var r = 0; var k = 0; a[0] = 0; \
        while k < 3 { r = r + p[0]; p = b; a[0] = a[0] + 1; k = k + 1; } return r * 100 + a[0]; }\n\
        fn later(a: [int], b: [int]) -> int { var p = b; var r = 0; var k = 0; a[0] = 0; \
        while k < 3 { r = r + p[0]; p = a; a[0] = a[0] + 1; k = k + 1; } return r * 100 + a[0]; }\n\
        fn local() -> int { let a = [0; 2]; let b = [5; 2]; var p = b; var r = 0; var k = 0; \
        while k < 3 { r = r + p[0]; p = a; a[0] = a[0] + 1; k = k + 1; } return r * 100 + a[0]; }\n\
        fn main() { let a = [7, 7]; let b = [5, 5]; print(first(a, b), later(a, b), local()); print(first(a, a), later(b, b)); }\n";
    let (c, out, _) = check("e9", src, LICM, "first");
    assert_eq!(out, "1003 803 803\n303 303\n");
    assert_eq!(c.get("licm.promoted"), 0);
    let all = toyc::opt::default_passes(2);
    let (c, out, _) = check("e9b", src, &all, "first");
    assert_eq!(out, "1003 803 803\n303 303\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn an_exception_leaving_the_loop_sees_the_promoted_element() {
    // A throw and a division by zero inside the loop, caught by a try
    // around it in the same function (count) and in the caller (outer):
    // every raise edge is an exit and stores the element first.
    let src = "fn count(xs: [int], stop: int) -> int { let acc = [0; 2]; acc[1] = 0; \
        try { for x in xs { acc[1] = acc[1] + x; if x == stop { throw \"stop\"; } acc[1] = acc[1] + 100 / x; } } \
        catch e { print(e, acc[1]); } return acc[1]; }\n\
        fn outer(h: [float], xs: [int]) { h[0] = 0.0; for x in xs { h[0] = h[0] + 1.0; h[0] = h[0] + float(10 / x); } }\n\
        fn main() { print(count([1, 2, 5], 7)); print(count([1, 2, 5, 4], 5)); print(count([1, 0, 5], 7)); \
        let h = [0.0]; try { outer(h, [5, 2, 0, 1]); } catch e { print(e, h[0]); } print(h[0]); }\n";
    let (c, out, count_ir) = check("e10", src, LICM, "count");
    assert_eq!(
        out,
        "178\nstop 158\n158\ndivision by zero 101\n101\ndivision by zero 10.0\n10.0\n"
    );
    assert_eq!(c.get("licm.promoted"), 2);
    // count: normal exit, the throw and the division by zero.
    assert_eq!(count(&count_ir, "store %1[1]"), 1 + 3, "{count_ir}");
    let (_, _, outer) = check("e10b", src, LICM, "outer");
    assert!(count(&outer, "store _1[0]") >= 3, "{outer}");
    assert_eq!(count(&outer, "load _1[0]"), 0, "{outer}");
}

#[test]
fn element_promotion_survives_the_full_pipeline() {
    let src = "fn sum(x: [int]) -> int { let acc = [0; 1]; acc[0] = 0; var j = 0; \
        while j < len(x) { acc[0] = acc[0] + x[j]; j = j + 1; } return acc[0]; }\n\
        fn main() { let a = [0; 100]; for i in 0..100 { a[i] = i; } print(sum(a)); }\n";
    // The -O2 pipeline without the inliner (which would promote a second
    // copy of the loop in main) and without `rotate`: its guard makes the
    // return's load a merge of the zero-trip path and the loop exit, and
    // `gvn_load` forwards no φ of two stores, so `acc` would stay.
    let all: Vec<&'static str> = toyc::opt::default_passes(2)
        .into_iter()
        .filter(|p| *p != "inline" && *p != "rotate")
        .collect();
    let (c, out, ir) = check("e11", src, &all, "sum");
    assert_eq!(out, "4950\n");
    assert_eq!(c.get("licm.promoted"), 1);
    // After promotion, the second `gvn_load` forwards the exit store to the
    // return's load and `dse` removes the now unread allocation: the sum is
    // a φ and `acc` is gone.
    assert!(
        !ir.contains("load %") && !ir.contains("store ") && !ir.contains("new ["),
        "{ir}"
    );
}

#[test]
fn promotes_after_rotation_hoists_the_elements_check() {
    // No check of h[k] before the loop in the source: `rotate` makes the
    // body run at least once past its guard, `licm` hoists the invariant
    // check with its branch into the preheader, and then h[k] is known in
    // bounds there. f(h, 7, 0) does not raise; f(h, 7, 2) does, before the
    // loop, as at -O0.
    let src = "fn f(h: [int], k: int, n: int) -> int { var j = 0; while j < n { h[k] = h[k] + j; j = j + 1; } return j; }\n\
        fn main() { let h = [1, 2]; print(f(h, 1, 4), h); print(f(h, 7, 0), h); print(f(h, 7, 2)); }\n";
    let passes = ["loops", "checks", "rotate", "gvn_load", "licm"];
    let (c, out, ir) = check("e12", src, &passes, "f");
    assert_eq!(out, "4 [1, 8]\n0 [1, 8]\n");
    assert_eq!(c.get("licm.promoted"), 1);
    assert_eq!(count(&ir, "load _1[_2]"), 1, "{ir}");
    assert_eq!(count(&ir, "store _1[_2]"), 1, "{ir}");
}

#[test]
fn does_not_promote_elements_of_rows_that_may_be_one_array() {
    // c[i][j] += a[i][k] * b[k][j]: the row c[i] is loaded from c, and b[k]
    // from b, so they may be the same row object (the second call passes
    // one matrix three times): c[i][j] stays in memory.
    let src = "fn matmul(n: int, a: [[float]], b: [[float]], c: [[float]]) { var i = 0; while i < n { var j = 0; \
        while j < n { var k = 0; c[i][j] = 0.0; while k < n { c[i][j] = c[i][j] + a[i][k] * b[k][j]; k = k + 1; } j = j + 1; } \
        i = i + 1; } }\n\
        fn mk(n: int, v: float) -> [[float]] { let m = [[0.0; 1]; 0]; var i = 0; while i < n { push(m, [v; n]); i = i + 1; } return m; }\n\
        fn main() { let a = mk(3, 1.0); let b = mk(3, 2.0); let c = mk(3, 0.0); matmul(3, a, b, c); print(c); matmul(3, a, a, a); print(a); }\n";
    let passes = ["loops", "checks", "rotate", "gvn_load", "licm"];
    let (c, out, _) = check("e13", src, &passes, "matmul");
    assert_eq!(
        out,
        "[[6.0, 6.0, 6.0], [6.0, 6.0, 6.0], [6.0, 6.0, 6.0]]\n[[2.0, 1.0, 2.0], [1.0, 3.0, 16.0], [2.0, 16.0, 67860.0]]\n"
    );
    assert_eq!(c.get("licm.promoted"), 0);
}
