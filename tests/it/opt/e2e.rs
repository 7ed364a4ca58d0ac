//! End-to-end checks of the passes on IR built by SSA construction from
//! hand-built HIR (no front end needed): after every pipeline the verifier
//! accepts the IR, and the interpreter and the JIT print exactly what the
//! unoptimised program prints under the JIT.
use crate::ssa_support;
use ssa_support::*;
use toyc::codegen::CodegenOptions;
use toyc::ir::Module;
use toyc::opt::{self, Counters, PipelineOptions};
use toyc::sema::hir::{BinOp, Builtin, Program, Type};
use toyc::span::SourceMap;

fn sources() -> SourceMap {
    let mut s = SourceMap::new();
    s.add("test.toy".into(), None, "x".into());
    s
}

fn jit(m: &Module) -> (i32, String) {
    let (code, out) = toyc::codegen::run::run(
        m,
        &sources(),
        &CodegenOptions {
            optimize: false,
            verify: true,
            ..Default::default()
        },
        &[],
        true,
    )
    .expect("jit runs");
    (code, String::from_utf8_lossy(&out).into_owned())
}

fn interp(m: &Module) -> (i32, String, u64) {
    let (code, out, n) =
        toyc::interp::run(m, &sources(), &[], false, true).expect("interpreter runs");
    (code, String::from_utf8_lossy(&out).into_owned(), n)
}

fn optimise(m: &mut Module, passes: Vec<&'static str>) -> Counters {
    let opts = PipelineOptions {
        passes: passes.clone(),
        verify: true,
        ..Default::default()
    };
    let mut c = Counters::default();
    if let Err(errs) = opt::run_pipeline(m, &opts, &mut c, &|_| String::new()) {
        let text: String = m
            .funcs
            .iter()
            .map(|f| toyc::ir::print::print_function(f, &m.program, None))
            .collect();
        panic!(
            "verifier failed after {passes:?}:\n{}\n{text}",
            errs.join("\n")
        );
    }
    c
}

/// Checks every pipeline on `p` against the unoptimised JIT run; returns
/// the -O2 counters and the dynamic instruction counts at -O0 and -O2.
fn check(p: Program, expect: &str, expect_code: i32) -> (Counters, u64, u64) {
    let base = build(p);
    let reference = jit(&base);
    assert_eq!(reference, (expect_code, expect.to_string()));
    let (c0, o0, n0) = interp(&base);
    assert_eq!(
        (c0, o0.as_str()),
        (expect_code, expect),
        "interpreter at -O0"
    );
    let mut pipelines: Vec<Vec<&'static str>> =
        vec![opt::default_passes(1), opt::default_passes(2)];
    for pass in opt::PASSES {
        if !pipelines.contains(&vec![pass.name]) {
            pipelines.push(vec![pass.name]);
        }
    }
    pipelines.push(vec!["loops", "simplifycfg", "sccp", "dce", "loops"]);
    let mut o2 = (Counters::default(), 0);
    for passes in pipelines {
        let mut m = build_again(&base);
        let counters = optimise(&mut m, passes.clone());
        let (c, out, n) = interp(&m);
        assert_eq!(
            (c, out.as_str()),
            (expect_code, expect),
            "interpreter after {passes:?}"
        );
        assert_eq!(jit(&m), reference, "JIT after {passes:?}");
        if passes == opt::default_passes(2) {
            o2 = (counters, n);
        }
    }
    (o2.0, n0, o2.1)
}

fn build_again(m: &Module) -> Module {
    Module {
        funcs: m.funcs.clone(),
        program: m.program.clone(),
    }
}

#[test]
fn constant_loop_and_branches() {
    // var k = 3; var s = 0; var i = 0;
    // while i < 10 { if k > 2 { s = s + i * k } else { s = s - 1 }; i = i + 1 }
    // print(s); return s % 7
    let mut f = F::new();
    let k = f.local("k", Type::Int);
    let s_ = f.local("s", Type::Int);
    let i = f.local("i", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(k, int(3)),
        let_(s_, int(0)),
        let_(i, int(0)),
        while_(
            l,
            bin(BinOp::Lt, f.var(i), int(10)),
            vec![
                if_(
                    bin(BinOp::Gt, f.var(k), int(2)),
                    vec![set(
                        s_,
                        bin(BinOp::Add, f.var(s_), bin(BinOp::Mul, f.var(i), f.var(k))),
                    )],
                    vec![set(s_, bin(BinOp::Sub, f.var(s_), int(1)))],
                ),
                set(i, bin(BinOp::Add, f.var(i), int(1))),
            ],
        ),
        print(vec![f.var(s_)]),
        ret(Some(bin(BinOp::Rem, f.var(s_), int(7)))),
    ];
    let (c, n0, n2) = check(
        program(vec![f.finish("main", Type::Int, body)]),
        "135\n",
        135 % 7,
    );
    assert!(c.get("sccp.branches") >= 1, "{}", c.render());
    assert!(
        n2 < n0,
        "optimised program executes fewer statements ({n2} vs {n0})"
    );
}

#[test]
fn nested_loops_with_break_and_continue() {
    let mut f = F::new();
    let i = f.local("i", Type::Int);
    let j = f.local("j", Type::Int);
    let t = f.local("t", Type::Int);
    let lo = f.loop_id();
    let li = f.loop_id();
    let body = vec![
        let_(t, int(0)),
        let_(i, int(0)),
        while_(
            lo,
            bin(BinOp::Lt, f.var(i), int(6)),
            vec![
                set(i, bin(BinOp::Add, f.var(i), int(1))),
                if_(bin(BinOp::Eq, f.var(i), int(2)), vec![cont(lo)], vec![]),
                let_(j, int(0)),
                while_(
                    li,
                    boolean(true),
                    vec![
                        set(j, bin(BinOp::Add, f.var(j), int(1))),
                        if_(bin(BinOp::Gt, f.var(j), f.var(i)), vec![brk(li)], vec![]),
                        set(t, bin(BinOp::Add, f.var(t), f.var(j))),
                    ],
                ),
                if_(bin(BinOp::Gt, f.var(t), int(40)), vec![brk(lo)], vec![]),
            ],
        ),
        print(vec![f.var(t), f.var(i)]),
        ret(Some(int(0))),
    ];
    check(
        program(vec![f.finish("main", Type::Int, body)]),
        "53 6\n",
        0,
    );
}

#[test]
fn calls_division_checks_and_exceptions() {
    // fn div(a, b) -> int { return a / b }
    // main: try { print(div(7, 2)); print(div(1, 0)) } catch e { print(e) }; print(div(9, 3))
    let mut g = F::new();
    let a = g.param("a", Type::Int);
    let b = g.param("b", Type::Int);
    let quotient = bin(BinOp::Div, g.var(a), g.var(b));
    let div = g.finish("div", Type::Int, vec![ret(Some(quotient))]);
    let mut f = F::new();
    let e = f.local("e", Type::Str);
    let body = vec![
        try_(
            vec![
                print(vec![call(0, vec![int(7), int(2)], Type::Int)]),
                print(vec![call(0, vec![int(1), int(0)], Type::Int)]),
            ],
            e,
            vec![print(vec![f.var(e)])],
        ),
        print(vec![call(0, vec![int(9), int(3)], Type::Int)]),
        ret(Some(int(0))),
    ];
    check(
        program(vec![div, f.finish("main", Type::Int, body)]),
        "3\ndivision by zero\n3\n",
        0,
    );
}

#[test]
fn uncaught_division_by_constant_zero_still_raises() {
    let mut f = F::new();
    let x = f.local("x", Type::Int);
    let body = vec![
        let_(x, int(0)),
        print(vec![int(1)]),
        print(vec![bin(BinOp::Div, int(5), f.var(x))]),
        ret(Some(int(0))),
    ];
    check(program(vec![f.finish("main", Type::Int, body)]), "1\n", 101);
}

#[test]
fn short_circuit_floats_and_strings() {
    let mut f = F::new();
    let a = f.local("a", Type::Float);
    let s_ = f.local("s", Type::Str);
    let i = f.local("i", Type::Int);
    let l = f.loop_id();
    let body = vec![
        let_(a, e(toyc::sema::hir::ExprKind::Float(0.5), Type::Float)),
        let_(s_, string("x")),
        for_range(
            l,
            i,
            int(0),
            int(4),
            vec![
                set(
                    a,
                    bin(
                        BinOp::Mul,
                        f.var(a),
                        e(toyc::sema::hir::ExprKind::Float(3.0), Type::Float),
                    ),
                ),
                if_(
                    bin(
                        BinOp::Or,
                        bin(BinOp::Eq, f.var(i), int(1)),
                        bin(BinOp::And, bin(BinOp::Gt, f.var(i), int(2)), boolean(true)),
                    ),
                    vec![set(s_, bin(BinOp::Add, f.var(s_), string("y")))],
                    vec![],
                ),
            ],
        ),
        print(vec![f.var(a), f.var(s_)]),
        print(vec![builtin(
            Builtin::Sqrt,
            vec![e(toyc::sema::hir::ExprKind::Float(2.0), Type::Float)],
            Type::Float,
        )]),
        ret(Some(int(0))),
    ];
    let m = build(program(vec![f.finish("main", Type::Int, body)]));
    let expect = jit(&m).1;
    assert!(expect.starts_with("40.5 xyy\n"), "{expect}");
    check(program_of(m), &expect, 0);
}

fn program_of(m: Module) -> Program {
    (*m.program).clone()
}

#[test]
fn many_loops_are_canonicalised_in_few_rounds() {
    // 2,000 sequential loops whose exits are shared with a raise path: the
    // pass must fix them all (it works in rounds, not one fix per analysis).
    let mut f = F::new();
    let a = f.local("a", arr(Type::Int));
    let s_ = f.local("s", Type::Int);
    let mut body = vec![
        let_(
            a,
            e(
                toyc::sema::hir::ExprKind::ArrayLit(vec![int(1), int(2), int(3)]),
                arr(Type::Int),
            ),
        ),
        let_(s_, int(0)),
    ];
    for k in 0..2000 {
        let id = f.loop_id();
        let i = f.local("i", Type::Int);
        let cond = bin(BinOp::Gt, index(f.var(a), f.var(i), Type::Int), int(k % 3));
        body.push(for_range(
            id,
            i,
            int(0),
            int(3),
            vec![if_(
                cond,
                vec![set(s_, bin(BinOp::Add, f.var(s_), f.var(i)))],
                vec![],
            )],
        ));
    }
    body.push(print(vec![f.var(s_)]));
    body.push(ret(Some(int(0))));
    let mut m = build(program(vec![f.finish("main", Type::Int, body)]));
    let start = std::time::Instant::now();
    let c = optimise(&mut m, opt::default_passes(2));
    assert!(
        start.elapsed().as_secs() < 60,
        "the -O2 pipeline took {:?}",
        start.elapsed()
    );
    assert!(
        c.get("loops.exits") + c.get("loops.preheaders") > 0,
        "{}",
        c.render()
    );
    let (code, out, _) = interp(&m);
    assert_eq!((code, out.as_str()), (0, "5334\n")); // per 3 loops 3 + 3 + 2; 666 groups and two more loops
}
