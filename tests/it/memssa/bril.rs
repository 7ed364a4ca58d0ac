//! MemorySSA on Bril's memory extension: `load`/`store` calls are uses and
//! defs of the slot their pointer names, `alloc`/`free` defs of every slot,
//! and the alias analysis is sound for `ptradd`'s wrapping arithmetic
//! (a pointer value names one slot; offsets of one root are compared; two
//! `alloc`s are distinct only while the offsets stay in `0..2^32`).
//! `gvn_load` then forwards and reuses Bril loads with exact counts.

use crate::memssa_support::{func_index, run_passes};
use toyc::ir::{Inst, IrCode, Module, RuntimeFn, Value};
use toyc::memssa::alias::compute_summaries;
use toyc::memssa::verify::verify;
use toyc::memssa::{AccessKind, LIVE_ON_ENTRY, MemorySsa};

fn bril(text: &str) -> Module {
    let mut sources = toyc::span::SourceMap::new();
    let file = sources.add("t.bril".into(), None, text.to_string());
    let (prog, checked) = toyc::bril::load(&sources, file).expect("the program checks");
    toyc::ssa::bril::build_bril_module(&prog, &checked, None)
}

/// The statements of `f` that call one of `funcs`, in order.
fn calls_of(f: &IrCode, funcs: &[RuntimeFn]) -> Vec<Value> {
    f.stmts
        .inst
        .iter()
        .filter(|(_, i)| matches!(i, Inst::Runtime { func, .. } if funcs.contains(func)))
        .map(|(v, _)| v)
        .collect()
}
fn loads(f: &IrCode) -> Vec<Value> {
    calls_of(f, &[RuntimeFn::BrilLoadInt])
}
fn stores(f: &IrCode) -> Vec<Value> {
    calls_of(f, &[RuntimeFn::BrilStoreInt])
}

/// MemorySSA of `name`, verified, with every use's clobber computed.
fn mssa(module: &Module, name: &str) -> (IrCode, MemorySsa) {
    let sums = compute_summaries(module);
    let f = module.funcs[func_index(module, name)].clone();
    let mut m = MemorySsa::build(&f, &sums);
    m.ensure_optimized_uses(&f);
    verify(&m, &f, &sums).unwrap_or_else(|e| panic!("verifier: {e:?}"));
    (f, m)
}

/// The statement whose access clobbers the load `v` (`None`: a φ or
/// liveOnEntry).
fn clobber(f: &IrCode, m: &mut MemorySsa, v: Value) -> Option<Value> {
    let a = m.access_for(v).expect("a load has an access");
    let c = m.clobbering_access(f, a);
    match m.access(c).kind {
        AccessKind::Def { inst } if c != LIVE_ON_ENTRY => Some(inst),
        _ => None,
    }
}

const STRAIGHT: &str = "@main {
  n: int = const 4;
  p: ptr<int> = alloc n;
  q: ptr<int> = alloc n;
  one: int = const 1;
  big: int = const 4294967296;
  p1: ptr<int> = ptradd p one;
  r: ptr<int> = ptradd p big;
  seven: int = const 7;
  store p seven;
  store p1 one;
  store q one;
  a: int = load p;
  b: int = load p1;
  c: int = load q;
  store r seven;
  d: int = load q;
  e: int = load p;
  print a b c d e;
  free p;
  g: int = load q;
  print g;
  free q;
}
";

#[test]
fn loads_skip_stores_to_other_offsets_and_other_allocations() {
    let module = bril(STRAIGHT);
    let (f, mut m) = mssa(&module, "main");
    let st = stores(&f);
    let ld = loads(&f);
    assert_eq!((st.len(), ld.len()), (4, 6));
    let (sp, sp1, sq, sr) = (st[0], st[1], st[2], st[3]);
    // load p, load p1, load q: each reaches its own store past the others
    // (p vs p+1 differ by offset; p+c vs q+d are distinct allocations).
    assert_eq!(clobber(&f, &mut m, ld[0]), Some(sp));
    assert_eq!(clobber(&f, &mut m, ld[1]), Some(sp1));
    assert_eq!(clobber(&f, &mut m, ld[2]), Some(sq));
    // r = p + 2^32 leaves p's id range: it may be q's slot. It is not
    // p's: one root, another offset, so another pointer value.
    assert_eq!(clobber(&f, &mut m, ld[3]), Some(sr));
    assert_eq!(clobber(&f, &mut m, ld[4]), Some(sp));
    // free writes every slot.
    let frees = calls_of(&f, &[RuntimeFn::BrilFree]);
    assert_eq!(clobber(&f, &mut m, ld[5]), Some(frees[0]));
}

#[test]
fn a_store_clobbers_the_allocation_it_may_reach() {
    // The first store's clobber is the second alloc: alloc writes every
    // slot (a load of a fresh slot raises, so its value is not known).
    let module = bril(STRAIGHT);
    let (f, mut m) = mssa(&module, "main");
    let allocs = calls_of(&f, &[RuntimeFn::BrilAlloc]);
    assert_eq!(allocs.len(), 2);
    let sp = stores(&f)[0];
    let a = m.access_for(sp).expect("a store has an access");
    let c = m.clobbering_access(&f, a);
    assert!(
        matches!(m.access(c).kind, AccessKind::Def { inst } if inst == allocs[1]),
        "{}",
        m.describe(c)
    );
}

#[test]
fn argument_pointers_are_compared_by_offset_only() {
    let text = "@f(x: ptr<int>, y: ptr<int>): int {
  one: int = const 1;
  x1: ptr<int> = ptradd x one;
  store x one;
  store x1 one;
  a: int = load x;
  store y one;
  b: int = load x1;
  s: int = add a b;
  ret s;
}
@main {
  two: int = const 2;
  p: ptr<int> = alloc two;
  v: int = call @f p p;
  print v;
  free p;
}
";
    let module = bril(text);
    let (f, mut m) = mssa(&module, "f");
    let (st, ld) = (stores(&f), loads(&f));
    assert_eq!(
        clobber(&f, &mut m, ld[0]),
        Some(st[0]),
        "x vs x+1: other slot"
    );
    assert_eq!(clobber(&f, &mut m, ld[1]), Some(st[2]), "y may be x+1");
}

#[test]
fn a_pointer_varying_in_a_loop_clobbers_through_the_phi() {
    // The loop-carried pointer q may be p in some iteration: the load of q
    // in the loop is clobbered by the loop's memory φ (the store before the
    // loop or the store of the iteration before), and the load of p after
    // the loop by the loop's store.
    let text = "@main {
  n: int = const 4;
  p: ptr<int> = alloc n;
  zero: int = const 0;
  one: int = const 1;
  store p zero;
  i: int = const 0;
  q: ptr<int> = id p;
.loop:
  v: int = load q;
  store q i;
  q: ptr<int> = ptradd q one;
  i: int = add i one;
  c: bool = lt i n;
  br c .loop .done;
.done:
  w: int = load p;
  print v w;
  free p;
}
";
    let module = bril(text);
    let (f, mut m) = mssa(&module, "main");
    let ld = loads(&f);
    assert_eq!(ld.len(), 2);
    let st = stores(&f);
    assert_eq!(clobber(&f, &mut m, ld[0]), None, "the loop header's φ");
    assert_eq!(clobber(&f, &mut m, ld[1]), Some(st[1]), "store q i");
}

#[test]
fn gvn_load_forwards_bril_stores_and_reuses_loads() {
    let mut module = bril(STRAIGHT);
    let c = run_passes(&mut module, &["gvn_load"]);
    // a, b, c and e get the stored value; d (after the store through r,
    // which may be q's slot) and g (after free) stay.
    assert_eq!(c.get("gvn_load.forwarded"), 4, "{c:?}");
    assert_eq!(c.get("gvn_load.redundant"), 0, "{c:?}");
    let f = &module.funcs[func_index(&module, "main")];
    assert_eq!(loads(f).len(), 2, "d and g stay");
    toyc::ir::verify::verify_module(&module).expect("valid IR");

    let text = "@main {
  n: int = const 2;
  p: ptr<int> = alloc n;
  one: int = const 1;
  store p one;
  q: ptr<int> = alloc n;
  a: int = load p;
  b: int = load p;
  print a b;
  free p;
  free q;
}
";
    let mut module = bril(text);
    let c = run_passes(&mut module, &["gvn_load"]);
    assert_eq!(c.get("gvn_load.forwarded"), 0, "alloc q writes every slot");
    assert_eq!(c.get("gvn_load.redundant"), 1, "b is a");
}
