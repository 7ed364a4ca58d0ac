//! Typing calls: user functions (bare or `module.f`) and the builtins.
//!
//! Builtin names, arities and fixed signatures are rows of
//! `rtfns::BUILTINS`. The overloaded ones (LANGUAGE.md) are typed here:
//! `print`/`write(any non-void...)`, `len(str | [T]) -> int`,
//! `push([T], T)`, `pop([T]) -> T`, `float(int | float) -> float`,
//! `int(float | int) -> int`, `str(int | float | bool | str) -> str`.

use super::hir::{self, Builtin, FuncId, Type};
use super::suggest::Kind;
use super::{ItemRef, Sema};
use crate::diag::Diagnostic;
use crate::rtfns::{BuiltinSig, Ty};
use crate::span::Span;
use crate::syntax::ast;

/// `N argument(s)`.
fn count(n: usize) -> String {
    if n == 1 {
        "1 argument".into()
    } else {
        format!("{n} arguments")
    }
}

/// `function `f` takes N arguments but M were given` (`1 argument`,
/// `1 was given`).
fn arity_message(name: &str, takes: &str, given: usize) -> String {
    let verb = if given == 1 { "was" } else { "were" };
    format!("function `{name}` takes {takes} but {given} {verb} given")
}

impl Sema<'_> {
    /// Types a call expression.
    pub(super) fn call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<hir::Expr> {
        match &callee.kind {
            ast::ExprKind::Name(id) => {
                if let Some(b) = Builtin::from_name(&id.name) {
                    return self.builtin(b, args, span);
                }
                let item = self.modules[self.cx.module]
                    .items
                    .get(&id.name)
                    .map(|(i, _)| *i);
                match item {
                    Some(ItemRef::Func(f)) => self.user_call(f, args, span),
                    Some(ItemRef::Import(_)) => {
                        self.error(
                            Diagnostic::error(
                                callee.span,
                                format!("`{}` is a module, not a value", id.name),
                            )
                            .with_label(format!(
                                "call a function of it, e.g. `{}.name(..)`",
                                id.name
                            )),
                        );
                        self.args_alone(args)
                    }
                    Some(_) => self.not_a_function(callee, args),
                    None if self.lookup_local(&id.name).is_some() => {
                        self.not_a_function(callee, args)
                    }
                    None => {
                        let d = Diagnostic::error(
                            callee.span,
                            format!("cannot find function `{}`", id.name),
                        )
                        .with_label("not found in this module");
                        self.error(self.suggest(d, self.cx.module, &id.name, Kind::Function));
                        self.args_alone(args)
                    }
                }
            }
            ast::ExprKind::Field(obj, fname) if self.module_ref(obj).is_some() => {
                let Some(Some(t)) = self.module_ref(obj) else {
                    return self.args_alone(args);
                };
                let ast::ExprKind::Name(m) = &obj.kind else {
                    return self.args_alone(args);
                };
                match self.modules[t].items.get(&fname.name).map(|(i, _)| *i) {
                    Some(ItemRef::Func(f)) => self.user_call(f, args, span),
                    Some(_) => self.not_a_function(callee, args),
                    None => {
                        self.no_item(t, m, fname);
                        self.args_alone(args)
                    }
                }
            }
            ast::ExprKind::Error => self.args_alone(args),
            ast::ExprKind::Field(obj, fname) => self.method_call(callee, obj, fname, args),
            _ => {
                if self.value(callee, None).is_none() {
                    return self.args_alone(args);
                }
                self.not_a_function(callee, args)
            }
        }
    }

    /// `x.f(..)` where `x` is a value: a call of a struct field is "not a
    /// function"; anything else is a method call, which Toy does not have
    /// (``no method `len` on `[int]` ``), with the builtin call as help
    /// when `f` names a builtin (`a.len()`: `len(a)`).
    fn method_call(
        &mut self,
        callee: &ast::Expr,
        obj: &ast::Expr,
        fname: &ast::Ident,
        args: &[ast::Expr],
    ) -> Option<hir::Expr> {
        let ty = self.value(obj, None)?.ty;
        let is_field = match &ty {
            Type::Struct(s) => self.structs[s.0 as usize]
                .fields
                .iter()
                .any(|(n, _, _)| *n == fname.name),
            _ => false,
        };
        if is_field {
            return self.not_a_function(callee, args);
        }
        let t = self.ty_name(&ty);
        let name = &fname.name;
        let mut d = Diagnostic::error(fname.span, format!("no method `{name}` on `{t}`"))
            .with_label("Toy has no methods: functions take the value as an argument");
        if Builtin::from_name(name).is_some() {
            let mut call_args = vec![self.text(obj.span).to_string()];
            call_args.extend(args.iter().map(|a| self.text(a.span).to_string()));
            d = d.with_note(format!(
                "help: call the builtin: `{name}({})`",
                call_args.join(", ")
            ));
        }
        self.error(d);
        self.args_alone(args)
    }

    /// Checks the arguments of a call that is already in error.
    fn args_alone(&mut self, args: &[ast::Expr]) -> Option<hir::Expr> {
        for a in args {
            self.recover(a);
        }
        None
    }

    fn not_a_function(&mut self, callee: &ast::Expr, args: &[ast::Expr]) -> Option<hir::Expr> {
        let text = self.text(callee.span).to_string();
        self.error(
            Diagnostic::error(callee.span, format!("`{text}` is not a function"))
                .with_label("this is not a function; only named functions can be called"),
        );
        self.args_alone(args)
    }

    fn user_call(&mut self, f: FuncId, args: &[ast::Expr], span: Span) -> Option<hir::Expr> {
        let info = &self.funcs[f.0 as usize];
        let params: Vec<Option<Type>> = info.params.iter().map(|(_, t, _)| t.clone()).collect();
        let ret = info.ret.clone();
        let (name, def) = (info.name.clone(), info.name_span);
        let mut ok = true;
        if params.len() != args.len() {
            self.error(
                Diagnostic::error(span, arity_message(&name, &count(params.len()), args.len()))
                    .with_label(format!("expected {}", count(params.len())))
                    .with_secondary(def, format!("`{name}` is defined here")),
            );
            ok = false;
        }
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let v = match params.get(i) {
                Some(Some(t)) => self.expect(a, t),
                _ => {
                    self.recover(a);
                    None
                }
            };
            match v {
                Some(v) => out.push(v),
                None => ok = false,
            }
        }
        let ret = ret?;
        if !ok {
            return None;
        }
        Some(hir::Expr {
            kind: hir::ExprKind::Call { func: f, args: out },
            ty: ret,
            span,
        })
    }

    /// Types a builtin call: the arity and a fixed signature come from the
    /// builtin's row of `rtfns::BUILTINS`; an overloaded builtin has its
    /// rule below.
    fn builtin(&mut self, b: Builtin, args: &[ast::Expr], span: Span) -> Option<hir::Expr> {
        let row = b.row();
        let (lo, hi) = (row.min_args, row.max_args.unwrap_or(usize::MAX));
        if args.len() < lo || args.len() > hi {
            let takes = if lo == hi {
                count(lo)
            } else {
                format!("{lo} or {}", count(hi))
            };
            self.error(
                Diagnostic::error(span, arity_message(b.name(), &takes, args.len()))
                    .with_label(format!("expected {takes}")),
            );
            return self.args_alone(args);
        }
        let concrete = |t: &Ty| t.concrete().expect("a fixed builtin signature is concrete");
        let sig: Option<(Vec<Type>, Type)> = match row.sig {
            BuiltinSig::Fixed { params, ret } => Some((
                params[..args.len()].iter().map(concrete).collect(),
                concrete(&ret),
            )),
            BuiltinSig::Overloaded => None,
        };
        let mk = |args, ty| builtin_call(b, args, ty, span);
        if let Some((params, ret)) = sig {
            let vals: Vec<Option<hir::Expr>> = args
                .iter()
                .zip(&params)
                .map(|(a, t)| self.expect(a, t))
                .collect();
            let vals: Option<Vec<hir::Expr>> = vals.into_iter().collect();
            return Some(mk(vals?, ret));
        }
        self.overloaded(b, args, span)
    }

    /// Types a call of an overloaded builtin (arity already checked): the
    /// argument kinds it accepts and the result type, per builtin.
    fn overloaded(&mut self, b: Builtin, args: &[ast::Expr], span: Span) -> Option<hir::Expr> {
        use Builtin::*;
        let mk = |args, ty| builtin_call(b, args, ty, span);
        match b {
            Print | Write => {
                let vals: Vec<Option<hir::Expr>> =
                    args.iter().map(|a| self.value(a, None)).collect();
                let vals: Option<Vec<hir::Expr>> = vals.into_iter().collect();
                Some(mk(vals?, Type::Void))
            }
            Len => {
                let v = self.value(&args[0], None)?;
                if !matches!(v.ty, Type::Str | Type::Array(_)) {
                    self.wrong_kind(&args[0], "an array or `str`", &v.ty);
                    return None;
                }
                Some(mk(vec![v], Type::Int))
            }
            Push | Pop => {
                let a = self.value(&args[0], None);
                let elem = match a.as_ref().map(|a| &a.ty) {
                    Some(Type::Array(t)) => Some((**t).clone()),
                    Some(t) => {
                        let t = t.clone();
                        self.wrong_kind(&args[0], "an array", &t);
                        None
                    }
                    None => None,
                };
                if b == Pop {
                    return Some(mk(vec![a?], elem?));
                }
                let x = match &elem {
                    Some(t) => self.expect(&args[1], t),
                    None => {
                        self.recover(&args[1]);
                        None
                    }
                };
                elem?;
                Some(mk(vec![a?, x?], Type::Void))
            }
            ToFloat | ToInt | ToStr => {
                let v = self.value(&args[0], None)?;
                let (ok, what, ret) = match b {
                    ToFloat => (
                        matches!(v.ty, Type::Int | Type::Float),
                        "`int` or `float`",
                        Type::Float,
                    ),
                    ToInt => (
                        matches!(v.ty, Type::Int | Type::Float),
                        "`float` or `int`",
                        Type::Int,
                    ),
                    _ => (
                        matches!(v.ty, Type::Int | Type::Float | Type::Bool | Type::Str),
                        "`int`, `float`, `bool` or `str`",
                        Type::Str,
                    ),
                };
                if !ok {
                    self.wrong_kind(&args[0], what, &v.ty);
                    return None;
                }
                Some(mk(vec![v], ret))
            }
            _ => None,
        }
    }

    /// `mismatched types: expected WHAT, found `T`` for an argument.
    fn wrong_kind(&mut self, arg: &ast::Expr, what: &str, found: &Type) {
        let f = self.quoted(found);
        self.error(
            Diagnostic::error(
                arg.span,
                format!("mismatched types: expected {what}, found {f}"),
            )
            .with_label(format!("expected {what}, found {f}")),
        );
    }
}

/// The typed call of builtin `b`.
fn builtin_call(b: Builtin, args: Vec<hir::Expr>, ty: Type, span: Span) -> hir::Expr {
    hir::Expr {
        kind: hir::ExprKind::Builtin { builtin: b, args },
        ty,
        span,
    }
}
