//! Bril output (`toyc ir --bril`, docs/bril.md "Bril out"): a Toy
//! program's IR, after the pipeline, as a Bril program ([`bril::ast`])
//! that `bril::print` writes as text or JSON.
//!
//! What is translated, and how:
//! - The functions `main` reaches by calls (and `<init>` when it does
//!   anything, which is always an error: globals have no Bril form). Toy's
//!   `main` is Bril's `@main`; it may return an exit code only if every
//!   `return` gives the constant 0 (Bril's `main` has no exit code).
//! - Values of type `int`, `bool` and `float`; a value is named `%N` as the
//!   IR prints it, a parameter by its source name, a constant by a `%cK`
//!   defined once at the function's start. Every IR block is a label
//!   `.bN`; a fall-through or a `goto #b if not %c` becomes an explicit
//!   `jmp`/`br`.
//! - A φ is Bril's SSA extension: `%N: T = get` at the block's head and a
//!   `set %N x` at the end of each predecessor (before its jump), so φs
//!   need no copies, no edge splitting and no ordering of parallel copies.
//! - `print` becomes one Bril `print` when the IR's `print_int`,
//!   `print_bool`, `print_space` and `print_newline` calls of one line are
//!   its arguments separated by single spaces, in one block, with nothing
//!   that may print or stop between them.
//! - Integer arithmetic wraps in both languages; `%` is `a - (a / b) * b`,
//!   unary `-` is `0 - x`, float `-x` is `x * -1.0`, `!=` is `not eq`.
//! - The only runtime error with a Bril equivalent is division by zero: the
//!   IR's `raise DivisionByZero` becomes `div 0 0`, which stops `brili` and
//!   toyc with `error: division by zero` (the IR only reaches it when Toy
//!   would stop with that message, and without `try` nothing catches it).
//!   So `no_exception()` is `true` and an `unwind` is never reached.
//!
//! Anything else (strings, arrays, structs, globals, exceptions, other
//! runtime checks, float printing, int/float conversions, bitwise ops,
//! builtins besides `print`) is an error naming the construct at its
//! position ([`unsupported`]), never a guess.
use crate::bril::ast::{self as b, BrilType, Item, Literal};
use crate::diag::Diagnostic;
use crate::ir::{BlockId, Inst, IrCode, Module, Operand, Type, Value};
use crate::span::Span;
use crate::types::FuncId;
use cranelift_entity::EntityRef;
use std::collections::HashMap;

mod inst;

/// The Bril program of the functions `main` reaches (or of `only` among
/// them), or an error per construct that has no Bril form.
pub fn emit_module(module: &Module, only: Option<&str>) -> Result<b::Program, Vec<Diagnostic>> {
    let reached = reachable(module);
    let mut prog = b::Program::default();
    let mut errors = Vec::new();
    for (i, code) in module.funcs.iter().enumerate() {
        if !reached[i] || only.is_some_and(|n| n != code.name) {
            continue;
        }
        let is_main = FuncId::new(i) == module.program.main;
        match FnEmitter::new(module, code, is_main).function() {
            Ok(f) => prog.functions.push(f),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(prog)
    } else {
        Err(errors)
    }
}

/// The diagnostic for a construct with no Bril form: ``cannot express
/// WHAT in Bril``.
pub fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(span, format!("cannot express {what} in Bril"))
        .with_label("here")
        .with_note(
            "`toyc ir --bril` translates functions over int, bool and float values, \
             control flow, `print` of int and bool, and division by zero",
        )
}

/// Which functions `main` (and a non-trivial `<init>`) reach by calls.
fn reachable(module: &Module) -> Vec<bool> {
    let mut seen = vec![false; module.funcs.len()];
    let init = module.program.init;
    let mut stack = vec![module.program.main];
    if module.funcs.get(init.index()).is_some_and(|f| {
        f.stmts
            .inst
            .values()
            .any(|i| !matches!(i, Inst::Nothing | Inst::Return(None)))
    }) {
        stack.push(init);
    }
    while let Some(f) = stack.pop() {
        if f.index() >= seen.len() || std::mem::replace(&mut seen[f.index()], true) {
            continue;
        }
        for inst in module.funcs[f.index()].stmts.inst.values() {
            if let Inst::Call { func, .. } = inst {
                stack.push(*func);
            }
        }
    }
    seen
}

/// A `print` line being collected: its arguments so far, and whether the
/// last call was `print_space` (an argument must follow).
struct PrintLine {
    args: Vec<String>,
    after_space: bool,
    span: Span,
}

/// The translation of one function.
struct FnEmitter<'a> {
    module: &'a Module,
    code: &'a IrCode,
    is_main: bool,
    /// The constants, defined before the first label.
    consts: Vec<Item>,
    const_names: HashMap<Operand, String>,
    items: Vec<Item>,
    errors: Vec<Diagnostic>,
    pending: Option<PrintLine>,
    /// The current `print` line has an argument with no Bril form (already
    /// reported): its other pieces are dropped up to its newline.
    broken_line: bool,
}

impl<'a> FnEmitter<'a> {
    fn new(module: &'a Module, code: &'a IrCode, is_main: bool) -> FnEmitter<'a> {
        FnEmitter {
            module,
            code,
            is_main,
            consts: Vec::new(),
            const_names: HashMap::new(),
            items: Vec::new(),
            errors: Vec::new(),
            pending: None,
            broken_line: false,
        }
    }

    fn function(mut self) -> Result<b::Function, Vec<Diagnostic>> {
        let span = self.code.span;
        let params = (0..self.code.params.len())
            .map(|i| b::Param {
                name: self.arg_name(i as u32),
                ty: self.ty(&self.code.params[i], span),
                span,
            })
            .collect();
        let ret = match &self.code.ret {
            Type::Void => None,
            _ if self.is_main => None,
            t => Some(self.ty(t, span)),
        };
        let reached = self.reached_blocks();
        for (k, &blk) in reached.iter().enumerate() {
            self.items.push(Item::Label {
                name: label(blk),
                span,
            });
            self.block(blk, reached.get(k + 1).copied());
        }
        if !self.errors.is_empty() {
            return Err(dedup(self.errors));
        }
        let mut items = self.consts;
        items.append(&mut self.items);
        Ok(b::Function {
            name: self.code.name.clone(),
            params,
            ret,
            items,
            span,
        })
    }

    /// The blocks reachable from the entry, in layout order.
    fn reached_blocks(&self) -> Vec<BlockId> {
        let mut reached = vec![false; self.code.cfg.blocks.len()];
        for blk in self.code.cfg.rpo() {
            reached[blk.index()] = true;
        }
        (0..reached.len())
            .filter(|&i| reached[i])
            .map(BlockId::new)
            .collect()
    }

    /// One block: its statements, then the `set`s of its successors' φs,
    /// then the jump.
    fn block(&mut self, blk: BlockId, next: Option<BlockId>) {
        let stmts = self.code.cfg.blocks[blk].stmts.clone();
        let mut last = None;
        for n in stmts {
            let v = Value(n);
            let inst = &self.code.stmts.inst[v];
            if inst.is_terminator() {
                last = Some(v);
            } else {
                self.stmt(v);
            }
        }
        let end_span = last.map_or(self.code.span, |v| self.span(v));
        self.end_of_output();
        self.phi_sets(blk);
        match last {
            Some(v) => self.terminator(v, blk, next),
            None if next != Some(blk.next()) => self.jump(blk.next(), end_span),
            None => {}
        }
    }

    /// `set %phi x` for each φ of each successor, `x` its value on the edge
    /// from `blk`.
    fn phi_sets(&mut self, blk: BlockId) {
        let mut succs = self.code.cfg.blocks[blk].succs.clone();
        succs.dedup();
        for s in succs {
            for n in self.code.cfg.blocks[s].stmts.clone() {
                let Inst::Phi { edges, values } = &self.code.stmts.inst[Value(n)] else {
                    break;
                };
                let Some(k) = edges.iter().position(|e| *e == blk) else {
                    continue;
                };
                let span = self.span(Value(n));
                let x = self.operand(&values[k], span);
                let mut i = instr("set", span);
                i.args = vec![value_name(Value(n)), x];
                self.items.push(Item::Instr(i));
            }
        }
    }

    fn terminator(&mut self, v: Value, blk: BlockId, next: Option<BlockId>) {
        let span = self.span(v);
        match &self.code.stmts.inst[v] {
            Inst::Goto(d) if next == Some(*d) => {}
            Inst::Goto(d) => self.jump(*d, span),
            Inst::GotoIfNot { cond, dest } => {
                let c = self.operand(cond, span);
                let mut i = instr("br", span);
                i.args = vec![c];
                i.labels = vec![label(blk.next()), label(*dest)];
                self.items.push(Item::Instr(i));
            }
            Inst::Return(x) => self.ret(x.as_ref(), span),
            // Not reached in Bril (a raise stops the program); a `ret` keeps
            // control from falling into the next label all the same.
            _ => self.dummy_ret(span),
        }
    }

    fn jump(&mut self, to: BlockId, span: Span) {
        let mut i = instr("jmp", span);
        i.labels = vec![label(to)];
        self.items.push(Item::Instr(i));
    }

    fn ret(&mut self, x: Option<&Operand>, span: Span) {
        let mut i = instr("ret", span);
        match x {
            Some(Operand::Int(0)) if self.is_main => {}
            Some(_) if self.is_main => {
                self.errors
                    .push(unsupported(span, "an exit code of `main` other than 0"));
            }
            Some(x) => i.args = vec![self.operand(x, span)],
            None => {}
        }
        self.items.push(Item::Instr(i));
    }

    /// `ret` with a zero of the function's type, where control never gets.
    fn dummy_ret(&mut self, span: Span) {
        let zero = match self.code.ret {
            Type::Int => Operand::Int(0),
            Type::Float => Operand::Float(0.0),
            Type::Bool => Operand::Bool(false),
            _ => return self.ret(None, span),
        };
        let zero = if self.is_main { None } else { Some(zero) };
        self.ret(zero.as_ref(), span)
    }

    fn span(&self, v: Value) -> Span {
        self.code.stmts.span[v]
    }

    fn arg_name(&self, a: u32) -> String {
        match self.code.param_names.get(a as usize) {
            Some(n) => n.to_string(),
            None => format!("_{}", a + 1),
        }
    }

    /// The Bril type of a value of Toy type `t`.
    fn ty(&mut self, t: &Type, span: Span) -> BrilType {
        match t {
            Type::Int => BrilType::Int,
            Type::Bool => BrilType::Bool,
            Type::Float => BrilType::Float,
            Type::Str => self.fail(span, "strings"),
            Type::Array(_) => self.fail(span, "arrays"),
            Type::Struct(_) => self.fail(span, "structs"),
            Type::Void => self.fail(span, "a value of no type"),
        }
    }

    /// Records the error and gives a placeholder type.
    fn fail(&mut self, span: Span, what: &str) -> BrilType {
        self.errors.push(unsupported(span, what));
        BrilType::Int
    }

    /// The Bril variable holding `op`: a value's `%N`, a parameter's name,
    /// or the constant's `%cK` (defined on first use).
    fn operand(&mut self, op: &Operand, span: Span) -> String {
        let (value, ty) = match *op {
            Operand::Value(v) => return value_name(v),
            Operand::Arg(a) => return self.arg_name(a),
            Operand::Nil => {
                self.fail(span, "`nil`");
                return "nil".into();
            }
            Operand::Int(n) => (Literal::Int(n), BrilType::Int),
            Operand::Bool(x) => (Literal::Bool(x), BrilType::Bool),
            Operand::Float(x) if x.is_finite() => (Literal::Float(x), BrilType::Float),
            Operand::Float(_) => {
                self.fail(span, "a non-finite float constant");
                return "nan".into();
            }
        };
        if let Some(name) = self.const_names.get(op) {
            return name.clone();
        }
        let name = format!("%c{}", self.const_names.len() + 1);
        let mut i = instr("const", span);
        i.dest = Some(name.clone());
        i.ty = Some(ty);
        i.value = Some(value);
        self.consts.push(Item::Instr(i));
        self.const_names.insert(*op, name.clone());
        name
    }
}

/// A value's Bril variable: `%N`, as the IR prints it.
fn value_name(v: Value) -> String {
    format!("%{}", v.index() + 1)
}

/// A block's label: `bN`, as the IR prints `#N`.
fn label(blk: BlockId) -> String {
    format!("b{}", blk.index() + 1)
}

/// A Bril instruction `op` with no operands yet.
fn instr(op: &str, span: Span) -> b::Instr {
    b::Instr {
        op: op.into(),
        dest: None,
        ty: None,
        args: Vec::new(),
        funcs: Vec::new(),
        labels: Vec::new(),
        value: None,
        span,
    }
}

/// One error per construct and function: the first place it occurs.
fn dedup(mut errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    errors.retain(|d| seen.insert(d.message.clone()));
    errors.sort_by_key(|d| (d.span.file, d.span.start));
    errors
}
