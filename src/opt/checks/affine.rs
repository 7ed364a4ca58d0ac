//! Bounds checks on affine indices: constant ranges of int values, and the
//! two-dimensional rule `i*m + j <ᵤ n*m`.
//!
//! Toy's `+ - *` wrap (LANGUAGE.md), so every rule reasons about the
//! mathematical value and requires that no operation on the way wraps:
//! - [`Facts::range`] computes each operation in `i128` and gives up (the
//!   whole `i64` range) when the exact result may leave `i64`;
//! - the 2-D rule needs the length `p*q` itself not to wrap, shown by
//!   constant ranges of `p` and `q`. Without that the rule is wrong:
//!   `n = m = 2^32` makes `[0; n*m]` empty while `i = j = 0` is in range.

use super::{Facts, Key, MAX_DEPTH};

/// How many nodes [`Facts::range`] visits per check, so that shared
/// subexpressions (`x1 = x0 + x0; x2 = x1 + x1; ..`) cost linear time.
const RANGE_FUEL: u32 = 256;
use crate::ir::{BinaryOp, Fact, Inst, Loc, Operand};

/// An inclusive interval `lo..=hi` holding every value an int operand can
/// have where it is used. `lo > hi` (no value) only on contradictory facts,
/// that is in unreachable code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Range {
    pub lo: i64,
    pub hi: i64,
}

/// Any int (also what a visit past the depth or the fuel gives).
const FULL: Range = Range {
    lo: i64::MIN,
    hi: i64::MAX,
};

impl Range {
    fn exact(c: i64) -> Range {
        Range { lo: c, hi: c }
    }

    /// The interval of the exact results `lo..=hi`, or `None` if one of
    /// them is not an `i64` (the operation may wrap).
    fn fits(lo: i128, hi: i128) -> Option<Range> {
        Some(Range {
            lo: i64::try_from(lo).ok()?,
            hi: i64::try_from(hi).ok()?,
        })
    }

    fn meet(self, o: Range) -> Range {
        Range {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    /// `self op o`: for `+ - *` without wrapping (`None` if it may wrap);
    /// for `& | ^ % / >>`, which cannot wrap, what the operands' ranges
    /// allow (`None` when they allow any int).
    fn binary(self, op: BinaryOp, o: Range) -> Option<Range> {
        let (a, b, c, d) = (self.lo as i128, self.hi as i128, o.lo as i128, o.hi as i128);
        match op {
            BinaryOp::IAdd => Range::fits(a + c, b + d),
            BinaryOp::ISub => Range::fits(a - d, b - c),
            BinaryOp::IMul => {
                let p = [a * c, a * d, b * c, b * d];
                Range::fits(*p.iter().min()?, *p.iter().max()?)
            }
            BinaryOp::IAnd => self.and(o),
            BinaryOp::IOr | BinaryOp::IXor => self.or_xor(o),
            BinaryOp::IRem => self.rem(o),
            BinaryOp::IDiv => self.div(o),
            BinaryOp::IShr => Some(self.shr(o)),
            _ => None,
        }
    }

    /// `x & y`: with one operand `>= 0`, the result has no bit that operand
    /// lacks (the sign bit included), so it lies in `0..=` that operand's
    /// maximum.
    fn and(self, o: Range) -> Option<Range> {
        let hi = match (self.lo >= 0, o.lo >= 0) {
            (true, true) => self.hi.min(o.hi),
            (true, false) => self.hi,
            (false, true) => o.hi,
            (false, false) => return None,
        };
        Some(Range { lo: 0, hi })
    }

    /// `x | y` and `x ^ y` of two operands `>= 0`: no bit above the highest
    /// bit of the larger maximum.
    fn or_xor(self, o: Range) -> Option<Range> {
        if self.lo < 0 || o.lo < 0 {
            return None;
        }
        let top = self.hi.max(o.hi);
        let bits = 64 - top.leading_zeros();
        Some(Range {
            lo: 0,
            hi: ((1i128 << bits) - 1) as i64,
        })
    }

    /// `x % y` with `y >= 1`: `|x % y| < y`, with the sign of `x`
    /// (truncating division), and never further from zero than `x`.
    fn rem(self, o: Range) -> Option<Range> {
        if o.lo < 1 {
            return None;
        }
        let m = o.hi - 1;
        Some(Range {
            lo: if self.lo >= 0 { 0 } else { self.lo.max(-m) },
            hi: if self.hi <= 0 { 0 } else { self.hi.min(m) },
        })
    }

    /// `x / y` with `x >= 0` and `y >= 1`: truncation is monotone there.
    fn div(self, o: Range) -> Option<Range> {
        if self.lo < 0 || o.lo < 1 {
            return None;
        }
        Some(Range {
            lo: self.lo / o.hi,
            hi: self.hi / o.lo,
        })
    }

    /// `x >> k`, arithmetic, the count taken mod 64: monotone in `x` for
    /// a known count; for any count it moves `x` toward 0 or -1.
    fn shr(self, o: Range) -> Range {
        if o.lo == o.hi {
            let k = (o.lo & 63) as u32;
            return Range {
                lo: self.lo >> k,
                hi: self.hi >> k,
            };
        }
        Range {
            lo: self.lo.min(0),
            hi: self.hi.max(-1),
        }
    }
}

impl<'a> Facts<'a> {
    /// A constant range of the int `o`: from constants, the π facts on its
    /// chain, array lengths (`>= 0`, or the constant of a stable fresh
    /// array's length), loop-variable lower bounds ([`Facts::lower`]),
    /// `+ - *` that cannot wrap, and `& | ^ % / >>` ([`Range::binary`]).
    pub(super) fn range(&self, o: Operand, depth: u32) -> Range {
        let fuel = self.range_fuel.get();
        if depth > MAX_DEPTH || fuel == 0 {
            return FULL;
        }
        self.range_fuel.set(fuel - 1);
        let inst = match o {
            Operand::Int(c) => return Range::exact(c),
            Operand::Value(_) => self.inst(&o),
            _ => None,
        };
        let own = match inst {
            Some(Inst::Copy(a)) => self.range(*a, depth + 1),
            Some(Inst::Pi { value, fact }) => {
                let mut r = self.range(*value, depth + 1);
                if let Fact::Range { lo, hi } = fact {
                    if let Some(l) = lo {
                        r.lo = r.lo.max(self.range(*l, depth + 1).lo);
                    }
                    if let Some(h) = hi {
                        r.hi = r.hi.min(self.range(*h, depth + 1).hi.saturating_sub(1));
                    }
                }
                r
            }
            Some(Inst::Load {
                loc: Loc::ArrayLen, ..
            }) => {
                let len = Range {
                    lo: 0,
                    hi: i64::MAX,
                };
                match self.key(o, depth + 1) {
                    Key::Op(k) if k != self.root(o) => len.meet(self.range(k, depth + 1)),
                    _ => len,
                }
            }
            Some(Inst::Binary(op, a, b)) => {
                let (ra, rb) = (self.range(*a, depth + 1), self.range(*b, depth + 1));
                ra.binary(*op, rb).unwrap_or(FULL)
            }
            _ => FULL,
        };
        match self.lower(o, depth + 1) {
            Some(l) => own.meet(Range {
                lo: l,
                hi: i64::MAX,
            }),
            None => own,
        }
    }

    /// Whether `0 <= x < y` by constant ranges: `a[i*20 + j]` of
    /// `a = [0; 200]` in `for i in 0..10 { for j in 0..20 { .. } }`.
    pub(super) fn in_bounds_by_range(&self, x: Operand, y: Operand) -> bool {
        self.range_fuel.set(RANGE_FUEL);
        let r = self.range(x, 0);
        r.lo >= 0 && r.hi < self.range(y, 0).lo
    }

    /// Whether `0 <= x < y` where `x` is `i*m + j` (operands in any order)
    /// and `y` is, as a [`Key`], the length `p*q` of a fresh stable array:
    /// `0 <= i < n`, `0 <= j < m` and `{n, m}` is `{p, q}`. Then
    /// `i*m + j <= (n-1)*m + m-1 = n*m - 1` exactly, provided `p*q` does not
    /// wrap, which constant ranges of `p` and `q` must show.
    pub(super) fn in_bounds_2d(&self, x: Operand, y: Operand) -> bool {
        self.range_fuel.set(RANGE_FUEL);
        let Key::Op(len) = self.key(y, 0) else {
            return false;
        };
        let Some(Inst::Binary(BinaryOp::IMul, p, q)) = self.inst(&len) else {
            return false;
        };
        let (p, q) = (*p, *q);
        let (rp, rq) = (self.range(p, 1), self.range(q, 1));
        if rp.binary(BinaryOp::IMul, rq).is_none() {
            return false;
        }
        let Some(Inst::Binary(BinaryOp::IAdd, a, b)) = self.inst(&self.root(x)) else {
            return false;
        };
        [(*a, *b), (*b, *a)].into_iter().any(|(prod, j)| {
            let Some(Inst::Binary(BinaryOp::IMul, u, v)) = self.inst(&self.root(prod)) else {
                return false;
            };
            [(*u, *v), (*v, *u)].into_iter().any(|(i, m)| {
                [(p, q), (q, p)].into_iter().any(|(n, m2)| {
                    self.key(m, 1) == self.key(m2, 1)
                        && self.range(i, 1).lo >= 0
                        && self.lt(i, n, 1)
                        && self.range(j, 1).lo >= 0
                        && self.lt(j, m2, 1)
                })
            })
        })
    }
}
