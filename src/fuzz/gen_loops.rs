//! Loop generation for [`Gen`]: `while`, `for i in lo..hi`, `for x in a`,
//! and the float series `divpair` unrolls.
//!
//! Invariants: every loop terminates after a few iterations: a `while` is
//! bounded by a counter incremented first thing in its body, a range has
//! small constant or small-variable bounds (or `len` of a visible array or
//! string); a loop's label is pushed on [`Gen::loops`] exactly while its
//! body is generated, so `break` and `continue` only name enclosing loops.

use super::ast::*;
use super::generate::Gen;

impl Gen {
    fn label(&mut self) -> Option<String> {
        if self.rng.chance(35) {
            Some(self.fresh("l"))
        } else {
            None
        }
    }

    fn loop_body(&mut self, label: Option<String>, depth: u32, first: Option<Stmt>) -> Vec<Stmt> {
        self.loops.push(label);
        let mut body = self.gen_block(4, depth - 1);
        self.loops.pop();
        if let Some(s) = first {
            body.insert(0, s);
        }
        body
    }

    /// `var wN = 0; while wN < K && c { wN += 1; ... }` (or `c && wN < K`)
    pub(super) fn gen_while(&mut self, out: &mut Vec<Stmt>, depth: u32) {
        let counter = self.fresh("w");
        let var = |n: &str| Box::new(Expr::new(ExprKind::Var(n.to_string())));
        let init = Expr::new(ExprKind::Int(0));
        out.push(Stmt::new(StmtKind::Let {
            name: counter.clone(),
            mutable: true,
            ty: Ty::Int,
            annotate: false,
            init,
        }));
        let bound = Box::new(Expr::new(ExprKind::Int(1 + self.rng.below(5) as i64)));
        let mut cond = Expr::new(ExprKind::Binary(BinOp::Lt, var(&counter), bound));
        if self.rng.chance(60) {
            let c = self.gen_expr(&Ty::Bool, 2);
            // Either order: with the condition first, its checks run
            // unconditionally in the loop header.
            let (l, r) = if self.rng.chance(50) {
                (cond, c)
            } else {
                (c, cond)
            };
            cond = Expr::new(ExprKind::Binary(BinOp::LAnd, Box::new(l), Box::new(r)));
        }
        let step = Stmt::new(StmtKind::Assign {
            place: Place::Var(counter.clone()),
            op: Some(BinOp::Add),
            value: Expr::new(ExprKind::Int(1)),
        });
        self.declare(counter, Ty::Int, true);
        let label = self.label();
        let body = self.loop_body(label.clone(), depth, Some(step));
        out.push(Stmt::new(StmtKind::While { label, cond, body }));
    }

    /// `var sN = F; for iN in lo..hi { sN += float(A) / float(B); }`,
    /// then `print(sN)`: a float reduction whose division depends only on
    /// the loop variable, the loops `divpair` unrolls (A and B are `iN`
    /// times, plus or minus, small constants or variables).
    pub(super) fn gen_series(&mut self, out: &mut Vec<Stmt>) {
        let acc = self.fresh("s");
        let init = Expr::new(ExprKind::Float(if self.rng.chance(50) { 0.0 } else { 1.5 }));
        out.push(Stmt::new(StmtKind::Let {
            name: acc.clone(),
            mutable: true,
            ty: Ty::Float,
            annotate: false,
            init,
        }));
        let lo = Expr::new(ExprKind::Int(self.rng.below(5) as i64 - 2));
        let hi = if self.rng.chance(70) {
            Expr::new(ExprKind::Int(self.rng.below(40) as i64))
        } else {
            self.small_int(6)
        };
        let var = self.fresh_scope("i", Ty::Int);
        let term = |g: &mut Self| {
            let i = || Box::new(Expr::new(ExprKind::Var(var.clone())));
            let op = *g.rng.pick(&[BinOp::Add, BinOp::Sub, BinOp::Mul]);
            let k = Box::new(g.small_int(3));
            let e = match g.rng.below(3) {
                0 => Expr::new(ExprKind::Binary(op, i(), k)),
                1 => {
                    let sq = Box::new(Expr::new(ExprKind::Binary(BinOp::Mul, i(), i())));
                    Expr::new(ExprKind::Binary(op, sq, k))
                }
                _ => Expr::new(ExprKind::Var(var.clone())),
            };
            Expr::new(ExprKind::Builtin(Builtin::ToFloat, vec![e]))
        };
        let num = term(self);
        let den = term(self);
        self.scopes.pop();
        let value = Expr::new(ExprKind::Binary(BinOp::Div, Box::new(num), Box::new(den)));
        let body = vec![Stmt::new(StmtKind::Assign {
            place: Place::Var(acc.clone()),
            op: Some(BinOp::Add),
            value,
        })];
        out.push(Stmt::new(StmtKind::ForRange {
            label: None,
            var,
            lo,
            hi,
            body,
        }));
        out.push(Stmt::new(StmtKind::Print {
            newline: true,
            args: vec![Expr::new(ExprKind::Var(acc.clone()))],
        }));
        self.declare(acc, Ty::Float, true);
    }

    pub(super) fn gen_for_range(&mut self, depth: u32) -> StmtKind {
        let lo = if self.rng.chance(70) {
            Expr::new(ExprKind::Int(self.rng.below(3) as i64 - 1))
        } else {
            self.small_int(4)
        };
        let arrays: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|v| matches!(v.ty, Ty::Arr(_) | Ty::Str))
            .map(|v| v.name)
            .collect();
        let hi = match self.rng.below(10) {
            // `for i in 0..len(a)`: bounds checks the optimizer may remove.
            0..=2 if !arrays.is_empty() => {
                let a = Expr::new(ExprKind::Var(self.rng.pick(&arrays).clone()));
                Expr::new(ExprKind::Builtin(Builtin::Len, vec![a]))
            }
            0..=5 => Expr::new(ExprKind::Int(self.rng.below(6) as i64)),
            _ => self.small_int(6),
        };
        let label = self.label();
        let var = self.fresh_scope("i", Ty::Int);
        self.loop_vars.push(var.clone());
        let body = self.loop_body(label.clone(), depth, None);
        self.loop_vars.pop();
        self.scopes.pop();
        StmtKind::ForRange {
            label,
            var,
            lo,
            hi,
            body,
        }
    }

    pub(super) fn gen_for_each(&mut self, depth: u32) -> StmtKind {
        let elem = self.pick_ty(0);
        let arr = self.typed_expr(&Ty::Arr(Box::new(elem.clone())), 2);
        let label = self.label();
        let var = self.fresh_scope("x", elem.clone());
        self.in_foreach += 1;
        let body = self.loop_body(label.clone(), depth, None);
        self.in_foreach -= 1;
        self.scopes.pop();
        StmtKind::ForEach {
            label,
            var,
            elem,
            arr,
            body,
        }
    }
}
