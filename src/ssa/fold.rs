//! On-the-fly simplification: constant folding, algebraic identities and
//! local value numbering of pure operations.
//!
//! Folding follows the IR's semantics exactly (wrapping ints, shifts mod
//! 64, `MIN / -1 == MIN`, IEEE floats, saturating float → int), so a folded
//! program prints what the unfolded one would. Division by a constant zero
//! is never folded: the explicit check raises before the division.
use super::builder::{Builder, LvnKey, op_key, same_op};
use crate::ir::{BinaryOp, Cmp, Inst, Operand, Type, UnaryOp};
use crate::span::Span;

pub fn fold_unary(op: UnaryOp, a: Operand) -> Option<Operand> {
    Some(match (op, a) {
        (UnaryOp::INeg, Operand::Int(x)) => Operand::Int(x.wrapping_neg()),
        (UnaryOp::FNeg, Operand::Float(x)) => Operand::Float(-x),
        (UnaryOp::Not, Operand::Bool(x)) => Operand::Bool(!x),
        (UnaryOp::IntToFloat, Operand::Int(x)) => Operand::Float(x as f64),
        (UnaryOp::FloatToInt, Operand::Float(x)) => Operand::Int(x as i64),
        _ => return None,
    })
}

fn cmp_ord<T: PartialOrd>(c: Cmp, a: T, b: T) -> bool {
    match c {
        Cmp::Eq => a == b,
        Cmp::Ne => a != b,
        Cmp::Lt | Cmp::Ult => a < b,
        Cmp::Le => a <= b,
        Cmp::Gt => a > b,
        Cmp::Ge => a >= b,
    }
}

/// Integer semantics of the IR (see [`BinaryOp`]). `None` for a zero
/// divisor.
pub fn int_binary(op: BinaryOp, x: i64, y: i64) -> Option<i64> {
    Some(match op {
        BinaryOp::IAdd => x.wrapping_add(y),
        BinaryOp::ISub => x.wrapping_sub(y),
        BinaryOp::IMul => x.wrapping_mul(y),
        BinaryOp::IDiv => {
            if y == 0 {
                return None;
            }
            x.wrapping_div(y)
        }
        BinaryOp::IRem => {
            if y == 0 {
                return None;
            }
            x.wrapping_rem(y)
        }
        BinaryOp::IAnd => x & y,
        BinaryOp::IOr => x | y,
        BinaryOp::IXor => x ^ y,
        BinaryOp::IShl => x.wrapping_shl((y & 63) as u32),
        BinaryOp::IShr => x.wrapping_shr((y & 63) as u32),
        _ => return None,
    })
}

pub fn fold_binary(op: BinaryOp, a: Operand, b: Operand) -> Option<Operand> {
    use Operand::*;
    match (op, a, b) {
        (BinaryOp::ICmp(c), Int(x), Int(y)) => {
            let r = if c == Cmp::Ult { (x as u64) < (y as u64) } else { cmp_ord(c, x, y) };
            Some(Bool(r))
        }
        (BinaryOp::ICmp(Cmp::Eq), Bool(x), Bool(y)) => Some(Bool(x == y)),
        (BinaryOp::ICmp(Cmp::Ne), Bool(x), Bool(y)) => Some(Bool(x != y)),
        (BinaryOp::ICmp(Cmp::Eq), Nil, Nil) => Some(Bool(true)),
        (BinaryOp::ICmp(Cmp::Ne), Nil, Nil) => Some(Bool(false)),
        (BinaryOp::FCmp(c), Float(x), Float(y)) => Some(Bool(cmp_ord(c, x, y))),
        (BinaryOp::FAdd, Float(x), Float(y)) => Some(Float(x + y)),
        (BinaryOp::FSub, Float(x), Float(y)) => Some(Float(x - y)),
        (BinaryOp::FMul, Float(x), Float(y)) => Some(Float(x * y)),
        (BinaryOp::FDiv, Float(x), Float(y)) => Some(Float(x / y)),
        (BinaryOp::FRem, Float(x), Float(y)) => Some(Float(x % y)),
        (op, Int(x), Int(y)) => int_binary(op, x, y).map(Int),
        // Identities that hold for every value of the other operand.
        (
            BinaryOp::IAdd | BinaryOp::ISub | BinaryOp::IOr | BinaryOp::IXor | BinaryOp::IShl | BinaryOp::IShr,
            x,
            Int(0),
        ) => Some(x),
        (BinaryOp::IAdd | BinaryOp::IOr | BinaryOp::IXor, Int(0), y) => Some(y),
        (BinaryOp::IMul | BinaryOp::IDiv, x, Int(1)) => Some(x),
        (BinaryOp::IMul, Int(1), y) => Some(y),
        (BinaryOp::IMul | BinaryOp::IAnd, _, Int(0)) | (BinaryOp::IMul | BinaryOp::IAnd, Int(0), _) => Some(Int(0)),
        (BinaryOp::IRem, _, Int(1) | Int(-1)) => Some(Int(0)),
        (BinaryOp::IAnd, x, Int(-1)) => Some(x),
        (BinaryOp::IAnd, Int(-1), y) => Some(y),
        (BinaryOp::ISub | BinaryOp::IXor, x, y) if same_op(x, y) && matches!(x, Value(_) | Arg(_)) => Some(Int(0)),
        (BinaryOp::IAnd | BinaryOp::IOr, x, y) if same_op(x, y) => Some(x),
        (BinaryOp::ICmp(c), x, y) if same_op(x, y) && matches!(x, Value(_) | Arg(_)) => {
            Some(Bool(matches!(c, Cmp::Eq | Cmp::Le | Cmp::Ge)))
        }
        _ => None,
    }
}

fn commutative(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::IAdd
            | BinaryOp::IMul
            | BinaryOp::IAnd
            | BinaryOp::IOr
            | BinaryOp::IXor
            | BinaryOp::ICmp(Cmp::Eq)
            | BinaryOp::ICmp(Cmp::Ne)
    )
}

impl Builder {
    /// A pure unary operation: folded, or numbered locally.
    pub fn unary(&mut self, op: UnaryOp, a: Operand, ty: Type, span: Span) -> Operand {
        let a = self.resolve(a);
        if let Some(v) = fold_unary(op, a) {
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
    pub fn binary(&mut self, op: BinaryOp, a: Operand, b: Operand, ty: Type, span: Span) -> Operand {
        let (mut a, mut b) = (self.resolve(a), self.resolve(b));
        if let Some(v) = fold_binary(op, a, b) {
            return v;
        }
        if commutative(op) && is_const(a) && !is_const(b) {
            std::mem::swap(&mut a, &mut b);
        }
        let (ka, kb) = (op_key(a), op_key(b));
        let key = if commutative(op) && !is_const(a) && !is_const(b) && kb < ka {
            LvnKey::Binary(op, kb, ka)
        } else {
            LvnKey::Binary(op, ka, kb)
        };
        self.push_pure(key, Inst::Binary(op, a, b), ty, span)
    }

    /// A string constant, shared within a block.
    pub fn str_const(&mut self, s: &str, span: Span) -> Operand {
        self.push_pure(LvnKey::Str(s.into()), Inst::StrConst(s.into()), Type::Str, span)
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
        assert_eq!(f(BinaryOp::IDiv, i64::MIN, -1), Some(Operand::Int(i64::MIN)));
        assert_eq!(f(BinaryOp::IRem, i64::MIN, -1), Some(Operand::Int(0)));
        assert_eq!(f(BinaryOp::IDiv, 7, 0), None);
        assert_eq!(f(BinaryOp::IShl, 1, 65), Some(Operand::Int(2)));
        assert_eq!(f(BinaryOp::IShr, -8, 1), Some(Operand::Int(-4)));
        assert_eq!(f(BinaryOp::ICmp(Cmp::Ult), -1, 3), Some(Operand::Bool(false)));
        assert_eq!(fold_unary(UnaryOp::FloatToInt, Operand::Float(f64::NAN)), Some(Operand::Int(0)));
        assert_eq!(fold_unary(UnaryOp::FloatToInt, Operand::Float(1e300)), Some(Operand::Int(i64::MAX)));
        assert_eq!(
            fold_binary(BinaryOp::FCmp(Cmp::Ne), Operand::Float(f64::NAN), Operand::Float(f64::NAN)),
            Some(Operand::Bool(true))
        );
    }
}
