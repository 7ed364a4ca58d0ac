//! Which functions may throw, bottom-up over the call graph.
//!
//! A function may throw when, outside every `try` body of its own, it
//! throws, runs a check that can fail (division by a non-constant or zero
//! divisor, indexing, a field access, `[e; n]` with a non-literal or
//! negative `n`, a builtin that may throw: `Builtin::may_throw`, read from
//! `rtfns`), or calls a function that may throw. Local facts are propagated to the
//! callers over the reversed call graph with a worklist (a fixpoint that
//! handles recursion), in linear time.
use crate::sema::hir::{
    BinOp, Expr, ExprKind, FuncId, Place, Program, Stmt, StmtKind, Type, Visitor, walk_expr,
    walk_place, walk_stmt,
};

/// What one function's body says: whether it may throw by itself, and the
/// functions it calls outside every `try` body.
#[derive(Default)]
struct Facts {
    local: bool,
    callees: Vec<FuncId>,
    /// Whether the walk is inside a `try` body of the function.
    in_try: bool,
}

/// `result[f]` is true when a call of function `f` may end with an
/// exception pending.
pub fn may_throw(program: &Program) -> Vec<bool> {
    may_throw_on(program, &crate::par::Pool::default())
}

/// [`may_throw`], the bodies of a large program walked on `pool`'s threads.
pub fn may_throw_on(program: &Program, pool: &crate::par::Pool) -> Vec<bool> {
    let funcs = &program.functions;
    let n = funcs.len();
    let work = program.body_bytes() / crate::par::SOURCE_BYTES_PER_STATEMENT;
    let facts: Vec<Facts> = pool.map(n, work, |i| {
        let mut facts = Facts::default();
        facts.block(&funcs[i].body);
        facts
    });
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (f, fa) in facts.iter().enumerate() {
        for c in &fa.callees {
            if let Some(list) = callers.get_mut(c.0 as usize) {
                list.push(f);
            }
        }
    }
    let mut result: Vec<bool> = facts.iter().map(|f| f.local).collect();
    let mut work: Vec<usize> = (0..n).filter(|&f| result[f]).collect();
    while let Some(f) = work.pop() {
        for &c in &callers[f] {
            if !result[c] {
                result[c] = true;
                work.push(c);
            }
        }
    }
    result
}

impl Facts {
    fn throws_here(&mut self) {
        if !self.in_try {
            self.local = true;
        }
    }
}

impl Visitor for Facts {
    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign {
                op: Some(op),
                value,
                ..
            } if divides(*op, &value.ty, value) => self.throws_here(),
            StmtKind::Throw(_) => self.throws_here(),
            StmtKind::Try { body, handler, .. } => {
                let outer = std::mem::replace(&mut self.in_try, true);
                self.block(body);
                self.in_try = outer;
                self.block(handler);
                return;
            }
            _ => {}
        }
        walk_stmt(self, s);
    }

    fn place(&mut self, p: &Place) {
        if matches!(p, Place::Index { .. } | Place::Field { .. }) {
            self.throws_here();
        }
        walk_place(self, p);
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Binary(op, a, b) if divides(*op, &a.ty, b) => self.throws_here(),
            ExprKind::Call { func, .. } if !self.in_try => self.callees.push(*func),
            ExprKind::Builtin { builtin, .. } if builtin.may_throw() => self.throws_here(),
            ExprKind::Index { .. } | ExprKind::Field { .. } => self.throws_here(),
            ExprKind::ArrayRepeat { count, .. } if !matches!(count.kind, ExprKind::Int(n) if n >= 0) => {
                self.throws_here()
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// Whether `x OP divisor` is an int division that can fail.
fn divides(op: BinOp, ty: &Type, divisor: &Expr) -> bool {
    matches!(op, BinOp::Div | BinOp::Rem)
        && *ty == Type::Int
        && !matches!(divisor.kind, ExprKind::Int(d) if d != 0)
}
