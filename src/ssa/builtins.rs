//! The built-in functions of LANGUAGE.md, lowered to runtime calls, pure
//! operations and explicit checks. A builtin with a fixed signature and one
//! runtime function (`rtfns::BUILTINS`) needs no arm here. Arguments are
//! evaluated left to right before the operation (and before any check it
//! makes).
use super::lower::FnLower;
use super::lower_expr::conversion;
use crate::ir::{BinaryOp, Cmp, Inst, Loc, Operand, RaiseKind, RuntimeFn, Type};
use crate::sema::hir::{Builtin, Expr};
use crate::span::Span;

impl FnLower<'_> {
    pub fn builtin(&mut self, builtin: Builtin, args: &[Expr], ty: &Type, span: Span) -> Operand {
        let vals: Vec<Operand> = args.iter().map(|a| self.expr(a)).collect();
        let arg = |k: usize| vals.get(k).copied().unwrap_or(Operand::Int(0));
        let arg_ty = |k: usize| args.get(k).map(|a| a.ty.clone()).unwrap_or(Type::Void);
        use Builtin::*;
        match builtin {
            Print | Write => {
                for (k, v) in vals.iter().enumerate() {
                    if builtin == Print && k > 0 {
                        self.runtime(RuntimeFn::PrintSpace, Vec::new(), Type::Void, span);
                    }
                    let f = match arg_ty(k) {
                        Type::Int => RuntimeFn::PrintInt,
                        Type::Float => RuntimeFn::PrintFloat,
                        Type::Bool => RuntimeFn::PrintBool,
                        Type::Str => RuntimeFn::PrintStr,
                        _ => RuntimeFn::PrintValue,
                    };
                    if f == RuntimeFn::PrintValue && self.b.resolve(*v) == Operand::Nil {
                        // A constant nil has no type at run time: print it as text.
                        let text = self.b.str_const("nil", span);
                        self.runtime(RuntimeFn::PrintStr, vec![text], Type::Void, span);
                        continue;
                    }
                    self.runtime(f, vec![*v], Type::Void, span);
                }
                if builtin == Print {
                    self.runtime(RuntimeFn::PrintNewline, Vec::new(), Type::Void, span);
                }
                Operand::Int(0)
            }
            Len => match arg_ty(0) {
                Type::Str => self.runtime(RuntimeFn::StrLen, vec![arg(0)], Type::Int, span),
                _ => self.array_len(arg(0), span),
            },
            Push => {
                self.runtime(RuntimeFn::ArrayPush, vec![arg(0), arg(1)], Type::Void, span);
                Operand::Int(0)
            }
            Pop => {
                let n = self.array_len(arg(0), span);
                let ok = self.b.binary(
                    BinaryOp::ICmp(Cmp::Ne),
                    n,
                    Operand::Int(0),
                    Type::Bool,
                    span,
                );
                self.check(ok, RaiseKind::PopFromEmpty, Vec::new(), span);
                self.runtime(RuntimeFn::ArrayPop, vec![arg(0)], ty.clone(), span)
            }
            ToFloat | ToInt => match conversion(builtin == ToFloat, &arg_ty(0)) {
                Some(op) => self.b.unary(op, arg(0), ty.clone(), span),
                None => arg(0),
            },
            ToStr => {
                let f = match arg_ty(0) {
                    Type::Int => RuntimeFn::StrOfInt,
                    Type::Float => RuntimeFn::StrOfFloat,
                    Type::Bool => RuntimeFn::StrOfBool,
                    _ => return arg(0),
                };
                self.runtime(f, vec![arg(0)], Type::Str, span)
            }
            Exit => {
                self.exit_call(arg(0), span);
                Operand::Int(0)
            }
            Assert => {
                let msg: Vec<Operand> = vals.get(1).copied().into_iter().collect();
                self.check(arg(0), RaiseKind::AssertionFailed, msg, span);
                Operand::Int(0)
            }
            // The rest is one call of the builtin's runtime function
            // (`rtfns::BUILTINS`: same arguments, same result type).
            _ => match builtin.row().calls {
                [f] => self.runtime(*f, vals, ty.clone(), span),
                _ => unreachable!("builtin {builtin:?} has no generic lowering"),
            },
        }
    }

    /// Reads the current value of a checked place (for compound assignment).
    pub fn load(
        &mut self,
        loc: Loc,
        base: Option<Operand>,
        index: Option<Operand>,
        ty: Type,
        span: Span,
    ) -> Operand {
        self.emit(
            Inst::Load { loc, base, index },
            ty,
            span,
            super::lower::PURE,
        )
    }
}
