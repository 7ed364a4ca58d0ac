//! The guard of a versioned loop: indices as affine forms `A + B*k` of the
//! induction variable `k`, and the one boolean, computed in the preheader,
//! that holds only when every index of every iteration is in bounds.
//!
//! **Why the guard is exact although Toy's ints wrap.** `A` and `B` are
//! built from loop-invariant operands with the same wrapping `+ - *` the
//! loop uses, so each index equals `A + B*k` modulo 2⁶⁴ (wrapping is a ring
//! homomorphism). The guard first requires `A`, `B`, the first `k` and the
//! last `k` to lie in `[-2³¹, 2³¹)` ([`SMALL`]); then `A + B*k` is below
//! 2⁶² + 2³¹ in magnitude for every `k` between them, so computing it
//! wraps nowhere, and the index *is* that integer. An affine function of
//! `k` is monotone, so its extremes are at the two ends of the range:
//! both ends `>= 0` and `<ᵤ len` mean every iteration's index is.

use crate::ir::blocks::BStmt;
use crate::ir::edit::default_flags;
use crate::ir::{BinaryOp, Cmp, Inst, IrCode, Operand, Type, Value};
use crate::span::Span;

/// The magnitude bound of the guard's operands (see the module doc).
pub const SMALL: i64 = 1 << 31;

/// How deep [`affine`] looks into an index expression.
const MAX_DEPTH: u32 = 16;

/// A loop-invariant int expression to compute in the preheader; constants
/// are folded as they are built.
#[derive(Clone, Debug, PartialEq)]
pub enum Sym {
    Op(Operand),
    Bin(BinaryOp, Box<Sym>, Box<Sym>),
}

const ZERO: Sym = Sym::Op(Operand::Int(0));
const ONE: Sym = Sym::Op(Operand::Int(1));

impl Sym {
    fn int(&self) -> Option<i64> {
        match self {
            Sym::Op(Operand::Int(c)) => Some(*c),
            _ => None,
        }
    }

    /// `a op b` for `IAdd`, `ISub` and `IMul`, wrapping like the IR.
    pub fn bin(op: BinaryOp, a: Sym, b: Sym) -> Sym {
        if let (Some(x), Some(y)) = (a.int(), b.int()) {
            let v = match op {
                BinaryOp::IAdd => x.wrapping_add(y),
                BinaryOp::ISub => x.wrapping_sub(y),
                _ => x.wrapping_mul(y),
            };
            return Sym::Op(Operand::Int(v));
        }
        match (op, a.int(), b.int()) {
            (BinaryOp::IAdd, Some(0), _) => b,
            (BinaryOp::IAdd | BinaryOp::ISub, _, Some(0)) => a,
            (BinaryOp::IMul, Some(0), _) | (BinaryOp::IMul, _, Some(0)) => ZERO,
            (BinaryOp::IMul, Some(1), _) => b,
            (BinaryOp::IMul, _, Some(1)) => a,
            _ => Sym::Bin(op, Box::new(a), Box::new(b)),
        }
    }
}

/// An index `a + b*k`.
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    pub a: Sym,
    pub b: Sym,
}

/// What [`affine`] needs to know about the loop.
pub struct LoopView<'a> {
    pub ir: &'a IrCode,
    /// The induction variable (the header φ).
    pub iv: Value,
    /// Whether an operand is defined outside the loop (constants are).
    pub invariant: &'a dyn Fn(&Operand) -> bool,
}

/// `o` as an affine form of the induction variable with invariant
/// coefficients, or `None`.
pub fn affine(v: &LoopView, o: Operand, depth: u32) -> Option<Affine> {
    if o == Operand::Value(v.iv) {
        return Some(Affine { a: ZERO, b: ONE });
    }
    if (v.invariant)(&o) {
        return Some(Affine {
            a: Sym::Op(o),
            b: ZERO,
        });
    }
    if depth > MAX_DEPTH {
        return None;
    }
    let Operand::Value(x) = o else { return None };
    match v.ir.stmts.get(x)? {
        Inst::Copy(y) => affine(v, *y, depth + 1),
        Inst::Binary(op @ (BinaryOp::IAdd | BinaryOp::ISub), l, r) => {
            let (l, r) = (affine(v, *l, depth + 1)?, affine(v, *r, depth + 1)?);
            Some(Affine {
                a: Sym::bin(*op, l.a, r.a),
                b: Sym::bin(*op, l.b, r.b),
            })
        }
        Inst::Binary(BinaryOp::IMul, l, r) => {
            let (l, r) = (affine(v, *l, depth + 1)?, affine(v, *r, depth + 1)?);
            let (c, f) = match (l.b == ZERO, r.b == ZERO) {
                (_, true) => (r.a, l),
                (true, false) => (l.a, r),
                (false, false) => return None,
            };
            Some(Affine {
                a: Sym::bin(BinaryOp::IMul, f.a, c.clone()),
                b: Sym::bin(BinaryOp::IMul, f.b, c),
            })
        }
        _ => None,
    }
}

/// Statements of the guard, appended to the preheader.
pub struct Emit<'a> {
    pub stmts: Vec<BStmt>,
    pub span: Span,
    pub fresh: &'a mut dyn FnMut() -> Value,
    /// The conjuncts so far (a constant `false` makes the guard useless).
    conds: Vec<Operand>,
    never: bool,
}

impl<'a> Emit<'a> {
    pub fn new(span: Span, fresh: &'a mut dyn FnMut() -> Value) -> Emit<'a> {
        Emit {
            stmts: Vec::new(),
            span,
            fresh,
            conds: Vec::new(),
            never: false,
        }
    }

    fn push(&mut self, inst: Inst, ty: Type) -> Operand {
        let id = (self.fresh)();
        self.stmts.push(BStmt {
            id,
            flags: default_flags(&inst),
            inst,
            ty,
            span: self.span,
            name: None,
        });
        Operand::Value(id)
    }

    /// The value of `s`.
    pub fn sym(&mut self, s: &Sym) -> Operand {
        match s {
            Sym::Op(o) => *o,
            Sym::Bin(op, a, b) => {
                let (a, b) = (self.sym(a), self.sym(b));
                self.push(Inst::Binary(*op, a, b), Type::Int)
            }
        }
    }

    /// Adds the conjunct `cmp(a, b)`, folded when both are constants.
    pub fn require(&mut self, cmp: Cmp, a: Operand, b: Operand) {
        if let (Operand::Int(x), Operand::Int(y)) = (a, b) {
            let holds = match cmp {
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Ge => x >= y,
                Cmp::Ult => (x as u64) < (y as u64),
                _ => false,
            };
            self.never |= !holds;
            return;
        }
        let c = self.push(Inst::Binary(BinaryOp::ICmp(cmp), a, b), Type::Bool);
        self.conds.push(c);
    }

    /// Requires `-2³¹ <= x < 2³¹`: `x + 2³¹ <ᵤ 2³²` (exact with wrapping).
    pub fn require_small(&mut self, x: Operand) {
        if let Operand::Int(c) = x {
            self.never |= !(-SMALL..SMALL).contains(&c);
            return;
        }
        let s = self.push(
            Inst::Binary(BinaryOp::IAdd, x, Operand::Int(SMALL)),
            Type::Int,
        );
        self.require(Cmp::Ult, s, Operand::Int(2 * SMALL));
    }

    /// Requires `0 <= a + b*k < len` (unsigned `<`) for `k` = `first` and
    /// `last`; `a`, `b`, `first` and `last` must be required small.
    pub fn require_in_bounds(&mut self, f: &Affine, first: Operand, last: Operand, len: Operand) {
        let a = self.sym(&f.a);
        let b = self.sym(&f.b);
        self.require_small(a);
        self.require_small(b);
        for k in [first, last] {
            let s = Sym::bin(
                BinaryOp::IAdd,
                Sym::Op(a),
                Sym::bin(BinaryOp::IMul, Sym::Op(b), Sym::Op(k)),
            );
            let x = self.sym(&s);
            self.require(Cmp::Ge, x, Operand::Int(0));
            self.require(Cmp::Ult, x, len);
        }
    }

    /// The guard: the conjunction of everything required, or `None` when
    /// a constant conjunct is false.
    pub fn finish(mut self) -> Option<(Vec<BStmt>, Operand)> {
        if self.never {
            return None;
        }
        let mut conds = std::mem::take(&mut self.conds).into_iter();
        let mut g = conds.next().unwrap_or(Operand::Bool(true));
        for c in conds {
            g = self.push(Inst::Binary(BinaryOp::IAnd, g, c), Type::Bool);
        }
        Some((self.stmts, g))
    }
}
