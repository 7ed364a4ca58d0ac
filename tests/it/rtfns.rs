//! The table of runtime functions (`toyc::rtfns`) against the runtime and
//! the back ends: every symbol resolves, the runtime exports nothing the
//! table and codegen's own entry points do not name, codegen's machine
//! signatures are the table's, every function without a symbol is one
//! codegen inlines, and SSA construction lowers each builtin to the runtime
//! functions its row names, with an exception check exactly when the row
//! says it may throw.

use crate::memssa_support::{compile, func_index};
use std::collections::BTreeSet;
use toyc::codegen::rtfn::{self, Lowering, RtTy};
use toyc::ir::{Inst, RuntimeFn};
use toyc::rtfns::{BUILTINS, Builtin, RUNTIME, Ty};

/// The runtime's exported data symbols (not functions).
const DATA_SYMBOLS: [&str; 3] = ["toy_pending", "toy_bril_heap", "toy_gc_exit"];

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
        [
            "pop",
            "assert",
            "parse_int",
            "parse_float",
            "chr",
            "substr",
            "read_line",
            "read_file",
            "write_file"
        ]
    );
    let t: Vec<RuntimeFn> = RuntimeFn::all().filter(|f| f.row().may_throw).collect();
    assert_eq!(
        t,
        [
            RuntimeFn::Substr,
            RuntimeFn::Chr,
            RuntimeFn::ParseInt,
            RuntimeFn::ParseFloat,
            RuntimeFn::ReadLine,
            RuntimeFn::ReadFile,
            RuntimeFn::WriteFile,
            RuntimeFn::BrilAlloc,
            RuntimeFn::BrilFree,
            RuntimeFn::BrilLoadInt,
            RuntimeFn::BrilLoadFloat,
            RuntimeFn::BrilLoadBool,
            RuntimeFn::BrilStoreInt,
            RuntimeFn::BrilStoreFloat,
            RuntimeFn::BrilStoreBool,
            RuntimeFn::BrilCheckLeaks,
        ]
    );
}

/// A call of `b` in the body of `f(i: int, x: float, b: bool, s: str, a: [int])`.
fn call_of(b: Builtin) -> &'static str {
    use Builtin::*;
    match b {
        Print => "print(i, x, b, s, a);",
        Write => "write(i, x, b, s, a);",
        Len => "let n = len(s);",
        Push => "push(a, i);",
        Pop => "let p = pop(a);",
        ToFloat => "let y = float(i);",
        ToInt => "let k = int(x);",
        ToStr => "let t = str(i); let u = str(x); let v = str(b);",
        Args => "let g = args();",
        Clock => "let c = clock();",
        Exit => "exit(i);",
        Assert => "assert(b, s);",
        ParseInt => "let v = parse_int(s);",
        ParseFloat => "let v = parse_float(s);",
        Chr => "let v = chr(i);",
        Substr => "let v = substr(s, i, i);",
        Fixed => "let v = fixed(x, i);",
        Sqrt => "let v = sqrt(x);",
        Sin => "let v = sin(x);",
        Cos => "let v = cos(x);",
        Tan => "let v = tan(x);",
        Atan => "let v = atan(x);",
        Atan2 => "let v = atan2(x, x);",
        Exp => "let v = exp(x);",
        Ln => "let v = ln(x);",
        Pow => "let v = pow(x, x);",
        Floor => "let v = floor(x);",
        Ceil => "let v = ceil(x);",
        Fabs => "let v = fabs(x);",
        ReadLine => "let v = read_line();",
        AtEof => "let v = at_eof();",
        ReadAll => "let v = read_all();",
        ReadFile => "let v = read_file(s);",
        WriteFile => "write_file(s, s);",
    }
}

#[test]
fn ssa_lowers_each_builtin_as_its_row_says() {
    for b in Builtin::all() {
        let src = format!(
            "fn f(i: int, x: float, b: bool, s: str, a: [int]) {{\n    {}\n}}\n\
             fn main() {{\n    f(1, 1.5, true, \"7\", [1, 2]);\n}}\n",
            call_of(b)
        );
        let module = compile(&format!("builtin-{}", b.name()), &src);
        let f = &module.funcs[func_index(&module, "f")];
        let mut throws = false;
        for inst in f.stmts.inst.values() {
            match inst {
                Inst::Runtime { func, .. } => assert!(
                    b.row().calls.contains(func),
                    "{} lowers to {func:?}, not in its row",
                    b.name()
                ),
                Inst::NoException | Inst::Raise { .. } => throws = true,
                _ => {}
            }
        }
        assert_eq!(throws, b.may_throw(), "{}: may_throw", b.name());
    }
}

/// The body of `extern "C" fn NAME` in `src/runtime/`, up to its closing
/// brace at column 0 (`None` for the math functions a macro defines).
fn runtime_fn_body(name: &str) -> Option<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime");
    let mut files = vec![root.clone()];
    let mut texts = Vec::new();
    while let Some(p) = files.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).expect("runtime dir") {
                files.push(e.expect("entry").path());
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            texts.push(std::fs::read_to_string(&p).expect("source"));
        }
    }
    let head = format!("extern \"C\" fn {name}(");
    for t in texts {
        if let Some(i) = t.find(&head) {
            let rest = &t[i..];
            let end = rest.find("\n}\n").unwrap_or(rest.len());
            return Some(rest[..end].to_string());
        }
    }
    None
}

/// A runtime function may collect exactly when its row says it allocates
/// (then codegen calls it through its trampoline): its body starts a
/// safepoint, and no other function's does.
#[test]
fn functions_that_allocate_are_safepoints_and_no_others() {
    let mut sigs: Vec<(&str, bool)> = RUNTIME
        .iter()
        .filter_map(|r| r.symbol.map(|s| (s, r.allocates)))
        .collect();
    sigs.extend(rtfn::internal::ALL.iter().map(|s| (s.symbol, s.collects)));
    for (symbol, collects) in sigs {
        let Some(body) = runtime_fn_body(symbol) else {
            assert!(!collects, "{symbol}: no `extern \"C\" fn` found");
            continue;
        };
        let after_signature = body.find("{\n").map_or(body.as_str(), |i| &body[i + 2..]);
        let first_lines: String = after_signature
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .take(3)
            .collect::<Vec<_>>()
            .join("\n");
        let polls = first_lines.contains("gc::safepoint");
        assert_eq!(
            polls, collects,
            "{symbol}: a safepoint at entry must match the table (collects: {collects})\n{first_lines}"
        );
        if !collects {
            assert!(
                !body.contains("gc::safepoint"),
                "{symbol} collects in its middle"
            );
        }
    }
}
