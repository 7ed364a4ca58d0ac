//! Unit tests of the translation on hand-built IR.

use super::tests_build::{FnBuilder, empty_init, module};
use super::{CodegenOptions, Compiler};
use crate::ir::{
    BinaryOp, BlockId, Cmp, Inst, IrCode, Operand, RaiseKind, RuntimeFn, Type, UnaryOp,
};

/// Compiles `funcs` (at both optimization levels) and gives `f` the entry
/// address of every function.
fn with_compiled(funcs: &[IrCode], f: impl Fn(&[usize])) {
    for optimize in [false, true] {
        let (m, sources) = module(funcs.to_vec(), 0, 0, "x");
        let mut cx = Compiler::new(
            &m,
            &sources,
            &CodegenOptions {
                optimize,
                verify: true,
                ..Default::default()
            },
        )
        .expect("compiler");
        cx.compile(super::Emit::Run).expect("compile");
        let ptrs: Vec<usize> = cx
            .funcs
            .iter()
            .map(|id| cx.module.get_finalized_function(*id) as usize)
            .collect();
        f(&ptrs);
        // SAFETY: no compiled function runs after `f` returned.
        unsafe { cx.module.free_memory() };
    }
}

fn int_binop(op: BinaryOp, rhs_const: Option<i64>) -> IrCode {
    let mut b = FnBuilder::new("op", vec![Type::Int, Type::Int], Type::Int);
    let rhs = rhs_const.map_or(Operand::Arg(1), Operand::Int);
    let v = b.push(Inst::Binary(op, Operand::Arg(0), rhs), Type::Int);
    b.push(Inst::Return(Some(v)), Type::Void);
    b.finish()
}

fn call2(p: usize, x: i64, y: i64) -> i64 {
    // SAFETY: `p` is a compiled `(int, int) -> int` function.
    let f: extern "C" fn(i64, i64) -> i64 = unsafe { std::mem::transmute(p) };
    f(x, y)
}

#[test]
fn division_and_remainder_edge_cases() {
    let cases: [(i64, i64, i64, i64); 7] = [
        (i64::MIN, -1, i64::MIN, 0),
        (7, -2, -3, 1),
        (-7, 2, -3, -1),
        (-7, -1, 7, 0),
        (i64::MIN, 1, i64::MIN, 0),
        (5, 5, 1, 0),
        (0, -1, 0, 0),
    ];
    for (x, y, q, r) in cases {
        with_compiled(&[int_binop(BinaryOp::IDiv, None)], |p| {
            assert_eq!(call2(p[0], x, y), q, "{x} / {y}")
        });
        with_compiled(&[int_binop(BinaryOp::IRem, None)], |p| {
            assert_eq!(call2(p[0], x, y), r, "{x} % {y}")
        });
        // The same with a constant divisor.
        with_compiled(&[int_binop(BinaryOp::IDiv, Some(y))], |p| {
            assert_eq!(call2(p[0], x, 0), q, "{x} / const {y}")
        });
        with_compiled(&[int_binop(BinaryOp::IRem, Some(y))], |p| {
            assert_eq!(call2(p[0], x, 0), r, "{x} % const {y}")
        });
    }
}

#[test]
fn wrapping_arithmetic_and_shifts() {
    with_compiled(&[int_binop(BinaryOp::IAdd, None)], |p| {
        assert_eq!(call2(p[0], i64::MAX, 1), i64::MIN)
    });
    with_compiled(&[int_binop(BinaryOp::IMul, None)], |p| {
        assert_eq!(call2(p[0], i64::MAX, 2), -2)
    });
    with_compiled(&[int_binop(BinaryOp::IShl, None)], |p| {
        assert_eq!(call2(p[0], 1, 65), 2);
        assert_eq!(call2(p[0], 1, -1), i64::MIN);
        assert_eq!(call2(p[0], 3, 64), 3);
    });
    with_compiled(&[int_binop(BinaryOp::IShr, None)], |p| {
        assert_eq!(call2(p[0], -8, 1), -4);
        assert_eq!(call2(p[0], -8, 66), -2);
        assert_eq!(call2(p[0], i64::MIN, 63), -1);
    });
}

#[test]
fn float_to_int_saturates_and_nan_is_zero() {
    let mut b = FnBuilder::new("f2i", vec![Type::Float], Type::Int);
    let v = b.push(Inst::Unary(UnaryOp::FloatToInt, Operand::Arg(0)), Type::Int);
    b.push(Inst::Return(Some(v)), Type::Void);
    with_compiled(&[b.finish()], |p| {
        // SAFETY: a compiled `(float) -> int` function.
        let f: extern "C" fn(f64) -> i64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(f64::NAN), 0);
        assert_eq!(f(1e300), i64::MAX);
        assert_eq!(f(-1e300), i64::MIN);
        assert_eq!(f(f64::INFINITY), i64::MAX);
        assert_eq!(f(-2.7), -2);
        assert_eq!(f(2.7), 2);
    });
}

#[test]
fn float_comparisons_are_ieee() {
    for (cmp, nan_result, one_two) in [
        (Cmp::Eq, 0, 0),
        (Cmp::Ne, 1, 1),
        (Cmp::Lt, 0, 1),
        (Cmp::Ge, 0, 0),
    ] {
        let mut b = FnBuilder::new("fcmp", vec![Type::Float, Type::Float], Type::Bool);
        let v = b.push(
            Inst::Binary(BinaryOp::FCmp(cmp), Operand::Arg(0), Operand::Arg(1)),
            Type::Bool,
        );
        b.push(Inst::Return(Some(v)), Type::Void);
        with_compiled(&[b.finish()], |p| {
            // SAFETY: a compiled `(float, float) -> bool` function.
            let f: extern "C" fn(f64, f64) -> u8 = unsafe { std::mem::transmute(p[0]) };
            assert_eq!(f(f64::NAN, f64::NAN), nan_result, "{cmp:?} on NaN");
            assert_eq!(f(1.0, 2.0), one_two, "{cmp:?} on 1, 2");
        });
    }
}

/// `sum(n)`: s = 0; i = 0; while i < n { s += i; i += 1 }; return s —
/// two φs at the loop header, fed by the entry and the back edge.
fn sum_loop() -> IrCode {
    let mut b = FnBuilder::new("sum", vec![Type::Int], Type::Int);
    b.push(Inst::Goto(BlockId(1)), Type::Void);
    b.end_block(); // #1
    // #2: header. Statements 1, 2 are the φs; 3 the compare; 4 the branch.
    let i = b.push(
        Inst::Phi {
            edges: vec![BlockId(0), BlockId(2)],
            values: vec![Operand::Int(0), Operand::Value(crate::ir::Value(6))],
        },
        Type::Int,
    );
    let s = b.push(
        Inst::Phi {
            edges: vec![BlockId(0), BlockId(2)],
            values: vec![Operand::Int(0), Operand::Value(crate::ir::Value(5))],
        },
        Type::Int,
    );
    let c = b.push(
        Inst::Binary(BinaryOp::ICmp(Cmp::Lt), i, Operand::Arg(0)),
        Type::Bool,
    );
    b.push(
        Inst::GotoIfNot {
            cond: c,
            dest: BlockId(3),
        },
        Type::Void,
    );
    b.end_block();
    // #3: body (entered by the fallthrough of the true condition).
    let s2 = b.push(Inst::Binary(BinaryOp::IAdd, s, i), Type::Int); // %6
    let i2 = b.push(Inst::Binary(BinaryOp::IAdd, i, Operand::Int(1)), Type::Int); // %7
    assert_eq!(
        (s2, i2),
        (
            Operand::Value(crate::ir::Value(5)),
            Operand::Value(crate::ir::Value(6))
        )
    );
    b.push(Inst::Goto(BlockId(1)), Type::Void);
    b.end_block();
    // #4: exit.
    b.push(Inst::Return(Some(s)), Type::Void);
    b.finish()
}

#[test]
fn phis_at_a_loop_header() {
    with_compiled(&[sum_loop()], |p| {
        // SAFETY: a compiled `(int) -> int` function.
        let f: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(0), 0);
        assert_eq!(f(10), 45);
        assert_eq!(f(100_000), 4_999_950_000);
    });
}

#[test]
fn recursion_between_functions() {
    // fib(n) = n < 2 ? n : fib(n-1) + fib(n-2), calling itself by FuncId.
    let mut b = FnBuilder::new("fib", vec![Type::Int], Type::Int);
    let c = b.push(
        Inst::Binary(BinaryOp::ICmp(Cmp::Lt), Operand::Arg(0), Operand::Int(2)),
        Type::Bool,
    );
    b.push(
        Inst::GotoIfNot {
            cond: c,
            dest: BlockId(2),
        },
        Type::Void,
    );
    b.end_block();
    b.push(Inst::Return(Some(Operand::Arg(0))), Type::Void);
    b.end_block();
    let n1 = b.push(
        Inst::Binary(BinaryOp::ISub, Operand::Arg(0), Operand::Int(1)),
        Type::Int,
    );
    let f1 = b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(0),
            args: vec![n1],
        },
        Type::Int,
    );
    let n2 = b.push(
        Inst::Binary(BinaryOp::ISub, Operand::Arg(0), Operand::Int(2)),
        Type::Int,
    );
    let f2 = b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(0),
            args: vec![n2],
        },
        Type::Int,
    );
    let r = b.push(Inst::Binary(BinaryOp::IAdd, f1, f2), Type::Int);
    b.push(Inst::Return(Some(r)), Type::Void);
    let fib = b.finish();
    let _g = crate::runtime::run_lock();
    crate::runtime::STACK_LIMIT.store(0, std::sync::atomic::Ordering::Relaxed);
    with_compiled(&[fib], |p| {
        // SAFETY: a compiled `(int) -> int` function.
        let f: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(20), 6765);
    });
}

/// Runs a module whose function 0 is `main` and 1 is `<init>`, capturing
/// the output.
fn run_main(main: IrCode, extra: Vec<IrCode>, text: &str) -> (i32, String) {
    let mut funcs = vec![main, empty_init()];
    funcs.extend(extra);
    let (m, sources) = module(funcs, 0, 1, text);
    let mut last = None;
    for optimize in [false, true] {
        let (code, out) = super::run::run(
            &m,
            &sources,
            &CodegenOptions {
                optimize,
                verify: true,
                ..Default::default()
            },
            &[],
            true,
        )
        .expect("run");
        let r = (code, String::from_utf8_lossy(&out).into_owned());
        if let Some(prev) = &last {
            assert_eq!(prev, &r, "-O0 and -O2 differ");
        }
        last = Some(r);
    }
    last.unwrap_or_default()
}

#[test]
fn uncaught_error_flushes_output_and_exits_101() {
    let mut b = FnBuilder::new("main", vec![], Type::Void);
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![Operand::Int(42)],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    b.at(2).push(
        Inst::Raise {
            kind: RaiseKind::DivisionByZero,
            args: vec![],
        },
        Type::Void,
    );
    b.push(Inst::Unwind, Type::Void);
    assert_eq!(
        run_main(b.finish(), vec![], "let x = 1 / 0;"),
        (101, "42\n".to_string())
    );
}

#[test]
fn main_result_is_the_exit_code_and_strings_print() {
    let mut b = FnBuilder::new("main", vec![], Type::Int);
    let s = b.push(Inst::StrConst("héllo".into()), Type::Str);
    let t = b.push(Inst::StrConst(" world".into()), Type::Str);
    let st = b.push(
        Inst::Runtime {
            func: RuntimeFn::StrConcat,
            args: vec![s, t],
        },
        Type::Str,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintStr,
            args: vec![st],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    let n = b.push(
        Inst::Runtime {
            func: RuntimeFn::StrLen,
            args: vec![st],
        },
        Type::Int,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![n],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    let byte = b.push(
        Inst::Runtime {
            func: RuntimeFn::StrByte,
            args: vec![st, Operand::Int(0)],
        },
        Type::Int,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![byte],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintFloat,
            args: vec![Operand::Float(0.1)],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    let r = b.push(
        Inst::Runtime {
            func: RuntimeFn::Sqrt,
            args: vec![Operand::Float(2.25)],
        },
        Type::Float,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintFloat,
            args: vec![r],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    b.push(Inst::Return(Some(Operand::Int(7))), Type::Void);
    assert_eq!(
        run_main(b.finish(), vec![], "x"),
        (7, "héllo world 12 104 0.1 1.5\n".to_string())
    );
}

#[test]
fn exceptions_reach_the_handler_with_phic() {
    // thrower(): throw "boom"  (returns int, so Unwind returns a dummy)
    let mut t = FnBuilder::new("thrower", vec![], Type::Int);
    let m = t.push(Inst::StrConst("boom".into()), Type::Str);
    t.at(0).push(
        Inst::Raise {
            kind: RaiseKind::Throw,
            args: vec![m],
        },
        Type::Void,
    );
    t.push(Inst::Unwind, Type::Void);
    let thrower = t.finish();

    // main: x = 1; ϒ(x); r = thrower(); if !NoException goto handler; print r; return
    //       handler: c = φᶜ(ϒ); msg = TakeException; print msg, c; return
    let mut b = FnBuilder::new("main", vec![], Type::Void);
    let up = b.push(Inst::Upsilon(Operand::Int(5)), Type::Void); // %1
    let r = b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(2),
            args: vec![],
        },
        Type::Int,
    );
    let ok = b.push(Inst::NoException, Type::Bool);
    b.push(
        Inst::GotoIfNot {
            cond: ok,
            dest: BlockId(2),
        },
        Type::Void,
    );
    b.end_block();
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![r],
        },
        Type::Void,
    );
    b.push(Inst::Return(None), Type::Void);
    b.end_block();
    let Operand::Value(upv) = up else {
        unreachable!()
    };
    let c = b.push(
        Inst::PhiC {
            upsilons: vec![upv],
        },
        Type::Int,
    );
    let msg = b.push(Inst::TakeException, Type::Str);
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintStr,
            args: vec![msg],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![c],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    b.push(Inst::Return(None), Type::Void);
    assert_eq!(
        run_main(b.finish(), vec![thrower], "x"),
        (0, "boom 5\n".to_string())
    );
}

#[test]
fn uncaught_throw_from_a_callee_is_reported() {
    let mut t = FnBuilder::new("thrower", vec![], Type::Void);
    let m = t.push(Inst::StrConst("bad".into()), Type::Str);
    t.at(4).push(
        Inst::Raise {
            kind: RaiseKind::Throw,
            args: vec![m],
        },
        Type::Void,
    );
    t.push(Inst::Unwind, Type::Void);
    let mut b = FnBuilder::new("main", vec![], Type::Int);
    b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(2),
            args: vec![],
        },
        Type::Void,
    );
    let ok = b.push(Inst::NoException, Type::Bool);
    b.push(
        Inst::GotoIfNot {
            cond: ok,
            dest: BlockId(2),
        },
        Type::Void,
    );
    b.end_block();
    b.push(Inst::Return(Some(Operand::Int(0))), Type::Void);
    b.end_block();
    b.push(Inst::Unwind, Type::Void);
    assert_eq!(
        run_main(b.finish(), vec![t.finish()], "line1\nthrow"),
        (101, String::new())
    );
}

#[test]
fn clif_text_names_each_function() {
    let (m, sources) = module(vec![sum_loop(), empty_init()], 0, 1, "x");
    let text = super::asm::module_listing(
        &m,
        &sources,
        &CodegenOptions {
            optimize: true,
            verify: true,
            ..Default::default()
        },
        None,
        super::asm::Listing::Clif,
    )
    .expect("clif");
    assert!(text.starts_with("; fn sum\n"), "{text}");
    assert!(text.contains("; fn <init>\n"), "{text}");
    assert!(text.contains("brif"), "{text}");
    let only = super::asm::module_listing(
        &m,
        &sources,
        &CodegenOptions {
            optimize: true,
            verify: true,
            ..Default::default()
        },
        Some("<init>"),
        super::asm::Listing::Clif,
    )
    .expect("clif");
    assert!(!only.contains("; fn sum"));
    assert!(
        super::asm::module_listing(
            &m,
            &sources,
            &CodegenOptions {
                optimize: true,
                verify: true,
                ..Default::default()
            },
            Some("nope"),
            super::asm::Listing::Clif
        )
        .is_err()
    );
}

/// `depth(n) = if n == 0 { 0 } else { depth(n - 1) + 1 }` (function 2).
fn depth_fn() -> IrCode {
    let mut b = FnBuilder::new("depth", vec![Type::Int], Type::Int);
    let c = b.push(
        Inst::Binary(BinaryOp::ICmp(Cmp::Eq), Operand::Arg(0), Operand::Int(0)),
        Type::Bool,
    );
    b.push(
        Inst::GotoIfNot {
            cond: c,
            dest: BlockId(2),
        },
        Type::Void,
    );
    b.end_block();
    b.push(Inst::Return(Some(Operand::Int(0))), Type::Void);
    b.end_block();
    let n1 = b.push(
        Inst::Binary(BinaryOp::ISub, Operand::Arg(0), Operand::Int(1)),
        Type::Int,
    );
    let r = b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(2),
            args: vec![n1],
        },
        Type::Int,
    );
    let r1 = b.push(Inst::Binary(BinaryOp::IAdd, r, Operand::Int(1)), Type::Int);
    b.push(Inst::Return(Some(r1)), Type::Void);
    b.finish()
}

fn main_printing_depth(n: i64) -> IrCode {
    let mut b = FnBuilder::new("main", vec![], Type::Void);
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![Operand::Int(1)],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    let d = b.push(
        Inst::Call {
            func: crate::sema::hir::FuncId(2),
            args: vec![Operand::Int(n)],
        },
        Type::Int,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![d],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    b.push(Inst::Return(None), Type::Void);
    b.finish()
}

#[test]
fn recursion_100_000_frames_deep_works() {
    assert_eq!(
        run_main(main_printing_depth(100_000), vec![depth_fn()], "x"),
        (0, "1\n100000\n".to_string())
    );
}

/// Runs this test binary again with `TOYC_CHILD=name`, for tests whose
/// program ends the process (stack overflow, `exit`).
fn run_child(test: &str) -> std::process::Output {
    let exe = std::env::current_exe().expect("test binary");
    std::process::Command::new(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("TOYC_CHILD", test)
        .output()
        .expect("child")
}

fn is_child(test: &str) -> bool {
    std::env::var("TOYC_CHILD").is_ok_and(|v| v == test)
}

#[test]
fn stack_overflow_is_reported_after_flushing_output() {
    const NAME: &str = "codegen::tests::stack_overflow_is_reported_after_flushing_output";
    if is_child(NAME) {
        let (m, sources) = module(
            vec![main_printing_depth(i64::MAX), empty_init(), depth_fn()],
            0,
            1,
            "x",
        );
        let code = super::run_module(
            &m,
            &sources,
            &CodegenOptions {
                optimize: true,
                verify: true,
                ..Default::default()
            },
            &[],
        );
        panic!("the run returned {code} instead of ending the process");
    }
    let out = run_child(NAME);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(101),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("1\n"), "{stdout}");
    assert!(stderr.ends_with("error: stack overflow\n"), "{stderr}");
}

#[test]
fn exit_flushes_output_and_ends_with_its_code() {
    const NAME: &str = "codegen::tests::exit_flushes_output_and_ends_with_its_code";
    if is_child(NAME) {
        let mut b = FnBuilder::new("main", vec![], Type::Void);
        b.push(
            Inst::Runtime {
                func: RuntimeFn::PrintInt,
                args: vec![Operand::Int(9)],
            },
            Type::Void,
        );
        b.push(
            Inst::Runtime {
                func: RuntimeFn::Exit,
                args: vec![Operand::Int(3)],
            },
            Type::Void,
        );
        b.push(Inst::Return(None), Type::Void);
        let (m, sources) = module(vec![b.finish(), empty_init()], 0, 1, "x");
        let code = super::run_module(
            &m,
            &sources,
            &CodegenOptions {
                optimize: false,
                verify: true,
                ..Default::default()
            },
            &[],
        );
        panic!("the run returned {code} instead of ending the process");
    }
    let out = run_child(NAME);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains('9'));
}

#[test]
fn arrays_structs_and_globals() {
    use crate::ir::Loc;
    use crate::sema::hir::{FieldDef, GlobalDef, GlobalId, StructDef, StructId};
    let arr_f = Type::Array(Box::new(Type::Float));
    let mut b = FnBuilder::new("main", vec![], Type::Void);
    // a = [1.5; 2]; a[1] = 2.5; push(a, 4.0); x = pop(a); print(a, len(a), x)
    let a = b.push(
        Inst::NewArray {
            elem: Type::Float,
            len: Operand::Int(2),
            fill: Operand::Float(1.5),
        },
        arr_f.clone(),
    );
    b.push(
        Inst::Store {
            loc: Loc::ArrayElem(Type::Float),
            base: Some(a),
            index: Some(Operand::Int(1)),
            value: Operand::Float(2.5),
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::ArrayPush,
            args: vec![a, Operand::Float(4.0)],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::ArrayPush,
            args: vec![a, Operand::Float(-0.0)],
        },
        Type::Void,
    );
    let x = b.push(
        Inst::Runtime {
            func: RuntimeFn::ArrayPop,
            args: vec![a],
        },
        Type::Float,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintValue,
            args: vec![a],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    let n = b.push(
        Inst::Load {
            loc: Loc::ArrayLen,
            base: Some(a),
            index: None,
        },
        Type::Int,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintInt,
            args: vec![n],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintFloat,
            args: vec![x],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    let e = b.push(
        Inst::Load {
            loc: Loc::ArrayElem(Type::Float),
            base: Some(a),
            index: Some(Operand::Int(2)),
        },
        Type::Float,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintFloat,
            args: vec![e],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    // p = P { ok: true, name: "n", next: nil }; g = p; print(g.ok, g)
    let s = b.push(Inst::StrConst("n".into()), Type::Str);
    let p = b.push(
        Inst::NewStruct {
            strukt: StructId(0),
            fields: vec![Operand::Bool(true), s, Operand::Nil],
        },
        Type::Struct(StructId(0)),
    );
    b.push(
        Inst::Store {
            loc: Loc::Global(GlobalId(0)),
            base: None,
            index: None,
            value: p,
        },
        Type::Void,
    );
    let g = b.push(
        Inst::Load {
            loc: Loc::Global(GlobalId(0)),
            base: None,
            index: None,
        },
        Type::Struct(StructId(0)),
    );
    let ok = b.push(
        Inst::Load {
            loc: Loc::Field {
                strukt: StructId(0),
                field: 0,
            },
            base: Some(g),
            index: None,
        },
        Type::Bool,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintBool,
            args: vec![ok],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintSpace,
            args: vec![],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintValue,
            args: vec![g],
        },
        Type::Void,
    );
    b.push(
        Inst::Runtime {
            func: RuntimeFn::PrintNewline,
            args: vec![],
        },
        Type::Void,
    );
    b.push(Inst::Return(None), Type::Void);

    let (mut m, sources) = module(vec![b.finish(), empty_init()], 0, 1, "x");
    let mut program = (*m.program).clone();
    let field = |name: &str, ty: Type| FieldDef {
        name: name.into(),
        ty,
    };
    program.structs.push(StructDef {
        name: "P".into(),
        fields: vec![
            field("ok", Type::Bool),
            field("name", Type::Str),
            field("next", Type::Struct(StructId(0))),
        ],
        span: Default::default(),
    });
    program.globals.push(GlobalDef {
        name: "g".into(),
        ty: Type::Struct(StructId(0)),
        mutable: true,
        span: Default::default(),
    });
    m.program = std::sync::Arc::new(program);
    for optimize in [false, true] {
        let (code, out) = super::run::run(
            &m,
            &sources,
            &CodegenOptions {
                optimize,
                verify: true,
                ..Default::default()
            },
            &[],
            true,
        )
        .expect("run");
        assert_eq!(
            (code, String::from_utf8_lossy(&out).as_ref()),
            (
                0,
                "[1.5, 2.5, 4.0] 3 -0.0 4.0 true P { ok: true, name: \"n\", next: nil }\n"
            )
        );
    }
}

#[test]
fn the_while_loop_header_is_rotated() {
    let code = sum_loop();
    let order = super::translate::reverse_postorder(&code);
    let plan = super::rotate::plan(&code, &order);
    assert_eq!(plan.rotated, vec![false, true, false, false]);
    assert!(plan.dominates(1, 2) && !plan.dominates(2, 3));
}

/// `(x + 1) + 1 ... ` `n` times: about `2n` Cranelift instructions.
fn add_chain(n: usize) -> IrCode {
    let mut b = FnBuilder::new("chain", vec![Type::Int, Type::Int], Type::Int);
    let mut v = Operand::Arg(0);
    for _ in 0..n {
        v = b.push(Inst::Binary(BinaryOp::IAdd, v, Operand::Int(1)), Type::Int);
    }
    b.push(Inst::Return(Some(v)), Type::Void);
    b.finish()
}

#[test]
fn only_huge_functions_use_the_large_function_allocator() {
    for (n, large) in [(100, 0), (super::LARGE_FUNCTION_INSTS, 1)] {
        for optimize in [false, true] {
            let (m, sources) = module(vec![add_chain(n)], 0, 0, "x");
            let mut cx = Compiler::new(
                &m,
                &sources,
                &CodegenOptions {
                    optimize,
                    verify: true,
                    ..Default::default()
                },
            )
            .expect("compiler");
            cx.compile(super::Emit::Run).expect("compile");
            assert_eq!(
                cx.large_functions, large,
                "{n} additions, optimize={optimize}"
            );
            let p = cx.module.get_finalized_function(cx.funcs[0]) as usize;
            assert_eq!(call2(p, 5, 0), 5 + n as i64);
            // SAFETY: nothing compiled runs any more.
            unsafe { cx.module.free_memory() };
        }
    }
}
