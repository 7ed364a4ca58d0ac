//! Sema tests on well-formed programs: inferred types, resolution, the
//! `<init>` order, modules and the stdlib.

use super::analyze;
use super::hir::{self, Program, Type};
use crate::diag::Diagnostic;
use crate::span::SourceMap;
use std::path::{Path, PathBuf};

/// Checks `src` as the in-memory main file `test.toy`.
pub(super) fn check(src: &str) -> Result<Program, Vec<Diagnostic>> {
    let mut sm = SourceMap::new();
    let f = sm.add("test.toy".into(), None, src.into());
    analyze(&mut sm, f)
}

/// The errors of `src` as `file:line:col: message`.
pub(super) fn errors_of(sm: &SourceMap, diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .map(|d| format!("{}: {}", sm.position(d.span), d.message))
        .collect()
}

/// The errors of `src` (which must have some) as `line:col: message`.
pub(super) fn errs(src: &str) -> Vec<String> {
    let mut sm = SourceMap::new();
    let f = sm.add("test.toy".into(), None, src.into());
    match analyze(&mut sm, f) {
        Ok(_) => vec!["<no errors>".into()],
        Err(d) => errors_of(&sm, &d)
            .into_iter()
            .map(|s| s.trim_start_matches("test.toy:").to_string())
            .collect(),
    }
}

fn ok(src: &str) -> Program {
    match check(src) {
        Ok(p) => p,
        Err(d) => panic!("unexpected errors: {:#?}", d),
    }
}

fn func<'a>(p: &'a Program, name: &str) -> &'a hir::Function {
    p.functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// `name: type` of every local of a function, in id order.
fn locals(p: &Program, name: &str) -> Vec<String> {
    func(p, name)
        .locals
        .iter()
        .map(|l| format!("{}: {}", l.name, p.type_name(&l.ty)))
        .collect()
}

/// A fresh temporary folder holding the given files.
pub(super) fn temp_dir(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toyc-sema-{}-{}", tag, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("write temp file");
    }
    dir
}

/// Checks `dir/main.toy` as the driver would load it.
pub(super) fn check_dir(dir: &Path) -> (SourceMap, Result<Program, Vec<Diagnostic>>) {
    let mut sm = SourceMap::new();
    let path = dir.join("main.toy");
    let main = crate::driver::load_main_file(&path, &mut sm).expect("main file");
    let r = analyze(&mut sm, main);
    (sm, r)
}

#[test]
fn hello_world() {
    let p = ok("fn main() {\n    print(\"hello\", 1, 2.5, true);\n}\n");
    assert_eq!(p.func(p.main).name, "main");
    assert_eq!(p.func(p.main).ret, Type::Void);
    assert_eq!(p.func(p.init).name, "<init>");
    assert!(p.func(p.init).body.stmts.is_empty());
    let hir::StmtKind::Expr(e) = &p.func(p.main).body.stmts[0].kind else {
        panic!("not an expr stmt")
    };
    let hir::ExprKind::Builtin { builtin, args } = &e.kind else {
        panic!("not a builtin")
    };
    assert_eq!(*builtin, hir::Builtin::Print);
    let tys: Vec<String> = args.iter().map(|a| p.type_name(&a.ty)).collect();
    assert_eq!(tys, ["str", "int", "float", "bool"]);
}

#[test]
fn main_may_return_int() {
    let p = ok("fn main() -> int { return 3; }");
    assert_eq!(p.func(p.main).ret, Type::Int);
}

#[test]
fn inferred_local_types() {
    let p = ok("fn main() {
    let x = 1;
    let y = x + 2 * 3;
    let s = \"a\" + \"b\";
    let b = s == \"ab\" && x < 3 || !(y >= 2);
    let f = float(x) / 2.0 % 1.5;
    let c = s[0] + len(s);
    let a = [[1, 2], [3]];
    let r = [0.5; 3];
    let n = -x ^ 3 << 2 | 1 & 7 >> 1;
    let t = str(f) + str(true) + chr(65) + fixed(1.5, 2) + substr(s, 0, 1);
    let z = sqrt(pow(2.0, 3.0)) + atan2(1.0, 2.0) + floor(fabs(-1.5)) + clock();
    let argv = args();
    let k = int(2.5) + parse_int(\"3\") + int(parse_float(\"1.5\"));
}");
    assert_eq!(
        locals(&p, "main"),
        [
            "x: int",
            "y: int",
            "s: str",
            "b: bool",
            "f: float",
            "c: int",
            "a: [[int]]",
            "r: [float]",
            "n: int",
            "t: str",
            "z: float",
            "argv: [str]",
            "k: int"
        ]
    );
}

#[test]
fn nil_and_empty_arrays_take_their_context() {
    let p = ok("struct Node { value: int, next: Node, kids: [Node] }
fn make(n: Node) -> Node { return nil; }
fn main() {
    let p: Node = nil;
    var a: [int] = [];
    push(a, 1);
    let b1 = p == nil;
    let b2 = nil != p;
    let q = Node { kids: [], next: nil, value: 1 };
    let list = [nil, q];
    let grid: [[int]] = [[], [1]];
    let m = make(nil);
    a = [];
    q.next = nil;
    let nested = [[], [nil, q]];
}");
    assert_eq!(
        locals(&p, "main"),
        [
            "p: Node",
            "a: [int]",
            "b1: bool",
            "b2: bool",
            "q: Node",
            "list: [Node]",
            "grid: [[int]]",
            "m: Node",
            "nested: [[Node]]"
        ]
    );
    // `nil == p`: the nil operand carries the struct type.
    let hir::StmtKind::Let { init, .. } = &func(&p, "main").body.stmts[4].kind else {
        panic!()
    };
    let hir::ExprKind::Binary(_, l, r) = &init.kind else {
        panic!()
    };
    assert!(matches!(l.kind, hir::ExprKind::Nil));
    assert_eq!(l.ty, r.ty);
    // Struct literal fields keep their source order with their indices.
    let hir::StmtKind::Let { init, .. } = &func(&p, "main").body.stmts[5].kind else {
        panic!()
    };
    let hir::ExprKind::StructLit { fields, .. } = &init.kind else {
        panic!()
    };
    let order: Vec<u32> = fields.iter().map(|(i, _)| *i).collect();
    assert_eq!(order, [2, 1, 0]);
}

#[test]
fn shadowing_declares_new_locals() {
    let p = ok("fn main() {
    let x = 1;
    {
        let x = \"inner\";
        let y = x + \"!\";
    }
    let x = 2.0;
    let z = x * 2.0;
}");
    assert_eq!(
        locals(&p, "main"),
        ["x: int", "x: str", "y: str", "x: float", "z: float"]
    );
}

#[test]
fn parameters_are_the_first_locals_and_mutable() {
    let p = ok(
        "fn f(a: int, b: [str]) -> int { a += 1; let c = a; return c + len(b); }
fn main() { f(1, [\"x\"]); }",
    );
    let f = func(&p, "f");
    assert_eq!(f.params, [hir::LocalId(0), hir::LocalId(1)]);
    assert_eq!(locals(&p, "f"), ["a: int", "b: [str]", "c: int"]);
    assert!(f.locals[0].mutable);
}

#[test]
fn loops_are_numbered_in_source_order() {
    let p = ok("fn main() {
    'outer: for i in 0..10 {
        for x in [1, 2] {
            if x == i { continue 'outer; }
            while false { break; }
        }
        break 'outer;
    }
    while true { break; }
}");
    let main = func(&p, "main");
    assert_eq!(locals(&p, "main"), ["i: int", "<index>: int", "x: int"]);
    let hir::StmtKind::ForRange { id, body, .. } = &main.body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(*id, hir::LoopId(0));
    let hir::StmtKind::ForEach {
        id,
        body: inner,
        var,
        index,
        ..
    } = &body.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(
        (*id, *var, *index),
        (hir::LoopId(1), hir::LocalId(2), hir::LocalId(1))
    );
    assert!(!main.locals[2].mutable);
    let hir::StmtKind::If { then_block, .. } = &inner.stmts[0].kind else {
        panic!()
    };
    assert!(matches!(
        then_block.stmts[0].kind,
        hir::StmtKind::Continue(hir::LoopId(0))
    ));
    let hir::StmtKind::While { id, body: wb, .. } = &inner.stmts[1].kind else {
        panic!()
    };
    assert_eq!(*id, hir::LoopId(2));
    assert!(matches!(
        wb.stmts[0].kind,
        hir::StmtKind::Break(hir::LoopId(2))
    ));
    assert!(matches!(
        body.stmts[1].kind,
        hir::StmtKind::Break(hir::LoopId(0))
    ));
    assert!(matches!(
        main.body.stmts[1].kind,
        hir::StmtKind::While {
            id: hir::LoopId(3),
            ..
        }
    ));
}

#[test]
fn paths_that_end_need_no_return() {
    ok("fn a(x: int) -> int { if x > 0 { return 1; } else if x < 0 { return -1; } else { return 0; } }
fn b() -> int { while true { } }
fn c(x: int) -> int { while true { if x > 3 { return x; } } }
fn d() -> int { try { return 1; } catch e { throw e; } }
fn e(x: int) -> int { { return x; } }
fn f() -> int { throw \"no\"; }
fn g(x: int) -> int { 'l: while true { for i in 0..3 { break; } } }
fn main() { a(1); b(); c(1); d(); e(1); f(); g(1); }");
}

#[test]
fn compound_assignment_keeps_its_operator() {
    let p = ok("struct P { x: int, s: str }
var g = 1.5;
fn main() {
    var n = 1;
    let a = [1, 2];
    let p = P { x: 1, s: \"\" };
    n <<= 2;
    a[0] %= 3;
    p.x ^= 5;
    p.s += \"t\";
    g /= 2.0;
}");
    let main = func(&p, "main");
    let ops: Vec<Option<hir::BinOp>> = main.body.stmts[3..]
        .iter()
        .map(|s| match &s.kind {
            hir::StmtKind::Assign { op, .. } => *op,
            _ => panic!("not an assignment"),
        })
        .collect();
    use hir::BinOp::*;
    assert_eq!(
        ops,
        [Some(Shl), Some(Rem), Some(BitXor), Some(Add), Some(Div)]
    );
    assert!(matches!(
        main.body.stmts[7].kind,
        hir::StmtKind::Assign {
            place: hir::Place::Global(_),
            ..
        }
    ));
}

#[test]
fn items_in_any_order_and_recursive_structs() {
    let p =
        ok("fn main() { let t = Tree { left: nil, right: nil, leaf: Leaf { owner: nil, v: 2 } }; print(depth(t)); }
fn depth(t: Tree) -> int { if t == nil { return 0; } return 1 + odd(t.left) + even(t.right); }
fn odd(t: Tree) -> int { return even(t); }
fn even(t: Tree) -> int { if t == nil { return 0; } return depth(t); }
struct Tree { left: Tree, right: Tree, leaf: Leaf }
struct Leaf { owner: Tree, v: int }");
    assert_eq!(p.structs.len(), 2);
    assert_eq!(p.type_name(&p.structs[1].fields[0].ty), "Tree");
}

/// The globals `<init>` assigns, in order (every statement of it must be
/// a plain assignment to a global).
fn init_order(p: &Program) -> Vec<&str> {
    p.func(p.init)
        .body
        .stmts
        .iter()
        .map(|s| match &s.kind {
            hir::StmtKind::Assign {
                place: hir::Place::Global(g),
                op: None,
                ..
            } => p.global(*g).name.as_str(),
            _ => panic!("not a global assignment"),
        })
        .collect()
}

#[test]
fn globals_initialise_in_source_order() {
    let p = ok("let a = 1;
var b: [int] = [a, 2];
let c = len(b) + a;
fn main() { b = [c]; }");
    assert_eq!(init_order(&p), ["a", "b", "c"]);
    assert!(!p.globals[0].mutable && p.globals[1].mutable);
    assert_eq!(p.type_name(&p.globals[1].ty), "[int]");
}

#[test]
fn modules_load_once_and_init_dependencies_first() {
    let dir = temp_dir(
        "init-order",
        &[
            (
                "main.toy",
                "import b;\nimport a;\nlet m = a.x + b.y;\nfn main() { print(m, a.f(), b.g(b.P { q: a.Q { v: 1 } })); }\n",
            ),
            (
                "a.toy",
                "struct Q { v: int }\nlet x = 1;\nlet x2 = x + 1;\nfn f() -> int { return x2; }\n",
            ),
            (
                "b.toy",
                "import a;\nstruct P { q: a.Q }\nlet y = a.x * 10;\nfn g(p: P) -> int { return p.q.v; }\n",
            ),
        ],
    );
    let (sm, r) = check_dir(&dir);
    let p = r.unwrap_or_else(|d| panic!("{:?}", errors_of(&sm, &d)));
    assert_eq!(init_order(&p), ["a.x", "a.x2", "b.y", "m"]);
    let names: Vec<&str> = p.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["main", "b.g", "a.f", "<init>"]);
    let structs: Vec<&str> = p.structs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(structs, ["b.P", "a.Q"]);
    let files: Vec<String> = sm.files().map(|(_, f)| f.name.clone()).collect();
    assert_eq!(files.len(), 3, "{files:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdlib_modules_are_embedded_and_qualified() {
    let p = ok("import math;
import arrays;
import strings;
fn main() {
    let a = [3, 1, 2];
    arrays.sort(a);
    let s = strings.join([\"a\", \"b\"], \",\") + str(math.gcd(4, 6)) + str(math.PI);
    let ok = arrays.contains(a, 1) && strings.contains(s, \"a\");
}");
    assert_eq!(locals(&p, "main"), ["a: [int]", "s: str", "ok: bool"]);
    assert!(
        p.globals
            .iter()
            .any(|g| g.name == "math.PI" && g.ty == Type::Float)
    );
}

/// Every module of LANGUAGE.md's stdlib table loads without errors and
/// has exactly the required signatures.
#[test]
fn stdlib_signatures() {
    let p = ok("import math;\nimport arrays;\nimport strings;\nfn main() {}\n");
    let sig = |name: &str| -> String {
        let f = func(&p, name);
        let params: Vec<String> = f
            .params
            .iter()
            .map(|l| p.type_name(&f.locals[l.0 as usize].ty))
            .collect();
        let ret = if f.ret == Type::Void {
            String::new()
        } else {
            format!(" -> {}", p.type_name(&f.ret))
        };
        format!("{}({}){}", name, params.join(", "), ret)
    };
    let expected = [
        "math.abs(int) -> int",
        "math.min(int, int) -> int",
        "math.max(int, int) -> int",
        "math.fmin(float, float) -> float",
        "math.fmax(float, float) -> float",
        "math.clamp(int, int, int) -> int",
        "math.gcd(int, int) -> int",
        "math.lcm(int, int) -> int",
        "math.ipow(int, int) -> int",
        "math.isqrt(int) -> int",
        "math.is_prime(int) -> bool",
        "arrays.sort([int])",
        "arrays.sort_float([float])",
        "arrays.sum([int]) -> int",
        "arrays.fsum([float]) -> float",
        "arrays.reverse([int])",
        "arrays.contains([int], int) -> bool",
        "arrays.index_of([int], int) -> int",
        "arrays.range(int, int) -> [int]",
        "arrays.copy([int]) -> [int]",
        "strings.join([str], str) -> str",
        "strings.repeat(str, int) -> str",
        "strings.split(str, str) -> [str]",
        "strings.contains(str, str) -> bool",
        "strings.starts_with(str, str) -> bool",
        "strings.ends_with(str, str) -> bool",
        "strings.to_upper(str) -> str",
        "strings.to_lower(str) -> str",
        "strings.trim(str) -> str",
    ];
    for e in expected {
        let name = &e[..e.find('(').unwrap_or(0)];
        assert_eq!(sig(name), e);
    }
    for g in ["math.PI", "math.E"] {
        assert!(
            p.globals
                .iter()
                .any(|x| x.name == g && x.ty == Type::Float && !x.mutable),
            "{g}"
        );
    }
}

/// `src` checked with bodies on one thread and on three (`check_on` with a
/// pool that parallelises any work): the programs (as `Debug` text) or
/// the errors, and the warnings.
fn one_and_three_threads(src: &str) -> [(String, Vec<String>); 2] {
    [crate::par::Pool::default(), crate::par::Pool::new(3, 0)].map(|pool| {
        let mut sm = SourceMap::new();
        let f = sm.add("test.toy".into(), None, src.into());
        match super::check_on(&mut sm, f, &pool) {
            Ok(c) => (format!("{:?}", c.program), errors_of(&sm, &c.warnings)),
            Err(d) => (String::new(), errors_of(&sm, &d)),
        }
    })
}

/// Forty functions, each with an unused local and a loop, those in `bad`
/// with a type error, and a `main` that calls them all and uses the import
/// `math` (not `strings`).
fn many_functions(bad: &[usize]) -> String {
    let mut src = String::from("import math;\nimport strings;\n");
    for i in 0..40 {
        let value = if bad.contains(&i) { "\"x\"" } else { "1" };
        src.push_str(&format!(
            "fn f{i}(n: int) -> int {{\n    var s: int = {value};\n    let unused{i} = n;\n    \
             for k in 0..n {{ s += k; }}\n    return s;\n}}\n"
        ));
    }
    let calls: Vec<String> = (1..40).map(|i| format!("f{i}(2)")).collect();
    src.push_str(&format!(
        "fn main() {{\n    print(math.abs(f0(3)) + {});\n}}\n",
        calls.join(" + ")
    ));
    src
}

#[test]
fn bodies_checked_on_threads_are_the_bodies_checked_on_one() {
    let [one, three] = one_and_three_threads(&many_functions(&[]));
    assert!(one.0.contains("f39"), "{}", one.0);
    assert_eq!(one, three);
    // Unused variables in every function, and the unused import.
    assert_eq!(one.1.len(), 41, "{:#?}", one.1);
    assert!(one.1.iter().any(|w| w.contains("strings")), "{:#?}", one.1);
    assert!(!one.1.iter().any(|w| w.contains("`math`")), "{:#?}", one.1);
    let [one, three] = one_and_three_threads(&many_functions(&[2, 17, 38]));
    assert_eq!(one, three);
    assert_eq!(one.1.len(), 3, "{:#?}", one.1);
    // `f2`'s `var` is on line 3 + 6 * 2 + 1.
    assert!(one.1[0].starts_with("test.toy:16:"), "{:#?}", one.1);
}
