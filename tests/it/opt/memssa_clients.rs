//! The MemorySSA clients (licm, gvn_load, dse): exactly what each one
//! hoists, forwards or removes, what it must not touch (aliasing through a
//! shared array, a call that writes, a store on some paths only, an
//! exception edge), and that the program's output is unchanged. The IR
//! and MemorySSA verifiers run after every pass.

use crate::memssa_support;

use memssa_support::check_output as check;
use memssa_support::*;

const LICM: &[&str] = &["loops", "licm"];

#[test]
fn licm_hoists_length_fresh_field_and_unwritten_global() {
    let src = "struct P { x: float, v: float }\nvar scale = 3;\n\
        fn sum(a: [int]) -> int { var s = 0; var i = 0; while i < len(a) { s = s + a[i] * scale; i = i + 1; } return s; }\n\
        fn main() {\n  print(sum([1, 2, 3]));\n  let p = P { x: 1.0, v: 2.0 };\n  var k = 0;\n\
          while k < 10 { p.x = p.x + p.v; k = k + 1; }\n  print(p.x);\n}\n";
    let (c, out) = check("licm1", src, LICM);
    assert_eq!(out, "18\n21.0\n");
    // sum: len(a) twice (loop test and bounds check) and `scale`; main: p.v.
    assert_eq!(c.get("licm.hoisted_loads"), 4);
    // main: no check of p is left to hoist: every read of p is the struct
    // literal itself (its only definition), never nil.
    assert_eq!(c.get("licm.hoisted_cmps"), 0);
}

#[test]
fn licm_hoists_the_nil_checks_of_a_parameter() {
    // p may be nil: the three `ine(p, nil)` checks in the loop (p.x, p.v,
    // the store to p.x) are invariant and leave it.
    let src = "struct P { x: float, v: float }
        fn step(p: P, n: int) -> float { var k = 0; while k < n { p.x = p.x + p.v; k = k + 1; } return p.x; }
        fn main() { print(step(P { x: 1.0, v: 2.0 }, 3)); }
";
    let (c, out) = check("licm1p", src, LICM);
    assert_eq!(out, "7.0\n");
    assert_eq!(c.get("licm.hoisted_cmps"), 3);
    assert_eq!(c.get("licm.hoisted_loads"), 0);
}

#[test]
fn licm_keeps_field_load_of_possibly_nil_base() {
    // With n == 0 the loop never runs and p may be nil: p.x must stay
    // below its nil check, inside the loop.
    let src = "struct P { x: int }\n\
        fn f(p: P, n: int) -> int { var s = 0; var i = 0; while i < n { s = s + p.x; i = i + 1; } return s; }\n\
        fn main() { print(f(nil, 0), f(P { x: 2 }, 3)); }\n";
    let (c, out) = check("licm2", src, LICM);
    assert_eq!(out, "0 6\n");
    assert_eq!(c.get("licm.hoisted_loads"), 0);
}

#[test]
fn licm_keeps_loads_written_in_the_loop() {
    // A call that writes the global, and a push through a possibly shared
    // array: neither load may leave the loop.
    let src = "var g = 1;\nfn bump() { g = g + 1; }\n\
        fn f(n: int) -> int { var s = 0; var i = 0; while i < n { s = s + g; bump(); i = i + 1; } return s; }\n\
        fn h(a: [int], b: [int]) -> int { var i = 0; while i < len(a) { push(b, 1); i = i + 1; if i > 5 { break; } } return i; }\n\
        fn main() { let a = [1, 2]; print(f(3), h(a, a), len(a)); }\n";
    let (c, out) = check("licm3", src, LICM);
    assert_eq!(out, "6 6 8\n");
    assert_eq!(c.get("licm.hoisted_loads"), 0);
}

#[test]
fn licm_reduces_dynamic_instructions() {
    let src = "fn sum(a: [int]) -> int { var s = 0; for x in a { s = s + x; } return s; }\n\
        fn main() { let a = [1; 1000]; print(sum(a)); }\n";
    let (mut module, sources) = compile_with_sources("licm4", src);
    run_passes(&mut module, &["sccp", "dce", "simplifycfg", "loops"]);
    let (_, _, before) = interp(&module, &sources);
    let c = run_passes(&mut module, &["gvn_load", "licm", "dse"]);
    let (out, _, after) = interp(&module, &sources);
    assert_eq!(out, "1000\n");
    assert!(c.get("licm.hoisted_loads") >= 1);
    assert!(after + 900 <= before, "{before} -> {after}");
}

const GVN: &[&str] = &["gvn_load"];

#[test]
fn gvn_forwards_stores_across_blocks_and_removes_redundant_loads() {
    let src = "struct P { x: int, y: int }\n\
        fn f(p: P, c: bool) -> int { p.x = 5; if c { print(1); } else { print(2); } return p.x; }\n\
        fn g(a: [int], i: int) -> int { return a[i] + a[i]; }\n\
        fn main() { print(f(P { x: 0, y: 0 }, true), g([4, 5], 1)); }\n";
    let (c, out) = check("gvn1", src, GVN);
    assert_eq!(out, "1\n5 10\n");
    // f: p.x; main: the fields of the fresh P are never loaded.
    assert_eq!(c.get("gvn_load.forwarded"), 1);
    // g: a[i] again, and its second bounds check's len(a).
    assert_eq!(c.get("gvn_load.redundant"), 2);
}

#[test]
fn gvn_does_not_forward_past_partial_stores_or_writing_calls() {
    let src = "struct P { x: int }\n\
        fn setx(p: P) { p.x = 9; }\n\
        fn f(p: P, c: bool) -> int { if c { p.x = 5; } return p.x; }\n\
        fn g(p: P) -> int { p.x = 5; setx(p); return p.x; }\n\
        fn main() { print(f(P { x: 1 }, false), g(P { x: 1 })); }\n";
    let (c, out) = check("gvn2", src, GVN);
    assert_eq!(out, "1 9\n");
    assert_eq!(c.get("gvn_load.forwarded"), 0);
    assert_eq!(c.get("gvn_load.redundant"), 0);
}

#[test]
fn gvn_forwards_initial_values_of_allocations() {
    let src = "struct P { x: int, y: int }\n\
        fn main() { let p = P { x: 3, y: 4 }; let a = [7; 5]; print(p.x + p.y, len(a), a[2]); }\n";
    let (c, out) = check("gvn3", src, GVN);
    assert_eq!(out, "7 5 7\n");
    // p.x, p.y, len(a) (twice: the print and a[2]'s bounds check), a[2].
    assert_eq!(c.get("gvn_load.forwarded_alloc"), 5);
}

const DSE: &[&str] = &["dse"];

#[test]
fn dse_removes_overwritten_and_unread_stores() {
    let src = "struct P { x: int, y: int }\nvar g = 0;\n\
        fn f() { g = 1; g = 2; let q = P { x: 1, y: 2 }; q.x = 5; q.y = 7; }\n\
        fn main() { f(); print(g); }\n";
    let (c, out) = check("dse1", src, DSE);
    assert_eq!(out, "2\n");
    assert_eq!(c.get("dse.overwritten"), 1);
    assert_eq!(c.get("dse.unread_alloc"), 2);
}

#[test]
fn dse_keeps_stores_a_call_or_a_handler_may_read() {
    // h reads g; t may throw and the handler prints g: both first stores
    // are observable.
    let src = "var g = 0;\n\
        fn h() { print(g); }\n\
        fn t(x: int) -> int { if x > 0 { throw \"boom\"; } return x; }\n\
        fn f() { g = 1; h(); g = 2; }\n\
        fn k(x: int) { try { g = 3; let y = t(x); g = 4; print(y); } catch e { print(e, g); } }\n\
        fn main() { f(); k(1); print(g); }\n";
    let (c, out) = check("dse2", src, DSE);
    assert_eq!(out, "1\nboom 3\n3\n");
    assert_eq!(c.get("dse.overwritten"), 0);
}

#[test]
fn dse_keeps_stores_on_some_paths_and_escaping_allocations() {
    let src = "struct P { x: int }\nvar keep: P = nil;\n\
        fn f(c: bool) -> int { let p = P { x: 0 }; p.x = 1; if c { p.x = 2; } return p.x; }\n\
        fn e() { let p = P { x: 0 }; p.x = 5; keep = p; }\n\
        fn main() { print(f(false), f(true)); e(); print(keep.x); }\n";
    let (c, out) = check("dse3", src, DSE);
    assert_eq!(out, "1 2\n5\n");
    assert_eq!(c.get("dse.overwritten"), 0);
    assert_eq!(c.get("dse.unread_alloc"), 0);
}

#[test]
fn full_o2_pipeline_on_a_struct_simulation() {
    let src = "struct Body { x: float, v: float, m: float }\n\
        fn step(bs: [Body], dt: float) { for b in bs { b.v = b.v - b.x * dt / b.m; b.x = b.x + b.v * dt; } }\n\
        fn main() { let bs = [Body { x: 1.0, v: 0.0, m: 1.0 }, Body { x: 2.0, v: 0.5, m: 2.0 }];\n\
          var i = 0; while i < 100 { step(bs, 0.01); i = i + 1; }\n  print(fixed(bs[0].x, 6), fixed(bs[1].x, 6)); }\n";
    let (_, out) = check(
        "o2sim",
        src,
        &[
            "sccp",
            "dce",
            "simplifycfg",
            "loops",
            "gvn_load",
            "licm",
            "dse",
        ],
    );
    assert!(out.ends_with('\n') && out.len() > 5, "{out}");
}
