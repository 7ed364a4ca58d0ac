//! Scalar promotion (`licm.promoted`): what is promoted to a register and
//! what must stay in memory (a possibly aliasing access, a call that reads
//! or writes the location, a field of a base not known non-nil, an
//! exception edge sees the stored value). The interpreter's output is the
//! same before and after; the IR and MemorySSA verifiers run after every
//! pass.

use crate::memssa_support;

use memssa_support::*;

const LICM: &[&str] = &["loops", "licm"];

#[test]
fn promotes_a_global_counter() {
    let src = "var g = 0;\n\
        fn f(n: int) { var i = 0; while i < n { g = g + i; i = i + 1; } }\n\
        fn main() { f(5); print(g); f(3); print(g); }\n";
    let (c, out, ir) = check("p1", src, LICM, "f");
    assert_eq!(out, "10\n13\n");
    assert_eq!(c.get("licm.promoted"), 1);
    let want = "fn f(_1::int)  # n\n \
        1 ─ %1  = load @g::int\n \
        └──       goto #2\n \
        2 ┄ %3  = φ (#1 => %1, #3 => %7)::int\n \
        │   %4  = φ (#1 => 0, #3 => %8)::int  # i\n \
        │   %5  = ilt(%4, _1)::bool\n \
        └──       goto #4 if not %5\n \
        3 ─ %7  = iadd(%3, %4)::int\n \
        │   %8  = iadd(%4, 1)::int  # i\n \
        └──       goto #2\n \
        4 ─       store @g = %3\n \
        └──       return\n";
    assert_eq!(ir, want);
}

#[test]
fn promotes_fields_of_a_fresh_struct_and_of_a_checked_parameter() {
    // c.n and c.sum of the fresh struct; q.x after the dominating nil
    // check `if q == nil { return 0; }`.
    let src = "struct C { n: int, sum: int }\nstruct Q { x: int }\n\
        fn f(k: int) -> int { let c = C { n: 0, sum: 0 }; while c.n < k { c.sum = c.sum + c.n; c.n = c.n + 1; } return c.sum; }\n\
        fn g(q: Q, k: int) -> int { if q == nil { return 0; } var i = 0; while i < k { q.x = q.x * 2; i = i + 1; } return q.x; }\n\
        fn main() { print(f(10)); let q = Q { x: 1 }; print(g(q, 5), q.x, g(nil, 3)); }\n";
    let (c, out, ir) = check("p2", src, LICM, "f");
    assert_eq!(out, "45\n32 32 0\n");
    assert_eq!(c.get("licm.promoted"), 3);
    // f: two loads before the loop, two φs in the header, the load of the
    // return after the loop; no load or store is left in the loop (each
    // exit, the nil-check raises included, stores both fields).
    assert_eq!(count(&ir, "= load"), 2 + 1, "{ir}");
    assert_eq!(count(&ir, "= φ"), 2, "{ir}");
    assert_eq!(
        count(&ir, "store %1.sum ="),
        count(&ir, "store %1.n ="),
        "{ir}"
    );
}

#[test]
fn promotes_through_a_loop_nest_with_breaks() {
    let src = "var total = 0;\n\
        fn f(n: int) { var i = 0; while i < n { var j = 0; while j < i { total = total + j; if total > 1000 { break; } j = j + 1; } i = i + 1; } }\n\
        fn main() { f(10); print(total); f(60); print(total); }\n";
    let (c, out, ir) = check("p3", src, LICM, "f");
    assert_eq!(out, "120\n1002\n");
    // Inner loop, then the outer loop (the inner one's load and stores).
    assert_eq!(c.get("licm.promoted"), 2);
    assert_eq!(count(&ir, "load"), 1, "{ir}");
    assert_eq!(count(&ir, "store"), 1, "{ir}");
}

#[test]
fn does_not_promote_possibly_aliasing_fields() {
    // p and q may be the same struct: p.x and q.x cannot live in registers.
    let src = "struct P { x: int }\n\
        fn f(p: P, q: P, n: int) -> int { if p == nil || q == nil { return 0; } var i = 0; while i < n { p.x = p.x + 1; q.x = q.x + 10; i = i + 1; } return p.x; }\n\
        fn main() { let a = P { x: 0 }; print(f(a, a, 3)); let b = P { x: 0 }; print(f(a, b, 3), b.x); }\n";
    let (c, out, _) = check("p4", src, LICM, "f");
    assert_eq!(out, "33\n36 30\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn does_not_promote_around_calls_that_read_or_write_it() {
    let src = "var g = 0;\nvar h = 0;\n\
        fn bump() { g = g + 100; }\nfn peek() -> int { return h; }\n\
        fn f(n: int) -> int { var i = 0; var s = 0; while i < n { g = g + 1; bump(); h = h + 1; s = s + peek(); i = i + 1; } return s; }\n\
        fn main() { print(f(3), g, h); }\n";
    let (c, out, _) = check("p5", src, LICM, "f");
    assert_eq!(out, "6 303 3\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn does_not_promote_a_field_of_a_possibly_nil_base() {
    // The store is only on some paths and p may be nil: a load before the
    // loop would raise where the program does not.
    let src = "struct P { x: int }\n\
        fn f(p: P, n: int) -> int { var i = 0; while i < n { if p != nil { p.x = p.x + i; } i = i + 1; } return i; }\n\
        fn main() { print(f(nil, 3)); let p = P { x: 1 }; print(f(p, 4), p.x); }\n";
    let (c, out, _) = check("p6", src, LICM, "f");
    assert_eq!(out, "3\n4 7\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn promotes_a_conditional_store_to_a_global() {
    // Stored on some iterations only: globals are always writable, so the
    // exit store (of the unchanged value when nothing was stored) is safe.
    let src = "var best = 0;\n\
        fn f(a: [int]) { for x in a { if x > best { best = x; } } }\n\
        fn main() { f([3, 9, 2]); print(best); f([]); print(best); f([1, 12]); print(best); }\n";
    let (c, out, _) = check("p7", src, LICM, "f");
    assert_eq!(out, "9\n9\n12\n");
    assert_eq!(c.get("licm.promoted"), 1);
}

#[test]
fn an_exception_leaving_the_loop_sees_the_stored_value() {
    // A throw inside the loop, caught outside in the caller and in the same
    // function: the handler edge is a loop exit and gets the store; the
    // division may raise too.
    let src = "var g = 0;\n\
        fn f(n: int) { var i = 0; while i < n { g = g + 1; if i == 3 { throw \"stop\"; } i = i + 1; } }\n\
        fn d(a: [int]) -> int { var s = 0; try { for x in a { g = g + 1; s = s + 100 / x; } } catch e { print(e, g); } return s; }\n\
        fn main() { try { f(10); } catch e { print(e, g); } print(d([1, 2, 0, 5]), g); }\n";
    let (c, out, ir) = check("p8", src, LICM, "f");
    assert_eq!(out, "stop 4\ndivision by zero 7\n150 7\n");
    assert_eq!(c.get("licm.promoted"), 2);
    assert_eq!(count(&ir, "store"), 2, "{ir}"); // normal exit and throw exit
}

#[test]
fn does_not_promote_when_the_loop_prints_the_struct() {
    let src = "struct P { x: int }\n\
        fn main() { let p = P { x: 0 }; var i = 0; while i < 3 { p.x = p.x + 1; print(p); i = i + 1; } }\n";
    let (c, out, _) = check("p9", src, LICM, "main");
    assert_eq!(out, "P { x: 1 }\nP { x: 2 }\nP { x: 3 }\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn promotion_survives_the_full_pipeline() {
    let src = "var g = 0;\nstruct C { n: int }\n\
        fn f(n: int) -> int { let c = C { n: 0 }; var i = 0; while i < n { g = g + i; c.n = c.n + g; i = i + 1; } return c.n; }\n\
        fn main() { print(f(20), g); }\n";
    let all = toyc::opt::default_passes(2);
    let (c, out, _) = check("p10", src, &all, "f");
    assert_eq!(out, "1330 190\n");
    // Twice in `f`, and twice again in `main`, where `inline` copied `f`.
    assert_eq!(c.get("inline.inlined"), 1);
    assert_eq!(c.get("licm.promoted"), 4);
}

#[test]
fn does_not_promote_in_a_loop_with_many_exits() {
    // Twenty bounds checks are twenty exits: promotion would add a store to
    // each (code size bound `MAX_EXITS`).
    let mut body = String::new();
    for k in 0..20 {
        body.push_str(&format!("g = g + a[i + {k}]; "));
    }
    let src = format!(
        "var g = 0;\nfn f(a: [int]) {{ var i = 0; while i + 20 < len(a) {{ {body}i = i + 1; }} }}\n\
         fn main() {{ f([1; 30]); print(g); }}\n"
    );
    let (c, out, _) = check("p11", &src, LICM, "f");
    assert_eq!(out, "200\n");
    assert_eq!(c.get("licm.promoted"), 0);
}

#[test]
fn promotes_across_a_handler_inside_the_loop() {
    // The try/catch is inside the loop: its handler is a loop block, and the
    // value stored before the throw reaches it through the promoted φs.
    let src = "var g = 0;\n\
        fn f(a: [int]) -> int { var bad = 0; for x in a { try { g = g + 1; if x == 0 { throw \"zero\"; } g = g + 100 / x; } catch e { bad = bad + g; } } return bad; }\n\
        fn main() { print(f([1, 0, 5, 0, 2])); print(g); }\n";
    let (c, out, _) = check("p12", src, LICM, "f");
    assert_eq!(out, "226\n175\n");
    assert_eq!(c.get("licm.promoted"), 1);
}
