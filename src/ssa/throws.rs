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
    BinOp, Block, Expr, ExprKind, FuncId, Place, Program, Stmt, StmtKind, Type,
};

#[derive(Default)]
struct Facts {
    local: bool,
    callees: Vec<FuncId>,
}

/// `result[f]` is true when a call of function `f` may end with an
/// exception pending.
pub fn may_throw(program: &Program) -> Vec<bool> {
    let n = program.functions.len();
    let facts: Vec<Facts> = program
        .functions
        .iter()
        .map(|f| {
            let mut facts = Facts::default();
            walk_block(&f.body, false, &mut facts);
            facts
        })
        .collect();
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

fn walk_block(b: &Block, in_try: bool, facts: &mut Facts) {
    for s in &b.stmts {
        walk_stmt(s, in_try, facts);
    }
}

fn throws_here(in_try: bool, facts: &mut Facts) {
    if !in_try {
        facts.local = true;
    }
}

fn walk_stmt(s: &Stmt, in_try: bool, facts: &mut Facts) {
    match &s.kind {
        StmtKind::Let { init, .. } => walk_expr(init, in_try, facts),
        StmtKind::Assign { place, op, value } => {
            match place {
                Place::Local(_) | Place::Global(_) => {}
                Place::Index { array, index } => {
                    walk_expr(array, in_try, facts);
                    walk_expr(index, in_try, facts);
                    throws_here(in_try, facts);
                }
                Place::Field { object, .. } => {
                    walk_expr(object, in_try, facts);
                    throws_here(in_try, facts);
                }
            }
            if let Some(op) = op
                && divides(*op, &value.ty, value)
            {
                throws_here(in_try, facts);
            }
            walk_expr(value, in_try, facts);
        }
        StmtKind::Expr(e) => walk_expr(e, in_try, facts),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => {
            walk_expr(cond, in_try, facts);
            walk_block(then_block, in_try, facts);
            walk_block(else_block, in_try, facts);
        }
        StmtKind::While { cond, body, .. } => {
            walk_expr(cond, in_try, facts);
            walk_block(body, in_try, facts);
        }
        StmtKind::ForRange {
            start, end, body, ..
        } => {
            walk_expr(start, in_try, facts);
            walk_expr(end, in_try, facts);
            walk_block(body, in_try, facts);
        }
        StmtKind::ForEach { array, body, .. } => {
            walk_expr(array, in_try, facts);
            walk_block(body, in_try, facts);
        }
        StmtKind::Break(_) | StmtKind::Continue(_) => {}
        StmtKind::Return(e) => {
            if let Some(e) = e {
                walk_expr(e, in_try, facts);
            }
        }
        StmtKind::Throw(e) => {
            walk_expr(e, in_try, facts);
            throws_here(in_try, facts);
        }
        StmtKind::Try { body, handler, .. } => {
            walk_block(body, true, facts);
            walk_block(handler, in_try, facts);
        }
        StmtKind::Block(b) => walk_block(b, in_try, facts),
    }
}

/// Whether `x OP divisor` is an int division that can fail.
fn divides(op: BinOp, ty: &Type, divisor: &Expr) -> bool {
    matches!(op, BinOp::Div | BinOp::Rem)
        && *ty == Type::Int
        && !matches!(divisor.kind, ExprKind::Int(d) if d != 0)
}

fn walk_expr(e: &Expr, in_try: bool, facts: &mut Facts) {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::Local(_)
        | ExprKind::Global(_) => {}
        ExprKind::Unary(_, a) => walk_expr(a, in_try, facts),
        ExprKind::Binary(op, a, b) => {
            walk_expr(a, in_try, facts);
            walk_expr(b, in_try, facts);
            if divides(*op, &a.ty, b) {
                throws_here(in_try, facts);
            }
        }
        ExprKind::And(a, b) | ExprKind::Or(a, b) => {
            walk_expr(a, in_try, facts);
            walk_expr(b, in_try, facts);
        }
        ExprKind::Call { func, args } => {
            for a in args {
                walk_expr(a, in_try, facts);
            }
            if !in_try {
                facts.callees.push(*func);
            }
        }
        ExprKind::Builtin { builtin, args } => {
            for a in args {
                walk_expr(a, in_try, facts);
            }
            if builtin.may_throw() {
                throws_here(in_try, facts);
            }
        }
        ExprKind::Index { base, index } => {
            walk_expr(base, in_try, facts);
            walk_expr(index, in_try, facts);
            throws_here(in_try, facts);
        }
        ExprKind::Field { object, .. } => {
            walk_expr(object, in_try, facts);
            throws_here(in_try, facts);
        }
        ExprKind::ArrayLit(elems) => {
            for x in elems {
                walk_expr(x, in_try, facts);
            }
        }
        ExprKind::ArrayRepeat { value, count } => {
            walk_expr(value, in_try, facts);
            walk_expr(count, in_try, facts);
            if !matches!(count.kind, ExprKind::Int(n) if n >= 0) {
                throws_here(in_try, facts);
            }
        }
        ExprKind::StructLit { fields, .. } => {
            for (_, x) in fields {
                walk_expr(x, in_try, facts);
            }
        }
    }
}
