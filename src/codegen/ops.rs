//! Lowering of the pure unary and binary operations with Toy semantics.

use super::const_div;
use crate::ir::{BinaryOp, Cmp, Inst, Operand, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

pub fn unary(b: &mut FunctionBuilder, op: UnaryOp, x: Value) -> Value {
    match op {
        UnaryOp::INeg => b.ins().ineg(x),
        UnaryOp::FNeg => b.ins().fneg(x),
        UnaryOp::Not => b.ins().bxor_imm_s(x, 1),
        UnaryOp::IntToFloat => b.ins().fcvt_from_sint(types::F64, x),
        // Truncates toward zero, saturates, NaN gives 0.
        UnaryOp::FloatToInt => b.ins().fcvt_to_sint_sat(types::I64, x),
    }
}

fn int_cc(c: Cmp) -> IntCC {
    match c {
        Cmp::Eq => IntCC::Equal,
        Cmp::Ne => IntCC::NotEqual,
        Cmp::Lt => IntCC::SignedLessThan,
        Cmp::Le => IntCC::SignedLessThanOrEqual,
        Cmp::Gt => IntCC::SignedGreaterThan,
        Cmp::Ge => IntCC::SignedGreaterThanOrEqual,
        Cmp::Ult => IntCC::UnsignedLessThan,
    }
}

fn float_cc(c: Cmp) -> Result<FloatCC, String> {
    Ok(match c {
        Cmp::Eq => FloatCC::Equal,
        // True when unordered (NaN), as IEEE `!=`.
        Cmp::Ne => FloatCC::NotEqual,
        Cmp::Lt => FloatCC::LessThan,
        Cmp::Le => FloatCC::LessThanOrEqual,
        Cmp::Gt => FloatCC::GreaterThan,
        Cmp::Ge => FloatCC::GreaterThanOrEqual,
        Cmp::Ult => return Err("`ult` on floats".into()),
    })
}

/// The operand `x` when `op(a, b)` is `x * 2.0` or `2.0 * x`, which is
/// exactly `x + x` (the same rounding, sign of zero, infinity and NaN):
/// one `fadd` instead of a multiply by a constant that Cranelift
/// rematerialises in every block using it (two instructions on x86-64).
/// LuaJIT's fold engine makes the same rewrite.
pub fn doubled<'o>(op: BinaryOp, a: &'o Operand, b: &'o Operand) -> Option<&'o Operand> {
    match (op, a, b) {
        (BinaryOp::FMul, Operand::Float(c), x) | (BinaryOp::FMul, x, Operand::Float(c))
            if *c == 2.0 =>
        {
            Some(x)
        }
        _ => None,
    }
}

/// The right operand of a [`binary`] operation: a value, or an int
/// constant, made an `iconst` only where the lowering uses it (a
/// multiplication by `2^k` is a shift by `k`, a division by a constant a
/// multiply by a magic number: no `iconst` of the operand is left dead).
#[derive(Clone, Copy)]
pub enum Rhs {
    Value(Value),
    Int(i64),
}

impl Rhs {
    fn value(self, b: &mut FunctionBuilder) -> Value {
        match self {
            Rhs::Value(v) => v,
            Rhs::Int(c) => b.ins().iconst(types::I64, c),
        }
    }

    fn int(self) -> Option<i64> {
        match self {
            Rhs::Int(c) => Some(c),
            Rhs::Value(_) => None,
        }
    }
}

/// A binary operation `x op rhs`; a constant `rhs` needs no `-1` guard in
/// a division, and with `optimize` no divide instruction
/// ([`super::const_div`]). `FRem` is not handled here (it is a runtime
/// call).
pub fn binary(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    x: Value,
    rhs: Rhs,
    optimize: bool,
) -> Result<Value, String> {
    if let Some(c) = rhs.int()
        && let Some(v) = by_constant(b, op, x, c, optimize)
    {
        return Ok(v);
    }
    let y = rhs.value(b);
    let nonzero_const = rhs.int().is_some_and(|c| c != 0);
    Ok(match op {
        BinaryOp::IAdd => b.ins().iadd(x, y),
        BinaryOp::ISub => b.ins().isub(x, y),
        BinaryOp::IMul => b.ins().imul(x, y),
        BinaryOp::IDiv if nonzero_const => b.ins().sdiv(x, y),
        BinaryOp::IDiv => {
            // MIN / -1 == MIN: divide by 1 instead and negate (wrapping).
            let is_m1 = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            let one = b.ins().iconst(types::I64, 1);
            let safe = b.ins().select(is_m1, one, y);
            let q = b.ins().sdiv(x, safe);
            let neg = b.ins().ineg(x);
            b.ins().select(is_m1, neg, q)
        }
        BinaryOp::IRem if nonzero_const => b.ins().srem(x, y),
        BinaryOp::IRem => {
            // MIN % -1 == 0 == MIN % 1.
            let is_m1 = b.ins().icmp_imm_s(IntCC::Equal, y, -1);
            let one = b.ins().iconst(types::I64, 1);
            let safe = b.ins().select(is_m1, one, y);
            b.ins().srem(x, safe)
        }
        BinaryOp::IAnd => b.ins().band(x, y),
        BinaryOp::IOr => b.ins().bor(x, y),
        BinaryOp::IXor => b.ins().bxor(x, y),
        // Cranelift takes shift counts modulo the type width (64).
        BinaryOp::IShl => b.ins().ishl(x, y),
        BinaryOp::IShr => b.ins().sshr(x, y),
        BinaryOp::FAdd => b.ins().fadd(x, y),
        BinaryOp::FSub => b.ins().fsub(x, y),
        BinaryOp::FMul => b.ins().fmul(x, y),
        BinaryOp::FDiv => b.ins().fdiv(x, y),
        BinaryOp::FRem => return Err("`frem` must be lowered as a runtime call".into()),
        BinaryOp::ICmp(c) => b.ins().icmp(int_cc(c), x, y),
        BinaryOp::FCmp(c) => b.ins().fcmp(float_cc(c)?, x, y),
    })
}

/// `x op c` where the constant `c` itself is not an operand of the
/// lowering: a division or remainder by -1, and with `optimize` a
/// multiplication by `2^k` (a shift) and a division or remainder by
/// `|c| >= 2` ([`super::const_div`]).
fn by_constant(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    x: Value,
    c: i64,
    optimize: bool,
) -> Option<Value> {
    let by_const = optimize && c.unsigned_abs() >= 2;
    match op {
        BinaryOp::IMul if by_const => const_div::shift_for_mul(b, x, c),
        BinaryOp::IDiv if c == -1 => Some(b.ins().ineg(x)),
        BinaryOp::IDiv if by_const => Some(const_div::sdiv(b, x, c)),
        BinaryOp::IRem if c == -1 => Some(b.ins().iconst(types::I64, 0)),
        BinaryOp::IRem if by_const => Some(const_div::srem(b, x, c)),
        _ => None,
    }
}

/// The operands `[a, b, c, d]` when statements `s` and `t` (the next one)
/// are `s = a / b` and `t = c / d` on floats and `t` does not read `s`:
/// two divisions [`fdiv_pair`] runs as one.
pub fn fdiv_pair_operands(
    s_inst: &Inst,
    t_inst: &Inst,
    s: crate::ir::Value,
) -> Option<[Operand; 4]> {
    match (s_inst, t_inst) {
        (Inst::Binary(BinaryOp::FDiv, a, b), Inst::Binary(BinaryOp::FDiv, c, d))
            if ![c, d].contains(&&Operand::Value(s)) =>
        {
            Some([*a, *b, *c, *d])
        }
        _ => None,
    }
}

/// `[x, y]` as an `f64x2`: one `splat` when `x` and `y` are the same
/// value, else a `splat` of `x` whose lane 1 is replaced by `y` (on
/// x86-64 a `movddup` and a `movlhps`; `scalar_to_vector` would zero the
/// upper lane first, one instruction more).
pub fn f64x2(b: &mut FunctionBuilder, [x, y]: [Value; 2]) -> Value {
    let v = b.ins().splat(types::F64X2, x);
    if x == y {
        v
    } else {
        b.ins().insertlane(v, y, 1)
    }
}

/// `(a0 / b0, a1 / b1)` from `num = [a0, a1]` and `den = [b0, b1]` (see
/// [`f64x2`]) by one two-lane division: each lane is the IEEE quotient
/// the scalar division gives (the same rounding, and the same NaN), and a
/// divider takes about as long for two lanes as for one.
pub fn fdiv_pair(b: &mut FunctionBuilder, num: Value, den: Value) -> (Value, Value) {
    let q = b.ins().fdiv(num, den);
    (b.ins().extractlane(q, 0), b.ins().extractlane(q, 1))
}
