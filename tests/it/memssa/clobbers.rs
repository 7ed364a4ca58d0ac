//! MemorySSA on Toy programs: the ideas of LLVM's MemorySSA tests
//! (optimize-use, phi-translation, cyclicphi, function-clobber,
//! call-loop-carried-dependency, forward-unreachable, cache invalidation),
//! with exact clobbers and insta snapshots of the printed form.
//!
//! LLVM's volatile-clobber test has no Toy counterpart: Toy has no volatile
//! accesses. Its idea (an access that must not be skipped although the
//! alias analysis could) is tested here with a call that writes memory of
//! the loaded class: it must clobber even when the load's base is an
//! argument the callee never receives.

use crate::memssa_support;

use memssa_support::*;
use toyc::ir::{BlockId, Inst, IrCode, Loc, Value};
use toyc::memssa::alias::{Summaries, compute_summaries};
use toyc::memssa::verify::verify;
use toyc::memssa::{AccessKind, LIVE_ON_ENTRY, MemorySsa};

/// The statements (values) of `f` whose instruction passes `keep`, in order.
fn stmts_where(f: &IrCode, keep: impl Fn(&Inst) -> bool) -> Vec<Value> {
    (0..f.stmts.len() as u32)
        .map(Value)
        .filter(|v| keep(&f.stmts.inst[Value(v.0)]))
        .collect()
}
fn loads(f: &IrCode) -> Vec<Value> {
    stmts_where(f, |i| matches!(i, Inst::Load { .. }))
}
fn stores(f: &IrCode) -> Vec<Value> {
    stmts_where(f, |i| matches!(i, Inst::Store { .. }))
}
/// The loads of array elements, in order.
fn elem_loads(f: &IrCode) -> Vec<Value> {
    stmts_where(f, |i| {
        matches!(
            i,
            Inst::Load {
                loc: Loc::ArrayElem(_),
                ..
            }
        )
    })
}
fn calls(f: &IrCode) -> Vec<Value> {
    stmts_where(f, |i| matches!(i, Inst::Call { .. }))
}

/// Builds MemorySSA of function `name` with the module's call summaries.
fn mssa(module: &toyc::ir::Module, name: &str) -> (IrCode, MemorySsa) {
    let sums = compute_summaries(module);
    let f = module.funcs[func_index(module, name)].clone();
    let m = MemorySsa::build(&f, &sums);
    verify(&m, &f, &sums).unwrap_or_else(|e| panic!("verifier: {e:?}"));
    (f, m)
}

#[test]
fn optimize_use_skips_other_fields_and_objects() {
    let src = "struct A { x: int, y: int }\n\
        fn f(a: A, b: A) -> int { a.x = 1; b.y = 2; a.y = 3; return a.x; }\n\
        fn main() { let a = A { x: 0, y: 0 }; print(f(a, a)); }\n";
    let module = compile("optuse", src);
    let (f, mut m) = mssa(&module, "f");
    let st = stores(&f);
    let ld = loads(&f);
    assert_eq!(st.len(), 3);
    assert_eq!(ld.len(), 1);
    let load = m.access_for(ld[0]).expect("load access");
    // Before optimisation the use hangs off the last def (a.y = 3).
    assert_eq!(m.defining_access(load), m.access_for(st[2]));
    m.ensure_optimized_uses(&f);
    assert_eq!(
        m.defining_access(load),
        m.access_for(st[0]),
        "a.x = 1 is the clobber"
    );
    assert_eq!(m.optimized(load), m.access_for(st[0]));
    verify(&m, &f, &compute_summaries(&module)).expect("valid after optimisation");
    insta::assert_snapshot!(memssa_text(&module, "f", false));
}

#[test]
fn phi_translation_of_index() {
    // k is 2 or 3 at the join: neither path writes a[2] (then-branch writes
    // a[1]), so the load of a[k] is not clobbered by anything in f.
    let src = "fn g(c: bool, a: [int]) -> int {\n\
          var k = 0;\n  a[0] = 7;\n\
          if c { a[1] = 8; k = 2; } else { k = 3; }\n\
          return a[k];\n}\n\
        fn h(c: bool, a: [int]) -> int {\n\
          var k = 0;\n  a[0] = 7;\n\
          if c { a[2] = 8; k = 2; } else { k = 3; }\n\
          return a[k];\n}\n\
        fn main() { let a = [0; 4]; print(g(true, a), h(true, a)); }\n";
    let module = compile("phitrans", src);
    let (f, mut m) = mssa(&module, "g");
    let ld = elem_loads(&f)[0];
    let a = m.access_for(ld).expect("access");
    assert!(matches!(
        m.access(m.defining_access(a).expect("def")).kind,
        AccessKind::Phi { .. }
    ));
    assert_eq!(
        m.clobbering_access(&f, a),
        LIVE_ON_ENTRY,
        "translated k=2 / k=3 miss a[1] and a[0]"
    );
    let (f, mut m) = mssa(&module, "h");
    let ld = elem_loads(&f)[0];
    let a = m.access_for(ld).expect("access");
    let c = m.clobbering_access(&f, a);
    assert!(
        matches!(m.access(c).kind, AccessKind::Phi { .. }),
        "a[2] = 8 on one path: the φ clobbers"
    );
    insta::assert_snapshot!(memssa_text(&module, "g", true));
}

#[test]
fn cyclic_phi_resolves_to_the_store_before_the_loop() {
    let src = "fn h(a: [int], n: int) -> int {\n\
          var s = 0;\n  var i = 0;\n  a[0] = 1;\n\
          while i < n { s = s + a[0]; a[1] = s; i = i + 1; }\n\
          return s;\n}\n\
        fn main() { let a = [0; 4]; print(h(a, 3)); }\n";
    let module = compile("cyclic", src);
    let (f, mut m) = mssa(&module, "h");
    let st = stores(&f);
    let ld = elem_loads(&f)[0];
    let a = m.access_for(ld).expect("access");
    assert_eq!(
        m.clobbering_access(&f, a),
        m.access_for(st[0]).expect("a[0] = 1")
    );
    insta::assert_snapshot!(memssa_text(&module, "h", true));
}

#[test]
fn loop_carried_index_is_not_disambiguated_across_iterations() {
    // a[i+1] written in iteration i is a[i] read in iteration i+1.
    let src = "fn h(a: [int], n: int) -> int {\n\
          var s = 0;\n  var i = 0;\n\
          while i < n { s = s + a[i]; a[i + 1] = s; i = i + 1; }\n\
          return s;\n}\n\
        fn main() { let a = [0; 8]; print(h(a, 3)); }\n";
    let module = compile("loopcarried", src);
    let (f, mut m) = mssa(&module, "h");
    let ld = elem_loads(&f)[0];
    let a = m.access_for(ld).expect("access");
    let c = m.clobbering_access(&f, a);
    assert!(
        matches!(m.access(c).kind, AccessKind::Phi { .. }),
        "the loop φ must clobber, got {}",
        m.describe(c)
    );
}

#[test]
fn function_clobber_uses_call_summaries() {
    let src = "fn sq(x: int) -> int { return x * x; }\n\
        fn get(a: [int]) -> int { return a[0]; }\n\
        fn put(a: [int]) { a[0] = 9; }\n\
        fn setf(b: [float]) { b[0] = 1.0; }\n\
        fn f(a: [int], b: [float]) -> int {\n\
          a[0] = 1;\n  let x = sq(3);\n  let y = get(a);\n  setf(b);\n  let z = a[0];\n  put(a);\n  return x + y + z + a[0];\n}\n\
        fn main() { print(f([0; 2], [0.0; 2])); }\n";
    let module = compile("fnclobber", src);
    let (f, mut m) = mssa(&module, "f");
    let calls: Vec<Value> = calls(&f);
    assert_eq!(calls.len(), 4);
    assert_eq!(m.access_for(calls[0]), None, "sq touches no memory");
    assert!(
        matches!(
            m.access(m.access_for(calls[1]).expect("get")).kind,
            AccessKind::Use { .. }
        ),
        "get only reads"
    );
    assert!(matches!(
        m.access(m.access_for(calls[2]).expect("setf")).kind,
        AccessKind::Def { .. }
    ));
    let st = stores(&f);
    let ld: Vec<Value> = elem_loads(&f);
    assert_eq!(ld.len(), 2);
    let z = m.access_for(ld[0]).expect("z");
    assert_eq!(
        m.clobbering_access(&f, z),
        m.access_for(st[0]).expect("a[0] = 1"),
        "setf writes [float] only"
    );
    let last = m.access_for(ld[1]).expect("last");
    assert_eq!(
        m.clobbering_access(&f, last),
        m.access_for(calls[3]).expect("put"),
        "put writes [int]"
    );
    insta::assert_snapshot!(memssa_text(&module, "f", true));
}

#[test]
fn call_in_loop_is_a_loop_carried_clobber() {
    let src = "fn bump(a: [int]) { a[0] = a[0] + 1; }\n\
        fn l(a: [int], n: int) -> int { var s = 0; var i = 0; while i < n { s = s + a[0]; bump(a); i = i + 1; } return s; }\n\
        fn main() { print(l([0; 2], 3)); }\n";
    let module = compile("callloop", src);
    let (f, mut m) = mssa(&module, "l");
    let ld = elem_loads(&f)[0];
    let a = m.access_for(ld).expect("access");
    let c = m.clobbering_access(&f, a);
    assert!(
        matches!(m.access(c).kind, AccessKind::Phi { .. }),
        "got {}",
        m.describe(c)
    );
    // The length is not written by bump: its loads are clobbered by nothing.
    let lens = stmts_where(&f, |i| {
        matches!(
            i,
            Inst::Load {
                loc: Loc::ArrayLen,
                ..
            }
        )
    });
    for v in lens {
        let a = m.access_for(v).expect("len");
        assert_eq!(m.clobbering_access(&f, a), LIVE_ON_ENTRY);
    }
}

#[test]
fn write_of_the_same_class_is_never_skipped() {
    // (LLVM's volatile-clobber idea, see the file comment.)
    let src = "fn w(c: [int]) { c[0] = 5; }\n\
        fn f(a: [int], c: [int]) -> int { let x = a[0]; w(c); return x + a[0]; }\n\
        fn main() { let a = [1; 2]; print(f(a, a)); }\n";
    let module = compile("volatile", src);
    let (f, mut m) = mssa(&module, "f");
    let ld: Vec<Value> = elem_loads(&f);
    let call = calls(&f)[0];
    let second = m.access_for(ld[1]).expect("second load");
    assert_eq!(
        m.clobbering_access(&f, second),
        m.access_for(call).expect("call def")
    );
}

/// The one function of `text`, a module with the global `@g::int`.
fn with_global(text: &str) -> IrCode {
    let mut m =
        toyc::ir::parse::parse(&format!("var @g::int\n{text}")).unwrap_or_else(|e| panic!("{e:?}"));
    m.funcs.remove(0)
}

#[test]
fn forward_unreachable_accesses_use_live_on_entry() {
    // #1 stores and jumps to #3; #2 is unreachable, stores, and jumps to
    // #3; #3 loads. No φ: the unreachable def does not count.
    let f = with_global(
        "fn u() -> int\n\
         1 ─      store @g = 1\n  └── goto #3\n\
         2 ─      store @g = 2\n  └── goto #3\n\
         3 ┄ %5 = load @g::int\n  └── return %5\n",
    );
    let mut m = MemorySsa::build(&f, &Summaries::default());
    verify(&m, &f, &Summaries::default()).expect("valid");
    assert_eq!(m.phi_for(BlockId(2)), None);
    let dead = m.access_for(Value(2)).expect("unreachable store");
    assert_eq!(m.defining_access(dead), Some(LIVE_ON_ENTRY));
    let load = m.access_for(Value(4)).expect("load");
    assert_eq!(
        m.clobbering_access(&f, load),
        m.access_for(Value(0)).expect("first store")
    );
}

#[test]
fn cache_is_invalidated_on_removal_and_move() {
    // #1: store g=1; store g=2; goto #2.  #2: load g; load g; return.
    let f = with_global(
        "fn c() -> int\n\
         1 ─      store @g = 1\n  │   store @g = 2\n  └── goto #2\n\
         2 ─ %4 = load @g::int\n  │   %5 = load @g::int\n  └── return %4\n",
    );
    let mut m = MemorySsa::build(&f, &Summaries::default());
    let (s1, s2) = (
        m.access_for(Value(0)).expect("s1"),
        m.access_for(Value(1)).expect("s2"),
    );
    let (l1, l2) = (
        m.access_for(Value(3)).expect("l1"),
        m.access_for(Value(4)).expect("l2"),
    );
    assert_eq!(m.clobbering_access(&f, l1), s2);
    assert_eq!(m.optimized(l1), Some(s2));
    let before = m.walk_stats().cache_hits;
    assert_eq!(m.clobbering_access(&f, l1), s2);
    assert_eq!(
        m.walk_stats().cache_hits,
        before + 1,
        "second query answered from the cache"
    );
    // Removing s2 (its statement deleted): l1 now sees s1.
    m.remove_access(s2);
    assert_eq!(m.optimized(l1), None, "cache dropped");
    assert_eq!(m.defining_access(l1), Some(s1));
    assert_eq!(m.clobbering_access(&f, l1), s1);
    // Moving l2 to the head of #1 (before s1): it sees liveOnEntry.
    assert_eq!(m.clobbering_access(&f, l2), s1);
    m.move_access(&f, l2, Value(4), BlockId(0), 0);
    assert_eq!(m.optimized(l2), None, "cache dropped on move");
    assert_eq!(m.defining_access(l2), Some(LIVE_ON_ENTRY));
    assert_eq!(m.block_accesses(BlockId(0))[0], l2);
}

#[test]
fn inserting_a_def_places_phis_and_renames() {
    // #1: goto #3 if not _1 ; #2: goto #4 ; #3: goto #4; #4: load g; return.
    let f = with_global(
        "fn d(_1::bool) -> int\n\
         1 ─      goto #3 if not _1\n\
         2 ─      store @g = 5\n  └── goto #4\n\
         3 ─      goto #4\n\
         4 ┄ %5 = load @g::int\n  └── return %5\n",
    );
    let mut m = MemorySsa::build(&f, &Summaries::default());
    let load = m.access_for(Value(4)).expect("load");
    let phi = m.phi_for(BlockId(3)).expect("φ at the join");
    assert_eq!(m.defining_access(load), Some(phi));
    // A new def (say, a store moved into #3) needs no new φ at #4 but
    // becomes the φ's operand from #3.
    let eff = m
        .access(m.access_for(Value(1)).expect("store"))
        .effect
        .clone();
    let new = m.create_access(&f, Value(99), BlockId(2), 0, true, eff);
    verify(&m, &f, &Summaries::default()).unwrap_or_else(|e| panic!("{e:?}"));
    match &m.access(phi).kind {
        AccessKind::Phi { incoming } => assert!(incoming.contains(&(BlockId(2), new))),
        _ => unreachable!(),
    }
}

#[test]
fn walker_budget_gives_a_conservative_answer() {
    let src = "struct A { x: int, y: int }\n\
        fn f(a: A) -> int { a.y = 1; a.y = 2; a.y = 3; a.y = 4; return a.x; }\n\
        fn main() { print(f(A { x: 1, y: 2 })); }\n";
    let module = compile("budget", src);
    let (f, mut m) = mssa(&module, "f");
    let ld = loads(&f)[0];
    let a = m.access_for(ld).expect("load");
    let d = m.defining_access(a).expect("def");
    m.walk_limit = 1;
    let c = m.clobbering_access(&f, a);
    assert!(
        c != LIVE_ON_ENTRY && m.dominates(c, d),
        "stops early at an a.y store, got {}",
        m.describe(c)
    );
    assert!(m.walk_stats().budget_exhausted > 0);
    m.reset_optimized(a);
    m.walk_limit = 100;
    // Past all a.y stores, nothing above writes a.x.
    let c = m.clobbering_access(&f, a);
    assert_eq!(c, LIVE_ON_ENTRY);
}

#[test]
fn deep_nesting_builds_without_recursion() {
    // 400 nested ifs (the parser's nesting limit is below 3000): a deep dominator tree.
    let n = 400;
    let mut src = String::from("var g = 0;\nfn f(x: int) {\n");
    for i in 0..n {
        src += &format!("if x > {i} {{ g = {i};\n");
    }
    for _ in 0..n {
        src += "}\n";
    }
    src += "print(g);\n}\nfn main() { f(5); }\n";
    let module = compile("deep", &src);
    let (f, mut m) = mssa(&module, "f");
    m.ensure_optimized_uses(&f);
    verify(&m, &f, &compute_summaries(&module)).expect("valid");
}
