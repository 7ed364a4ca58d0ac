//! Differential testing of the passes, the compaction and the interpreter
//! on random structured programs (a fixed-seed generator, no extra crate):
//! for each program, every pipeline must leave IR the verifier accepts,
//! and the interpreter (at -O0 and after each pipeline) and the JIT after
//! each pipeline must print and exit exactly as the unoptimised JIT run.
use crate::ssa_support;
use ssa_support::*;
use toyc::codegen::CodegenOptions;
use toyc::ir::Module;
use toyc::opt::{self, Counters, PipelineOptions};
use toyc::sema::hir::{
    BinOp, Builtin, Expr, ExprKind, GlobalId, LocalId, Place, Program, Stmt, StmtKind, StructId,
    Type, UnOp,
};
use toyc::span::SourceMap;

struct Gen {
    rng: Rng,
    f: F,
    vars: Vec<LocalId>,
    flag: LocalId,
    msg: LocalId,
    arr: LocalId,
    obj: LocalId,
    loops: Vec<toyc::sema::hir::LoopId>,
    budget: u32,
}

impl Gen {
    fn int_expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return if self.rng.chance(50) {
                let v = self.vars[self.rng.below(self.vars.len() as u64) as usize];
                self.f.var(v)
            } else {
                int(self.rng.below(11) as i64 - 3)
            };
        }
        if self.rng.chance(8) {
            return e(
                ExprKind::Unary(UnOp::Neg, Box::new(self.int_expr(depth - 1))),
                Type::Int,
            );
        }
        match self.rng.below(12) {
            0 => {
                let i = self.int_expr(depth - 1);
                return index(self.f.var(self.arr), i, Type::Int);
            }
            1 => return builtin(Builtin::Len, vec![self.f.var(self.arr)], Type::Int),
            2 => return field(self.f.var(self.obj), 0, 0, Type::Int),
            3 => return global(0, Type::Int),
            4 => {
                let a = self.int_expr(depth - 1);
                let b = self.int_expr(depth - 1);
                return call(1, vec![a, b], Type::Int);
            }
            _ => {}
        }
        let ops = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Rem,
            BinOp::BitAnd,
            BinOp::BitOr,
            BinOp::BitXor,
            BinOp::Shl,
            BinOp::Shr,
        ];
        let op = ops[self.rng.below(ops.len() as u64) as usize];
        let a = self.int_expr(depth - 1);
        let b = self.int_expr(depth - 1);
        bin(op, a, b)
    }

    fn cond(&mut self, depth: u32) -> Expr {
        match self.rng.below(10) {
            0 => boolean(self.rng.chance(50)),
            1 => self.f.var(self.flag),
            2 if depth > 0 => {
                let a = self.cond(depth - 1);
                let b = self.cond(depth - 1);
                bin(
                    if self.rng.chance(50) {
                        BinOp::And
                    } else {
                        BinOp::Or
                    },
                    a,
                    b,
                )
            }
            3 if depth > 0 => e(
                ExprKind::Unary(UnOp::Not, Box::new(self.cond(depth - 1))),
                Type::Bool,
            ),
            _ => {
                let ops = [
                    BinOp::Eq,
                    BinOp::Ne,
                    BinOp::Lt,
                    BinOp::Le,
                    BinOp::Gt,
                    BinOp::Ge,
                ];
                let op = ops[self.rng.below(6) as usize];
                let a = self.int_expr(1);
                let b = self.int_expr(1);
                bin(op, a, b)
            }
        }
    }

    fn block(&mut self, depth: u32) -> Vec<Stmt> {
        let n = 1 + self.rng.below(4);
        (0..n).filter_map(|_| self.stmt(depth)).collect()
    }

    fn stmt(&mut self, depth: u32) -> Option<Stmt> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        let k = self.rng.below(if depth == 0 { 4 } else { 10 });
        Some(match k {
            0 | 1 => {
                let v = self.vars[self.rng.below(self.vars.len() as u64) as usize];
                let x = self.int_expr(2);
                set(v, x)
            }
            2 => print(vec![self.int_expr(1)]),
            3 => {
                let c = self.cond(1);
                set(self.flag, c)
            }
            4 | 5 => {
                let c = self.cond(2);
                let t = self.block(depth - 1);
                let el = if self.rng.chance(50) {
                    self.block(depth - 1)
                } else {
                    Vec::new()
                };
                if_(c, t, el)
            }
            6 | 7 => {
                let id = self.f.loop_id();
                let var = self.f.local("i", Type::Int);
                let hi = self.rng.below(5) as i64;
                self.loops.push(id);
                let mut body = self.block(depth - 1);
                if self.rng.chance(40) {
                    let c = self.cond(1);
                    let exit = if self.rng.chance(50) {
                        brk(id)
                    } else {
                        cont(id)
                    };
                    let at = self.rng.below(body.len() as u64 + 1) as usize;
                    body.insert(at, if_(c, vec![exit], vec![]));
                }
                self.loops.pop();
                // The loop variable is readable in the body.
                self.vars.push(var);
                let s = for_range(id, var, int(0), int(hi), body);
                self.vars.pop();
                s
            }
            8 => {
                let body = self.block(depth - 1);
                let mut body = body;
                if self.rng.chance(30) {
                    let c = self.cond(1);
                    body.push(if_(c, vec![throw("boom")], vec![]));
                }
                let msg = self.msg;
                let handler = vec![print(vec![self.f.var(msg)])];
                try_(body, msg, handler)
            }
            9 => match self.rng.below(6) {
                0 => {
                    let i = self.int_expr(1);
                    let x = self.int_expr(1);
                    set_place(
                        Place::Index {
                            array: self.f.var(self.arr),
                            index: i,
                        },
                        None,
                        x,
                    )
                }
                1 => s(StmtKind::Expr(builtin(
                    Builtin::Push,
                    vec![self.f.var(self.arr), self.int_expr(1)],
                    Type::Void,
                ))),
                2 => {
                    let x = self.int_expr(1);
                    set_place(
                        Place::Field {
                            object: self.f.var(self.obj),
                            strukt: StructId(0),
                            field: 0,
                        },
                        Some(BinOp::Add),
                        x,
                    )
                }
                3 => set_place(
                    Place::Global(GlobalId(0)),
                    Some(BinOp::Sub),
                    self.int_expr(1),
                ),
                4 => print(vec![self.f.var(self.arr), self.f.var(self.obj)]),
                _ => {
                    let c = self.cond(1);
                    let v = self.int_expr(1);
                    if_(c, vec![ret(Some(v))], vec![])
                }
            },
            _ => {
                let c = self.cond(1);
                let v = self.int_expr(1);
                if_(c, vec![ret(Some(v))], vec![])
            }
        })
    }
}

fn random_program(seed: u64) -> Program {
    let mut f = F::new();
    let vars: Vec<LocalId> = (0..3)
        .map(|i| f.local(&format!("x{i}"), Type::Int))
        .collect();
    let flag = f.local("b", Type::Bool);
    let msg = f.local("e", Type::Str);
    let arr_l = f.local("a", arr(Type::Int));
    let obj = f.local("p", Type::Struct(StructId(0)));
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        f,
        vars: vars.clone(),
        flag,
        msg,
        arr: arr_l,
        obj,
        loops: Vec::new(),
        budget: 40,
    };
    let mut body = Vec::new();
    // Start values SCCP cannot see through: `len(args()) + i + 1` (no
    // arguments are passed) for odd seeds, constants for even ones.
    for (i, v) in vars.iter().enumerate() {
        let start = if seed % 2 == 1 {
            let args = builtin(Builtin::Args, vec![], Type::Array(Box::new(Type::Str)));
            bin(
                BinOp::Add,
                builtin(Builtin::Len, vec![args], Type::Int),
                int(i as i64 + 1),
            )
        } else {
            int(i as i64 + 1)
        };
        body.push(let_(*v, start));
    }
    body.push(let_(flag, boolean(false)));
    body.push(let_(msg, string("")));
    body.push(let_(
        arr_l,
        e(
            ExprKind::ArrayLit(vec![int(1), int(2), int(3), int(4)]),
            arr(Type::Int),
        ),
    ));
    let lit = ExprKind::StructLit {
        strukt: StructId(0),
        fields: vec![(0, int(5)), (1, e(ExprKind::Float(0.5), Type::Float))],
    };
    body.push(let_(obj, e(lit, Type::Struct(StructId(0)))));
    body.extend(g.block(3));
    body.extend(g.block(2));
    let vs: Vec<Expr> = vars.iter().map(|v| g.f.var(*v)).collect();
    body.push(print(vs));
    let x0 = g.f.var(vars[0]);
    body.push(ret(Some(bin(BinOp::BitAnd, x0, int(63)))));
    let main = g.f.finish("main", Type::Int, body);
    // fn h(a: int, b: int) -> int { counter = counter + 1; return a * 2 + b / (a | 1) }
    let mut hf = F::new();
    let a = hf.param("a", Type::Int);
    let b = hf.param("b", Type::Int);
    let value = bin(
        BinOp::Add,
        bin(BinOp::Mul, hf.var(a), int(2)),
        bin(BinOp::Div, hf.var(b), bin(BinOp::BitOr, hf.var(a), int(1))),
    );
    let h_body = vec![
        set_place(Place::Global(GlobalId(0)), Some(BinOp::Add), int(1)),
        ret(Some(value)),
    ];
    let h = hf.finish("h", Type::Int, h_body);
    with_heap(program(vec![main, h]))
}

fn sources() -> SourceMap {
    let mut s = SourceMap::new();
    s.add("test.toy".into(), None, "x".into());
    s
}

fn jit(m: &Module) -> (i32, Vec<u8>) {
    toyc::codegen::run::run(
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
    .expect("jit runs")
}

fn interp(m: &Module) -> (i32, Vec<u8>) {
    let (c, o, _) = toyc::interp::run(m, &sources(), &[], false, true).expect("interpreter runs");
    (c, o)
}

#[test]
fn random_programs_agree_across_pipelines() {
    let mut pipelines: Vec<Vec<&'static str>> =
        vec![opt::default_passes(1), opt::default_passes(2)];
    for p in opt::PASSES {
        if !pipelines.contains(&vec![p.name]) {
            pipelines.push(vec![p.name]);
        }
    }
    pipelines.push(vec!["loops", "sccp", "simplifycfg", "loops", "dce", "sccp"]);
    let mut totals = Counters::default();
    let first: u64 = std::env::var("TOYC_FUZZ_FIRST")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    for seed in first..first + seeds() {
        if std::env::var_os("TOYC_FUZZ_TRACE").is_some() {
            eprintln!("fuzz seed {seed}");
        }
        let base = build(random_program(seed));
        let reference = if std::env::var_os("TOYC_FUZZ_NO_JIT").is_none() {
            jit(&base)
        } else {
            interp(&base)
        };
        assert_eq!(interp(&base), reference, "seed {seed}: interpreter at -O0");
        for passes in &pipelines {
            let mut m = Module {
                funcs: base.funcs.clone(),
                program: base.program.clone(),
            };
            let opts = PipelineOptions {
                passes: passes.clone(),
                verify: true,
                ..Default::default()
            };
            if let Err(errs) = opt::run_pipeline(&mut m, &opts, &mut totals, &|_| String::new()) {
                panic!(
                    "seed {seed}: verifier after {passes:?}: {}\nbefore:\n{}",
                    errs.join("\n"),
                    text(&base, 0)
                );
            }
            assert_eq!(
                interp(&m),
                reference,
                "seed {seed}: interpreter after {passes:?}\nbefore:\n{}\nafter:\n{}",
                text(&base, 0),
                text(&m, 0)
            );
            // The JIT runs once per program after the full pipeline (each
            // JIT run maps new code and data; see the report on relocation
            // range in long-running processes).
            if *passes == opt::default_passes(2) && std::env::var_os("TOYC_FUZZ_NO_JIT").is_none() {
                assert_eq!(jit(&m), reference, "seed {seed}: JIT after {passes:?}");
            }
        }
    }
    eprint!("{}", totals.render());
    // The generator exercises every pass.
    for c in [
        "sccp.consts",
        "sccp.branches",
        "dce.removed",
        "simplifycfg.merged",
        "loops.preheaders",
    ] {
        assert!(totals.get(c) > 0, "{c} never fired:\n{}", totals.render());
    }
}

/// 120 programs; `TOYC_FUZZ_SEEDS=N` runs N from `TOYC_FUZZ_FIRST`
/// (`TOYC_FUZZ_NO_JIT` compares with the interpreter at -O0 only,
/// `TOYC_FUZZ_TRACE` prints each seed).
fn seeds() -> u64 {
    std::env::var("TOYC_FUZZ_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120)
}
