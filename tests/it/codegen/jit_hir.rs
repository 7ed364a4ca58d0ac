//! End-to-end tests of the backend on IR that SSA construction builds from
//! hand-built typed HIR (independent of the front end): the JIT at `-O0`
//! and `-O2` (Cranelift level) must print and exit as the program says.
use crate::ssa_support;
use ssa_support::*;
use toyc::codegen::CodegenOptions;
use toyc::ir::Module;
use toyc::sema::hir::{BinOp, Builtin, ExprKind, Place, Program, StmtKind, Type, UnOp};
use toyc::span::{FileId, SourceMap, Span};

const SOURCE: &str = "line one\nline two\n    boom here\n";

fn run(m: &Module) -> (i32, String) {
    let mut sources = SourceMap::new();
    sources.add("t.toy".into(), None, SOURCE.into());
    let mut results = Vec::new();
    for optimize in [false, true] {
        let (code, out) = toyc::codegen::run::run(
            m,
            &sources,
            &CodegenOptions {
                optimize,
                verify: true,
                ..Default::default()
            },
            &[],
            true,
        )
        .expect("jit");
        results.push((code, String::from_utf8_lossy(&out).into_owned()));
    }
    assert_eq!(results[0], results[1], "-O0 and -O2 differ");
    results.pop().unwrap_or_default()
}

fn fib_program() -> Program {
    let mut f = F::new();
    let n = f.param("n", Type::Int);
    let body = vec![
        if_(
            bin(BinOp::Lt, f.var(n), int(2)),
            vec![ret(Some(f.var(n)))],
            vec![],
        ),
        ret(Some(bin(
            BinOp::Add,
            call(0, vec![bin(BinOp::Sub, f.var(n), int(1))], Type::Int),
            call(0, vec![bin(BinOp::Sub, f.var(n), int(2))], Type::Int),
        ))),
    ];
    let fib = f.finish("fib", Type::Int, body);
    let main = F::new().finish(
        "main",
        Type::Void,
        vec![print(vec![call(0, vec![int(25)], Type::Int)])],
    );
    program(vec![fib, main])
}

#[test]
fn recursive_fib() {
    assert_eq!(run(&build(fib_program())), (0, "75025\n".into()));
}

#[test]
fn recursion_100_000_deep() {
    let mut f = F::new();
    let n = f.param("n", Type::Int);
    let body = vec![
        if_(
            bin(BinOp::Eq, f.var(n), int(0)),
            vec![ret(Some(int(0)))],
            vec![],
        ),
        ret(Some(bin(
            BinOp::Add,
            call(0, vec![bin(BinOp::Sub, f.var(n), int(1))], Type::Int),
            int(1),
        ))),
    ];
    let depth = f.finish("depth", Type::Int, body);
    let main = F::new().finish(
        "main",
        Type::Void,
        vec![print(vec![call(0, vec![int(100_000)], Type::Int)])],
    );
    assert_eq!(
        run(&build(program(vec![depth, main]))),
        (0, "100000\n".into())
    );
}

fn binary_fn(name: &str, op: BinOp) -> toyc::sema::hir::Function {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let b = f.param("b", Type::Int);
    let body = vec![ret(Some(bin(op, f.var(a), f.var(b))))];
    f.finish(name, Type::Int, body)
}

#[test]
fn integer_division_edge_cases_and_errors() {
    let div = binary_fn("div", BinOp::Div);
    let rem = binary_fn("rem", BinOp::Rem);
    let min = bin(
        BinOp::Sub,
        e(
            ExprKind::Unary(UnOp::Neg, Box::new(int(i64::MAX))),
            Type::Int,
        ),
        int(1),
    );
    let mut m = F::new();
    let x = m.local("e", Type::Str);
    let main = m.finish(
        "main",
        Type::Int,
        vec![
            print(vec![
                call(0, vec![min.clone(), int(-1)], Type::Int),
                call(1, vec![min, int(-1)], Type::Int),
                call(0, vec![int(7), int(-2)], Type::Int),
                call(1, vec![int(-7), int(2)], Type::Int),
            ]),
            try_(
                vec![print(vec![call(0, vec![int(1), int(0)], Type::Int)])],
                x,
                vec![print(vec![string("caught"), m_var(x)])],
            ),
            ret(Some(call(1, vec![int(17), int(5)], Type::Int))),
        ],
    );
    let out = run(&build(program(vec![div, rem, main])));
    assert_eq!(
        out,
        (
            2,
            "-9223372036854775808 0 -3 -1\ncaught division by zero\n".into()
        )
    );
}

fn m_var(l: toyc::sema::hir::LocalId) -> toyc::sema::hir::Expr {
    e(ExprKind::Local(l), Type::Str)
}

#[test]
fn values_flow_into_the_handler() {
    // var k = 1; try { k = 2; thrower(); k = 3; } catch e { print(k, e); } print(k);
    let thrower = F::new().finish("thrower", Type::Void, vec![throw("oops")]);
    let mut m = F::new();
    let k = m.local("k", Type::Int);
    let ev = m.local("e", Type::Str);
    let main = m.finish(
        "main",
        Type::Void,
        vec![
            let_(k, int(1)),
            try_(
                vec![
                    set(k, int(2)),
                    s(StmtKind::Expr(call(0, vec![], Type::Void))),
                    set(k, int(3)),
                ],
                ev,
                vec![print(vec![
                    e(ExprKind::Local(k), Type::Int),
                    e(ExprKind::Local(ev), Type::Str),
                ])],
            ),
            print(vec![e(ExprKind::Local(k), Type::Int)]),
        ],
    );
    assert_eq!(
        run(&build(program(vec![thrower, main]))),
        (0, "2 oops\n2\n".into())
    );
}

#[test]
fn uncaught_error_flushes_output_first() {
    // print("a"); print(1 / zero()) with the division at line 3, column 5.
    let zero = F::new().finish("zero", Type::Int, vec![ret(Some(int(0)))]);
    let mut div = bin(BinOp::Div, int(1), call(0, vec![], Type::Int));
    div.span = Span::new(FileId(0), 22, 26);
    let main = F::new().finish(
        "main",
        Type::Void,
        vec![
            print(vec![string("a")]),
            print(vec![div]),
            print(vec![string("b")]),
        ],
    );
    assert_eq!(run(&build(program(vec![zero, main]))), (101, "a\n".into()));
}

#[test]
fn loops_strings_and_floats() {
    // var s = 0; for i in 0..1000 { if i % 3 == 0 { continue; } s += i; }
    // print(s, str(s) + "!", 0.1 + 0.2, int(-2.5), sqrt(2.25), len("héllo"))
    let mut m = F::new();
    let sv = m.local("s", Type::Int);
    let i = m.local("i", Type::Int);
    let lp = m.loop_id();
    let var = |l| e(ExprKind::Local(l), Type::Int);
    let main = m.finish(
        "main",
        Type::Void,
        vec![
            let_(sv, int(0)),
            for_range(
                lp,
                i,
                int(0),
                int(1000),
                vec![
                    if_(
                        bin(BinOp::Eq, bin(BinOp::Rem, var(i), int(3)), int(0)),
                        vec![cont(lp)],
                        vec![],
                    ),
                    set_place(Place::Local(sv), Some(BinOp::Add), var(i)),
                ],
            ),
            print(vec![
                var(sv),
                bin(
                    BinOp::Add,
                    builtin(Builtin::ToStr, vec![var(sv)], Type::Str),
                    string("!"),
                ),
                bin(
                    BinOp::Add,
                    e(ExprKind::Float(0.1), Type::Float),
                    e(ExprKind::Float(0.2), Type::Float),
                ),
                builtin(
                    Builtin::ToInt,
                    vec![e(ExprKind::Float(-2.5), Type::Float)],
                    Type::Int,
                ),
                builtin(
                    Builtin::Sqrt,
                    vec![e(ExprKind::Float(2.25), Type::Float)],
                    Type::Float,
                ),
                builtin(Builtin::Len, vec![string("héllo")], Type::Int),
            ]),
        ],
    );
    assert_eq!(
        run(&build(program(vec![main]))),
        (0, "332667 332667! 0.30000000000000004 -2 1.5 6\n".into())
    );
}

#[test]
fn arrays_structs_and_globals() {
    // var a = [5; 3]; a[1] = 7; push(a, 9); counter += len(a);
    // let p = P { x: a[1], y: 0.5 }; print(a, pop(a), p, counter, p.x) — `a` is a
    // reference, printed after `pop` ran; then a[7] is out of bounds.
    let mut m = F::new();
    let a = m.local("a", arr(Type::Int));
    let p = m.local("p", Type::Struct(toyc::sema::hir::StructId(0)));
    let av = || e(ExprKind::Local(a), arr(Type::Int));
    let pt = Type::Struct(toyc::sema::hir::StructId(0));
    let main = m.finish(
        "main",
        Type::Void,
        vec![
            let_(
                a,
                e(
                    ExprKind::ArrayRepeat {
                        value: Box::new(int(5)),
                        count: Box::new(int(3)),
                    },
                    arr(Type::Int),
                ),
            ),
            set_place(
                Place::Index {
                    array: av(),
                    index: int(1),
                },
                None,
                int(7),
            ),
            s(StmtKind::Expr(builtin(
                Builtin::Push,
                vec![av(), int(9)],
                Type::Void,
            ))),
            set_place(
                Place::Global(toyc::sema::hir::GlobalId(0)),
                Some(BinOp::Add),
                builtin(Builtin::Len, vec![av()], Type::Int),
            ),
            let_(
                p,
                e(
                    ExprKind::StructLit {
                        strukt: toyc::sema::hir::StructId(0),
                        fields: vec![
                            (1, e(ExprKind::Float(0.5), Type::Float)),
                            (0, index(av(), int(1), Type::Int)),
                        ],
                    },
                    pt.clone(),
                ),
            ),
            print(vec![
                av(),
                builtin(Builtin::Pop, vec![av()], Type::Int),
                e(ExprKind::Local(p), pt.clone()),
                global(0, Type::Int),
                field(e(ExprKind::Local(p), pt), 0, 0, Type::Int),
            ]),
            print(vec![index(av(), int(7), Type::Int)]),
        ],
    );
    let (code, out) = run(&build(with_heap(program(vec![main]))));
    assert_eq!(
        (code, out.as_str()),
        (101, "[5, 7, 5] 9 P { x: 7, y: 0.5 } 4 7\n")
    );
}

/// Nested loops with `break`/`continue`, loop-carried values read after
/// the loops, and a `for x in a` loop whose header reads the length: the
/// shapes that loop rotation (`-O2`) rewrites; `run` checks `-O0 == -O2`.
#[test]
fn nested_loops_with_break_and_continue() {
    let mut m = F::new();
    let total = m.local("total", Type::Int);
    let i = m.local("i", Type::Int);
    let j = m.local("j", Type::Int);
    let a = m.local("a", arr(Type::Int));
    let x = m.local("x", Type::Int);
    let k = m.local("k", Type::Int);
    let (outer, inner, each) = (m.loop_id(), m.loop_id(), m.loop_id());
    let v = |l| e(ExprKind::Local(l), Type::Int);
    let add = |l, ex| set_place(Place::Local(l), Some(BinOp::Add), ex);
    let main = m.finish(
        "main",
        Type::Void,
        vec![
            let_(total, int(0)),
            let_(i, int(0)),
            while_(
                outer,
                bin(BinOp::Lt, v(i), int(12)),
                vec![
                    let_(j, int(0)),
                    while_(
                        inner,
                        bin(BinOp::Lt, v(j), v(i)),
                        vec![
                            add(j, int(1)),
                            if_(bin(BinOp::Eq, v(j), int(7)), vec![brk(inner)], vec![]),
                            if_(
                                bin(BinOp::Eq, bin(BinOp::Rem, v(j), int(2)), int(0)),
                                vec![cont(inner)],
                                vec![],
                            ),
                            add(total, v(j)),
                        ],
                    ),
                    add(total, bin(BinOp::Mul, v(j), int(100))),
                    add(i, int(1)),
                    if_(
                        bin(BinOp::Gt, v(total), int(5000)),
                        vec![brk(outer)],
                        vec![],
                    ),
                ],
            ),
            print(vec![v(total), v(i)]),
            let_(
                a,
                e(
                    ExprKind::ArrayLit(vec![int(3), int(4), int(5)]),
                    arr(Type::Int),
                ),
            ),
            for_each(
                each,
                x,
                k,
                e(ExprKind::Local(a), arr(Type::Int)),
                vec![add(total, v(x))],
            ),
            print(vec![v(total), v(k)]),
        ],
    );
    // The same computation in Rust.
    let (mut t, mut ii) = (0i64, 0i64);
    while ii < 12 {
        let mut jj = 0;
        while jj < ii {
            jj += 1;
            if jj == 7 {
                break;
            }
            if jj % 2 == 0 {
                continue;
            }
            t += jj;
        }
        t += jj * 100;
        ii += 1;
        if t > 5000 {
            break;
        }
    }
    let line1 = format!("{t} {ii}");
    t += 3 + 4 + 5;
    let (code, out) = run(&build(program(vec![main])));
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first().copied(), Some(line1.as_str()));
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.starts_with(&format!("{t} "))),
        "{out}"
    );
}
