//! Constant evaluation of the pure operations, with LANGUAGE.md's integer
//! semantics: wrapping arithmetic, `MIN / -1 == MIN`, `MIN % -1 == 0`, shift
//! counts mod 64, arithmetic `>>`; floats are IEEE, `FRem` is C `fmod`,
//! float → int truncates and saturates (NaN gives 0). The one definition of
//! these semantics at compile time: SSA construction, SCCP and the IR
//! interpreter all fold with it, so they agree with the JIT.

use crate::ir::{BinaryOp, Cmp, Inst, Operand, Type, UnaryOp};

/// `op a`, or `None` when `a` is not a constant of the right kind.
pub fn unary(op: UnaryOp, a: Operand) -> Option<Operand> {
    Some(match (op, a) {
        (UnaryOp::INeg, Operand::Int(x)) => Operand::Int(x.wrapping_neg()),
        (UnaryOp::FNeg, Operand::Float(x)) => Operand::Float(-x),
        (UnaryOp::Not, Operand::Bool(x)) => Operand::Bool(!x),
        (UnaryOp::IntToFloat, Operand::Int(x)) => Operand::Float(x as f64),
        (UnaryOp::FloatToInt, Operand::Float(x)) => Operand::Int(x as i64),
        _ => return None,
    })
}

fn cmp<T: PartialOrd>(c: Cmp, x: T, y: T) -> bool {
    match c {
        Cmp::Eq => x == y,
        Cmp::Ne => x != y,
        Cmp::Lt | Cmp::Ult => x < y,
        Cmp::Le => x <= y,
        Cmp::Gt => x > y,
        Cmp::Ge => x >= y,
    }
}

/// `a op b`, or `None` when not foldable: non-constant operands, or an
/// integer division/remainder by zero (that must still raise at run time,
/// so it is never folded away).
pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Option<Operand> {
    use Operand::{Bool, Float, Int, Nil};
    Some(match (op, a, b) {
        (BinaryOp::IAdd, Int(x), Int(y)) => Int(x.wrapping_add(y)),
        (BinaryOp::ISub, Int(x), Int(y)) => Int(x.wrapping_sub(y)),
        (BinaryOp::IMul, Int(x), Int(y)) => Int(x.wrapping_mul(y)),
        (BinaryOp::IDiv, Int(x), Int(y)) if y != 0 => Int(x.wrapping_div(y)),
        (BinaryOp::IRem, Int(x), Int(y)) if y != 0 => Int(x.wrapping_rem(y)),
        (BinaryOp::IAnd, Int(x), Int(y)) => Int(x & y),
        (BinaryOp::IOr, Int(x), Int(y)) => Int(x | y),
        (BinaryOp::IXor, Int(x), Int(y)) => Int(x ^ y),
        (BinaryOp::IAnd, Bool(x), Bool(y)) => Bool(x & y),
        (BinaryOp::IOr, Bool(x), Bool(y)) => Bool(x | y),
        (BinaryOp::IXor, Bool(x), Bool(y)) => Bool(x ^ y),
        (BinaryOp::IShl, Int(x), Int(y)) => Int(x.wrapping_shl((y & 63) as u32)),
        (BinaryOp::IShr, Int(x), Int(y)) => Int(x.wrapping_shr((y & 63) as u32)),
        (BinaryOp::FAdd, Float(x), Float(y)) => Float(x + y),
        (BinaryOp::FSub, Float(x), Float(y)) => Float(x - y),
        (BinaryOp::FMul, Float(x), Float(y)) => Float(x * y),
        (BinaryOp::FDiv, Float(x), Float(y)) => Float(x / y),
        (BinaryOp::FRem, Float(x), Float(y)) => Float(x % y),
        (BinaryOp::ICmp(Cmp::Ult), Int(x), Int(y)) => Bool((x as u64) < (y as u64)),
        (BinaryOp::ICmp(c), Int(x), Int(y)) => Bool(cmp(c, x, y)),
        (BinaryOp::ICmp(c @ (Cmp::Eq | Cmp::Ne)), Bool(x), Bool(y)) => Bool(cmp(c, x, y)),
        (BinaryOp::ICmp(c @ (Cmp::Eq | Cmp::Ne)), Nil, Nil) => Bool(c == Cmp::Eq),
        (BinaryOp::FCmp(c), Float(x), Float(y)) => Bool(cmp(c, x, y)),
        _ => return None,
    })
}

/// `a op b` simplified: folded to a constant ([`binary`]) or, by an
/// algebraic identity that holds for every value of the other operand, to
/// a constant or to one of the operands (`x + 0`, `x * 1`, `x & 0`,
/// `x - x`, `x == x`, ...). `ty` is the operation's result type: `x ^ x`
/// is `false` on `bool`, `0` on `int`. Never folds an integer division or
/// remainder by zero (it must raise at run time). Floats have no identity
/// here: `x + 0.0` is not `x` for `x = -0.0`, and `x == x` is false for NaN.
pub fn simplify_binary(op: BinaryOp, a: Operand, b: Operand, ty: &Type) -> Option<Operand> {
    use Operand::*;
    if let Some(c) = binary(op, a, b) {
        return Some(c);
    }
    let is_var = |x: Operand| matches!(x, Value(_) | Arg(_));
    match (op, a, b) {
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
        (BinaryOp::ISub | BinaryOp::IXor, x, y) if x == y && is_var(x) => {
            Some(if *ty == Type::Bool {
                Bool(false)
            } else {
                Int(0)
            })
        }
        (BinaryOp::IAnd | BinaryOp::IOr, x, y) if x == y => Some(x),
        (BinaryOp::ICmp(c), x, y) if x == y && is_var(x) => {
            Some(Bool(matches!(c, Cmp::Eq | Cmp::Le | Cmp::Ge)))
        }
        _ => None,
    }
}

/// What a pure operation is, its operands being what they are: a constant
/// or one of its operands ([`unary`], [`simplify_binary`]); `None` for any
/// other statement or when nothing simplifies. `ty` is its type.
pub fn simplify(inst: &Inst, ty: &Type) -> Option<Operand> {
    match *inst {
        Inst::Unary(op, a) => unary(op, a),
        Inst::Binary(op, a, b) => simplify_binary(op, a, b, ty),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_keep_the_operation_s_type() {
        let (x, y) = (Operand::Value(crate::ir::Value(3)), Operand::Arg(0));
        let s = |op, a, b, ty| simplify_binary(op, a, b, &ty);
        assert_eq!(s(BinaryOp::IXor, x, x, Type::Int), Some(Operand::Int(0)));
        assert_eq!(
            s(BinaryOp::IXor, x, x, Type::Bool),
            Some(Operand::Bool(false))
        );
        assert_eq!(s(BinaryOp::IAdd, x, Operand::Int(0), Type::Int), Some(x));
        assert_eq!(s(BinaryOp::IAnd, y, y, Type::Bool), Some(y));
        assert_eq!(
            s(BinaryOp::ICmp(Cmp::Ult), y, y, Type::Bool),
            Some(Operand::Bool(false))
        );
        assert_eq!(s(BinaryOp::IAdd, x, y, Type::Int), None);
        // Never a division by zero, and no float identity.
        assert_eq!(s(BinaryOp::IDiv, x, Operand::Int(0), Type::Int), None);
        assert_eq!(
            s(BinaryOp::IMul, Operand::Int(0), x, Type::Int),
            Some(Operand::Int(0))
        );
        assert_eq!(s(BinaryOp::FAdd, x, Operand::Float(0.0), Type::Float), None);
        assert_eq!(s(BinaryOp::FCmp(Cmp::Eq), x, x, Type::Bool), None);
    }

    #[test]
    fn folds_follow_ir_semantics() {
        let f = |op, x, y| simplify_binary(op, Operand::Int(x), Operand::Int(y), &Type::Int);
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
            unary(UnaryOp::FloatToInt, Operand::Float(f64::NAN)),
            Some(Operand::Int(0))
        );
        assert_eq!(
            unary(UnaryOp::FloatToInt, Operand::Float(1e300)),
            Some(Operand::Int(i64::MAX))
        );
        assert_eq!(
            simplify_binary(
                BinaryOp::FCmp(Cmp::Ne),
                Operand::Float(f64::NAN),
                Operand::Float(f64::NAN),
                &Type::Bool
            ),
            Some(Operand::Bool(true))
        );
    }
}
