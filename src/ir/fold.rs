//! Constant evaluation of the pure operations, with LANGUAGE.md's integer
//! semantics: wrapping arithmetic, `MIN / -1 == MIN`, `MIN % -1 == 0`, shift
//! counts mod 64, arithmetic `>>`; floats are IEEE, `FRem` is C `fmod`,
//! float → int truncates and saturates (NaN gives 0). The one definition of
//! these semantics at compile time: SSA construction, SCCP and the IR
//! interpreter all fold with it, so they agree with the JIT.

use crate::ir::{BinaryOp, Cmp, Operand, UnaryOp};

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
