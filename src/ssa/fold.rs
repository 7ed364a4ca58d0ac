//! On-the-fly simplification: constant folding, algebraic identities and
//! local value numbering of pure operations.
//!
//! Folding follows the IR's semantics exactly (wrapping ints, shifts mod
//! 64, `MIN / -1 == MIN`, IEEE floats, saturating float → int), so a folded
//! program prints what the unfolded one would. Division by a constant zero
//! is never folded: the explicit check raises before the division.
use super::builder::{Builder, LvnKey, op_key};
use crate::ir::fold;
use crate::ir::{BinaryOp, Cmp, Inst, Operand, Type, UnaryOp};
use crate::span::Span;

/// Folds `a op b` to a constant ([`crate::ir::fold::binary`]) or, by an
/// algebraic identity, to one of its operands.
pub fn fold_binary(op: BinaryOp, a: Operand, b: Operand) -> Option<Operand> {
    use Operand::*;
    if let Some(c) = fold::binary(op, a, b) {
        return Some(c);
    }
    match (op, a, b) {
        // Identities that hold for every value of the other operand.
        (
            BinaryOp::IAdd
            | BinaryOp::ISub
            | BinaryOp::IOr
            | BinaryOp::IXor
            | BinaryOp::IShl
            | BinaryOp::IShr,
            x,
            Int(0),
        ) => Some(x),
        (BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor, Int(0), y) => Some(y),
        (BinaryOp::IMul | BinaryOp::IDiv, x, Int(1)) => Some(x),
        (BinaryOp::IMul, Int(1), y) => Some(y),
        (BinaryOp::IMul | BinaryOp::IAnd, _, Int(0))
        | (BinaryOp::IMul | BinaryOp::IAnd, Int(0), _) => Some(Int(0)),
        (BinaryOp::IRem, _, Int(1) | Int(-1)) => Some(Int(0)),
        (BinaryOp::IAnd, x, Int(-1)) => Some(x),
        (BinaryOp::IAnd, Int(-1), y) => Some(y),
        (BinaryOp::ISub | BinaryOp::IXor, x, y) if x == y && matches!(x, Value(_) | Arg(_)) => {
            Some(Int(0))
        }
        (BinaryOp::IAnd | BinaryOp::IOr, x, y) if x == y => Some(x),
        (BinaryOp::ICmp(c), x, y) if x == y && matches!(x, Value(_) | Arg(_)) => {
            Some(Bool(matches!(c, Cmp::Eq | Cmp::Le | Cmp::Ge)))
        }
        _ => None,
    }
}

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
        self.push_pure(LvnKey::Unary(op, op_key(a)), Inst::Unary(op, a), ty, span)
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
        if let Some(v) = fold_binary(op, a, b) {
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
        self.push_pure(key, Inst::Binary(op, a, b), ty, span)
    }

    /// A string constant, shared within a block.
    pub fn str_const(&mut self, s: &str, span: Span) -> Operand {
        self.push_pure(
            LvnKey::Str(s.into()),
            Inst::StrConst(s.into()),
            Type::Str,
            span,
        )
    }
}

pub fn is_const(op: Operand) -> bool {
    !matches!(op, Operand::Value(_) | Operand::Arg(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_follow_ir_semantics() {
        let f = |op, x, y| fold_binary(op, Operand::Int(x), Operand::Int(y));
        assert_eq!(
            f(BinaryOp::IDiv, i64::MIN, -1),
            Some(Operand::Int(i64::MIN))
        );
        assert_eq!(f(BinaryOp::IRem, i64::MIN, -1), Some(Operand::Int(0)));
        assert_eq!(f(BinaryOp::IDiv, 7, 0), None);
        assert_eq!(f(BinaryOp::IShl, 1, 65), Some(Operand::Int(2)));
        assert_eq!(f(BinaryOp::IShr, -8, 1), Some(Operand::Int(-4)));
        assert_eq!(
            f(BinaryOp::ICmp(Cmp::Ult), -1, 3),
            Some(Operand::Bool(false))
        );
        assert_eq!(
            fold::unary(UnaryOp::FloatToInt, Operand::Float(f64::NAN)),
            Some(Operand::Int(0))
        );
        assert_eq!(
            fold::unary(UnaryOp::FloatToInt, Operand::Float(1e300)),
            Some(Operand::Int(i64::MAX))
        );
        assert_eq!(
            fold_binary(
                BinaryOp::FCmp(Cmp::Ne),
                Operand::Float(f64::NAN),
                Operand::Float(f64::NAN)
            ),
            Some(Operand::Bool(true))
        );
    }
}
