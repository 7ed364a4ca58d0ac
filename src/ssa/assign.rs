//! Assignments to places, and try/catch regions.
use super::builder::{FxSet, Var};
use super::lower::FnLower;
use crate::ir::{Flags, Inst, Loc, Operand, Type};
use crate::sema::hir::{BinOp, Block, Expr, LocalId, Place, StmtKind};
use crate::span::Span;

impl FnLower<'_> {
    /// `place = value` or `place OP= value`. The place's sub-expressions
    /// are evaluated once, before `value`; a compound assignment reads the
    /// old value (after the place's check) before evaluating `value`. An
    /// element store is always checked against the length at the store.
    pub fn assign_place(&mut self, place: &Place, op: Option<BinOp>, value: &Expr, span: Span) {
        let ty = value.ty.clone();
        match place {
            Place::Local(l) => {
                let old = op.map(|_| self.read(l.0));
                let v = self.expr(value);
                let new = self.combine(op, old, v, &ty, span);
                self.assign(l.0, new, span);
            }
            Place::Global(g) => {
                let loc = Loc::Global(*g);
                let old = op.map(|_| self.load(loc.clone(), None, None, ty.clone(), span));
                let v = self.expr(value);
                let new = self.combine(op, old, v, &ty, span);
                self.store(loc, None, None, new, span);
            }
            Place::Index { array, index } => {
                let a = self.expr(array);
                let i = self.expr(index);
                let loc = Loc::ArrayElem(ty.clone());
                let old = match op {
                    Some(_) => {
                        self.array_index_check(a, i, span);
                        Some(self.load(loc.clone(), Some(a), Some(i), ty.clone(), span))
                    }
                    None => None,
                };
                let v = self.expr(value);
                let new = self.combine(op, old, v, &ty, span);
                // The store checks the index again, after the operation
                // (which may throw first), even after a compound
                // assignment's read: `value` may have shrunk the array
                // (`a[2] *= pop(a)`). When nothing in `value` can change
                // the length, the checks pass removes this second check.
                self.array_index_check(a, i, span);
                self.store(loc, Some(a), Some(i), new, span);
            }
            Place::Field {
                object,
                strukt,
                field,
            } => {
                let o = self.expr(object);
                let loc = Loc::Field {
                    strukt: *strukt,
                    field: *field,
                };
                let old = match op {
                    Some(_) => {
                        self.nil_check(o, span);
                        Some(self.load(loc.clone(), Some(o), None, ty.clone(), span))
                    }
                    None => None,
                };
                let v = self.expr(value);
                if op.is_none() {
                    self.nil_check(o, span);
                }
                let new = self.combine(op, old, v, &ty, span);
                self.store(loc, Some(o), None, new, span);
            }
        }
    }

    fn combine(
        &mut self,
        op: Option<BinOp>,
        old: Option<Operand>,
        v: Operand,
        ty: &Type,
        span: Span,
    ) -> Operand {
        match (op, old) {
            (Some(op), Some(old)) => self.binop(op, old, v, ty, span),
            _ => v,
        }
    }

    fn store(
        &mut self,
        loc: Loc,
        base: Option<Operand>,
        index: Option<Operand>,
        value: Operand,
        span: Span,
    ) {
        self.emit(
            Inst::Store {
                loc,
                base,
                index,
                value,
            },
            Type::Void,
            span,
            Flags::NOTHROW,
        );
    }

    /// `try { body } catch e { handler }`: the handler is entered by an
    /// explicit edge from every point of `body` that may throw; the locals
    /// in scope that `body` assigns reach it through φᶜ nodes, the others
    /// keep their value from the region's entry.
    pub fn try_catch(&mut self, body: &Block, catch_var: LocalId, handler: &Block, span: Span) {
        let head = self.b.cur;
        let mark = self.b.mark();
        let handler_b = self.b.new_block();
        let after = self.b.new_block();
        self.enter_try(handler_b, &assigned_locals(body), span);
        self.block(body);
        let ctx = self.tries.pop();
        if !self.b.cur_dead() {
            self.b.jump(after, span);
        }
        // A read at the handler of a variable the body did not write finds
        // its value at the region's entry.
        let written = self.b.written_since(mark);
        self.b.set_skip(handler_b, head, written);
        self.b.seal(handler_b);
        if !self.b.is_dead(handler_b) {
            self.b.switch_to(handler_b);
            for (var, phic) in ctx.map(|c| c.vars).unwrap_or_default() {
                let value = self.phic_value(phic);
                self.b.write_var(var, handler_b, value);
            }
            let msg = self.emit(Inst::TakeException, Type::Str, span, Flags::NOTHROW);
            self.b.write_var(catch_var.0, handler_b, msg);
            let depth = self.scope.len();
            self.scope.push(catch_var);
            self.block(handler);
            self.scope.truncate(depth);
            if !self.b.cur_dead() {
                self.b.jump(after, span);
            }
        }
        let written = self.b.written_since(mark);
        self.b.set_skip(after, head, written);
        self.b.seal(after);
        self.b.switch_to(after);
    }

    /// What a local is at the handler: its φᶜ, or the one value every ϒ of
    /// the φᶜ stores (then it is the value at the region's entry, which
    /// dominates the handler, and the unused φᶜ is dropped).
    fn phic_value(&mut self, phic: u32) -> Operand {
        let ups = match &self.b.nodes[phic as usize].inst {
            Inst::PhiC { upsilons } => upsilons.clone(),
            _ => Vec::new(),
        };
        let mut same: Option<Operand> = None;
        for u in ups {
            let Inst::Upsilon(x) = self.b.nodes[u.0 as usize].inst else {
                continue;
            };
            let x = self.b.resolve(x);
            match same {
                None => same = Some(x),
                Some(s) if s == x => {}
                Some(_) => return Operand::Value(crate::ir::Value(phic)),
            }
        }
        same.unwrap_or(Operand::Value(crate::ir::Value(phic)))
    }
}

/// The locals that `body` assigns (`x = …`, `x op= …`) anywhere inside it.
/// Iterative, whatever the nesting depth.
fn assigned_locals(body: &Block) -> FxSet<Var> {
    let mut out = FxSet::default();
    let mut stack = vec![body];
    while let Some(b) = stack.pop() {
        for s in &b.stmts {
            match &s.kind {
                StmtKind::Assign {
                    place: Place::Local(l),
                    ..
                } => {
                    out.insert(l.0);
                }
                StmtKind::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    stack.push(then_block);
                    stack.push(else_block);
                }
                StmtKind::While { body, .. }
                | StmtKind::ForRange { body, .. }
                | StmtKind::ForEach { body, .. } => stack.push(body),
                StmtKind::Try { body, handler, .. } => {
                    stack.push(body);
                    stack.push(handler);
                }
                StmtKind::Block(b) => stack.push(b),
                StmtKind::Let { .. }
                | StmtKind::Assign { .. }
                | StmtKind::Expr(_)
                | StmtKind::Break(_)
                | StmtKind::Continue(_)
                | StmtKind::Return(_)
                | StmtKind::Throw(_) => {}
            }
        }
    }
    out
}
