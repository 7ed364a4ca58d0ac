//! Known low zero bits: a division `x / 2^k` whose dividend has its `k`
//! lowest bits known to be zero is exact, so it becomes the shift
//! `x >> k`, and `x % 2^k` becomes `0` (LLVM's `computeKnownBits`, the
//! trailing zeros only; gcc does the same).
//!
//! Why it holds: `/` truncates toward zero and `>>` is arithmetic, so it
//! rounds toward minus infinity; the two differ only when the division has
//! a remainder, and a multiple of `2^k` has none, for every sign and under
//! wrapping (`i64::MIN / 2 == i64::MIN >> 1`). Only divisors `2^k` with
//! `1 <= k <= 62` are rewritten.
//!
//! The analysis gives every `int` statement a lower bound on its trailing
//! zero bits, in one sweep over the statements in index order; an operand
//! not yet visited (a φ's back edge) counts as 0, which is always true, so
//! the bound is sound without a fixpoint:
//! - a constant `c`: `c.trailing_zeros()` (64 for 0);
//! - `a + b`, `a - b`, `a | b`, `a ^ b`, a φ: the least of the operands';
//! - `a & b`: the larger; `-a`, a copy, a π: `a`'s;
//! - `a * b`: the sum (at most 64), and at least 1 when one factor is the
//!   other plus or minus an odd constant (`x * (x + 1)`: one of two
//!   integers an odd distance apart is even, also modulo `2^64`);
//! - `a << k` (constant `k`): `a`'s plus `k mod 64`;
//! - anything else: 0.
//!
//! Counters: `knownbits.div_to_shift`, `knownbits.rem_to_zero`.

use crate::ir::compact::compact_only;
use crate::ir::{BinaryOp, Inst, IrCode, Operand, UnaryOp, Value};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};
use cranelift_entity::SecondaryMap;

/// Lower bounds on the trailing zero bits of `ir`'s statements.
pub struct TrailingZeros {
    tz: SecondaryMap<Value, u8>,
}

impl TrailingZeros {
    /// The bounds of every statement of `ir` (one sweep, index order).
    pub fn of(ir: &IrCode) -> TrailingZeros {
        let mut this = TrailingZeros {
            tz: crate::ir::sized_map(ir.stmts.len()),
        };
        for (s, inst) in ir.stmts.inst.iter() {
            let tz = this.of_inst(ir, inst);
            this.tz[s] = tz;
        }
        this
    }

    /// The bound of operand `op` (0 for a parameter or a statement not
    /// visited yet).
    pub fn operand(&self, op: &Operand) -> u8 {
        match op {
            Operand::Int(c) => c.trailing_zeros() as u8,
            Operand::Value(v) => self.tz[*v],
            _ => 0,
        }
    }

    fn of_inst(&self, ir: &IrCode, inst: &Inst) -> u8 {
        use BinaryOp::*;
        match inst {
            Inst::Copy(a) | Inst::Pi { value: a, .. } | Inst::Unary(UnaryOp::INeg, a) => {
                self.operand(a)
            }
            Inst::Phi { values, .. } => values.iter().map(|v| self.operand(v)).min().unwrap_or(0),
            Inst::Binary(op, a, b) => {
                let (ta, tb) = (self.operand(a), self.operand(b));
                match op {
                    IAdd | ISub | IOr | IXor => ta.min(tb),
                    IAnd => ta.max(tb),
                    IMul => {
                        let sum = (ta + tb).min(64);
                        if sum == 0 && odd_distance_apart(ir, a, b) {
                            1
                        } else {
                            sum
                        }
                    }
                    IShl => match b {
                        Operand::Int(k) => (ta + (*k & 63) as u8).min(64),
                        _ => 0,
                    },
                    _ => 0,
                }
            }
            _ => 0,
        }
    }
}

/// Whether one of `a`, `b` is the other plus or minus an odd constant.
fn odd_distance_apart(ir: &IrCode, a: &Operand, b: &Operand) -> bool {
    let plus_odd = |x: &Operand, y: &Operand| {
        let Operand::Value(v) = x else { return false };
        match ir.stmts.get(*v) {
            Some(Inst::Binary(BinaryOp::IAdd | BinaryOp::ISub, p, Operand::Int(c))) => {
                c & 1 == 1 && p == y
            }
            Some(Inst::Binary(BinaryOp::IAdd, Operand::Int(c), p)) => c & 1 == 1 && p == y,
            _ => false,
        }
    };
    plus_odd(a, b) || plus_odd(b, a)
}

/// `k` when `d == 2^k` with `1 <= k <= 62` (a positive power of two
/// above 1).
fn power_of_two(d: i64) -> Option<u32> {
    (d > 1 && d.count_ones() == 1).then(|| d.trailing_zeros())
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let known = TrailingZeros::of(ir);
    let (mut shifted, mut zeroed) = (0, 0);
    let mut said = Vec::new();
    for (s, inst) in ir.stmts.inst.iter_mut() {
        let Inst::Binary(op @ (BinaryOp::IDiv | BinaryOp::IRem), x, Operand::Int(d)) = *inst else {
            continue;
        };
        let Some(k) = power_of_two(d) else { continue };
        if u32::from(known.operand(&x)) < k {
            continue;
        }
        if op == BinaryOp::IDiv {
            *inst = Inst::Binary(BinaryOp::IShr, x, Operand::Int(i64::from(k)));
            shifted += 1;
        } else {
            *inst = Inst::Copy(Operand::Int(0));
            zeroed += 1;
        }
        said.push((s, op, x, d, k));
    }
    if ctx.remarks_on() {
        for &(s, op, x, d, k) in &said {
            let at = ir.stmts.span[s];
            ctx.remark(ir, RemarkKind::Passed, at, |desc| {
                let x = desc.operand(&x);
                let (sym, now) = match op {
                    BinaryOp::IDiv => ("/", format!("{x} >> {k}")),
                    _ => ("%", "0".to_string()),
                };
                let why = match k {
                    1 => "its lowest bit is zero".to_string(),
                    _ => format!("its {k} lowest bits are zero"),
                };
                Msg::new(format!("{x} {sym} {d} at "))
                    .at(at)
                    .t(format!(" is {now}: {why}"))
            });
        }
    }
    if zeroed > 0 {
        compact_only(ir);
    }
    ctx.counters.add("knownbits.div_to_shift", shifted);
    ctx.counters.add("knownbits.rem_to_zero", zeroed);
}
