//! Expressions: operators, calls, heap accesses and conditions.
//!
//! Every expression yields an operand of its HIR type (`Int(0)` for `Void`
//! expressions, which have no use). Operands are evaluated left to right;
//! checks (division by zero, bounds, nil, negative length) are explicit
//! branches to cold blocks placed right before the operation they guard.
use super::builder::{Blk, BuildTerm};
use super::lower::{FnLower, PURE};
use crate::ir::{BinaryOp, Cmp, Flags, Inst, Loc, Operand, RaiseKind, RuntimeFn, Type, UnaryOp};
use crate::sema::hir::{BinOp, Expr, ExprKind, FuncId, StructId, Type as T, UnOp};
use crate::span::Span;

fn cmp_of(op: BinOp) -> Option<Cmp> {
    Some(match op {
        BinOp::Eq => Cmp::Eq,
        BinOp::Ne => Cmp::Ne,
        BinOp::Lt => Cmp::Lt,
        BinOp::Le => Cmp::Le,
        BinOp::Gt => Cmp::Gt,
        BinOp::Ge => Cmp::Ge,
        _ => return None,
    })
}

impl FnLower<'_> {
    pub fn expr(&mut self, e: &Expr) -> Operand {
        let span = e.span;
        let ty = &e.ty;
        match &e.kind {
            ExprKind::Int(i) => Operand::Int(*i),
            ExprKind::Float(f) => Operand::Float(*f),
            ExprKind::Bool(b) => Operand::Bool(*b),
            ExprKind::Str(s) => self.b.str_const(s, span),
            ExprKind::Nil => Operand::Nil,
            ExprKind::Local(l) => self.read(l.0),
            ExprKind::Global(g) => self.emit(
                Inst::Load {
                    loc: Loc::Global(*g),
                    base: None,
                    index: None,
                },
                ty.clone(),
                span,
                PURE,
            ),
            ExprKind::Unary(op, a) => {
                let v = self.expr(a);
                let uop = match (op, &a.ty) {
                    (UnOp::Neg, T::Float) => UnaryOp::FNeg,
                    (UnOp::Neg, _) => UnaryOp::INeg,
                    (UnOp::Not, _) => UnaryOp::Not,
                };
                self.b.unary(uop, v, ty.clone(), span)
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a);
                let y = self.expr(b);
                self.binop(*op, x, y, &a.ty, span)
            }
            ExprKind::And(..) | ExprKind::Or(..) => self.short_circuit(e),
            ExprKind::Call { func, args } => self.call(*func, args, ty, span),
            ExprKind::Builtin { builtin, args } => self.builtin(*builtin, args, ty, span),
            ExprKind::Index { base, index } => self.index_load(base, index, ty, span),
            ExprKind::Field {
                object,
                strukt,
                field,
            } => self.field_load(object, *strukt, *field, ty, span),
            ExprKind::ArrayLit(elems) => self.array_lit(elems, ty, span),
            ExprKind::ArrayRepeat { value, count } => self.array_repeat(value, count, ty, span),
            ExprKind::StructLit { strukt, fields } => self.struct_lit(*strukt, fields, ty, span),
        }
    }

    /// A call of a user function; one that may throw is followed by its
    /// exception check ([`FnLower::after_may_throw`]).
    fn call(&mut self, func: FuncId, args: &[Expr], ty: &T, span: Span) -> Operand {
        let args: Vec<Operand> = args.iter().map(|a| self.expr(a)).collect();
        let may_throw = self.may_throw.get(func.0 as usize).copied().unwrap_or(true);
        let flags = if may_throw {
            Flags::default()
        } else {
            Flags::NOTHROW
        };
        let v = self.emit(Inst::Call { func, args }, ty.clone(), span, flags);
        if may_throw {
            self.after_may_throw(span);
        }
        v
    }

    /// `base[index]`, after its bounds check: a `str`'s byte through the
    /// runtime, an array element by a load.
    fn index_load(&mut self, base: &Expr, index: &Expr, ty: &T, span: Span) -> Operand {
        let a = self.expr(base);
        let i = self.expr(index);
        if base.ty == T::Str {
            let n = self.runtime(RuntimeFn::StrLen, vec![a], T::Int, span);
            self.bounds_check(i, n, span);
            self.runtime(RuntimeFn::StrByte, vec![a, i], T::Int, span)
        } else {
            self.array_index_check(a, i, span);
            let loc = Loc::ArrayElem(ty.clone());
            self.emit(
                Inst::Load {
                    loc,
                    base: Some(a),
                    index: Some(i),
                },
                ty.clone(),
                span,
                PURE,
            )
        }
    }

    /// `object.field`, after its nil check.
    fn field_load(
        &mut self,
        object: &Expr,
        strukt: StructId,
        field: u32,
        ty: &T,
        span: Span,
    ) -> Operand {
        let o = self.expr(object);
        self.nil_check(o, span);
        let loc = Loc::Field { strukt, field };
        self.emit(
            Inst::Load {
                loc,
                base: Some(o),
                index: None,
            },
            ty.clone(),
            span,
            PURE,
        )
    }

    /// `[a, b, ..]`: a new array filled with the first element (or the
    /// element type's zero when empty), then stores of the others.
    fn array_lit(&mut self, elems: &[Expr], ty: &T, span: Span) -> Operand {
        let vals: Vec<Operand> = elems.iter().map(|x| self.expr(x)).collect();
        let elem = match ty {
            T::Array(t) => (**t).clone(),
            _ => T::Int,
        };
        let fill = match vals.first() {
            Some(v) => *v,
            None => self.empty_fill(&elem, span),
        };
        let arr = self.emit(
            Inst::NewArray {
                elem: elem.clone(),
                len: Operand::Int(vals.len() as i64),
                fill,
            },
            ty.clone(),
            span,
            PURE,
        );
        for (k, v) in vals.iter().enumerate().skip(1) {
            let loc = Loc::ArrayElem(elem.clone());
            let st = Inst::Store {
                loc,
                base: Some(arr),
                index: Some(Operand::Int(k as i64)),
                value: *v,
            };
            self.emit(st, T::Void, span, Flags::NOTHROW);
        }
        arr
    }

    /// `[value; count]`, after the check that `count` is not negative.
    fn array_repeat(&mut self, value: &Expr, count: &Expr, ty: &T, span: Span) -> Operand {
        let v = self.expr(value);
        let n = self.expr(count);
        let ok = self
            .b
            .binary(BinaryOp::ICmp(Cmp::Ge), n, Operand::Int(0), T::Bool, span);
        self.check(ok, RaiseKind::NegativeArrayLength, Vec::new(), span);
        let elem = match ty {
            T::Array(t) => (**t).clone(),
            _ => T::Int,
        };
        self.emit(
            Inst::NewArray {
                elem,
                len: n,
                fill: v,
            },
            ty.clone(),
            span,
            PURE,
        )
    }

    /// A struct literal: fields evaluated in source order, stored in field
    /// order.
    fn struct_lit(
        &mut self,
        strukt: StructId,
        fields: &[(u32, Expr)],
        ty: &T,
        span: Span,
    ) -> Operand {
        let mut vals: Vec<(u32, Operand)> =
            fields.iter().map(|(i, x)| (*i, self.expr(x))).collect();
        vals.sort_by_key(|(i, _)| *i);
        let fields = vals.into_iter().map(|(_, v)| v).collect();
        self.emit(Inst::NewStruct { strukt, fields }, ty.clone(), span, PURE)
    }

    /// `a OP b` on operands of type `ty` (both sides have it).
    pub fn binop(&mut self, op: BinOp, x: Operand, y: Operand, ty: &T, span: Span) -> Operand {
        if let Some(c) = cmp_of(op) {
            return match ty {
                T::Float => self.b.binary(BinaryOp::FCmp(c), x, y, T::Bool, span),
                T::Str => self.str_compare(c, x, y, span),
                _ => self.b.binary(BinaryOp::ICmp(c), x, y, T::Bool, span),
            };
        }
        match ty {
            T::Float => {
                let fop = match op {
                    BinOp::Add => BinaryOp::FAdd,
                    BinOp::Sub => BinaryOp::FSub,
                    BinOp::Mul => BinaryOp::FMul,
                    BinOp::Div => BinaryOp::FDiv,
                    _ => {
                        // `%` is C's fmod, a runtime call.
                        if let Some(v) = crate::ir::fold::binary(
                            BinaryOp::FRem,
                            self.b.resolve(x),
                            self.b.resolve(y),
                        ) {
                            return v;
                        }
                        return self.runtime(RuntimeFn::FMod, vec![x, y], T::Float, span);
                    }
                };
                self.b.binary(fop, x, y, T::Float, span)
            }
            T::Str => self.runtime(RuntimeFn::StrConcat, vec![x, y], T::Str, span),
            _ => {
                let iop = match op {
                    BinOp::Add => BinaryOp::IAdd,
                    BinOp::Sub => BinaryOp::ISub,
                    BinOp::Mul => BinaryOp::IMul,
                    BinOp::Div => BinaryOp::IDiv,
                    BinOp::Rem => BinaryOp::IRem,
                    BinOp::BitAnd => BinaryOp::IAnd,
                    BinOp::BitOr => BinaryOp::IOr,
                    BinOp::BitXor => BinaryOp::IXor,
                    BinOp::Shl => BinaryOp::IShl,
                    _ => BinaryOp::IShr,
                };
                if matches!(iop, BinaryOp::IDiv | BinaryOp::IRem) {
                    let ok =
                        self.b
                            .binary(BinaryOp::ICmp(Cmp::Ne), y, Operand::Int(0), T::Bool, span);
                    self.check(ok, RaiseKind::DivisionByZero, Vec::new(), span);
                }
                self.b.binary(iop, x, y, ty.clone(), span)
            }
        }
    }

    fn str_compare(&mut self, c: Cmp, x: Operand, y: Operand, span: Span) -> Operand {
        match c {
            Cmp::Eq | Cmp::Ne => {
                let eq = self.runtime(RuntimeFn::StrEq, vec![x, y], T::Bool, span);
                if c == Cmp::Ne {
                    self.b.unary(UnaryOp::Not, eq, T::Bool, span)
                } else {
                    eq
                }
            }
            _ => {
                let r = self.runtime(RuntimeFn::StrCmp, vec![x, y], T::Int, span);
                self.b
                    .binary(BinaryOp::ICmp(c), r, Operand::Int(0), T::Bool, span)
            }
        }
    }

    /// `a && b` / `a || b` as a value: control flow joined by a φ.
    fn short_circuit(&mut self, e: &Expr) -> Operand {
        let t = self.b.new_block();
        let f = self.b.new_block();
        let join = self.b.new_block();
        self.cond(e, t, f);
        self.b.seal(t);
        self.b.seal(f);
        let var = self.b.new_var(T::Bool);
        for (blk, val) in [(t, true), (f, false)] {
            if !self.b.is_dead(blk) {
                self.b.switch_to(blk);
                self.b.write_var(var, blk, Operand::Bool(val));
                self.b.jump(join, e.span);
            }
        }
        self.b.seal(join);
        self.b.switch_to(join);
        self.read(var)
    }

    /// Branches to `t` when `e` is true, else to `f`; `&&`, `||` and `!`
    /// become control flow.
    pub fn cond(&mut self, e: &Expr, t: Blk, f: Blk) {
        match &e.kind {
            ExprKind::And(a, b) => {
                let mid = self.b.new_block();
                self.cond(a, mid, f);
                self.b.seal(mid);
                self.b.switch_to(mid);
                self.cond(b, t, f);
            }
            ExprKind::Or(a, b) => {
                let mid = self.b.new_block();
                self.cond(a, t, mid);
                self.b.seal(mid);
                self.b.switch_to(mid);
                self.cond(b, t, f);
            }
            ExprKind::Unary(UnOp::Not, a) => self.cond(a, f, t),
            _ => {
                let v = self.expr(e);
                self.b.branch(v, t, f, e.span);
            }
        }
    }

    /// A runtime call; one that may throw (`rtfns::RUNTIME`) is followed
    /// by its `NoException` check.
    pub fn runtime(&mut self, func: RuntimeFn, args: Vec<Operand>, ty: T, span: Span) -> Operand {
        let v = self.emit(Inst::Runtime { func, args }, ty, span, runtime_flags(func));
        if func.row().may_throw {
            self.after_may_throw(span);
        }
        v
    }

    /// `0 <= i < n` as one unsigned compare, raising IndexOutOfBounds.
    pub fn bounds_check(&mut self, i: Operand, n: Operand, span: Span) {
        let ok = self.b.binary(BinaryOp::ICmp(Cmp::Ult), i, n, T::Bool, span);
        self.check(ok, RaiseKind::IndexOutOfBounds, vec![i, n], span);
    }

    pub fn array_len(&mut self, a: Operand, span: Span) -> Operand {
        self.emit(
            Inst::Load {
                loc: Loc::ArrayLen,
                base: Some(a),
                index: None,
            },
            T::Int,
            span,
            PURE,
        )
    }

    pub fn array_index_check(&mut self, a: Operand, i: Operand, span: Span) {
        let n = self.array_len(a, span);
        self.bounds_check(i, n, span);
    }

    /// The fill of an empty array of `elem`s, a value of type `elem` that no
    /// element ever holds: a constant, `nil` for a struct, and for an array
    /// type an empty array (`nil` is no array's value), built innermost
    /// first without recursion.
    fn empty_fill(&mut self, elem: &T, span: Span) -> Operand {
        let mut chain = Vec::new();
        let mut t = elem;
        while let T::Array(inner) = t {
            chain.push(t);
            t = inner;
        }
        let mut fill = match t {
            T::Struct(_) => Operand::Nil,
            _ => self.b.zero_of(t),
        };
        for arr in chain.into_iter().rev() {
            let T::Array(inner) = arr else { continue };
            let inst = Inst::NewArray {
                elem: (**inner).clone(),
                len: Operand::Int(0),
                fill,
            };
            fill = self.emit(inst, arr.clone(), span, PURE);
        }
        fill
    }

    /// Raises NilDereference when `o` is nil (skipped for a fresh struct).
    pub fn nil_check(&mut self, o: Operand, span: Span) {
        let o = self.b.resolve(o);
        if let Operand::Value(v) = o
            && matches!(self.b.nodes[v.0 as usize].inst, Inst::NewStruct { .. })
        {
            return;
        }
        let ok = self
            .b
            .binary(BinaryOp::ICmp(Cmp::Ne), o, Operand::Nil, T::Bool, span);
        self.check(ok, RaiseKind::NilDereference, Vec::new(), span);
    }

    /// Ends the current block by `exit`, which never returns.
    pub fn exit_call(&mut self, code: Operand, span: Span) {
        self.runtime(RuntimeFn::Exit, vec![code], T::Void, span);
        self.b.terminate(BuildTerm::Unreachable, span);
    }
}

/// The statement flags of a runtime call, from its row of `rtfns::RUNTIME`:
/// `PURE` when it neither throws nor has an effect, `NOTHROW` when it
/// cannot throw.
pub fn runtime_flags(func: RuntimeFn) -> Flags {
    if func.is_pure() {
        PURE
    } else if func.row().may_throw {
        Flags::default()
    } else {
        Flags::NOTHROW
    }
}

/// The unary conversion for `float(x)` / `int(x)` from `from`.
pub fn conversion(to_float: bool, from: &Type) -> Option<UnaryOp> {
    match (to_float, from) {
        (true, Type::Int) => Some(UnaryOp::IntToFloat),
        (false, Type::Float) => Some(UnaryOp::FloatToInt),
        _ => None,
    }
}
