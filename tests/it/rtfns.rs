//! The table of runtime functions (`toyc::rtfns`) against the runtime and
//! the back ends: every symbol resolves, the runtime exports nothing the
//! table and codegen's own entry points do not name, codegen's machine
//! signatures are the table's, and every function without a symbol is one
//! codegen inlines.

use std::collections::BTreeSet;
use toyc::codegen::rtfn::{self, Lowering, RtTy};
use toyc::ir::RuntimeFn;
use toyc::rtfns::{BUILTINS, RUNTIME, Ty};

/// The runtime's exported data symbols (not functions).
const DATA_SYMBOLS: [&str; 2] = ["toy_pending", "toy_stack_limit"];

fn exported() -> BTreeSet<&'static str> {
    toyc::runtime::symbols().iter().map(|(s, _)| *s).collect()
}

#[test]
fn every_table_symbol_resolves() {
    let have = exported();
    for r in &RUNTIME {
        if let Some(s) = r.symbol {
            assert!(have.contains(s), "{:?}: runtime exports no {s}", r.func);
        }
    }
    for s in rtfn::internal::ALL {
        assert!(have.contains(s.symbol), "runtime exports no {}", s.symbol);
    }
}

#[test]
fn the_runtime_exports_nothing_unlisted() {
    let mut listed: BTreeSet<&str> = RUNTIME.iter().filter_map(|r| r.symbol).collect();
    listed.extend(rtfn::internal::ALL.iter().map(|s| s.symbol));
    listed.extend(DATA_SYMBOLS);
    let extra: Vec<&str> = exported().difference(&listed).copied().collect();
    assert!(
        extra.is_empty(),
        "runtime symbols no table lists: {extra:?}"
    );
    let all = toyc::runtime::symbols();
    assert_eq!(
        all.len(),
        exported().len(),
        "a runtime symbol is exported twice"
    );
}

fn machine(t: Ty) -> Option<RtTy> {
    match t {
        Ty::Void => None,
        Ty::Float => Some(RtTy::F),
        Ty::Bool => Some(RtTy::B),
        Ty::Int | Ty::Elem => Some(RtTy::I),
        Ty::Str | Ty::StrArray | Ty::Ref | Ty::Array => Some(RtTy::P),
    }
}

#[test]
fn codegen_signatures_are_the_tables() {
    for r in &RUNTIME {
        match rtfn::lowering(r.func) {
            Lowering::Call { sig } => {
                assert_eq!(Some(sig.symbol), r.symbol, "{:?}", r.func);
                let mut want: Vec<RtTy> = r.params.iter().filter_map(|t| machine(*t)).collect();
                want.extend(r.tag.map(|_| RtTy::I));
                want.extend(r.may_throw.then_some(RtTy::I));
                assert_eq!(*sig.params, *want, "{:?}", r.func);
                assert_eq!(sig.ret, machine(r.ret), "{:?}", r.func);
            }
            Lowering::Inline => assert!(rtfn::is_inline(r.func), "{:?}", r.func),
        }
        if r.symbol.is_none() {
            assert!(rtfn::is_inline(r.func), "{:?} has no symbol", r.func);
        }
    }
}

#[test]
fn the_table_says_what_may_throw() {
    // The table says which builtins and runtime functions may throw
    // (before the table, four places did).
    let throwing: Vec<&str> = BUILTINS
        .iter()
        .filter(|r| r.builtin.may_throw())
        .map(|r| r.name)
        .collect();
    assert_eq!(
        throwing,
        ["pop", "assert", "parse_int", "parse_float", "chr", "substr"]
    );
    let t: Vec<RuntimeFn> = RuntimeFn::all().filter(|f| f.row().may_throw).collect();
    assert_eq!(
        t,
        [
            RuntimeFn::Substr,
            RuntimeFn::Chr,
            RuntimeFn::ParseInt,
            RuntimeFn::ParseFloat
        ]
    );
}
