//! The `pi` and `checks` passes on Toy programs: exactly which runtime
//! checks go and which must stay. Each case runs `toyc ir --passes=...
//! --stats` (a debug build, so the verifier runs after every pass) and
//! counts the `raise` statements left in the printed IR.

use super::toy_run::{stat, toyc};

/// (IR text, stats text) after `passes`.
fn ir(passes: &str, src: &str) -> (String, String) {
    let (out, err, code) = toyc(&["ir", &format!("--passes={passes}"), "--stats"], src);
    assert_eq!(code, 0, "toyc ir failed: {err}");
    (out, err)
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

const SUM: &str = "
fn sum(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) {
        s = s + a[i];
    }
    return s;
}
fn main() { print(sum([3; 4])); }
";

#[test]
fn pi_pass_inserts_range_facts_on_the_loop_body() {
    let (out, err) = ir("pi", SUM);
    // `i < len(a)` on the loop body; `0 <= i < len(a)` after the check.
    assert!(out.contains("= π (%2, _ < %1)::int"), "{out}");
    assert!(stat(&err, "pi.inserted") >= 2, "{err}");
    // The π pass alone removes nothing.
    assert_eq!(count(&out, "raise index_out_of_bounds"), 1, "{out}");
}

#[test]
fn bounds_check_in_for_over_len_is_removed() {
    let (out, err) = ir("checks", SUM);
    assert_eq!(stat(&err, "checks.bounds_removed"), 1, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 0, "{out}");
    assert_eq!(count(&out, "π ("), 0, "checks strips its πs: {out}");
}

/// `while i <= len(a)`: one index past the end, so `a[i]` keeps its check.
const OFF_BY_ONE: &str = "
fn f(a: [int]) -> int {
    var s = 0;
    var i = 0;
    while i <= len(a) {
        s = s + a[i];
        i = i + 1;
    }
    return s;
}
fn main() { print(f([1; 3])); }
";

/// `a[i*m + j]` of `[0; n*m]` with `1 <= n, m < 1000` goes; the same index
/// into `[0; n*n]` stays (m may exceed n), and so does the one in `g`,
/// where a `push` makes the length unstable.
const AFFINE_BOUNDED: &str = "
fn f(n: int, m: int) -> int {
    if n < 1 { return 0; }
    if m < 1 { return 0; }
    if n >= 1000 { return 0; }
    if m >= 1000 { return 0; }
    let a = [0; n * m];
    let b = [0; n * n];
    for i in 0..n {
        for j in 0..m {
            a[i * m + j] = i;
            b[i * m + j] = j;
        }
    }
    return len(a) + len(b);
}
fn g(n: int, m: int) -> int {
    if n < 1 { return 0; }
    if m < 1 { return 0; }
    if n >= 1000 { return 0; }
    if m >= 1000 { return 0; }
    let a = [0; n * m];
    for i in 0..n {
        for j in 0..m {
            a[i * m + j] = i;
        }
    }
    push(a, 1);
    return len(a);
}
fn main() { print(f(3, 3) + g(2, 2)); }
";

/// A program for the `checks` pass, the counter that must read `removed`
/// after it, and how many `raise KIND` statements must be left.
struct Case {
    what: &'static str,
    src: &'static str,
    counter: &'static str,
    removed: u64,
    raise: &'static str,
    left: usize,
}

const CASES: &[Case] = &[
    Case {
        // Indices masked with `&`, shifted right, divided or taken modulo a
        // positive constant, each shown in `0..8` by its operands' ranges,
        // lose their check (five, and `t[0]`'s); `x & 15` and `(x & 63) >> 2`
        // reach 15, and `x % 8` is negative for a negative `x`: three stay.
        what: "index from & >> / | % of constants",
        src: "
fn f(x: int) -> int {
    let t = [0; 8];
    t[x & 7] = 1;
    t[(x & 1023) >> 7] = 2;
    t[(x & 63) / 8] = 3;
    t[(x & 3) | 4] = 4;
    t[(x % 8 + 8) % 8] = 5;
    t[x & 15] = 6;
    t[x % 8] = 7;
    t[(x & 63) >> 2] = 8;
    return t[0];
}
fn main() { print(f(5)); }
",
        counter: "checks.bounds_removed",
        removed: 6,
        raise: "index_out_of_bounds",
        left: 3,
    },
    Case {
        // `0 <= k` and `k <= n` before `c[k]` of `[0; n + 1]`: `k < n + 1`.
        what: "index checked with <= against the length minus one",
        src: "
fn at(n: int, k: int) -> int {
    let c = [7; n + 1];
    if k >= 0 && k <= n {
        return c[k];
    }
    return 0;
}
fn main() { print(at(3, 3) + at(3, 4)); }
",
        counter: "checks.bounds_removed",
        removed: 1,
        raise: "index_out_of_bounds",
        left: 0,
    },
    Case {
        // The same comparisons against `[0; n]` and `[0; n + 2]` prove
        // nothing: `k == n` is out of bounds in the first, and the second
        // is not the `m + 1` the rule needs. Written `n >= k` over
        // `[7; 1 + n]`, the first case's check is removed again.
        what: "index checked with <= against another length",
        src: "
fn short(n: int, k: int) -> int {
    let c = [7; n];
    if k >= 0 && k <= n {
        return c[k];
    }
    return 0;
}
fn long(n: int, k: int) -> int {
    let c = [7; n + 2];
    if k >= 0 && k <= n {
        return c[k];
    }
    return 0;
}
fn flipped(n: int, k: int) -> int {
    let c = [7; 1 + n];
    if k >= 0 && n >= k {
        return c[k];
    }
    return 0;
}
fn main() { print(short(3, 2) + long(3, 3) + flipped(3, 3)); }
",
        counter: "checks.bounds_removed",
        removed: 1,
        raise: "index_out_of_bounds",
        left: 2,
    },
    Case {
        // `k < len(a)` says nothing about `k >= 0`: both checks stay.
        what: "index from an unknown value",
        src: "
fn get(a: [int], k: int) -> int { return a[k]; }
fn pos(a: [int], k: int) -> int { if k < len(a) { return a[k]; } return 0; }
fn main() { print(get([1; 3], 1) + pos([1; 3], 2)); }
",
        counter: "checks.bounds_removed",
        removed: 0,
        raise: "index_out_of_bounds",
        left: 2,
    },
    Case {
        what: "array pushed inside the loop",
        src: "
fn f(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) {
        push(a, 1);
        s = s + a[i];
    }
    return s;
}
fn main() { print(f([1; 3])); }
",
        counter: "checks.bounds_removed",
        removed: 0,
        raise: "index_out_of_bounds",
        left: 1,
    },
    Case {
        what: "off by one: i <= len(a)",
        src: OFF_BY_ONE,
        counter: "checks.bounds_removed",
        removed: 0,
        raise: "index_out_of_bounds",
        left: 1,
    },
    Case {
        what: "neighbour index below len(a) - 1",
        src: "
fn diffs(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) - 1 {
        s = s + a[i + 1] - a[i];
    }
    return s;
}
fn main() { print(diffs([2; 5])); }
",
        counter: "checks.bounds_removed",
        removed: 2,
        raise: "index_out_of_bounds",
        left: 0,
    },
    Case {
        // a[3] twice is inside `len 10`; a[10] is not.
        what: "constant indices of a fresh array",
        src: "
fn f() -> int {
    var a = [0; 10];
    a[3] = 4;
    return a[3] + a[10];
}
fn main() { print(f()); }
",
        counter: "checks.bounds_removed",
        removed: 2,
        raise: "index_out_of_bounds",
        left: 1,
    },
    Case {
        // 0 <= i*20 + j <= 9*20 + 19 < 200, and j + 20*i the same.
        what: "2-D index with constant bounds",
        src: "
fn f() -> int {
    let a = [0; 200];
    var s = 0;
    for i in 0..10 {
        for j in 0..20 {
            a[i * 20 + j] = i;
            s = s + a[j + 20 * i];
        }
    }
    return s;
}
fn main() { print(f()); }
",
        counter: "checks.bounds_removed",
        removed: 2,
        raise: "index_out_of_bounds",
        left: 0,
    },
    Case {
        // j in 0..21: i*20 + j reaches 200.
        what: "2-D index with constant bounds, one column too wide",
        src: "
fn f() -> int {
    let a = [0; 200];
    for i in 0..10 {
        for j in 0..21 {
            a[i * 20 + j] = i;
        }
    }
    return a[0];
}
fn main() { print(f()); }
",
        counter: "checks.bounds_removed",
        removed: 1,
        raise: "index_out_of_bounds",
        left: 1,
    },
    Case {
        // n, m in 1..1000: n*m cannot wrap; i*m + j <= n*m - 1.
        what: "2-D index i*m + j of [0; n*m], n and m bounded",
        src: AFFINE_BOUNDED,
        counter: "checks.bounds_removed",
        removed: 1,
        raise: "index_out_of_bounds",
        left: 2,
    },
    Case {
        // n = m = 2^32 makes [0; n*m] empty: the product may wrap.
        what: "2-D index i*m + j of [0; n*m], n and m unbounded",
        src: "
fn f(n: int, m: int) -> int {
    let a = [0; n * m];
    for i in 0..n {
        for j in 0..m {
            a[i * m + j] = i;
        }
    }
    return len(a);
}
fn main() { print(f(3, 4)); }
",
        counter: "checks.bounds_removed",
        removed: 0,
        raise: "index_out_of_bounds",
        left: 1,
    },
    Case {
        what: "nil checks: guarded or fresh go, maybe-nil stays",
        src: "
struct P { x: int }
fn guarded(p: P) -> int { if p != nil { return p.x; } return 0; }
fn fresh(c: bool) -> int { var q = P { x: 1 }; if c { q = P { x: 2 }; } return q.x; }
fn maybe(p: P) -> int { return p.x; }
fn main() { print(guarded(P { x: 2 }) + fresh(true) + maybe(P { x: 3 })); }
",
        counter: "checks.nil_removed",
        removed: 2,
        raise: "nil_dereference",
        left: 1,
    },
    Case {
        what: "division checks: nonzero goes, maybe-zero stays",
        src: "
fn guarded(x: int, d: int) -> int { if d != 0 { return x / d; } return 0; }
fn positive(x: int, d: int) -> int { if d > 0 { return x % d; } return 0; }
fn maybe(x: int, d: int) -> int { return x / d; }
fn main() { print(guarded(7, 2) + positive(7, 3) + maybe(8, 4)); }
",
        counter: "checks.div_removed",
        removed: 1,
        raise: "division_by_zero",
        left: 2,
    },
    Case {
        what: "division checks: an `or` with a nonzero operand goes",
        src: "
fn odd(x: int, d: int) -> int { return x / (d | 1); }
fn nested(x: int, d: int) -> int { return x % ((d | 2) | x); }
fn maybe(x: int, d: int) -> int { return x / (d | x); }
fn main() { print(odd(7, 2) + nested(7, 3) + maybe(8, 4)); }
",
        counter: "checks.div_removed",
        removed: 2,
        raise: "division_by_zero",
        left: 1,
    },
];

#[test]
fn checks_removes_exactly_the_provable_checks() {
    for c in CASES {
        let (out, err) = ir("checks", c.src);
        assert_eq!(stat(&err, c.counter), c.removed, "{}: {err}", c.what);
        let raises = count(&out, &format!("raise {}", c.raise));
        assert_eq!(raises, c.left, "{}: {out}", c.what);
    }
}

#[test]
fn kept_checks_still_raise_at_the_same_position() {
    let src = OFF_BY_ONE;
    let o0 = toyc(&["run", "-O0"], src);
    let o2 = toyc(&["run", "-O2"], src);
    let interp = toyc(&["run", "--interp", "-O2"], src);
    assert_ne!(o0.2, 0);
    assert!(o0.1.contains("index out of bounds"), "{}", o0.1);
    assert_eq!(o0, o2);
    assert_eq!(o0, interp);
}

#[test]
fn optimised_programs_print_the_same() {
    let src = "
struct P { x: int }
fn main() {
    let a = [0; 50];
    for i in 0..len(a) { a[i] = i * i; }
    var s = 0;
    for i in 0..len(a) - 1 { s = s + a[i + 1] - a[i]; }
    let p = P { x: 7 };
    if p != nil { s = s + p.x; }
    let d = 3;
    if d != 0 { s = s / d; }
    print(s);
}
";
    let o0 = toyc(&["run", "-O0"], src);
    assert_eq!(o0, ("802\n".to_string(), String::new(), 0));
    assert_eq!(toyc(&["run", "-O2"], src), o0);
    assert_eq!(toyc(&["run", "--interp", "-O2"], src), o0);
}

/// After removing checks, `checks` merges the blocks they leave but
/// threads no empty block: the dedicated exit `loops` made (the loop
/// test's edge into the block the `break` also enters) stays, so its
/// `loops` step has nothing to restore.
#[test]
fn removing_checks_keeps_the_loops_dedicated_exits() {
    let src = "
fn h(a: [int], t: int) -> int {
    var found = -1;
    var i = 0;
    while i < len(a) {
        if a[i] == t { found = i; break; }
        i += 1;
    }
    return found;
}
fn main() { print(h([1, 2, 3], 2)); }
";
    let (before, loops) = ir("loops", src);
    assert_eq!(stat(&loops, "loops.exits"), 1, "{loops}");
    let (after, stats) = ir("loops,checks", src);
    assert_eq!(stat(&stats, "checks.bounds_removed"), 1, "{stats}");
    assert_eq!(stat(&stats, "checks.simplifycfg.merged"), 1, "{stats}");
    assert_eq!(stat(&stats, "checks.simplifycfg.threaded"), 0, "{stats}");
    assert_eq!(stat(&stats, "checks.loops.exits"), 0, "{stats}");
    // Blocks holding only a `goto`: the entry, the `break`, the exit.
    let lone_gotos = |t: &str| {
        let h = t.split("fn main").next().unwrap_or(t);
        let lone = |l: &&str| l.contains(" ─       goto #") && !l.contains(" if not ");
        h.lines().filter(lone).count()
    };
    assert_eq!(lone_gotos(&before), 3, "{before}");
    assert_eq!(lone_gotos(&after), 3, "{after}");
    let (out, _, code) = toyc(&["run", "-O2"], src);
    assert_eq!((out.as_str(), code), ("1\n", 0));
}

/// `place_pis` renames the uses its πs dominate; `withdraw` gives back the
/// function exactly as it was, without a compaction.
#[test]
fn withdrawn_pis_leave_the_function_as_it_was() {
    use crate::memssa_support::{compile, func_index};
    let mut module = compile("withdraw", OFF_BY_ONE);
    let k = func_index(&module, "f");
    let f = &mut module.funcs[k];
    let before = f.clone();
    let pis = toyc::opt::pi_insert::place_pis(f);
    assert_eq!(
        pis.count(),
        3,
        "the loop test's two edges and the bounds check's"
    );
    assert!(*f != before, "some use reads a π");
    pis.withdraw(f);
    assert!(*f == before);
}

/// `checks` that removes nothing leaves the function as SSA construction
/// built it, statement for statement (its πs withdrawn).
#[test]
fn checks_that_removes_nothing_changes_nothing() {
    let (none, _) = ir("none", OFF_BY_ONE);
    let (out, err) = ir("checks", OFF_BY_ONE);
    assert_eq!(stat(&err, "checks.bounds_removed"), 0, "{err}");
    assert_eq!(out, none);
}
