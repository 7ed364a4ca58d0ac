//! The `cse` pass: which pure operations merge and which branches fold, and
//! what must stay apart. Each case runs `toyc ir --passes=... --stats` (a
//! debug build: the verifier runs after every pass) on a Toy program.

use super::toy_run::{stat, toyc};

/// (IR text of function `f`, stats text) after `passes`.
fn ir(passes: &str, src: &str) -> (String, String) {
    let (out, err, code) = toyc(
        &["ir", &format!("--passes={passes}"), "--stats", "--fn", "f"],
        src,
    );
    assert_eq!(code, 0, "toyc ir failed: {err}");
    (out, err)
}

fn run(args: &[&str], src: &str) -> String {
    let (out, err, code) = toyc(args, src);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn read_modify_write_keeps_one_bounds_check() {
    let src = "fn f(a: [int], i: int) { a[i] = a[i] + 1; }\nfn main() { let a = [1, 2]; f(a, 1); print(a[1]); }";
    let (before, _) = ir("gvn_load", src);
    assert_eq!(
        before.matches("raise index_out_of_bounds").count(),
        2,
        "{before}"
    );
    let (after, stats) = ir("gvn_load,cse,simplifycfg", src);
    assert_eq!(stat(&stats, "cse.replaced"), 1, "{stats}");
    assert_eq!(stat(&stats, "cse.branches"), 1, "{stats}");
    assert_eq!(
        after.matches("raise index_out_of_bounds").count(),
        1,
        "{after}"
    );
    assert_eq!(after.matches("iult(").count(), 1, "{after}");
}

#[test]
fn commutative_operations_merge_across_blocks() {
    let src =
        "fn f(x: int, y: int, c: bool) -> int { let p = x * y; if c { return y * x; } return p; }
fn main() { print(f(2, 3, true)); }";
    let (after, stats) = ir("cse", src);
    assert_eq!(stat(&stats, "cse.replaced"), 1, "{stats}");
    assert_eq!(after.matches("imul(").count(), 1, "{after}");
}

#[test]
fn non_commutative_and_sibling_operations_stay() {
    let src = "fn f(x: int, y: int, c: bool) -> int {
    let p = x - y;
    var r = 0;
    if c { r = y - x; r = r + x / 3; } else { r = x / 3; }
    return p + r;
}
fn main() { print(f(2, 3, true)); }";
    let (after, stats) = ir("cse", src);
    assert_eq!(stat(&stats, "cse.replaced"), 0, "{stats}");
    assert_eq!(after.matches("isub(").count(), 2, "{after}");
    assert_eq!(after.matches("idiv(").count(), 2, "{after}");
}

#[test]
fn floats_merge_only_when_bit_identical() {
    let src = "fn f(x: float, c: bool) -> float {
    let p = x * 0.0;
    let q = x * 0.5;
    if c { return x * -0.0 + x * 0.5; }
    return p + q;
}
fn main() { print(f(1.0, true)); }";
    let (after, stats) = ir("cse", src);
    assert_eq!(stat(&stats, "cse.replaced"), 1, "{stats}");
    assert!(
        after.contains("fmul(_1, 0.0)") && after.contains("fmul(_1, -0.0)"),
        "{after}"
    );
    assert_eq!(after.matches("fmul(_1, 0.5)").count(), 1, "{after}");
}

const NESTED: &str = "fn f(x: int, y: int) {
    if x < y {
        if x < y { print(1); } else { print(2); }
    } else {
        if x < y { print(3); } else { print(4); }
    }
}
fn main() { f(1, 2); f(2, 1); }";

#[test]
fn a_branch_decided_by_a_dominating_branch_folds() {
    let (after, stats) = ir("cse,simplifycfg", NESTED);
    assert_eq!(stat(&stats, "cse.branches"), 2, "{stats}");
    assert!(
        after.contains("print_int(1)") && after.contains("print_int(4)"),
        "{after}"
    );
    assert!(
        !after.contains("print_int(2)") && !after.contains("print_int(3)"),
        "{after}"
    );
    assert_eq!(after.matches("ilt(").count(), 1, "{after}");
    for o in ["-O0", "-O2"] {
        assert_eq!(run(&["run", o], NESTED), "1\n4\n");
    }
}

#[test]
fn a_join_block_learns_nothing_from_one_predecessor() {
    // The block after the `if` has two predecessors: `x < y` is unknown there.
    let src = "fn f(x: int, y: int) {
    if x < y { print(0); }
    if x < y { print(1); } else { print(2); }
}
fn main() { f(1, 2); f(2, 1); }";
    let (after, stats) = ir("cse,simplifycfg", src);
    assert_eq!(stat(&stats, "cse.branches"), 0, "{stats}");
    assert!(
        after.contains("print_int(1)") && after.contains("print_int(2)"),
        "{after}"
    );
    assert_eq!(run(&["run", "-O2"], src), "0\n1\n2\n");
}

#[test]
fn operations_on_known_operands_simplify() {
    // `gvn_load` makes `d` the stored `0`: then `x + 0`, `0 + 1`, `x * 1`,
    // `0 * x` and `x - 0` simplify, and `0 < 4` decides its branch. A float
    // keeps `y + 0.0` (it is `0.0` for `y = -0.0`).
    let src = "fn f(a: [int], x: int, y: float) -> int {
    a[0] = 0;
    let d = a[0];
    var r = (x + d) * (d + 1) + (x - d * x);
    if d < 4 { r = r + 1; }
    print(y + 0.0);
    return r;
}
fn main() { print(f([7], 5, -0.0)); }";
    let (after, stats) = ir("gvn_load,cse,simplifycfg", src);
    assert_eq!(stat(&stats, "cse.folded"), 6, "{stats}");
    assert!(
        !after.contains("imul(") && !after.contains("isub("),
        "{after}"
    );
    assert!(after.contains("iadd(_2, _2)"), "{after}");
    assert!(after.contains("fadd(_3, 0.0)"), "{after}");
    assert!(!after.contains("ilt("), "{after}");
    assert_eq!(run(&["run", "-O2"], src), "0.0\n11\n");
    assert_eq!(run(&["run", "-O0"], src), "0.0\n11\n");
}

#[test]
fn a_fresh_allocation_is_never_nil() {
    // `gvn_load` forwards the stored `Q { .. }` to the load of `p.next`;
    // the nil check on it then compares a fresh allocation with `nil`.
    // `maybe`'s field may be nil: its check stays and raises.
    let src = "struct Q { a: int, next: Q }
fn f(x: int) -> int {
    let p = Q { a: x, next: nil };
    p.next = Q { a: x + 1, next: nil };
    return p.next.a;
}
fn maybe(p: Q) -> int { return p.next.a; }
fn main() { print(f(4), maybe(Q { a: 1, next: Q { a: 2, next: nil } })); }";
    let (before, _) = ir("gvn_load", src);
    assert_eq!(
        before.matches("raise nil_dereference").count(),
        1,
        "{before}"
    );
    let (after, stats) = ir("gvn_load,cse", src);
    assert_eq!(stat(&stats, "cse.folded"), 1, "{stats}");
    assert!(!after.contains("raise nil_dereference"), "{after}");
    assert!(!after.contains("ine("), "{after}");
    assert_eq!(run(&["run", "-O2"], src), "5 2\n");
    let nil_next = "struct Q { a: int, next: Q }
fn maybe(p: Q) -> int { return p.next.a; }
fn main() { print(maybe(Q { a: 1, next: nil })); }";
    let (out, err, code) = toyc(&["run", "-O2"], nil_next);
    assert_eq!(code, 101, "{out}{err}");
    assert!(err.contains("nil dereference"), "{err}");
}

/// `cse` leaves the constants of additions where they are: `[0; n + 1]`
/// with `n = k - 1` keeps the length `n + 1`, and `checks` removes the
/// check of `a[x]` under `x <= n`. Reassociated, the length would be `k`
/// and the check would stay. Only the step `divpair.cse` reassociates
/// (`tests/filetests/divpair_cse_reassociates.ir`).
#[test]
fn constants_stay_where_checks_reads_them() {
    let src = "fn f(k: int) -> int {
    let n = k - 1;
    let a = [0; n + 1];
    var s = 0;
    var x = 0;
    while x <= n {
        s += a[x];
        x += 1;
    }
    return s + n + 1;
}
fn main() { print(f(5)); }";
    let (early, stats) = ir("cse", src);
    assert_eq!(stat(&stats, "cse.reassociated"), 0, "{stats}");
    assert!(early.contains("%2  = iadd(%1, 1)::int\n"), "{early}");
    assert!(early.contains("new [int](len %2, fill 0)"), "{early}");
    let (_, stats) = ir("cse,checks", src);
    assert_eq!(stat(&stats, "checks.bounds_removed"), 1, "{stats}");
    let (_, stats) = ir("cse,checks,cse.late", src);
    assert_eq!(stat(&stats, "cse.reassociated"), 0, "{stats}");
    assert_eq!(run(&["run", "-O2"], src), "5\n");
    assert_eq!(run(&["run", "-O0"], src), "5\n");
}
