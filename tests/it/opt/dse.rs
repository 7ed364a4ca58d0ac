//! Dead-store elimination across blocks (src/opt/dse.rs): exactly which
//! stores go (the counters and the printed IR after the pass) and which must
//! stay: a store read on one path only, an overwrite on some paths only, a
//! store before a call that reads it, a store before a check whose raise is
//! caught by a handler that reads it, a store to a parameter's field before
//! a return, a store read in the next loop iteration, and a kill that writes
//! another object once the loop has gone round. The interpreter's output is
//! compared before and after; the IR and MemorySSA verifiers run after the
//! pass.

use crate::memssa_support;

use memssa_support::*;

/// Runs `passes` on `src`; returns the counters, the program's output and
/// the IR of `func` after the passes. The output must not change.
fn run(
    name: &str,
    src: &str,
    passes: &[&'static str],
    func: &str,
) -> (toyc::opt::Counters, String, String) {
    let (mut module, sources) = compile_with_sources(name, src);
    let (before, code0, _) = interp(&module, &sources);
    let c = run_passes(&mut module, passes);
    let (after, code1, _) = interp(&module, &sources);
    assert_eq!(
        (before.as_str(), code0),
        (after.as_str(), code1),
        "behaviour changed by {passes:?}"
    );
    let ir = ir_text(&module, func);
    (c, after, ir)
}

/// The -O2 passes up to `dse` that make its input what it sees at -O2
/// (redundant nil and bounds checks gone), without the other memory passes.
const DSE: &[&str] = &["sccp", "dce", "simplifycfg", "checks", "dse"];

/// `lines` as the printer indents a function body (one margin column).
fn body(header: &str, lines: &[&str]) -> String {
    let mut s = format!("{header}\n");
    for l in lines {
        s.push_str(&format!(" {l}\n"));
    }
    s
}

/// The counters of the pass, `name: N` lines (other passes' left out).
fn dse_counters(c: &toyc::opt::Counters) -> String {
    c.render()
        .lines()
        .filter(|l| l.starts_with("dse."))
        .map(|l| format!("{l}\n"))
        .collect()
}

const P: &str = "struct P { x: int, y: int }\n";

#[test]
fn overwritten_on_both_branches_is_removed() {
    let src = format!(
        "{P}fn f(p: P, c: bool) {{ p.x = 1; if c {{ p.x = 2; }} else {{ p.x = 3; }} }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; f(p, true); print(p.x); f(p, false); print(p.x); }}\n"
    );
    let (c, out, ir) = run("both", &src, DSE, "f");
    assert_eq!(out, "2\n3\n");
    assert_eq!(dse_counters(&c), "dse.overwritten: 1\n");
    assert_eq!(
        ir,
        body(
            "fn f(_1::P, _2::bool)  # p, c",
            &[
                "1 ─ %1 = ine(_1, nil)::bool",
                "└──      goto #6 if not %1",
                "2 ─      goto #4 if not _2",
                "3 ─      store _1.x = 2",
                "└──      goto #5",
                "4 ─      store _1.x = 3",
                "5 ┄      return",
                "6 ─      raise nil_dereference()",
                "└──      unwind",
            ]
        )
    );
}

#[test]
fn store_read_on_one_path_stays() {
    let src = format!(
        "{P}fn f(p: P, c: bool) -> int {{ p.x = 1; if c {{ return p.x; }} p.x = 2; return 0; }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; print(f(p, true), f(p, false), p.x); }}\n"
    );
    let (c, out, ir) = run("onepath", &src, DSE, "f");
    assert_eq!(out, "1 0 2\n");
    assert_eq!(dse_counters(&c), "");
    assert!(
        ir.contains("store _1.x = 1") && ir.contains("store _1.x = 2"),
        "{ir}"
    );
}

#[test]
fn overwrite_on_some_paths_only_stays() {
    // The first store reaches the return when c is false; the parameter's
    // field is visible to the caller.
    let src = format!(
        "{P}fn f(p: P, c: bool) {{ p.x = 1; if c {{ p.x = 2; }} }}\n\
         fn g(p: P, c: bool) {{ p.y = 1; if c {{ return; }} p.y = 2; }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; f(p, false); g(p, true); print(p.x, p.y); }}\n"
    );
    let (c, out, ir) = run("somepaths", &src, DSE, "f");
    assert_eq!(out, "1 1\n");
    assert_eq!(dse_counters(&c), "");
    assert!(ir.contains("store _1.x = 1"), "{ir}");
}

#[test]
fn store_before_a_call_that_reads_stays_and_before_one_that_does_not_goes() {
    // `h` reads P.x; `k` reads only a global and cannot throw.
    let src = format!(
        "{P}var g = 7;\n\
         fn h(p: P) -> int {{ return p.x; }}\n\
         fn k() -> int {{ return g; }}\n\
         fn f(p: P) -> int {{ p.x = 1; let r = h(p); p.x = 2; return r; }}\n\
         fn e(p: P) -> int {{ p.x = 3; let r = k(); p.x = 4; return r; }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; print(f(p), p.x, e(p), p.x); }}\n"
    );
    let (c, out, ir) = run("calls", &src, DSE, "f");
    assert_eq!(out, "1 2 7 4\n");
    assert_eq!(dse_counters(&c), "dse.overwritten: 1\n");
    assert!(ir.contains("store _1.x = 1"), "{ir}");
    let (mut module, _) = compile_with_sources("calls2", &src);
    run_passes(&mut module, DSE);
    let e = ir_text(&module, "e");
    assert!(
        !e.contains("store _1.x = 3") && e.contains("store _1.x = 4"),
        "{e}"
    );
}

#[test]
fn store_before_a_check_caught_by_a_handler_that_reads_it_stays() {
    // a[i] may raise; the handler in the same function reads p.x, so
    // `p.x = 1` is observable although `p.x = 2` follows it. In `quiet` the
    // handler reads nothing of the non-escaping p: the first store goes.
    let src = format!(
        "{P}fn f(a: [int], i: int) -> int {{ let p = P {{ x: 0, y: 0 }}; \
           try {{ p.x = 1; a[i] = 0; p.x = 2; }} catch e {{ return p.x; }} return p.x + 10; }}\n\
         fn quiet(a: [int], i: int) -> int {{ let p = P {{ x: 0, y: 0 }}; \
           try {{ p.x = 1; a[i] = 0; p.x = 2; }} catch e {{ return -1; }} return p.x; }}\n\
         fn main() {{ let a = [5]; print(f(a, 0), f(a, 3), quiet(a, 0), quiet(a, 3)); }}\n"
    );
    let (c, out, ir) = run("handler", &src, DSE, "f");
    assert_eq!(out, "12 1 2 -1\n");
    assert!(ir.contains("store %") && ir.contains(".x = 1"), "{ir}");
    assert_eq!(dse_counters(&c), "dse.unread_alloc: 1\n");
    let (mut module, _) = compile_with_sources("handler2", &src);
    run_passes(&mut module, DSE);
    let q = ir_text(&module, "quiet");
    assert!(!q.contains(".x = 1") && q.contains(".x = 2"), "{q}");
}

#[test]
fn store_before_a_check_that_unwinds_to_the_caller_stays() {
    // The bounds check of a[i] leaves f when it fails; main's handler reads
    // p.x.
    let src = format!(
        "{P}fn f(p: P, a: [int], i: int) {{ p.x = 1; a[i] = 0; p.x = 2; }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; try {{ f(p, [1], 4); }} catch e {{ print(e); }} print(p.x); }}\n"
    );
    let (c, out, ir) = run("unwind", &src, DSE, "f");
    assert_eq!(out, "index out of bounds: index 4, length 1\n1\n");
    assert_eq!(dse_counters(&c), "");
    assert!(ir.contains("store _1.x = 1"), "{ir}");
}

#[test]
fn store_read_in_the_next_iteration_stays() {
    let src = format!(
        "{P}fn f(n: int) -> int {{ let q = P {{ x: 0, y: 0 }}; var s = 0; var i = 0; \
           while i < n {{ s = s + q.x; q.x = i; i = i + 1; }} return s; }}\n\
         fn main() {{ print(f(5)); }}\n"
    );
    let (c, out, ir) = run("nextiter", &src, DSE, "f");
    assert_eq!(out, "6\n");
    assert_eq!(dse_counters(&c), "");
    assert!(ir.contains("store %1.x = "), "{ir}");
}

#[test]
fn kill_of_another_object_after_the_back_edge_does_not_count() {
    // Each iteration allocates a node and links it into a global list. The
    // store `q.x = 2` post-dominates `q.x = 1`, but the path that continues
    // allocates a new q first: the earlier node keeps x = 1.
    let src = "struct N { x: int, next: N }\nvar last: N = nil;\n\
        fn f(n: int) { var i = 0; while true { let q = N { x: 0, next: last }; last = q; q.x = 1; i = i + 1; \
          if i < n { continue; } q.x = 2; return; } }\n\
        fn main() { f(3); var p = last; while p != nil { print(p.x); p = p.next; } }\n";
    let (c, out, ir) = run("loopkill", src, DSE, "f");
    assert_eq!(out, "2\n1\n1\n");
    assert_eq!(dse_counters(&c), "");
    assert!(ir.contains(".x = 1") && ir.contains(".x = 2"), "{ir}");
}

#[test]
fn kill_of_a_loop_invariant_location_after_the_back_edge_counts() {
    // g = 1 is overwritten by g = 2 in the same iteration; g = 2 by the next
    // iteration's g = 1 or, after the loop, by g = 3.
    let src = "var g = 0;\n\
        fn f(n: int) { var i = 0; while i < n { g = 1; g = 2; i = i + 1; } g = 3; }\n\
        fn main() { f(4); print(g); }\n";
    let (c, out, ir) = run("invkill", src, DSE, "f");
    assert_eq!(out, "3\n");
    assert_eq!(dse_counters(&c), "dse.overwritten: 2\n");
    assert_eq!(
        ir,
        body(
            "fn f(_1::int)  # n",
            &[
                "1 ─      goto #2",
                "2 ┄ %2 = φ (#1 => 0, #3 => %5)::int  # i",
                "│   %3 = ilt(%2, _1)::bool",
                "└──      goto #4 if not %3",
                "3 ─ %5 = iadd(%2, 1)::int  # i",
                "└──      goto #2",
                "4 ─      store @g = 3",
                "└──      return",
            ]
        )
    );
}

#[test]
fn unread_local_allocation_loses_its_stores_across_blocks_and_loops_then_itself() {
    // The struct and the array never escape and are never read: every store
    // goes, in the loop and after it, then both allocations (the array's
    // length check stays in the IR as a branch).
    let src = format!(
        "{P}fn f(n: int) -> int {{ let p = P {{ x: 0, y: 0 }}; let a = [0, 0, 0]; var i = 0; \
           while i < n {{ p.x = i; a[2] = i; if p != nil {{ p.y = 1; }} i = i + 1; }} p.y = 5; return i; }}\n\
         fn main() {{ print(f(4)); }}\n"
    );
    let (c, out, ir) = run("local", &src, DSE, "f");
    assert_eq!(out, "4\n");
    // `p.y = 1` is overwritten by `p.y = 5` on every path (the struct is
    // loop-invariant); p.x and a[2] in the loop, p.y after it, and a[1],
    // a[2] of the literal are never read. Then both allocations go (the
    // struct's `!= nil` folds to true).
    assert_eq!(
        dse_counters(&c),
        "dse.overwritten: 1\ndse.removed_alloc: 2\ndse.unread_alloc: 5\n"
    );
    assert_eq!(
        ir,
        body(
            "fn f(_1::int) -> int  # n",
            &[
                "1 ─      nothing",
                "2 ┄ %2 = φ (#1 => 0, #5 => %7)::int  # i",
                "│   %3 = ilt(%2, _1)::bool",
                "└──      goto #6 if not %3",
                "3 ─      nothing",
                "4 ─      nothing",
                "5 ─ %7 = iadd(%2, 1)::int  # i",
                "└──      goto #2",
                "6 ─      return %2",
            ]
        )
    );
}

#[test]
fn escaping_allocation_keeps_its_stores() {
    let src = format!(
        "{P}var keep: P = nil;\n\
         fn f(c: bool) {{ let p = P {{ x: 0, y: 0 }}; p.x = 1; if c {{ keep = p; }} }}\n\
         fn h(q: P) -> int {{ return q.x; }}\n\
         fn g() -> int {{ let p = P {{ x: 0, y: 0 }}; p.x = 3; return h(p); }}\n\
         fn main() {{ f(true); print(keep.x, g()); }}\n"
    );
    let (c, out, _) = run("escape", &src, DSE, "f");
    assert_eq!(out, "1 3\n");
    assert_eq!(dse_counters(&c), "");
}

#[test]
fn the_scan_has_a_budget() {
    // 150 stores to other globals between the two stores of g0: the scan
    // from `g0 = 1` gives up (it stays); the others are not overwritten.
    let mut src = String::new();
    for i in 0..151 {
        src.push_str(&format!("var g{i} = 0;\n"));
    }
    src.push_str("fn f() { g0 = 1;");
    for i in 1..151 {
        src.push_str(&format!(" g{i} = {i};"));
    }
    src.push_str(" g0 = 2; }\nfn main() { f(); print(g0, g150); }\n");
    let (c, out, ir) = run("budget", &src, DSE, "f");
    assert_eq!(out, "2 150\n");
    assert_eq!(c.get("dse.overwritten"), 0);
    assert!(c.get("dse.budget_exhausted") >= 1, "{:?}", c);
    assert!(ir.contains("store @g0 = 1"), "{ir}");
}

#[test]
fn kills_on_every_path_without_a_common_post_dominator() {
    // Each branch overwrites p.x and returns on its own: no kill block
    // post-dominates the first store, the forward search proves it dead.
    // A path that ends in `exit()` leaves nothing for a caller to read.
    let src = format!(
        "{P}fn f(p: P, c: bool) {{ p.x = 1; if c {{ p.x = 2; return; }} p.x = 3; }}\n\
         fn e(p: P, c: bool) {{ p.y = 1; if c {{ exit(0); }} p.y = 2; }}\n\
         fn main() {{ let p = P {{ x: 0, y: 0 }}; f(p, true); print(p.x); f(p, false); e(p, false); print(p.x, p.y); }}\n"
    );
    let (c, out, ir) = run("nocommon", &src, DSE, "f");
    assert_eq!(out, "2\n3 2\n");
    assert_eq!(dse_counters(&c), "dse.overwritten: 2\n");
    assert!(
        !ir.contains("store _1.x = 1")
            && ir.contains("store _1.x = 2")
            && ir.contains("store _1.x = 3"),
        "{ir}"
    );
    let (mut module, _) = compile_with_sources("nocommon2", &src);
    run_passes(&mut module, DSE);
    let e = ir_text(&module, "e");
    assert!(
        !e.contains("store _1.y = 1") && e.contains("store _1.y = 2"),
        "{e}"
    );
}
