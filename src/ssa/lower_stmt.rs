//! Statements: assignments, control flow, loops and try/catch.
//!
//! Blocks are sealed as early as the structure allows: the arms of an `if`
//! once the condition has branched, the join after both arms, a loop header
//! after the body's end and every `continue`, a loop exit after the body
//! (every `break` is then known). Code after a jump is dead and not lowered.
use super::builder::{Blk, BuildTerm};
use super::lower::{FnLower, LoopCtx};
use crate::ir::{BinaryOp, Cmp, Inst, Loc, Operand, Type};
use crate::sema::hir::{Block, Expr, LocalId, LoopId, Stmt, StmtKind, Type as T};
use crate::span::Span;

impl FnLower<'_> {
    pub fn block(&mut self, block: &Block) {
        let depth = self.scope.len();
        for s in &block.stmts {
            if self.b.cur_dead() {
                break;
            }
            self.stmt(s);
        }
        self.scope.truncate(depth);
    }

    pub fn stmt(&mut self, s: &Stmt) {
        let span = s.span;
        match &s.kind {
            StmtKind::Let { local, init } => {
                let v = self.expr(init);
                let cur = self.b.cur;
                self.b.write_var(local.0, cur, v);
                self.scope.push(*local);
            }
            StmtKind::Assign { place, op, value } => self.assign_place(place, *op, value, span),
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_stmt(cond, then_block, else_block, span),
            StmtKind::While { id, cond, body } => self.while_loop(*id, cond, body, span),
            StmtKind::ForRange {
                id,
                var,
                start,
                end,
                body,
            } => self.for_range(*id, *var, start, end, body, span),
            StmtKind::ForEach {
                id,
                var,
                index,
                array,
                body,
            } => self.for_each(*id, *var, *index, array, body, span),
            StmtKind::Break(id) => {
                if let Some(l) = self.find_loop(*id) {
                    let exit = l.exit;
                    self.b.terminate(BuildTerm::Goto(exit), span);
                }
            }
            StmtKind::Continue(id) => {
                if let Some(cont) = self.continue_target(*id) {
                    self.b.terminate(BuildTerm::Goto(cont), span);
                }
            }
            StmtKind::Return(e) => {
                let v = e.as_ref().map(|e| self.expr(e));
                let v = if self.func.ret == T::Void { None } else { v };
                self.b.terminate(BuildTerm::Return(v), span);
            }
            StmtKind::Throw(e) => {
                let v = self.expr(e);
                self.raise(crate::ir::RaiseKind::Throw, vec![v], span);
            }
            StmtKind::Try {
                body,
                catch_var,
                handler,
            } => self.try_catch(body, *catch_var, handler, span),
            StmtKind::Block(b) => self.block(b),
        }
    }

    /// `while`: header (test) → body → header; the false edge exits.
    fn while_loop(&mut self, id: LoopId, cond: &Expr, body: &Block, span: Span) {
        self.b.loop_depth += 1;
        let header = self.b.new_block();
        let body_b = self.b.new_block();
        let exit = self.b.new_block();
        let pre = self.b.cur;
        let mark = self.b.mark();
        self.b.goto_and_switch(header, span);
        self.cond(cond, body_b, exit);
        self.b.seal(body_b);
        self.b.switch_to(body_b);
        self.loop_body(id, Some(header), exit, body, span);
        self.loop_done(header, exit, pre, mark);
        self.b.seal(header);
        self.b.seal(exit);
        self.b.switch_to(exit);
        self.b.loop_depth -= 1;
    }

    /// `if`: the arms, then the join; with no (or an empty) `else` the
    /// false edge goes straight to the join.
    fn if_stmt(&mut self, cond: &Expr, then_block: &Block, else_block: &Block, span: Span) {
        let head = self.b.cur;
        let mark = self.b.mark();
        let then_b = self.b.new_block();
        let join = self.b.new_block();
        let else_b = if else_block.stmts.is_empty() {
            join
        } else {
            self.b.new_block()
        };
        self.cond(cond, then_b, else_b);
        self.b.seal(then_b);
        self.b.switch_to(then_b);
        if !self.b.cur_dead() {
            self.block(then_block);
            self.b.jump(join, span);
        }
        if else_b != join {
            self.b.seal(else_b);
            self.b.switch_to(else_b);
            if !self.b.cur_dead() {
                self.block(else_block);
                self.b.jump(join, span);
            }
        }
        let written = self.b.written_since(mark);
        self.b.set_skip(join, head, written);
        self.b.seal(join);
        self.b.switch_to(join);
    }

    /// `for var in start..end`: both bounds are evaluated once, before the
    /// loop; a hidden counter runs from `start` and `var` is bound to it.
    fn for_range(
        &mut self,
        id: LoopId,
        var: LocalId,
        start: &Expr,
        end: &Expr,
        body: &Block,
        span: Span,
    ) {
        let s0 = self.expr(start);
        let e0 = self.expr(end);
        let counter = self.b.new_var(T::Int);
        let cur = self.b.cur;
        self.b.write_var(counter, cur, s0);
        self.counted_loop(id, counter, span, body, |me| {
            let i = me.read(counter);
            let c = me.b.binary(BinaryOp::ICmp(Cmp::Lt), i, e0, T::Bool, span);
            TestResult {
                cond: c,
                bind: Some((var, i)),
                each: None,
            }
        });
    }

    /// `for var in array` (or a `str`'s bytes): the array is evaluated once;
    /// the length is read in the header on every iteration.
    fn for_each(
        &mut self,
        id: LoopId,
        var: LocalId,
        index: LocalId,
        array: &Expr,
        body: &Block,
        span: Span,
    ) {
        let a = self.expr(array);
        let is_str = array.ty == T::Str;
        let elem_ty = match &array.ty {
            T::Array(t) => (**t).clone(),
            _ => T::Int,
        };
        let cur = self.b.cur;
        self.b.write_var(index.0, cur, Operand::Int(0));
        let counter = index.0;
        self.counted_loop(id, counter, span, body, move |me| {
            let i = me.read(counter);
            let n = if is_str {
                me.runtime(crate::ir::RuntimeFn::StrLen, vec![a], T::Int, span)
            } else {
                me.array_len(a, span)
            };
            let cond = me.b.binary(BinaryOp::ICmp(Cmp::Lt), i, n, T::Bool, span);
            TestResult {
                cond,
                bind: None,
                each: Some((a, is_str, elem_ty, var, i)),
            }
        });
    }

    /// Before sealing a loop's header: the variables the loop does not
    /// assign keep their value from `pre` in the whole loop and at `exit`.
    fn loop_done(&mut self, header: u32, exit: u32, pre: u32, mark: usize) {
        let written = self.b.written_since(mark);
        self.b.set_loop(header, pre, written);
        self.b.set_skip(exit, pre, written);
    }

    fn find_loop(&self, id: LoopId) -> Option<&LoopCtx> {
        self.loops.iter().rev().find(|l| l.id == id)
    }

    /// Where `continue` of loop `id` goes, made on first use.
    fn continue_target(&mut self, id: LoopId) -> Option<Blk> {
        let at = self.loops.iter().rposition(|l| l.id == id)?;
        if self.loops[at].cont.is_none() {
            self.loops[at].cont = Some(self.b.new_block());
        }
        self.loops[at].cont
    }

    /// Lowers a loop body in the current block; `cont` is where `continue`
    /// and the body's end go (`None`: a latch made on the first `continue`,
    /// returned; without one the body's end stays current).
    fn loop_body(
        &mut self,
        id: LoopId,
        cont: Option<Blk>,
        exit: Blk,
        body: &Block,
        span: Span,
    ) -> Option<Blk> {
        self.loops.push(LoopCtx { id, cont, exit });
        if !self.b.cur_dead() {
            self.block(body);
        }
        let cont = self.loops.pop().and_then(|l| l.cont);
        if let Some(c) = cont
            && !self.b.cur_dead()
        {
            self.b.jump(c, span);
        }
        cont
    }
}

/// What a `for` loop's header computes: the condition, and what the body
/// binds (the range variable, or the element of `arr` at `i`).
struct TestResult {
    cond: Operand,
    bind: Option<(LocalId, Operand)>,
    /// (array or string, is a string, element type, variable, index)
    each: Option<(Operand, bool, Type, LocalId, Operand)>,
}

impl FnLower<'_> {
    /// The loop shape shared by both `for` forms:
    /// header (test) → body → `counter += 1` → header, the step in a latch
    /// block of its own only when a `continue` jumps there.
    /// `test` runs in the header and returns the condition plus what to bind
    /// at the body's start.
    fn counted_loop<F>(&mut self, id: LoopId, counter: u32, span: Span, body: &Block, test: F)
    where
        F: FnOnce(&mut Self) -> TestResult,
    {
        self.b.loop_depth += 1;
        let header = self.b.new_block();
        let body_b = self.b.new_block();
        let exit = self.b.new_block();
        let pre = self.b.cur;
        let mark = self.b.mark();
        self.b.goto_and_switch(header, span);
        let r = test(self);
        self.b.branch(r.cond, body_b, exit, span);
        self.b.seal(body_b);
        self.b.switch_to(body_b);
        let depth = self.scope.len();
        if let Some((arr, is_str, elem_ty, var, i)) = r.each {
            let x = if is_str {
                self.runtime(crate::ir::RuntimeFn::StrByte, vec![arr, i], T::Int, span)
            } else {
                let loc = Loc::ArrayElem(elem_ty.clone());
                self.emit(
                    Inst::Load {
                        loc,
                        base: Some(arr),
                        index: Some(i),
                    },
                    elem_ty,
                    span,
                    super::lower::PURE,
                )
            };
            let cur = self.b.cur;
            self.b.write_var(var.0, cur, x);
            self.scope.push(var);
        } else if let Some((var, i)) = r.bind {
            let cur = self.b.cur;
            self.b.write_var(var.0, cur, i);
            self.scope.push(var);
        }
        let latch = self.loop_body(id, None, exit, body, span);
        self.scope.truncate(depth);
        if let Some(latch) = latch {
            self.b.seal(latch);
            self.b.switch_to(latch);
        }
        if !self.b.cur_dead() {
            let i = self.read(counter);
            let next = self
                .b
                .binary(BinaryOp::IAdd, i, Operand::Int(1), T::Int, span);
            let cur = self.b.cur;
            self.b.write_var(counter, cur, next);
            self.b.jump(header, span);
        }
        self.loop_done(header, exit, pre, mark);
        self.b.seal(header);
        self.b.seal(exit);
        self.b.switch_to(exit);
        self.b.loop_depth -= 1;
    }
}
