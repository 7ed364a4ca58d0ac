//! SSA construction of heap accesses and exceptions on hand-built HIR:
//! explicit checks on cold paths, `Loc` info, globals, for-each, try/catch.
use crate::ssa_support;
use ssa_support::*;
use toyc::ir::{BinaryOp, Cmp, Flags, Inst, Loc, Operand, RaiseKind};
use toyc::sema::hir::{BinOp, ExprKind, Place, StructId, Type};

fn raises(f: &toyc::ir::IrCode, kind: RaiseKind) -> usize {
    count(
        f,
        |i| matches!(i, Inst::Raise { kind: k, .. } if *k == kind),
    )
}

#[test]
fn array_index_is_bounds_checked_with_one_unsigned_compare() {
    let mut f = F::new();
    let a = f.param("a", arr(Type::Int));
    let i = f.param("i", Type::Int);
    let body = vec![ret(Some(index(f.var(a), f.var(i), Type::Int)))];
    let m = build(with_heap(program(vec![f.finish("f", Type::Int, body)])));
    let code = &m.funcs[0];
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Load {
                loc: Loc::ArrayLen,
                ..
            }
        )),
        1,
        "{}",
        text(&m, 0)
    );
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Binary(BinaryOp::ICmp(Cmp::Ult), Operand::Arg(1), _)
        )),
        1
    );
    let r = code.stmts.inst.values().position(
        |x| matches!(x, Inst::Raise { kind: RaiseKind::IndexOutOfBounds, args } if args.len() == 2),
    );
    assert!(code.stmts.flags[toyc::ir::Value(r.expect("raise") as u32)].contains(Flags::COLD));
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Load {
                loc: Loc::ArrayElem(Type::Int),
                index: Some(Operand::Arg(1)),
                ..
            }
        )),
        1
    );
}

#[test]
fn field_access_is_nil_checked_unless_the_struct_is_fresh() {
    let mut f = F::new();
    let p = f.param("p", Type::Struct(StructId(0)));
    let q = f.local("q", Type::Struct(StructId(0)));
    let lit = e(
        ExprKind::StructLit {
            strukt: StructId(0),
            fields: vec![(1, e(ExprKind::Float(2.0), Type::Float)), (0, int(1))],
        },
        Type::Struct(StructId(0)),
    );
    let body = vec![
        let_(q, lit),
        ret(Some(bin(
            BinOp::Add,
            field(f.var(p), 0, 0, Type::Int),
            field(f.var(q), 0, 0, Type::Int),
        ))),
    ];
    let m = build(with_heap(program(vec![f.finish("f", Type::Int, body)])));
    let code = &m.funcs[0];
    assert_eq!(
        raises(code, RaiseKind::NilDereference),
        1,
        "{}",
        text(&m, 0)
    );
    // Fields in declaration order.
    assert!(code.stmts.inst.values().any(|i| i
        == &Inst::NewStruct {
            strukt: StructId(0),
            fields: vec![Operand::Int(1), Operand::Float(2.0)]
        }));
}

#[test]
fn array_repeat_checks_the_length_and_literals_store_elements() {
    let mut f = F::new();
    let n = f.param("n", Type::Int);
    let a = f.local("a", arr(Type::Int));
    let b = f.local("b", arr(Type::Int));
    let body = vec![
        let_(
            a,
            e(
                ExprKind::ArrayRepeat {
                    value: Box::new(int(7)),
                    count: Box::new(f.var(n)),
                },
                arr(Type::Int),
            ),
        ),
        let_(
            b,
            e(
                ExprKind::ArrayLit(vec![int(1), int(2), int(3)]),
                arr(Type::Int),
            ),
        ),
        ret(Some(bin(
            BinOp::Add,
            index(f.var(a), int(0), Type::Int),
            index(f.var(b), int(2), Type::Int),
        ))),
    ];
    let m = build(with_heap(program(vec![f.finish("f", Type::Int, body)])));
    let code = &m.funcs[0];
    assert_eq!(
        raises(code, RaiseKind::NegativeArrayLength),
        1,
        "{}",
        text(&m, 0)
    );
    assert_eq!(count(code, |x| matches!(x, Inst::NewArray { .. })), 2);
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Store {
                loc: Loc::ArrayElem(_),
                ..
            }
        )),
        2,
        "{}",
        text(&m, 0)
    );
}

#[test]
fn globals_are_loads_and_stores() {
    let f = F::new();
    let body = vec![
        set_place(
            Place::Global(toyc::sema::hir::GlobalId(0)),
            Some(BinOp::Add),
            int(1),
        ),
        ret(Some(global(0, Type::Int))),
    ];
    let m = build(with_heap(program(vec![f.finish("f", Type::Int, body)])));
    let code = &m.funcs[0];
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Load {
                loc: Loc::Global(_),
                ..
            }
        )),
        2,
        "{}",
        text(&m, 0)
    );
    assert_eq!(
        count(code, |x| matches!(
            x,
            Inst::Store {
                loc: Loc::Global(_),
                ..
            }
        )),
        1
    );
}

#[test]
fn for_each_rereads_the_length_every_step() {
    let mut f = F::new();
    let a = f.param("a", arr(Type::Int));
    let s = f.local("s", Type::Int);
    let x = f.local("x", Type::Int);
    let idx = f.local("$i", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(s, int(0)),
        for_each(
            l,
            x,
            idx,
            f.var(a),
            vec![set(s, bin(BinOp::Add, f.var(s), f.var(x)))],
        ),
        ret(Some(f.var(s))),
    ];
    let m = build(with_heap(program(vec![f.finish("f", Type::Int, body)])));
    let code = &m.funcs[0];
    // Index and sum; the length is loaded in the loop header.
    assert_eq!(phis(code), 2, "{}", text(&m, 0));
    let len = code
        .stmts
        .inst
        .values()
        .position(|x| {
            matches!(
                x,
                Inst::Load {
                    loc: Loc::ArrayLen,
                    ..
                }
            )
        })
        .unwrap();
    let header = code
        .cfg
        .blocks
        .values()
        .find(|b| b.stmts.contains(&(len as u32)))
        .unwrap();
    assert_eq!(header.preds.len(), 2, "{}", text(&m, 0));
    // The element load needs no bounds check: the header's test covers it.
    assert_eq!(raises(code, RaiseKind::IndexOutOfBounds), 0);
}

#[test]
fn nested_try_rethrows_to_the_outer_handler() {
    // var x = 0
    // try { try { x = 1; f(); x = 2 } catch e { x = 3; throw e } } catch e2 { return x }
    // return x
    let thrower = F::new();
    let t = thrower.finish("t", Type::Void, vec![throw("t")]);
    let mut f = F::new();
    let x = f.local("x", Type::Int);
    let e1 = f.local("e", Type::Str);
    let e2 = f.local("e2", Type::Str);
    let body = vec![
        let_(x, int(0)),
        try_(
            vec![try_(
                vec![
                    set(x, int(1)),
                    s(toyc::sema::hir::StmtKind::Expr(call(0, vec![], Type::Void))),
                    set(x, int(2)),
                ],
                e1,
                vec![
                    set(x, int(3)),
                    s(toyc::sema::hir::StmtKind::Throw(f.var(e1))),
                ],
            )],
            e2,
            vec![ret(Some(f.var(x)))],
        ),
        ret(Some(f.var(x))),
    ];
    let m = build(program(vec![t, f.finish("main", Type::Int, body)]));
    let code = &m.funcs[1];
    // Outer φᶜ for x (ϒ at entry, after each of the three assignments);
    // the inner φᶜ is unused (the inner handler only assigns x).
    assert_eq!(
        count(code, |i| matches!(i, Inst::PhiC { .. })),
        1,
        "{}",
        text(&m, 1)
    );
    let phic = code.stmts.inst.values().find_map(|i| match i {
        Inst::PhiC { upsilons } => Some(upsilons.len()),
        _ => None,
    });
    assert_eq!(phic, Some(4), "{}", text(&m, 1));
    assert_eq!(count(code, |i| matches!(i, Inst::TakeException)), 2);
    // Only the call may throw on the path to the inner handler; the
    // rethrow goes to the outer one; nothing unwinds out of main.
    assert_eq!(
        count(code, |i| matches!(i, Inst::Unwind)),
        0,
        "{}",
        text(&m, 1)
    );
}
