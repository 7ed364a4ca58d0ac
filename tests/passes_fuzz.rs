//! Differential testing of the passes, the compaction and the interpreter
//! on random structured programs (a fixed-seed generator, no extra crate):
//! for each program, every pipeline must leave IR the verifier accepts,
//! and the interpreter (at -O0 and after each pipeline) and the JIT after
//! each pipeline must print and exit exactly as the unoptimised JIT run.
mod ssa_support;
use ssa_support::*;
use toyc::codegen::CodegenOptions;
use toyc::ir::Module;
use toyc::opt::{self, Counters, PipelineOptions};
use toyc::sema::hir::{BinOp, Builtin, Expr, ExprKind, LocalId, Program, Stmt, Type, UnOp};
use toyc::span::SourceMap;

/// xorshift64*: deterministic, seedable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Gen {
    rng: Rng,
    f: F,
    vars: Vec<LocalId>,
    flag: LocalId,
    msg: LocalId,
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
            return e(ExprKind::Unary(UnOp::Neg, Box::new(self.int_expr(depth - 1))), Type::Int);
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
                bin(if self.rng.chance(50) { BinOp::And } else { BinOp::Or }, a, b)
            }
            3 if depth > 0 => e(ExprKind::Unary(UnOp::Not, Box::new(self.cond(depth - 1))), Type::Bool),
            _ => {
                let ops = [BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge];
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
                let el = if self.rng.chance(50) { self.block(depth - 1) } else { Vec::new() };
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
                    let exit = if self.rng.chance(50) { brk(id) } else { cont(id) };
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
    let vars: Vec<LocalId> = (0..3).map(|i| f.local(&format!("x{i}"), Type::Int)).collect();
    let flag = f.local("b", Type::Bool);
    let msg = f.local("e", Type::Str);
    let mut g = Gen { rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1), f, vars: vars.clone(), flag, msg, loops: Vec::new(), budget: 40 };
    let mut body = Vec::new();
    // Start values SCCP cannot see through: `len(args()) + i + 1` (no
    // arguments are passed) for odd seeds, constants for even ones.
    for (i, v) in vars.iter().enumerate() {
        let start = if seed % 2 == 1 {
            let args = builtin(Builtin::Args, vec![], Type::Array(Box::new(Type::Str)));
            bin(BinOp::Add, builtin(Builtin::Len, vec![args], Type::Int), int(i as i64 + 1))
        } else {
            int(i as i64 + 1)
        };
        body.push(let_(*v, start));
    }
    body.push(let_(flag, boolean(false)));
    body.push(let_(msg, string("")));
    body.extend(g.block(3));
    body.extend(g.block(2));
    let vs: Vec<Expr> = vars.iter().map(|v| g.f.var(*v)).collect();
    body.push(print(vs));
    let x0 = g.f.var(vars[0]);
    body.push(ret(Some(bin(BinOp::BitAnd, x0, int(63)))));
    program(vec![g.f.finish("main", Type::Int, body)])
}

fn sources() -> SourceMap {
    let mut s = SourceMap::new();
    s.add("test.toy".into(), None, "x".into());
    s
}

fn jit(m: &Module) -> (i32, Vec<u8>) {
    toyc::codegen::run::run(m, &sources(), &CodegenOptions { optimize: false }, &[], true).expect("jit runs")
}

fn interp(m: &Module) -> (i32, Vec<u8>) {
    let (c, o, _) = toyc::interp::run(m, &sources(), &[], false, true).expect("interpreter runs");
    (c, o)
}

#[test]
fn random_programs_agree_across_pipelines() {
    let mut pipelines: Vec<Vec<&'static str>> = vec![opt::default_passes(1), opt::default_passes(2)];
    for p in opt::PASSES {
        pipelines.push(vec![p.name]);
    }
    pipelines.push(vec!["loops", "sccp", "simplifycfg", "loops", "dce", "sccp"]);
    let mut totals = Counters::default();
    for seed in 0..seeds() {
        let base = build(random_program(seed));
        let reference = jit(&base);
        assert_eq!(interp(&base), reference, "seed {seed}: interpreter at -O0");
        for passes in &pipelines {
            let mut m = Module { funcs: base.funcs.clone(), program: base.program.clone() };
            let opts = PipelineOptions { passes: passes.clone(), verify: true, ..Default::default() };
            if let Err(errs) = opt::run_pipeline(&mut m, &opts, &mut totals, &|_| String::new()) {
                panic!("seed {seed}: verifier after {passes:?}: {}\nbefore:\n{}", errs.join("\n"), text(&base, 0));
            }
            assert_eq!(interp(&m), reference, "seed {seed}: interpreter after {passes:?}\nbefore:\n{}\nafter:\n{}", text(&base, 0), text(&m, 0));
            assert_eq!(jit(&m), reference, "seed {seed}: JIT after {passes:?}");
        }
    }
    eprint!("{}", totals.render());
    // The generator exercises every pass.
    for c in ["sccp.consts", "sccp.branches", "dce.removed", "simplifycfg.merged", "loops.preheaders"] {
        assert!(totals.get(c) > 0, "{c} never fired:\n{}", totals.render());
    }
}

/// 150 programs; `TOYC_FUZZ_SEEDS=N` runs N.
fn seeds() -> u64 {
    std::env::var("TOYC_FUZZ_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(150)
}
