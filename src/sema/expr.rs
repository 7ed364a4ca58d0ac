//! Typing expressions.
//!
//! Checking is bidirectional only for `nil` and `[]`: the context passes the
//! type it wants (`expected`) and those two literals take it; every other
//! expression computes its own type and the caller compares.

use super::hir::{self, BinOp, LocalId, StructId, Type, UnOp};
use super::suggest::Kind;
use super::{ItemRef, LocalCx, Sema};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast;

/// Whether an expression's type comes only from its context (`nil`, `[]`,
/// `[nil, []]`, `[nil; 3]`).
pub(super) fn needs_context(e: &ast::Expr) -> bool {
    match &e.kind {
        ast::ExprKind::Nil => true,
        ast::ExprKind::ArrayLit(v) => v.iter().all(needs_context),
        ast::ExprKind::ArrayRepeat(v, _) => needs_context(v),
        _ => false,
    }
}

fn mk(kind: hir::ExprKind, ty: Type, span: Span) -> hir::Expr {
    hir::Expr { kind, ty, span }
}

impl Sema<'_> {
    /// Declares a local in the innermost scope.
    pub(super) fn declare(
        &mut self,
        name: &str,
        ty: Option<Type>,
        mutable: bool,
        span: Span,
    ) -> LocalId {
        let id = LocalId(self.cx.locals.len() as u32);
        self.cx.locals.push(LocalCx {
            name: name.into(),
            ty,
            mutable,
            span,
            assigned: false,
        });
        if let Some(scope) = self.cx.scopes.last_mut() {
            scope.push(name.to_string());
            self.cx
                .visible
                .entry(name.to_string())
                .or_default()
                .push(id);
        }
        id
    }

    pub(super) fn push_scope(&mut self) {
        self.cx.scopes.push(Vec::new());
    }

    /// Closes the innermost scope: its names are no longer visible.
    pub(super) fn pop_scope(&mut self) {
        for name in self.cx.scopes.pop().unwrap_or_default() {
            if let Some(v) = self.cx.visible.get_mut(&name) {
                v.pop();
            }
        }
    }

    /// The innermost visible local of that name.
    pub(super) fn lookup_local(&self, name: &str) -> Option<LocalId> {
        self.cx.visible.get(name).and_then(|v| v.last().copied())
    }

    /// The module an expression names, if it is a bare name of an import
    /// not shadowed by a local. `Some(None)`: an import that failed.
    pub(super) fn module_ref(&self, e: &ast::Expr) -> Option<Option<usize>> {
        match &e.kind {
            ast::ExprKind::Name(id) if self.lookup_local(&id.name).is_none() => {
                self.modules[self.cx.module].import_target(&id.name)
            }
            _ => None,
        }
    }

    /// ``module `m` has no item `x` `` (with a "did you mean" from module
    /// `t`, the one `m` names).
    pub(super) fn no_item(&mut self, t: usize, m: &ast::Ident, x: &ast::Ident) {
        let d = Diagnostic::error(
            x.span,
            format!("module `{}` has no item `{}`", m.name, x.name),
        )
        .with_label(format!("not defined in `{}`", m.name));
        self.error(self.suggest_item(d, t, &x.name));
    }

    /// Checks an expression whose expected type is unknown because of an
    /// earlier error, only to report its own errors: `nil` and `[]` are not
    /// checked (they would only cascade).
    pub(super) fn recover(&mut self, e: &ast::Expr) {
        if !needs_context(e) {
            self.expr(e, None);
        }
    }

    /// Types `e` and requires exactly `ty`.
    pub(super) fn expect(&mut self, e: &ast::Expr, ty: &Type) -> Option<hir::Expr> {
        let v = self.value(e, Some(ty))?;
        if v.ty != *ty {
            self.mismatch(e, ty, &v.ty);
            return None;
        }
        Some(v)
    }

    /// Types `e` as a value: a call of a function returning nothing is an
    /// error here.
    pub(super) fn value(&mut self, e: &ast::Expr, expected: Option<&Type>) -> Option<hir::Expr> {
        let v = self.expr(e, expected)?;
        if v.ty == Type::Void {
            let d = match expected {
                Some(t) => {
                    let t = self.quoted(t);
                    Diagnostic::error(
                        e.span,
                        format!("mismatched types: expected {t}, found nothing"),
                    )
                    .with_label(format!("this returns nothing, but {t} is expected"))
                }
                None => {
                    let name = match &v.kind {
                        hir::ExprKind::Call { func, .. } => {
                            self.funcs[func.0 as usize].name.clone()
                        }
                        hir::ExprKind::Builtin { builtin, .. } => builtin.name().to_string(),
                        _ => self.text(e.span).to_string(),
                    };
                    Diagnostic::error(
                        e.span,
                        format!("cannot use the result of `{name}`: it returns nothing"),
                    )
                    .with_label("this call returns nothing")
                }
            };
            self.error(d);
            return None;
        }
        Some(v)
    }

    /// Types any expression (a void call included).
    pub(super) fn expr(&mut self, e: &ast::Expr, expected: Option<&Type>) -> Option<hir::Expr> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Error => None,
            ast::ExprKind::Int(v) => Some(mk(hir::ExprKind::Int(*v), Type::Int, span)),
            ast::ExprKind::Float(v) => Some(mk(hir::ExprKind::Float(*v), Type::Float, span)),
            ast::ExprKind::Bool(v) => Some(mk(hir::ExprKind::Bool(*v), Type::Bool, span)),
            ast::ExprKind::Str(s) => Some(mk(hir::ExprKind::Str(s.clone()), Type::Str, span)),
            ast::ExprKind::Nil => self.nil(expected, span),
            ast::ExprKind::Name(id) => self.name_expr(id),
            ast::ExprKind::Field(obj, field) => self.field_expr(obj, field, span),
            ast::ExprKind::Call(callee, args) => self.call(callee, args, span),
            ast::ExprKind::Index(base, index) => self.index_expr(base, index, span),
            ast::ExprKind::Unary(op, operand) => self.unary(*op, operand, span),
            ast::ExprKind::Binary(op, l, r) => self.binary(*op, l, r, span),
            ast::ExprKind::ArrayLit(elems) => self.array_lit(elems, span, expected),
            ast::ExprKind::ArrayRepeat(value, count) => {
                self.array_repeat(value, count, span, expected)
            }
            ast::ExprKind::StructLit(lit) => {
                self.struct_lit(lit.module.as_ref(), &lit.name, &lit.fields, span)
            }
        }
    }

    /// `nil` takes the expected type, which must be a struct type.
    fn nil(&mut self, expected: Option<&Type>, span: Span) -> Option<hir::Expr> {
        match expected {
            Some(t @ Type::Struct(_)) => Some(mk(hir::ExprKind::Nil, t.clone(), span)),
            Some(t) => {
                let t = self.quoted(t);
                self.error(
                    Diagnostic::error(span, format!("mismatched types: expected {t}, found `nil`"))
                        .with_label(format!(
                            "`nil` is not a value of {t}; only struct types have `nil`"
                        )),
                );
                None
            }
            None => {
                self.error(
                    Diagnostic::error(span, "cannot infer the type of `nil`")
                        .with_label("give it a type, e.g. `let p: Point = nil;`"),
                );
                None
            }
        }
    }

    /// `base[index]`: an array element, or a `str`'s byte as an `int`.
    fn index_expr(&mut self, base: &ast::Expr, index: &ast::Expr, span: Span) -> Option<hir::Expr> {
        let b = self.value(base, None);
        let i = self.expect(index, &Type::Int);
        let b = b?;
        let ty = match &b.ty {
            Type::Array(t) => (**t).clone(),
            Type::Str => Type::Int,
            t => {
                let t = self.ty_name(t);
                self.error(
                    Diagnostic::error(base.span, format!("cannot index `{t}`"))
                        .with_label(format!("this is `{t}`, not an array or `str`")),
                );
                return None;
            }
        };
        Some(mk(
            hir::ExprKind::Index {
                base: Box::new(b),
                index: Box::new(i?),
            },
            ty,
            span,
        ))
    }

    /// `-x` (on `int` or `float`) and `!x` (on `bool`).
    fn unary(&mut self, op: UnOp, operand: &ast::Expr, span: Span) -> Option<hir::Expr> {
        let v = self.value(operand, None)?;
        let ok = match op {
            UnOp::Neg => matches!(v.ty, Type::Int | Type::Float),
            UnOp::Not => v.ty == Type::Bool,
        };
        if !ok {
            let sym = if op == UnOp::Neg { "-" } else { "!" };
            let t = self.ty_name(&v.ty);
            self.error(
                Diagnostic::error(
                    Span::new(span.file, span.start as usize, span.start as usize + 1),
                    format!("cannot apply `{sym}` to `{t}`"),
                )
                .with_label(format!("`{sym}` cannot be applied to `{t}`"))
                .with_secondary(operand.span, format!("this is `{t}`")),
            );
            return None;
        }
        let ty = v.ty.clone();
        Some(mk(hir::ExprKind::Unary(op, Box::new(v)), ty, span))
    }

    /// `[value; count]`: an expected array type gives `value` its context.
    fn array_repeat(
        &mut self,
        value: &ast::Expr,
        count: &ast::Expr,
        span: Span,
        expected: Option<&Type>,
    ) -> Option<hir::Expr> {
        let elem = match expected {
            Some(Type::Array(t)) => Some(&**t),
            _ => None,
        };
        let v = self.value(value, elem);
        let c = self.expect(count, &Type::Int);
        let v = v?;
        let ty = Type::Array(Box::new(v.ty.clone()));
        Some(mk(
            hir::ExprKind::ArrayRepeat {
                value: Box::new(v),
                count: Box::new(c?),
            },
            ty,
            span,
        ))
    }

    fn name_expr(&mut self, id: &ast::Ident) -> Option<hir::Expr> {
        if let Some(l) = self.lookup_local(&id.name) {
            let ty = self.cx.locals[l.0 as usize].ty.clone()?;
            return Some(mk(hir::ExprKind::Local(l), ty, id.span));
        }
        let item = self.modules[self.cx.module]
            .items
            .get(&id.name)
            .map(|(i, _)| *i);
        self.item_value(item, &id.name, id.span, true)
    }

    /// A top-level item used as a value: only globals are values.
    fn item_value(
        &mut self,
        item: Option<ItemRef>,
        shown: &str,
        span: Span,
        own_module: bool,
    ) -> Option<hir::Expr> {
        match item {
            Some(ItemRef::Global(g)) => {
                let info = &self.globals[g.0 as usize];
                if own_module && self.cx.in_init && !info.ready {
                    let def = info.span;
                    self.error(
                        Diagnostic::error(
                            span,
                            format!("cannot use global `{shown}` before it is initialised"),
                        )
                        .with_label("globals are initialised in source order")
                        .with_secondary(def, "defined here"),
                    );
                    return None;
                }
                let ty = info.ty.clone()?;
                Some(mk(hir::ExprKind::Global(g), ty, span))
            }
            Some(ItemRef::Import(_)) => {
                self.error(
                    Diagnostic::error(span, format!("`{shown}` is a module, not a value"))
                        .with_label(format!("use an item of it, e.g. `{shown}.name`")),
                );
                None
            }
            other => {
                let label = match other {
                    Some(ItemRef::Func(_)) => {
                        format!("`{shown}` is a function; functions are not values")
                    }
                    Some(ItemRef::Struct(_)) => format!("`{shown}` is a struct type, not a value"),
                    _ if hir::Builtin::from_name(shown).is_some() => {
                        format!("`{shown}` is a built-in function; functions are not values")
                    }
                    _ => "not found in this scope".to_string(),
                };
                let d =
                    Diagnostic::error(span, format!("cannot find value `{shown}` in this scope"))
                        .with_label(label);
                let d = if other.is_none() && own_module {
                    self.suggest(d, self.cx.module, shown, Kind::Value)
                } else {
                    d
                };
                self.error(d);
                None
            }
        }
    }

    fn field_expr(&mut self, obj: &ast::Expr, field: &ast::Ident, span: Span) -> Option<hir::Expr> {
        if let Some(target) = self.module_ref(obj) {
            let t = target?;
            let ast::ExprKind::Name(m) = &obj.kind else {
                return None;
            };
            let shown = format!("{}.{}", m.name, field.name);
            let Some(item) = self.modules[t].items.get(&field.name).map(|(i, _)| *i) else {
                self.no_item(t, m, field);
                return None;
            };
            return self.item_value(Some(item), &shown, span, false);
        }
        let o = self.value(obj, None)?;
        let Type::Struct(s) = o.ty else {
            let t = self.ty_name(&o.ty);
            self.error(
                Diagnostic::error(field.span, format!("no field `{}` on `{t}`", field.name))
                    .with_label(format!("`{t}` has no fields"))
                    .with_secondary(obj.span, format!("this is `{t}`")),
            );
            return None;
        };
        let (idx, ty) = self.field_of(s, field)?;
        Some(mk(
            hir::ExprKind::Field {
                object: Box::new(o),
                strukt: s,
                field: idx,
            },
            ty?,
            span,
        ))
    }

    /// The index and type of a field of struct `s`, or an error.
    pub(super) fn field_of(
        &mut self,
        s: StructId,
        field: &ast::Ident,
    ) -> Option<(u32, Option<Type>)> {
        let info = &self.structs[s.0 as usize];
        if let Some(i) = info.fields.iter().position(|(n, _, _)| *n == field.name) {
            return Some((i as u32, info.fields[i].1.clone()));
        }
        let (name, def) = (info.name.clone(), info.span);
        let d = Diagnostic::error(field.span, format!("no field `{}` on `{name}`", field.name))
            .with_label("unknown field")
            .with_secondary(def, format!("`{name}` is defined here"));
        self.error(self.suggest_field(d, s.0 as usize, &field.name));
        None
    }

    /// Whether `op` applies to two operands of type `t`; its result type.
    pub(super) fn binary_result(op: BinOp, t: &Type) -> Option<Type> {
        use BinOp::*;
        let ok = match op {
            Add => matches!(t, Type::Int | Type::Float | Type::Str),
            Sub | Mul | Div | Rem => matches!(t, Type::Int | Type::Float),
            BitAnd | BitOr | BitXor | Shl | Shr => *t == Type::Int,
            Eq | Ne => matches!(
                t,
                Type::Int | Type::Float | Type::Bool | Type::Str | Type::Struct(_)
            ),
            Lt | Le | Gt | Ge => matches!(t, Type::Int | Type::Float | Type::Str),
            And | Or => *t == Type::Bool,
        };
        if !ok {
            return None;
        }
        Some(if op.is_comparison() {
            Type::Bool
        } else {
            t.clone()
        })
    }

    /// Reports `cannot apply `op` to `L` and `R``, with a hint when an int
    /// literal meets a float (`1.0 + 2`: write `2.0`).
    pub(super) fn bad_operands(
        &mut self,
        sym: &str,
        at: Span,
        l: (&Type, &ast::Expr),
        r: (&Type, &ast::Expr),
    ) {
        let (lt, rt) = (self.ty_name(l.0), self.ty_name(r.0));
        let hint = self
            .int_literal_for_float(r.1, l.0, r.0)
            .or_else(|| self.int_literal_for_float(l.1, r.0, l.0));
        let d = Diagnostic::error(at, format!("cannot apply `{sym}` to `{lt}` and `{rt}`"))
            .with_label(format!("`{sym}` cannot be applied to `{lt}` and `{rt}`"))
            .with_secondary(l.1.span, format!("this is `{lt}`"))
            .with_secondary(r.1.span, format!("this is `{rt}`"));
        self.error(match hint {
            Some(h) => d.with_note(h),
            None => d,
        });
    }

    /// The help for an int literal `e` (of type `found`) written where a
    /// `float` (`expected`) is wanted: ``use a float literal: `3.0` ``.
    pub(super) fn int_literal_for_float(
        &self,
        e: &ast::Expr,
        expected: &Type,
        found: &Type,
    ) -> Option<String> {
        if *expected != Type::Float || *found != Type::Int {
            return None;
        }
        let digits = match &e.kind {
            ast::ExprKind::Int(_) => self.text(e.span),
            ast::ExprKind::Unary(UnOp::Neg, inner)
                if matches!(inner.kind, ast::ExprKind::Int(_)) =>
            {
                self.text(e.span)
            }
            _ => return None,
        };
        let decimal = digits
            .trim_start_matches('-')
            .trim_start()
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'_');
        Some(if decimal {
            format!("help: use a float literal: `{digits}.0`")
        } else {
            format!("help: convert it: `float({digits})`")
        })
    }

    fn binary(&mut self, op: BinOp, l: &ast::Expr, r: &ast::Expr, span: Span) -> Option<hir::Expr> {
        if matches!(op, BinOp::And | BinOp::Or) {
            let lv = self.value(l, None);
            let rv = self.value(r, None);
            let (lv, rv) = (lv?, rv?);
            if lv.ty != Type::Bool || rv.ty != Type::Bool {
                self.bad_operands(op.symbol(), span, (&lv.ty, l), (&rv.ty, r));
                return None;
            }
            let (lv, rv) = (Box::new(lv), Box::new(rv));
            let kind = if op == BinOp::And {
                hir::ExprKind::And(lv, rv)
            } else {
                hir::ExprKind::Or(lv, rv)
            };
            return Some(mk(kind, Type::Bool, span));
        }
        if self.chained_comparison(op, l, r) {
            self.recover(l);
            self.recover(r);
            return None;
        }
        // Type the side that does not need its context first, so that
        // `nil == p` and `p == nil` both work.
        let (lv, rv) = if needs_context(l) && !needs_context(r) {
            let (rv, lv) = self.typed_pair(r, l);
            (lv, rv)
        } else {
            self.typed_pair(l, r)
        };
        let (lv, rv) = (lv?, rv?);
        let result = if lv.ty == rv.ty {
            Self::binary_result(op, &lv.ty)
        } else {
            None
        };
        let Some(ty) = result else {
            self.bad_operands(op.symbol(), span, (&lv.ty, l), (&rv.ty, r));
            return None;
        };
        Some(mk(
            hir::ExprKind::Binary(op, Box::new(lv), Box::new(rv)),
            ty,
            span,
        ))
    }

    /// `first` typed alone, then `second` typed with `first`'s type as its
    /// context (only checked for its own errors when `first` has no type).
    fn typed_pair(
        &mut self,
        first: &ast::Expr,
        second: &ast::Expr,
    ) -> (Option<hir::Expr>, Option<hir::Expr>) {
        let a = self.value(first, None);
        let b = match &a {
            Some(v) => self.value(second, Some(&v.ty.clone())),
            None => {
                self.recover(second);
                None
            }
        };
        (a, b)
    }

    /// Whether `l op r` is `a < b < c`, already reported by the parser
    /// (then it has no type and no further error).
    fn chained_comparison(&self, op: BinOp, l: &ast::Expr, r: &ast::Expr) -> bool {
        let inner = matches!(&l.kind, ast::ExprKind::Binary(o, _, _) if o.is_comparison());
        op.is_comparison()
            && inner
            && self.diags.iter().any(|d| {
                d.span.file == l.span.file
                    && d.span.start >= l.span.end
                    && d.span.end <= r.span.start
                    && d.message == "comparison operators cannot be chained"
            })
    }

    fn array_lit(
        &mut self,
        elems: &[ast::Expr],
        span: Span,
        expected: Option<&Type>,
    ) -> Option<hir::Expr> {
        let elem = match expected {
            Some(Type::Array(t)) => Some((**t).clone()),
            _ => None,
        };
        if elems.is_empty() {
            return match (elem, expected) {
                (Some(t), _) => Some(mk(
                    hir::ExprKind::ArrayLit(Vec::new()),
                    Type::Array(Box::new(t)),
                    span,
                )),
                (None, Some(t)) => {
                    let t = self.quoted(t);
                    self.error(
                        Diagnostic::error(
                            span,
                            format!("mismatched types: expected {t}, found `[]`"),
                        )
                        .with_label(format!("expected {t}, found an array")),
                    );
                    None
                }
                (None, None) => {
                    self.error(
                        Diagnostic::error(span, "cannot infer the element type of `[]`")
                            .with_label("give it a type, e.g. `let a: [int] = [];`"),
                    );
                    None
                }
            };
        }
        let mut out: Vec<Option<hir::Expr>> = (0..elems.len()).map(|_| None).collect();
        let elem = match elem {
            Some(t) => t,
            None => {
                // The first element that types itself fixes the element type.
                let first = elems.iter().position(|e| !needs_context(e)).unwrap_or(0);
                let v = self.value(&elems[first], None);
                let t = v.as_ref().map(|v| v.ty.clone());
                out[first] = v;
                match t {
                    Some(t) => t,
                    None => {
                        for (i, e) in elems.iter().enumerate() {
                            if i != first {
                                self.recover(e);
                            }
                        }
                        return None;
                    }
                }
            }
        };
        let mut ok = true;
        for (i, e) in elems.iter().enumerate() {
            if out[i].is_none() {
                out[i] = self.expect(e, &elem);
            }
            ok &= out[i].is_some();
        }
        if !ok {
            return None;
        }
        let vals = out.into_iter().flatten().collect();
        Some(mk(
            hir::ExprKind::ArrayLit(vals),
            Type::Array(Box::new(elem)),
            span,
        ))
    }

    fn struct_lit(
        &mut self,
        module: Option<&ast::Ident>,
        name: &ast::Ident,
        fields: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> Option<hir::Expr> {
        let m = self.cx.module;
        let s = match module {
            Some(mi) => self.qualified_struct(m, mi, name),
            None => match self.modules[m].items.get(&name.name) {
                Some((ItemRef::Struct(s), _)) => Some(*s),
                _ => {
                    let d =
                        Diagnostic::error(name.span, format!("cannot find type `{}`", name.name))
                            .with_label("no struct of this name in this module");
                    self.error(self.suggest(d, m, &name.name, Kind::Type));
                    None
                }
            },
        };
        let Some(s) = s else {
            for (_, e) in fields {
                self.recover(e);
            }
            return None;
        };
        let sname = self.structs[s.0 as usize].name.clone();
        let path = module.map_or(name.span, |m| m.span.to(name.span));
        let nfields = self.structs[s.0 as usize].fields.len();
        let mut given: Vec<Option<Span>> = vec![None; nfields];
        let mut out = Vec::new();
        for (fname, e) in fields {
            let Some((idx, fty)) = self.field_of(s, fname) else {
                self.recover(e);
                continue;
            };
            if let Some(first) = given[idx as usize] {
                self.error(
                    Diagnostic::error(fname.span, format!("field `{}` given twice", fname.name))
                        .with_label("given again here")
                        .with_secondary(first, "first given here"),
                );
            }
            given[idx as usize] = Some(fname.span);
            let v = match &fty {
                Some(t) => self.expect(e, t),
                None => {
                    self.recover(e);
                    None
                }
            };
            if let Some(v) = v {
                out.push((idx, v));
            }
        }
        for (i, g) in given.iter().enumerate() {
            if g.is_none() {
                let f = self.structs[s.0 as usize].fields[i].0.clone();
                self.error(
                    Diagnostic::error(path, format!("missing field `{f}` in `{sname}` literal"))
                        .with_label(format!("`{f}` is not given")),
                );
            }
        }
        // A literal with a wrong field still has its struct type, so later
        // uses of its value are checked (its errors are already reported).
        Some(mk(
            hir::ExprKind::StructLit {
                strukt: s,
                fields: out,
            },
            Type::Struct(s),
            span,
        ))
    }
}
