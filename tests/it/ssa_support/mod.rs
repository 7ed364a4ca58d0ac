//! A small DSL for hand-built typed HIR (tests of SSA construction that do
//! not depend on the front end), and helpers to build and check the IR.
#![allow(dead_code)]
use std::sync::Arc;
use toyc::ir::{Inst, IrCode, Module};
use toyc::sema::hir::*;
use toyc::span::Span;

pub struct F {
    pub locals: Vec<LocalDef>,
    pub params: Vec<LocalId>,
    loops: u32,
}

impl F {
    pub fn new() -> F {
        F {
            locals: Vec::new(),
            params: Vec::new(),
            loops: 0,
        }
    }
    pub fn param(&mut self, name: &str, ty: Type) -> LocalId {
        let l = self.local(name, ty);
        self.params.push(l);
        l
    }
    pub fn local(&mut self, name: &str, ty: Type) -> LocalId {
        self.locals.push(LocalDef {
            name: name.into(),
            ty,
            mutable: true,
            span: Span::default(),
            // Not known here: every read goes through the φ machinery.
            assigned: true,
        });
        LocalId(self.locals.len() as u32 - 1)
    }
    pub fn loop_id(&mut self) -> LoopId {
        self.loops += 1;
        LoopId(self.loops - 1)
    }
    pub fn var(&self, l: LocalId) -> Expr {
        e(ExprKind::Local(l), self.locals[l.0 as usize].ty.clone())
    }
    pub fn finish(self, name: &str, ret: Type, body: Vec<Stmt>) -> Function {
        Function {
            name: name.into(),
            params: self.params,
            ret,
            locals: self.locals,
            body: Block { stmts: body },
            span: Span::default(),
        }
    }
}

pub fn e(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::default(),
    }
}
pub fn s(kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: Span::default(),
    }
}
pub fn int(i: i64) -> Expr {
    e(ExprKind::Int(i), Type::Int)
}
pub fn boolean(b: bool) -> Expr {
    e(ExprKind::Bool(b), Type::Bool)
}
pub fn string(x: &str) -> Expr {
    e(ExprKind::Str(x.into()), Type::Str)
}
pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = match op {
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Type::Bool,
        _ => a.ty.clone(),
    };
    match op {
        BinOp::And => e(ExprKind::And(Box::new(a), Box::new(b)), Type::Bool),
        BinOp::Or => e(ExprKind::Or(Box::new(a), Box::new(b)), Type::Bool),
        _ => e(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty),
    }
}
pub fn call(f: u32, args: Vec<Expr>, ret: Type) -> Expr {
    e(
        ExprKind::Call {
            func: FuncId(f),
            args,
        },
        ret,
    )
}
pub fn builtin(b: Builtin, args: Vec<Expr>, ty: Type) -> Expr {
    e(ExprKind::Builtin { builtin: b, args }, ty)
}
pub fn print(args: Vec<Expr>) -> Stmt {
    s(StmtKind::Expr(builtin(Builtin::Print, args, Type::Void)))
}
pub fn let_(l: LocalId, init: Expr) -> Stmt {
    s(StmtKind::Let { local: l, init })
}
pub fn set(l: LocalId, value: Expr) -> Stmt {
    s(StmtKind::Assign {
        place: Place::Local(l),
        op: None,
        value,
    })
}
pub fn if_(cond: Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
    s(StmtKind::If {
        cond,
        then_block: Block { stmts: then },
        else_block: Block { stmts: els },
    })
}
pub fn while_(id: LoopId, cond: Expr, body: Vec<Stmt>) -> Stmt {
    s(StmtKind::While {
        id,
        cond,
        body: Block { stmts: body },
    })
}
pub fn for_range(id: LoopId, var: LocalId, start: Expr, end: Expr, body: Vec<Stmt>) -> Stmt {
    s(StmtKind::ForRange {
        id,
        var,
        start,
        end,
        body: Block { stmts: body },
    })
}
pub fn brk(id: LoopId) -> Stmt {
    s(StmtKind::Break(id))
}
pub fn cont(id: LoopId) -> Stmt {
    s(StmtKind::Continue(id))
}
pub fn ret(v: Option<Expr>) -> Stmt {
    s(StmtKind::Return(v))
}
pub fn try_(body: Vec<Stmt>, catch_var: LocalId, handler: Vec<Stmt>) -> Stmt {
    s(StmtKind::Try {
        body: Block { stmts: body },
        catch_var,
        handler: Block { stmts: handler },
    })
}
pub fn throw(msg: &str) -> Stmt {
    s(StmtKind::Throw(string(msg)))
}

/// A program of `funcs` plus an empty `<init>`; `main` is the first function
/// named `main` (or the first).
pub fn program(mut funcs: Vec<Function>) -> Program {
    let main = funcs.iter().position(|f| f.name == "main").unwrap_or(0) as u32;
    funcs.push(F::new().finish("<init>", Type::Void, vec![]));
    let init = FuncId(funcs.len() as u32 - 1);
    Program {
        structs: Vec::new(),
        globals: Vec::new(),
        functions: funcs,
        main: FuncId(main),
        init,
    }
}

/// Builds the IR, runs the verifier (failing the test on any error), and
/// returns the module.
pub fn build(p: Program) -> Module {
    let m = toyc::ssa::build_module(Arc::new(p));
    if let Err(errs) = toyc::ir::verify::verify_module(&m) {
        let text: String = m
            .funcs
            .iter()
            .map(|f| toyc::ir::print::print_function(f, &m.program, None))
            .collect();
        panic!("verifier failed:\n{}\n{}", errs.join("\n"), text);
    }
    // The backend accepts it too.
    let mut sources = toyc::span::SourceMap::new();
    sources.add("t.toy".into(), None, String::new());
    let opts = toyc::codegen::CodegenOptions {
        optimize: false,
        verify: true,
        ..Default::default()
    };
    if let Err(e) = toyc::codegen::asm::module_listing(
        &m,
        &sources,
        &opts,
        None,
        toyc::codegen::asm::Listing::Clif,
    ) {
        let text: String = m
            .funcs
            .iter()
            .map(|f| toyc::ir::print::print_function(f, &m.program, None))
            .collect();
        panic!("codegen rejected the IR: {e}\n{text}");
    }
    m
}

pub fn count(f: &IrCode, pred: impl Fn(&Inst) -> bool) -> usize {
    f.stmts.inst.values().filter(|i| pred(i)).count()
}

pub fn phis(f: &IrCode) -> usize {
    count(f, |i| matches!(i, Inst::Phi { .. }))
}

pub fn text(m: &Module, f: usize) -> String {
    toyc::ir::print::print_function(&m.funcs[f], &m.program, None)
}

pub fn arr(t: Type) -> Type {
    Type::Array(Box::new(t))
}
pub fn index(a: Expr, i: Expr, elem: Type) -> Expr {
    e(
        ExprKind::Index {
            base: Box::new(a),
            index: Box::new(i),
        },
        elem,
    )
}
pub fn field(o: Expr, strukt: u32, field: u32, ty: Type) -> Expr {
    e(
        ExprKind::Field {
            object: Box::new(o),
            strukt: StructId(strukt),
            field,
        },
        ty,
    )
}
pub fn global(g: u32, ty: Type) -> Expr {
    e(ExprKind::Global(GlobalId(g)), ty)
}
pub fn set_place(place: Place, op: Option<BinOp>, value: Expr) -> Stmt {
    s(StmtKind::Assign { place, op, value })
}
pub fn for_each(id: LoopId, var: LocalId, idx: LocalId, array: Expr, body: Vec<Stmt>) -> Stmt {
    s(StmtKind::ForEach {
        id,
        var,
        index: idx,
        array,
        body: Block { stmts: body },
    })
}
/// `struct P { x: int, y: float }` is struct 0 in [`with_heap`] programs,
/// and `var counter: int` is global 0.
pub fn with_heap(mut p: Program) -> Program {
    p.structs.push(StructDef {
        name: "P".into(),
        fields: vec![
            FieldDef {
                name: "x".into(),
                ty: Type::Int,
            },
            FieldDef {
                name: "y".into(),
                ty: Type::Float,
            },
        ],
        span: Span::default(),
    });
    p.globals.push(GlobalDef {
        name: "counter".into(),
        ty: Type::Int,
        mutable: true,
        span: Span::default(),
    });
    p
}

/// Type-checks Toy source `src`, builds its IR and runs the verifier (and
/// the backend's translation, via [`build`]).
pub fn ir_of(src: &str) -> Module {
    let mut sources = toyc::span::SourceMap::new();
    let text = if src.contains("fn main(") {
        src.to_string()
    } else {
        format!("{src}\nfn main() {{}}\n")
    };
    let file = sources.add("test.toy".into(), None, text);
    let program = match toyc::sema::analyze(&mut sources, file) {
        Ok(p) => p,
        Err(diags) => panic!(
            "does not compile:\n{}",
            toyc::diag::render(&sources, &diags, false)
        ),
    };
    build(program)
}

/// The IR of the function named `name`.
pub fn func<'a>(m: &'a Module, name: &str) -> &'a IrCode {
    m.funcs
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

pub fn show(m: &Module, name: &str) -> String {
    toyc::ir::print::print_function(func(m, name), &m.program, None)
}

/// xorshift64*: deterministic, seedable (the random tests' generator).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A Bril countdown loop (`main(n)` prints 1), in the text format.
pub const COUNTDOWN: &str = "@main(n: int) {\n  one: int = const 1;\n.loop:\n  c: bool = gt n one;\n  \
                         br c .body .done;\n.body:\n  n: int = sub n one;\n  jmp .loop;\n.done:\n  \
                         print n;\n}\n";

/// [`COUNTDOWN`] in Bril's JSON format.
pub const COUNTDOWN_JSON: &str = r#"{"functions": [{"name": "main", "args": [{"name": "n", "type": "int"}],
  "instrs": [
    {"dest": "one", "op": "const", "type": "int", "value": 1},
    {"label": "loop"},
    {"dest": "c", "op": "gt", "type": "bool", "args": ["n", "one"]},
    {"op": "br", "args": ["c"], "labels": ["body", "done"]},
    {"label": "body"},
    {"dest": "n", "op": "sub", "type": "int", "args": ["n", "one"]},
    {"op": "jmp", "labels": ["loop"]},
    {"label": "done"},
    {"op": "print", "args": ["n"]}
  ]}]}"#;
