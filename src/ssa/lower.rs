//! The per-function lowering context: loops, try regions, scopes, and the
//! helpers for checks, raises and calls that may throw.
//!
//! Invariants:
//! - Locals are SSA variables numbered by their `LocalId`; hidden variables
//!   (loop counters, `&&`/`||` results) are numbered above them.
//! - `tries` is the stack of enclosing try regions, innermost last. Each
//!   tracks the locals in scope at its entry: every assignment to one of
//!   them inside the region is followed by a `ϒ` that feeds the region's
//!   `φᶜ` for that local at the handler.
//! - A raise or a failed `NoException` check goes to the innermost
//!   handler, or leaves the function by `Unwind` when there is none.
use super::builder::{Blk, BuildTerm, Builder, FxMap, FxSet, Var};
use crate::ir::{Flags, Inst, Operand, RaiseKind, Type, Value};
use crate::sema::hir::{Function, LocalId, LoopId, Program};
use crate::span::Span;

pub struct LoopCtx {
    pub id: LoopId,
    /// Where `continue` goes; `None` for a `for` loop's latch until a
    /// `continue` needs it (without one, the body's end steps the counter
    /// itself, and no block is made only to be merged away).
    pub cont: Option<Blk>,
    /// Where `break` goes.
    pub exit: Blk,
}

pub struct TryCtx {
    pub handler: Blk,
    /// (local, its φᶜ node in the handler), in scope order.
    pub vars: Vec<(Var, u32)>,
    /// The same pairs, by local.
    pub phic_of: FxMap<Var, u32>,
}

pub struct FnLower<'a> {
    /// Boxed so that handing it from function to function (through
    /// [`super::SsaContext`]) moves a pointer, not the builder's many
    /// vectors.
    pub b: Box<Builder>,
    pub func: &'a Function,
    pub may_throw: &'a [bool],
    pub params: Vec<Type>,
    pub loops: Vec<LoopCtx>,
    pub tries: Vec<TryCtx>,
    /// Locals in scope, innermost last (parameters first).
    pub scope: Vec<LocalId>,
    /// The shared cold block holding `Unwind`, made on first use.
    unwind_block: Option<Blk>,
}

pub const PURE: Flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);

impl<'a> FnLower<'a> {
    /// Lowering of `func`, in `reuse` (reset) when given.
    pub fn new(
        _prog: &'a Program,
        func: &'a Function,
        may_throw: &'a [bool],
        reuse: Option<Box<Builder>>,
    ) -> FnLower<'a> {
        let var_ty = func.locals.iter().map(|l| l.ty.clone());
        let params: Vec<Type> = func
            .params
            .iter()
            .map(|p| (func.locals.get(p.0 as usize)).map_or(Type::Int, |l| l.ty.clone()))
            .collect();
        let mut b = match reuse {
            Some(mut b) => {
                b.reset(var_ty);
                b
            }
            None => Box::new(Builder::new(var_ty.collect())),
        };
        // Loops are the only cycles, each entered through its header: only
        // copies in them can make redundant φs (see `note_copy`).
        b.may_have_redundant_phis = false;
        b.single_definition(func.locals.len(), |v| !func.locals[v as usize].assigned);
        for (i, p) in func.params.iter().enumerate() {
            b.write_var(p.0, 0, Operand::Arg(i as u32));
        }
        FnLower {
            b,
            func,
            may_throw,
            params,
            loops: Vec::new(),
            tries: Vec::new(),
            scope: func.params.clone(),
            unwind_block: None,
        }
    }

    pub fn read(&mut self, var: Var) -> Operand {
        let cur = self.b.cur;
        self.b.read_var(var, cur)
    }

    /// Assigns a local; inside try regions that track it, also records the
    /// new value for their handlers.
    pub fn assign(&mut self, var: Var, value: Operand, span: Span) {
        let cur = self.b.cur;
        self.b.write_var(var, cur, value);
        for t in 0..self.tries.len() {
            if let Some(&phic) = self.tries[t].phic_of.get(&var) {
                self.upsilon(phic, value, span);
            }
        }
    }

    /// `ϒ (value)` feeding φᶜ node `phic`.
    pub fn upsilon(&mut self, phic: u32, value: Operand, span: Span) {
        let value = self.b.resolve(value);
        let u = self
            .b
            .push(Inst::Upsilon(value), Type::Void, span, Flags::NOTHROW);
        if let (Operand::Value(u), Inst::PhiC { upsilons }) =
            (u, &mut self.b.nodes[phic as usize].inst)
        {
            upsilons.push(u);
        }
    }

    /// Where an exception goes from here: the innermost handler, or the
    /// function's unwind block.
    pub fn throw_target(&mut self) -> Blk {
        if let Some(t) = self.tries.last() {
            return t.handler;
        }
        match self.unwind_block {
            Some(u) => u,
            None => {
                let u = self.b.new_cold_block();
                let saved = self.b.cur;
                self.b.switch_to(u);
                self.b.terminate(BuildTerm::Unwind, self.func.span);
                self.b.switch_to(saved);
                self.unwind_block = Some(u);
                u
            }
        }
    }

    /// Sealing of the unwind block happens at the end of the function.
    pub fn finish(&mut self) {
        if let Some(u) = self.unwind_block {
            self.b.seal(u);
        }
    }

    /// Control goes to the exception target (after a `Raise`).
    pub fn throw_edge(&mut self, span: Span) {
        if let Some(t) = self.tries.last() {
            let h = t.handler;
            self.b.terminate(BuildTerm::Goto(h), span);
        } else {
            self.b.terminate(BuildTerm::Unwind, span);
        }
    }

    /// `Raise` here, then leave by the exception path.
    pub fn raise(&mut self, kind: RaiseKind, args: Vec<Operand>, span: Span) {
        self.b.push(
            Inst::Raise { kind, args },
            Type::Void,
            span,
            Flags::default(),
        );
        self.throw_edge(span);
    }

    /// Continues only when `ok` holds; otherwise raises `kind` on a cold
    /// path.
    pub fn check(&mut self, ok: Operand, kind: RaiseKind, args: Vec<Operand>, span: Span) {
        match self.b.resolve(ok) {
            Operand::Bool(true) => return,
            Operand::Bool(false) => {
                self.raise(kind, args, span);
                return;
            }
            _ => {}
        }
        let cont = self.b.branch_else_cold(ok, span);
        self.raise(kind, args, span);
        self.b.switch_to(cont);
    }

    /// After a call that may throw: `%ok = NoException`, and the failed
    /// path goes to the exception target.
    pub fn after_may_throw(&mut self, span: Span) {
        let ok = self
            .b
            .push(Inst::NoException, Type::Bool, span, Flags::NOTHROW);
        let target = self.throw_target();
        let cont = self.b.new_block();
        self.b.branch(ok, cont, target, span);
        self.b.seal(cont);
        self.b.switch_to(cont);
    }

    /// A statement of type `ty`; `Void` results are not operands.
    pub fn emit(&mut self, inst: Inst, ty: Type, span: Span, flags: Flags) -> Operand {
        self.b.push(inst, ty, span, flags)
    }

    /// The φᶜ nodes for a new try region with handler `handler`, and a `ϒ`
    /// of the entry value of every local in scope that the region's body
    /// assigns (`assigned`).
    pub fn enter_try(&mut self, handler: Blk, assigned: &FxSet<Var>, span: Span) {
        let mut vars = Vec::new();
        let mut phic_of = FxMap::default();
        let scope = self.scope.clone();
        for l in scope {
            let var = l.0;
            if phic_of.contains_key(&var) || !assigned.contains(&var) {
                continue;
            }
            let ty = self
                .b
                .var_ty
                .get(var as usize)
                .cloned()
                .unwrap_or(Type::Int);
            let phic = match self.b.push_at(
                handler,
                Inst::PhiC {
                    upsilons: Vec::new(),
                },
                ty,
                span,
                PURE,
            ) {
                Operand::Value(Value(n)) => n,
                _ => continue,
            };
            let v = self.read(var);
            self.upsilon(phic, v, span);
            vars.push((var, phic));
            phic_of.insert(var, phic);
        }
        self.tries.push(TryCtx {
            handler,
            vars,
            phic_of,
        });
    }
}
