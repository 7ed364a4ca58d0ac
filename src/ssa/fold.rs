//! On-the-fly simplification: constant folding, algebraic identities and
//! local value numbering of pure operations.
//!
//! Folding follows the IR's semantics exactly (wrapping ints, shifts mod
//! 64, `MIN / -1 == MIN`, IEEE floats, saturating float → int), so a folded
//! program prints what the unfolded one would. Division by a constant zero
//! is never folded: the explicit check raises before the division.
use super::builder::{Builder, LvnKey, op_key};
use crate::ir::fold;
use crate::ir::{BinaryOp, Inst, Operand, Type, UnaryOp};
use crate::span::Span;

impl Builder {
    /// A pure unary operation: folded, or numbered locally.
    pub fn unary(&mut self, op: UnaryOp, a: Operand, ty: Type, span: Span) -> Operand {
        let a = self.resolve(a);
        if let Some(v) = fold::unary(op, a) {
            return v;
        }
        // `!!x` and `--x` are `x`.
        if let Operand::Value(v) = a
            && let Inst::Unary(inner, x) = &self.nodes[v.0 as usize].inst
            && *inner == op
            && matches!(op, UnaryOp::Not | UnaryOp::INeg)
        {
            return self.resolve(*x);
        }
        self.push_pure(
            LvnKey::Unary(op, op_key(a)),
            || Inst::Unary(op, a),
            ty,
            span,
        )
    }

    /// A pure binary operation: folded, simplified, or numbered locally
    /// (commutative operands in a canonical order).
    pub fn binary(
        &mut self,
        op: BinaryOp,
        a: Operand,
        b: Operand,
        ty: Type,
        span: Span,
    ) -> Operand {
        let (mut a, mut b) = (self.resolve(a), self.resolve(b));
        // Every rule of `simplify_binary` needs a constant operand or the
        // same operand twice; two different variables skip its matching.
        let two_vars = !is_const(a) && !is_const(b) && a != b;
        if !two_vars && let Some(v) = fold::simplify_binary(op, a, b, &ty) {
            return v;
        }
        if op.is_commutative() && is_const(a) && !is_const(b) {
            std::mem::swap(&mut a, &mut b);
        }
        let (ka, kb) = (op_key(a), op_key(b));
        let key = if op.is_commutative() && !is_const(a) && !is_const(b) && kb < ka {
            LvnKey::Binary(op, kb, ka)
        } else {
            LvnKey::Binary(op, ka, kb)
        };
        self.push_pure(key, || Inst::Binary(op, a, b), ty, span)
    }

    /// A string constant, shared within a block.
    pub fn str_const(&mut self, s: &str, span: Span) -> Operand {
        self.push_pure(
            LvnKey::Str(s.into()),
            || Inst::StrConst(s.into()),
            Type::Str,
            span,
        )
    }
}

pub fn is_const(op: Operand) -> bool {
    !matches!(op, Operand::Value(_) | Operand::Arg(_))
}
