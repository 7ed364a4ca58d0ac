//! SSA construction for Bril programs: the checked Bril AST goes straight
//! into the Braun builder, as Toy's HIR does, but with Bril's arbitrary
//! control flow.
//!
//! - Every label gets a builder block; the code before the first label is
//!   the entry block. A label not preceded by a jump, branch or return is
//!   entered by falling through.
//! - Each Bril variable is an SSA variable (`write_var`/`read_var`). A
//!   label's block is sealed as soon as every jump to it (and the fall
//!   through into it) has been lowered, so φs are complete as early as the
//!   program order allows; whatever is left is sealed at the end
//!   (`emit`), and φ-SCC removal there makes irreducible loops minimal.
//! - A read with no definition on some path is the builder's explicit
//!   `undef` of the variable's type; Bril allows it (the value is never
//!   used on that path in a well-behaved program).
//! - Bril's SSA extension: `set x y` writes a hidden shadow variable of
//!   `x`, `get` reads it; the old `phi` copies each argument into a hidden
//!   variable at the end of the labelled predecessor and reads that.
//! - `char` is an `int` holding the code point and `ptr<T>` an `int`
//!   encoding (allocation, offset) for the runtime's Bril heap
//!   (`runtime/bril.rs`); memory ops are runtime calls that may throw.
use super::builder::{Blk, BuildTerm, Builder, Var};
use super::emit;
use super::lower_expr::runtime_flags;
use crate::bril::MainArg;
use crate::bril::ast::{BrilType, Function, Instr, Item, Program as BrilProgram};
use crate::bril::check::Checked;
use crate::ir::VarName;
use crate::ir::{Flags, Inst, IrCode, Module, Operand, RuntimeFn, Type};
use crate::sema::hir::{FuncId, Program};
use crate::span::Span;
use std::collections::HashMap;
use std::sync::Arc;

/// The IR type of a Bril type.
pub fn ir_type(t: &BrilType) -> Type {
    match t {
        BrilType::Int | BrilType::Char | BrilType::Ptr(_) => Type::Int,
        BrilType::Bool => Type::Bool,
        BrilType::Float => Type::Float,
    }
}

/// Whether a Bril op may raise a runtime error by itself.
fn op_may_throw(op: &str) -> bool {
    matches!(op, "div" | "int2char" | "alloc" | "free" | "load" | "store")
}

/// Which functions may throw: one that has a throwing op or calls one that
/// may throw (a fixpoint over the call graph).
fn may_throw(prog: &BrilProgram, ids: &HashMap<&str, FuncId>) -> Vec<bool> {
    let mut throws: Vec<bool> = prog
        .functions
        .iter()
        .map(|f| instrs(f).any(|i| op_may_throw(&i.op)))
        .collect();
    loop {
        let mut changed = false;
        for (k, f) in prog.functions.iter().enumerate() {
            if throws[k] {
                continue;
            }
            let calls_thrower = instrs(f).any(|i| {
                i.op == "call"
                    && i.funcs
                        .first()
                        .and_then(|c| ids.get(c.as_str()))
                        .is_some_and(|id| throws[id.0 as usize])
            });
            if calls_thrower {
                throws[k] = true;
                changed = true;
            }
        }
        if !changed {
            return throws;
        }
    }
}

fn instrs(f: &Function) -> impl Iterator<Item = &Instr> {
    f.items.iter().filter_map(|it| match it {
        Item::Instr(i) => Some(i),
        Item::Label { .. } => None,
    })
}

/// Builds the IR module of a checked Bril program. Its functions keep
/// their Bril names (without `@`), in program order, then `<init>` (empty).
/// When `main` takes arguments, returns a value or the program uses
/// memory, an entry function `<main>` calls Bril's `main` with
/// `main_args` (zeros of the parameter types when `None`) and then checks
/// for leaks; it is the program's `main`.
pub fn build_bril_module(
    prog: &BrilProgram,
    checked: &Checked,
    main_args: Option<&[MainArg]>,
) -> Module {
    let mut program = Program::default();
    let mut ids: HashMap<&str, FuncId> = HashMap::new();
    for f in &prog.functions {
        let params = f.params.iter().map(|p| ir_type(&p.ty)).collect();
        let ret = f.ret.as_ref().map_or(Type::Void, ir_type);
        ids.insert(&f.name, program.declare_function(&f.name, params, ret));
    }
    let throws = may_throw(prog, &ids);
    let init = program.declare_function("<init>", Vec::new(), Type::Void);
    program.init = init;
    let main_id = ids.get("main").copied().unwrap_or(FuncId(0));
    let main = &prog.functions[main_id.0 as usize];
    let uses_memory = prog
        .functions
        .iter()
        .any(|f| instrs(f).any(|i| i.op == "alloc"));
    let needs_entry = !main.params.is_empty() || main.ret.is_some() || uses_memory;
    let entry = needs_entry.then(|| program.declare_function("<main>", Vec::new(), Type::Void));
    program.main = entry.unwrap_or(main_id);
    let cx = Cx {
        ids: &ids,
        throws: &throws,
        prog,
    };
    let mut funcs: Vec<IrCode> = prog
        .functions
        .iter()
        .enumerate()
        .map(|(k, f)| FnBuild::new(&cx, f, &checked.vars[k], FuncId(k as u32)).build())
        .collect();
    funcs.push(empty_function("<init>", init, main.span));
    if let Some(e) = entry {
        funcs.push(entry_function(
            main,
            main_id,
            e,
            main_args,
            uses_memory,
            throws[main_id.0 as usize],
        ));
    }
    Module {
        funcs,
        program: Arc::new(program),
    }
}

/// The header of a function without named variables (see
/// [`FnBuild::build`] for Bril's functions).
fn header(
    name: &str,
    func: FuncId,
    params: Vec<Type>,
    ret: Type,
    span: Span,
) -> emit::Header<'static> {
    emit::Header {
        name: name.to_string(),
        func,
        params,
        ret,
        span,
        var_names: emit::VarNames::Listed(Vec::new()),
        param_names: Vec::new(),
    }
}

fn empty_function(name: &str, id: FuncId, span: Span) -> IrCode {
    let mut b = Builder::new(Vec::new());
    b.terminate(BuildTerm::Return(None), span);
    emit::emit(&mut b, header(name, id, Vec::new(), Type::Void, span))
}

/// `<main>`: calls Bril's `main` with the command line's values, then
/// reports memory still allocated.
fn entry_function(
    main: &Function,
    main_id: FuncId,
    id: FuncId,
    args: Option<&[MainArg]>,
    check_leaks: bool,
    main_throws: bool,
) -> IrCode {
    let span = main.span;
    let mut b = Builder::new(Vec::new());
    let ops: Vec<Operand> = main
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| match args.and_then(|a| a.get(k)) {
            Some(MainArg::Int(v)) => Operand::Int(*v),
            Some(MainArg::Float(v)) => Operand::Float(*v),
            Some(MainArg::Bool(v)) => Operand::Bool(*v),
            Some(MainArg::Char(c)) => Operand::Int(*c as i64),
            None => b.zero_of(&ir_type(&p.ty)),
        })
        .collect();
    let ret = main.ret.as_ref().map_or(Type::Void, ir_type);
    let flags = if main_throws {
        Flags::default()
    } else {
        Flags::NOTHROW
    };
    b.push(
        Inst::Call {
            func: main_id,
            args: ops,
        },
        ret,
        span,
        flags,
    );
    let mut unwind = None;
    if main_throws {
        after_may_throw(&mut b, &mut unwind, span);
    }
    if check_leaks {
        let f = RuntimeFn::BrilCheckLeaks;
        b.push(
            Inst::Runtime {
                func: f,
                args: Vec::new(),
            },
            Type::Void,
            span,
            runtime_flags(f),
        );
        after_may_throw(&mut b, &mut unwind, span);
    }
    b.terminate(BuildTerm::Return(None), span);
    emit::emit(&mut b, header("<main>", id, Vec::new(), Type::Void, span))
}

/// After a call that may throw: `no_exception()`, and the failed path
/// leaves through the function's shared unwind block.
fn after_may_throw(b: &mut Builder, unwind: &mut Option<Blk>, span: Span) {
    let ok = b.push(Inst::NoException, Type::Bool, span, Flags::NOTHROW);
    let target = *unwind.get_or_insert_with(|| {
        let u = b.new_cold_block();
        let saved = b.cur;
        b.switch_to(u);
        b.terminate(BuildTerm::Unwind, span);
        b.switch_to(saved);
        u
    });
    let cont = b.new_block();
    b.branch(ok, cont, target, span);
    b.seal(cont);
    b.switch_to(cont);
}

struct Cx<'a> {
    ids: &'a HashMap<&'a str, FuncId>,
    throws: &'a [bool],
    prog: &'a BrilProgram,
}

/// The lowering of one function.
struct FnBuild<'a> {
    cx: &'a Cx<'a>,
    f: &'a Function,
    id: FuncId,
    b: Builder,
    /// Each variable's SSA variable and Bril type.
    vars: HashMap<&'a str, (Var, BrilType)>,
    /// `set`'s shadow of each variable (made on first use).
    shadows: HashMap<&'a str, Var>,
    labels: HashMap<&'a str, Blk>,
    /// Jumps to each label (and the fall-through into it) not lowered yet.
    pending: HashMap<&'a str, usize>,
    /// Labels entered by falling through from the item before them.
    falls_into: std::collections::HashSet<&'a str>,
    /// Per label: the old-style φs' copies to make at the end of its block
    /// (hidden variable, argument).
    phi_copies: HashMap<&'a str, Vec<(Var, &'a str)>>,
    /// Each old-style `phi` instruction's hidden variable, by position.
    phi_vars: HashMap<usize, Var>,
    /// The label of the block being filled (`None` for the entry).
    cur_label: Option<&'a str>,
    unwind: Option<Blk>,
}

impl<'a> FnBuild<'a> {
    fn new(
        cx: &'a Cx<'a>,
        f: &'a Function,
        types: &'a HashMap<String, BrilType>,
        id: FuncId,
    ) -> FnBuild<'a> {
        let mut names: Vec<(&str, &BrilType)> =
            types.iter().map(|(n, t)| (n.as_str(), t)).collect();
        names.sort_by_key(|(n, _)| *n);
        let var_ty = names.iter().map(|(_, t)| ir_type(t)).collect();
        let vars = names
            .iter()
            .enumerate()
            .map(|(k, (n, t))| (*n, (k as Var, (*t).clone())))
            .collect();
        let mut b = Builder::new(var_ty);
        b.explicit_undef = true;
        FnBuild {
            cx,
            f,
            id,
            b,
            vars,
            shadows: HashMap::new(),
            labels: HashMap::new(),
            pending: HashMap::new(),
            falls_into: Default::default(),
            phi_copies: HashMap::new(),
            phi_vars: HashMap::new(),
            cur_label: None,
            unwind: None,
        }
    }

    fn build(mut self) -> IrCode {
        for (k, p) in self.f.params.iter().enumerate() {
            let v = self.var(&p.name);
            self.b.write_var(v, 0, Operand::Arg(k as u32));
        }
        self.scan_labels();
        for (pos, item) in self.f.items.iter().enumerate() {
            match item {
                Item::Label { name, span } => self.label(name, *span),
                Item::Instr(i) => self.instr(pos, i),
            }
        }
        if !self.b.cur_dead() {
            let value = self.f.ret.as_ref().map(|t| self.b.undef_of(&ir_type(t)));
            let end = self.f.span;
            self.b.terminate(BuildTerm::Return(value), end);
        }
        let params = self.f.params.iter().map(|p| ir_type(&p.ty)).collect();
        let ret = self.f.ret.as_ref().map_or(Type::Void, ir_type);
        let mut h = header(&self.f.name, self.id, params, ret, self.f.span);
        // Builder variable `k` is the `k`-th Bril variable by name.
        let mut var_names = vec![VarName::default(); self.vars.len()];
        for (name, (v, _)) in &self.vars {
            var_names[*v as usize] = (*name).into();
        }
        h.var_names = emit::VarNames::Listed(var_names);
        h.param_names = self
            .f
            .params
            .iter()
            .map(|p| p.name.as_str().into())
            .collect();
        emit::emit(&mut self.b, h)
    }

    fn var(&self, name: &str) -> Var {
        self.vars.get(name).map_or(0, |(v, _)| *v)
    }

    fn bril_type(&self, name: &str) -> BrilType {
        self.vars
            .get(name)
            .map_or(BrilType::Int, |(_, t)| t.clone())
    }

    fn read(&mut self, name: &str) -> Operand {
        let v = self.var(name);
        let cur = self.b.cur;
        self.b.read_var(v, cur)
    }

    fn write(&mut self, name: &str, value: Operand) {
        let v = self.var(name);
        let cur = self.b.cur;
        self.b.write_var(v, cur, value);
    }

    /// A block per label, how many edges enter each, and the hidden
    /// variables of old-style φs; labels nothing enters are sealed now.
    fn scan_labels(&mut self) {
        let mut falls_through = true;
        let f = self.f;
        for (pos, item) in f.items.iter().enumerate() {
            match item {
                Item::Label { name, .. } => {
                    let blk = self.b.new_block();
                    self.labels.insert(name, blk);
                    if falls_through {
                        *self.pending.entry(name).or_default() += 1;
                        self.falls_into.insert(name);
                    }
                    falls_through = true;
                }
                Item::Instr(i) => {
                    if matches!(i.op.as_str(), "jmp" | "br") {
                        for l in &i.labels {
                            *self.pending.entry(l).or_default() += 1;
                        }
                    }
                    if i.op == "phi" {
                        let ty = ir_type(i.ty.as_ref().unwrap_or(&BrilType::Int));
                        let hidden = self.b.new_var(ty);
                        self.phi_vars.insert(pos, hidden);
                        for (a, l) in i.args.iter().zip(&i.labels) {
                            self.phi_copies.entry(l).or_default().push((hidden, a));
                        }
                    }
                    falls_through = !matches!(i.op.as_str(), "jmp" | "br" | "ret");
                }
            }
        }
        for (name, blk) in &self.labels {
            if self.pending.get(name).copied().unwrap_or(0) == 0 {
                self.b.seal(*blk);
            }
        }
    }

    /// One more edge into `label` lowered; the last one seals it.
    fn edge_done(&mut self, label: &str) {
        if let Some(n) = self.pending.get_mut(label) {
            *n = n.saturating_sub(1);
            if *n == 0
                && let Some(&blk) = self.labels.get(label)
            {
                self.b.seal(blk);
            }
        }
    }

    /// The old-style φ copies due at the end of the current label's block.
    fn phi_copies_here(&mut self) {
        let Some(label) = self.cur_label else { return };
        let Some(copies) = self.phi_copies.get(label).cloned() else {
            return;
        };
        for (hidden, arg) in copies {
            let value = if self.vars.contains_key(arg) {
                self.read(arg)
            } else {
                let ty = self.b.var_ty[hidden as usize].clone();
                self.b.undef_of(&ty)
            };
            let cur = self.b.cur;
            self.b.write_var(hidden, cur, value);
        }
    }

    fn label(&mut self, name: &'a str, span: Span) {
        let blk = self.labels[name];
        if self.falls_into.contains(name) {
            self.phi_copies_here();
            self.b.jump(blk, span);
            self.edge_done(name);
        }
        self.b.switch_to(blk);
        self.cur_label = Some(name);
    }
}

mod ops;
