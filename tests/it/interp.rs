//! The IR interpreter on hand-built modules: exact output, agreement with
//! the JIT, exceptions, the dynamic instruction count, and the passes
//! preserving behaviour.

use std::sync::Arc;
use toyc::codegen::CodegenOptions;
use toyc::ir::handbuild::ir_from_blocks;
use toyc::ir::{
    BinaryOp, BlockId, Cmp, Inst, IrCode, Module, Operand, RaiseKind, RuntimeFn, Type, Value,
};
use toyc::sema::hir::{FuncId, Program};
use toyc::span::SourceMap;

fn v(n: u32) -> Operand {
    Operand::Value(Value(n - 1))
}
fn b(n: u32) -> BlockId {
    BlockId(n - 1)
}
fn bin(op: BinaryOp, x: Operand, y: Operand, ty: Type) -> (Inst, Type) {
    (Inst::Binary(op, x, y), ty)
}
fn rt(func: RuntimeFn, args: Vec<Operand>, ty: Type) -> (Inst, Type) {
    (Inst::Runtime { func, args }, ty)
}
fn void(inst: Inst) -> (Inst, Type) {
    (inst, Type::Void)
}

fn module(mut funcs: Vec<IrCode>, main: u32, init: u32) -> (Module, SourceMap) {
    for (i, f) in funcs.iter_mut().enumerate() {
        f.func = FuncId(i as u32);
    }
    let program = Program {
        main: FuncId(main),
        init: FuncId(init),
        ..Program::default()
    };
    let mut sources = SourceMap::new();
    sources.add("test.toy".into(), None, "x".into());
    (
        Module {
            funcs,
            program: Arc::new(program),
        },
        sources,
    )
}

fn empty_init() -> IrCode {
    ir_from_blocks(
        "<init>",
        vec![],
        Type::Void,
        vec![vec![void(Inst::Return(None))]],
    )
}

/// fib (recursive calls), a float loop with φs, string concatenation.
fn sample() -> (Module, SourceMap) {
    let fib = ir_from_blocks(
        "fib",
        vec![Type::Int],
        Type::Int,
        vec![
            vec![
                bin(
                    BinaryOp::ICmp(Cmp::Lt),
                    Operand::Arg(0),
                    Operand::Int(2),
                    Type::Bool,
                ),
                void(Inst::GotoIfNot {
                    cond: v(1),
                    dest: b(3),
                }),
            ],
            vec![void(Inst::Return(Some(Operand::Arg(0))))],
            vec![
                bin(BinaryOp::ISub, Operand::Arg(0), Operand::Int(1), Type::Int), // %4
                (
                    Inst::Call {
                        func: FuncId(0),
                        args: vec![v(4)],
                    },
                    Type::Int,
                ), // %5
                bin(BinaryOp::ISub, Operand::Arg(0), Operand::Int(2), Type::Int), // %6
                (
                    Inst::Call {
                        func: FuncId(0),
                        args: vec![v(6)],
                    },
                    Type::Int,
                ), // %7
                bin(BinaryOp::IAdd, v(5), v(7), Type::Int),                       // %8
                void(Inst::Return(Some(v(8)))),
            ],
        ],
    );
    let main = ir_from_blocks(
        "main",
        vec![],
        Type::Int,
        vec![
            vec![
                (
                    Inst::Call {
                        func: FuncId(0),
                        args: vec![Operand::Int(20)],
                    },
                    Type::Int,
                ), // %1
                rt(RuntimeFn::PrintInt, vec![v(1)], Type::Void), // %2
                rt(RuntimeFn::PrintNewline, vec![], Type::Void), // %3
            ],
            vec![
                (
                    Inst::Phi {
                        edges: vec![b(1), b(2)],
                        values: vec![Operand::Int(0), v(6)],
                    },
                    Type::Int,
                ), // %4 i
                (
                    Inst::Phi {
                        edges: vec![b(1), b(2)],
                        values: vec![Operand::Float(0.0), v(7)],
                    },
                    Type::Float,
                ), // %5 acc
                bin(BinaryOp::IAdd, v(4), Operand::Int(1), Type::Int), // %6
                bin(BinaryOp::FAdd, v(5), Operand::Float(0.1), Type::Float), // %7
                bin(BinaryOp::ICmp(Cmp::Ge), v(6), Operand::Int(10), Type::Bool), // %8
                void(Inst::GotoIfNot {
                    cond: v(8),
                    dest: b(2),
                }), // %9
            ],
            vec![
                rt(RuntimeFn::PrintFloat, vec![v(7)], Type::Void), // %10
                rt(RuntimeFn::PrintSpace, vec![], Type::Void),     // %11
                (Inst::StrConst("ab".into()), Type::Str),          // %12
                rt(RuntimeFn::StrOfInt, vec![v(6)], Type::Str),    // %13
                rt(RuntimeFn::StrConcat, vec![v(12), v(13)], Type::Str), // %14
                rt(RuntimeFn::PrintStr, vec![v(14)], Type::Void),  // %15
                rt(RuntimeFn::PrintNewline, vec![], Type::Void),   // %16
                bin(BinaryOp::IMul, Operand::Int(3), Operand::Int(4), Type::Int), // %17
                void(Inst::Return(Some(v(17)))),
            ],
        ],
    );
    module(vec![fib, main, empty_init()], 1, 2)
}

fn interp(m: &Module, s: &SourceMap) -> (i32, String) {
    let (code, out, _) = toyc::interp::run(m, s, &[], false, true).expect("interpreter runs");
    (code, String::from_utf8_lossy(&out).into_owned())
}

fn jit(m: &Module, s: &SourceMap) -> (i32, String) {
    let (code, out) = toyc::codegen::run::run(
        m,
        s,
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

#[test]
fn interpreter_output_and_exit_code() {
    let (m, s) = sample();
    let (code, out) = interp(&m, &s);
    assert_eq!(code, 12);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "6765");
    assert!(lines[1].ends_with(" ab10"), "{out}");
    assert_eq!(lines.len(), 2);
}

#[test]
fn interpreter_agrees_with_the_jit() {
    let (m, s) = sample();
    assert_eq!(interp(&m, &s), jit(&m, &s));
}

#[test]
fn passes_preserve_behaviour() {
    let (mut m, s) = sample();
    let before = interp(&m, &s);
    let opts = toyc::opt::PipelineOptions {
        passes: toyc::opt::default_passes(2),
        verify: false,
        ..Default::default()
    };
    let mut counters = toyc::opt::Counters::default();
    toyc::opt::run_pipeline(&mut m, &opts, &mut counters, &|_| String::new())
        .expect("pipeline runs");
    assert_eq!(interp(&m, &s), before);
    assert_eq!(jit(&m, &s), before);
    assert!(counters.get("sccp.consts") >= 1); // 3 * 4
}

#[test]
fn uncaught_exception_exits_101_after_flushing() {
    let main = ir_from_blocks(
        "main",
        vec![],
        Type::Void,
        vec![vec![
            rt(RuntimeFn::PrintInt, vec![Operand::Int(7)], Type::Void),
            void(Inst::Raise {
                kind: RaiseKind::DivisionByZero,
                args: vec![],
            }),
            void(Inst::Unwind),
        ]],
    );
    let (m, s) = module(vec![main, empty_init()], 0, 1);
    assert_eq!(interp(&m, &s), (101, "7".to_string()));
    assert_eq!(interp(&m, &s), jit(&m, &s));
}

#[test]
fn dynamic_instruction_count() {
    // A loop of 3 iterations: entry 1 stmt; each iteration φ + add + cmp + br = 4; exit return = 1.
    let main = ir_from_blocks(
        "main",
        vec![],
        Type::Int,
        vec![
            vec![rt(RuntimeFn::PrintSpace, vec![], Type::Void)],
            vec![
                (
                    Inst::Phi {
                        edges: vec![b(1), b(2)],
                        values: vec![Operand::Int(0), v(3)],
                    },
                    Type::Int,
                ),
                bin(BinaryOp::IAdd, v(2), Operand::Int(1), Type::Int),
                bin(BinaryOp::ICmp(Cmp::Ge), v(3), Operand::Int(3), Type::Bool),
                void(Inst::GotoIfNot {
                    cond: v(4),
                    dest: b(2),
                }),
            ],
            vec![void(Inst::Return(Some(v(3))))],
        ],
    );
    let (m, s) = module(vec![main, empty_init()], 0, 1);
    let (code, _, count) = toyc::interp::run(&m, &s, &[], false, true).expect("runs");
    assert_eq!(code, 3);
    // <init>: its return; main: 1 + 3 iterations of 4 + the return.
    assert_eq!(count, 1 + 1 + 3 * 4 + 1);
}

/// `depth(n) = n == 0 ? 0 : 1 + depth(n - 1)`; main prints depth(N).
fn recursion(n: i64) -> (Module, SourceMap) {
    let depth = ir_from_blocks(
        "depth",
        vec![Type::Int],
        Type::Int,
        vec![
            vec![
                bin(
                    BinaryOp::ICmp(Cmp::Eq),
                    Operand::Arg(0),
                    Operand::Int(0),
                    Type::Bool,
                ),
                void(Inst::GotoIfNot {
                    cond: v(1),
                    dest: b(3),
                }),
            ],
            vec![void(Inst::Return(Some(Operand::Int(0))))],
            vec![
                bin(BinaryOp::ISub, Operand::Arg(0), Operand::Int(1), Type::Int),
                (
                    Inst::Call {
                        func: FuncId(0),
                        args: vec![v(4)],
                    },
                    Type::Int,
                ),
                bin(BinaryOp::IAdd, v(5), Operand::Int(1), Type::Int),
                void(Inst::Return(Some(v(6)))),
            ],
        ],
    );
    let main = ir_from_blocks(
        "main",
        vec![],
        Type::Void,
        vec![vec![
            (
                Inst::Call {
                    func: FuncId(0),
                    args: vec![Operand::Int(n)],
                },
                Type::Int,
            ),
            rt(RuntimeFn::PrintInt, vec![v(1)], Type::Void),
            void(Inst::Return(None)),
        ]],
    );
    module(vec![depth, main, empty_init()], 1, 2)
}

#[test]
fn deep_recursion_of_100000_frames() {
    let (m, s) = recursion(100_000);
    assert_eq!(interp(&m, &s), (0, "100000".to_string()));
}

/// Runs in a child process (the overflow ends the process): the child is
/// this test binary, selected by an environment variable.
#[test]
fn unbounded_recursion_is_a_stack_overflow() {
    if std::env::var_os("TOYC_INTERP_OVERFLOW_CHILD").is_some() {
        let (m, s) = recursion(-1);
        let _ = toyc::interp::run(&m, &s, &[], false, false);
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    // The test's name in this binary: its module path less the crate name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::unbounded_recursion_is_a_stack_overflow");
    let out = std::process::Command::new(exe)
        .args(["--exact", &name, "--nocapture"])
        .env("TOYC_INTERP_OVERFLOW_CHILD", "1")
        .output()
        .expect("child runs");
    assert_eq!(out.status.code(), Some(101));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: stack overflow"), "{stderr}");
}
