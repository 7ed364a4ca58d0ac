//! SSA construction on hand-built HIR: exact φ counts (minimal, pruned),
//! on-the-fly folding and value numbering, checks, exceptions, and deep
//! inputs. The verifier runs on every result.
use crate::ssa_support;
use ssa_support::*;
use toyc::ir::{BinaryOp, Flags, Inst, Operand, RaiseKind};
use toyc::sema::hir::{BinOp, Type};

#[test]
fn straight_line_has_no_phi() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let x = f.local("x", Type::Int);
    let y = f.local("y", Type::Int);
    let body = vec![
        let_(x, bin(BinOp::Add, f.var(a), int(1))),
        let_(y, bin(BinOp::Mul, f.var(x), int(3))),
        ret(Some(f.var(y))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    assert_eq!(phis(&m.funcs[0]), 0, "{}", text(&m, 0));
    assert_eq!(m.funcs[0].cfg.blocks.len(), 1);
}

#[test]
fn diamond_has_one_phi_per_variable_assigned_in_an_arm_and_used() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let c = f.param("c", Type::Bool);
    let x = f.local("x", Type::Int);
    let y = f.local("y", Type::Int);
    let z = f.local("z", Type::Int);
    let w = f.local("w", Type::Int);
    let body = vec![
        let_(x, int(1)),
        let_(y, int(2)),
        let_(z, f.var(a)),
        let_(w, int(0)),
        if_(
            f.var(c),
            vec![
                set(x, f.var(a)),
                set(y, bin(BinOp::Add, f.var(a), int(1))),
                set(w, int(7)),
            ],
            vec![set(x, int(5)), set(w, int(8))],
        ),
        // w is assigned in both arms but never used afterwards: no φ.
        ret(Some(bin(
            BinOp::Add,
            bin(BinOp::Add, f.var(x), f.var(y)),
            f.var(z),
        ))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    assert_eq!(phis(&m.funcs[0]), 2, "{}", text(&m, 0));
}

#[test]
fn variable_unchanged_in_a_loop_gets_no_phi() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let i = f.local("i", Type::Int);
    let s = f.local("s", Type::Int);
    let k = f.local("k", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(i, int(0)),
        let_(s, int(0)),
        let_(k, bin(BinOp::Mul, f.var(a), int(3))),
        while_(
            l,
            bin(BinOp::Lt, f.var(i), int(10)),
            vec![
                set(s, bin(BinOp::Add, f.var(s), f.var(k))),
                set(i, bin(BinOp::Add, f.var(i), int(1))),
            ],
        ),
        ret(Some(f.var(s))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    // i and s only; k and a flow in unchanged.
    assert_eq!(phis(&m.funcs[0]), 2, "{}", text(&m, 0));
}

#[test]
fn nested_loops() {
    let mut f = F::new();
    let n = f.param("n", Type::Int);
    let s = f.local("s", Type::Int);
    let i = f.local("i", Type::Int);
    let j = f.local("j", Type::Int);
    let (l1, l2) = (f.loop_id(), f.loop_id());
    let body = vec![
        let_(s, int(0)),
        for_range(
            l1,
            i,
            int(0),
            f.var(n),
            vec![for_range(
                l2,
                j,
                int(0),
                f.var(n),
                vec![set(
                    s,
                    bin(BinOp::Add, f.var(s), bin(BinOp::Mul, f.var(i), f.var(j))),
                )],
            )],
        ),
        ret(Some(f.var(s))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    // Outer header: counter, s. Inner header: counter, s.
    assert_eq!(phis(&m.funcs[0]), 4, "{}", text(&m, 0));
}

#[test]
fn break_and_continue_with_several_exits() {
    let mut f = F::new();
    let a = f.param("a", Type::Bool);
    let b = f.param("b", Type::Bool);
    let c = f.param("c", Type::Bool);
    let x = f.local("x", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(x, int(0)),
        while_(
            l,
            boolean(true),
            vec![
                if_(f.var(a), vec![set(x, int(1)), brk(l)], vec![]),
                if_(f.var(b), vec![set(x, int(2)), brk(l)], vec![]),
                set(x, bin(BinOp::Add, f.var(x), int(1))),
                if_(f.var(c), vec![cont(l)], vec![]),
                set(x, bin(BinOp::Add, f.var(x), int(1))),
            ],
        ),
        ret(Some(f.var(x))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    // The header merges 0, x+1 (continue) and x+2 (end); the exit merges 1 and 2.
    assert_eq!(phis(&m.funcs[0]), 2, "{}", text(&m, 0));
}

#[test]
fn phis_that_only_feed_each_other_are_removed() {
    // x and y start equal and are swapped in the loop: the φs of the header
    // and of the join form an SCC with one outside value.
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let c1 = f.param("c1", Type::Bool);
    let c2 = f.param("c2", Type::Bool);
    let x = f.local("x", Type::Int);
    let y = f.local("y", Type::Int);
    let t = f.local("t", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(x, f.var(a)),
        let_(y, f.var(a)),
        while_(
            l,
            f.var(c1),
            vec![if_(
                f.var(c2),
                vec![let_(t, f.var(x)), set(x, f.var(y)), set(y, f.var(t))],
                vec![],
            )],
        ),
        ret(Some(bin(BinOp::Add, f.var(x), f.var(y)))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    let code = &m.funcs[0];
    assert_eq!(phis(code), 0, "{}", text(&m, 0));
    assert!(
        code.stmts
            .inst
            .values()
            .any(|i| i == &Inst::Binary(BinaryOp::IAdd, Operand::Arg(0), Operand::Arg(0))),
        "{}",
        text(&m, 0)
    );
}

#[test]
fn folding_and_local_value_numbering() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let p = f.local("p", Type::Int);
    let q = f.local("q", Type::Int);
    let k = f.local("k", Type::Int);
    let body = vec![
        let_(k, bin(BinOp::Add, int(2), bin(BinOp::Mul, int(3), int(4)))),
        let_(p, bin(BinOp::Mul, f.var(a), int(2))),
        let_(q, bin(BinOp::Mul, f.var(a), int(2))),
        ret(Some(bin(
            BinOp::Add,
            bin(BinOp::Add, f.var(p), f.var(q)),
            f.var(k),
        ))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    let code = &m.funcs[0];
    assert_eq!(
        count(code, |i| matches!(i, Inst::Binary(BinaryOp::IMul, ..))),
        1,
        "{}",
        text(&m, 0)
    );
    // 2 + 3 * 4 folded into the final add's operand.
    assert_eq!(
        count(code, |i| matches!(i, Inst::Binary(_, _, Operand::Int(14)))),
        1,
        "{}",
        text(&m, 0)
    );
    assert_eq!(code.stmts.len(), 4, "{}", text(&m, 0));
}

#[test]
fn division_is_checked_on_a_cold_path() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let b = f.param("b", Type::Int);
    let body = vec![ret(Some(bin(BinOp::Div, f.var(a), f.var(b))))];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    let code = &m.funcs[0];
    let raise = code
        .stmts
        .inst
        .values()
        .position(|i| {
            matches!(
                i,
                Inst::Raise {
                    kind: RaiseKind::DivisionByZero,
                    ..
                }
            )
        })
        .expect("a raise");
    assert!(code.stmts.flags[toyc::ir::Value(raise as u32)].contains(Flags::COLD));
    assert_eq!(count(code, |i| matches!(i, Inst::Unwind)), 1);
    // Cold code is laid out last.
    let last = code.cfg.blocks.values().last().unwrap();
    assert!(last.stmts.contains(&(raise as u32)), "{}", text(&m, 0));
    // A constant non-zero divisor needs no check.
    let mut g = F::new();
    let a = g.param("a", Type::Int);
    let body = vec![ret(Some(bin(BinOp::Div, g.var(a), int(-1))))];
    let m = build(program(vec![g.finish("g", Type::Int, body)]));
    assert_eq!(
        count(&m.funcs[0], |i| matches!(i, Inst::Raise { .. })),
        0,
        "{}",
        text(&m, 0)
    );
}

#[test]
fn may_throw_is_computed_over_the_call_graph() {
    // f0 divides (may throw); f1 calls f0 (may throw); f2 calls f3 which
    // recurses without throwing: no NoException after calls to f3.
    let mut f0 = F::new();
    let a = f0.param("a", Type::Int);
    let f0 = {
        let body = vec![ret(Some(bin(BinOp::Div, int(10), f0.var(a))))];
        f0.finish("f0", Type::Int, body)
    };
    let mut f1 = F::new();
    let a1 = f1.param("a", Type::Int);
    let f1 = {
        let body = vec![ret(Some(call(0, vec![f1.var(a1)], Type::Int)))];
        f1.finish("f1", Type::Int, body)
    };
    let f2 = F::new();
    let f2 = f2.finish(
        "main",
        Type::Int,
        vec![ret(Some(call(3, vec![int(3)], Type::Int)))],
    );
    let mut f3 = F::new();
    let n = f3.param("n", Type::Int);
    let f3 = {
        let body = vec![
            if_(
                bin(BinOp::Le, f3.var(n), int(0)),
                vec![ret(Some(int(0)))],
                vec![],
            ),
            ret(Some(call(
                3,
                vec![bin(BinOp::Sub, f3.var(n), int(1))],
                Type::Int,
            ))),
        ];
        f3.finish("f3", Type::Int, body)
    };
    let m = build(program(vec![f0, f1, f2, f3]));
    let noexc = |k: usize| count(&m.funcs[k], |i| matches!(i, Inst::NoException));
    assert_eq!(noexc(1), 1, "{}", text(&m, 1));
    assert_eq!(noexc(2), 0, "{}", text(&m, 2));
    assert_eq!(noexc(3), 0, "{}", text(&m, 3));
}

#[test]
fn short_circuit_conditions_are_control_flow() {
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let b = f.param("b", Type::Int);
    let cond = bin(
        BinOp::Or,
        bin(
            BinOp::And,
            bin(BinOp::Gt, f.var(a), int(0)),
            bin(BinOp::Gt, f.var(b), int(0)),
        ),
        bin(BinOp::Eq, f.var(a), f.var(b)),
    );
    let body = vec![
        if_(cond, vec![ret(Some(int(1)))], vec![]),
        ret(Some(int(0))),
    ];
    let m = build(program(vec![f.finish("f", Type::Int, body)]));
    let code = &m.funcs[0];
    assert_eq!(
        count(code, |i| matches!(i, Inst::GotoIfNot { .. })),
        3,
        "{}",
        text(&m, 0)
    );
    assert_eq!(phis(code), 0);
}

#[test]
fn try_catch_feeds_the_handler_through_phic() {
    // var x = 1; try { x = 2; throw "e"; } catch e { return x } return 0
    let mut f = F::new();
    let x = f.local("x", Type::Int);
    let msg = f.local("e", Type::Str);
    let y = f.local("y", Type::Int);
    let body = vec![
        let_(x, int(1)),
        let_(y, int(5)),
        try_(
            vec![set(x, int(2)), throw("boom")],
            msg,
            vec![ret(Some(f.var(x)))],
        ),
        ret(Some(int(0))),
    ];
    let m = build(program(vec![f.finish("main", Type::Int, body)]));
    let code = &m.funcs[0];
    // One φᶜ (x, used in the handler) with two ϒ; y's φᶜ is dropped.
    assert_eq!(
        count(code, |i| matches!(i, Inst::PhiC { .. })),
        1,
        "{}",
        text(&m, 0)
    );
    assert_eq!(
        count(code, |i| matches!(i, Inst::Upsilon(_))),
        2,
        "{}",
        text(&m, 0)
    );
    assert_eq!(count(code, |i| matches!(i, Inst::TakeException)), 1);
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    // 20,000 sequential ifs and 20,000 checked divisions, then a read of a
    // variable defined before all of them: iterative read_var.
    let mut f = F::new();
    let a = f.param("a", Type::Int);
    let c = f.param("c", Type::Bool);
    let x = f.local("x", Type::Int);
    let d = f.local("d", Type::Int);
    let mut body = vec![let_(x, f.var(a)), let_(d, int(0))];
    for _ in 0..20_000 {
        body.push(if_(f.var(c), vec![print(vec![int(1)])], vec![]));
        body.push(set(d, bin(BinOp::Div, f.var(d), f.var(a))));
    }
    body.push(ret(Some(bin(BinOp::Add, f.var(x), f.var(d)))));
    let p = program(vec![f.finish("f", Type::Int, body)]);
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let m = toyc::ssa::build_module(std::sync::Arc::new(p));
            (
                phis(&m.funcs[0]),
                toyc::ir::verify::verify_module(&m).is_ok(),
            )
        })
        .unwrap();
    let (n, ok) = handle.join().expect("no stack overflow");
    assert_eq!(n, 0);
    assert!(ok);
}

/// A module built on two threads, each reusing one builder from function to
/// function (large functions before small, loops after straight code),
/// equals one built function by function, each with a new builder.
#[test]
fn reused_builders_on_two_threads_build_what_fresh_ones_do() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut compared = 0;
    for dir in ["examples", "bench/toy"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "toy"))
            .collect();
        files.sort();
        for path in files {
            let mut sources = toyc::span::SourceMap::new();
            let Ok(program) = toyc::driver::check_file(&path, &mut sources) else {
                continue;
            };
            let program = std::sync::Arc::new(program);
            let may_throw = toyc::ssa::throws::may_throw(&program);
            let fresh: Vec<_> = (0..program.functions.len())
                .map(|i| {
                    toyc::ssa::build_function(
                        &program,
                        toyc::sema::hir::FuncId(i as u32),
                        &may_throw,
                    )
                })
                .collect();
            let pool = toyc::par::Pool::new(2, 0);
            let module = toyc::ssa::build_module_on(program.clone(), &pool);
            assert_eq!(module.funcs.len(), fresh.len(), "{}", path.display());
            for (a, b) in module.funcs.iter().zip(&fresh) {
                let print = |f| toyc::ir::print::print_function(f, &program, None);
                assert_eq!(print(a), print(b), "{}: fn {}", path.display(), b.name);
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "only {compared} functions compared");
}
