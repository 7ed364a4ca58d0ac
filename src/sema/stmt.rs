//! Typing statements, assignment places, loops and labels, and the
//! reachability analysis behind the missing-return error.
//!
//! Reachability is conservative and syntactic. A statement *ends the path*
//! (nothing after it is reachable) when it is:
//! - `return`, `throw`, `break` or `continue`;
//! - an `if` with an `else` whose both arms end the path;
//! - `while true { .. }` (the literal `true`, the idiomatic infinite loop)
//!   with no `break` targeting that loop (from anywhere in its body);
//! - `try { A } catch e { B }` where both `A` and `B` end the path;
//! - a block containing a statement that ends the path.
//!
//! `for` loops and other `while` loops never end the path; `exit(..)` does
//! not either.

use super::hir::{self, LoopId, Type};
use super::suggest::Kind;
use super::{FixedBinding, ItemRef, LocalCx, LoopCx, Sema, label_name};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast;

impl Sema<'_> {
    /// Types a block in a new scope; the bool says whether it ends the path.
    pub(super) fn block(&mut self, b: &ast::Block) -> (hir::Block, bool) {
        self.push_scope();
        let mut stmts = Vec::new();
        // The statement that ended the path, and whether the first
        // statement after it has been warned about.
        let mut ender: Option<Span> = None;
        let mut warned = false;
        for s in &b.stmts {
            if let Some(end) = ender
                && !std::mem::replace(&mut warned, true)
            {
                self.unreachable(s.span, end);
            }
            let (hs, e) = self.stmt(s);
            stmts.extend(hs);
            if e && ender.is_none() {
                ender = Some(s.span);
            }
        }
        self.pop_scope();
        (hir::Block { stmts }, ender.is_some())
    }

    /// Types one statement; the bool says whether it ends the path.
    fn stmt(&mut self, s: &ast::Stmt) -> (Option<hir::Stmt>, bool) {
        let span = s.span;
        let (kind, ends) = match &s.kind {
            ast::StmtKind::Error => (None, false),
            ast::StmtKind::Let {
                mutable,
                name,
                ty,
                init,
            } => (self.let_stmt(*mutable, name, ty.as_ref(), init), false),
            ast::StmtKind::Assign { target, op, value } => {
                return (self.assign(target, *op, value, span), false);
            }
            ast::StmtKind::Expr(e) => (self.expr(e, None).map(hir::StmtKind::Expr), false),
            ast::StmtKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_stmt(cond, then_block, else_block.as_ref()),
            ast::StmtKind::While { label, cond, body } => {
                self.while_loop(label.as_ref(), cond, body)
            }
            ast::StmtKind::ForRange(f) => (
                self.for_range(f.label.as_ref(), &f.var, &f.start, &f.end, &f.body),
                false,
            ),
            ast::StmtKind::ForEach {
                label,
                var,
                iter,
                body,
            } => (self.for_each(label.as_ref(), var, iter, body), false),
            ast::StmtKind::Break { label } => (
                self.jump(label.as_ref(), true, span)
                    .map(hir::StmtKind::Break),
                true,
            ),
            ast::StmtKind::Continue { label } => (
                self.jump(label.as_ref(), false, span)
                    .map(hir::StmtKind::Continue),
                true,
            ),
            ast::StmtKind::Return(e) => (self.ret(e.as_ref(), span), true),
            ast::StmtKind::Throw(e) => (self.expect(e, &Type::Str).map(hir::StmtKind::Throw), true),
            ast::StmtKind::Try { body, var, handler } => self.try_catch(body, var, handler),
            ast::StmtKind::Block(b) => {
                let (b, e) = self.block(b);
                (Some(hir::StmtKind::Block(b)), e)
            }
        };
        (kind.map(|kind| hir::Stmt { kind, span }), ends)
    }

    /// `let`/`var`: the initialiser is checked against the annotation, if
    /// any, before the name is declared (so it cannot see itself).
    fn let_stmt(
        &mut self,
        mutable: bool,
        name: &ast::Ident,
        ty: Option<&ast::TypeExpr>,
        init: &ast::Expr,
    ) -> Option<hir::StmtKind> {
        let m = self.cx.module;
        let ann = ty.map(|t| self.resolve_type(m, t));
        let value = match &ann {
            Some(Some(t)) => self.expect(init, t),
            Some(None) => {
                self.recover(init);
                None
            }
            None => self.value(init, None),
        };
        let ty = match ann {
            Some(t) => t,
            None => value.as_ref().map(|v| v.ty.clone()),
        };
        let local = self.declare(&name.name, ty, mutable, name.span);
        value.map(|init| hir::StmtKind::Let { local, init })
    }

    /// `if`: ends the path when it has an `else` and both arms end it.
    fn if_stmt(
        &mut self,
        cond: &ast::Expr,
        then_block: &ast::Block,
        else_block: Option<&ast::Block>,
    ) -> (Option<hir::StmtKind>, bool) {
        let c = self.expect(cond, &Type::Bool);
        let (t, te) = self.block(then_block);
        let (e, ee) = match else_block {
            Some(b) => self.block(b),
            None => (hir::Block::default(), false),
        };
        let kind = c.map(|cond| hir::StmtKind::If {
            cond,
            then_block: t,
            else_block: e,
        });
        (kind, te && ee)
    }

    /// `while`: ends the path only as `while true` with no `break` to it.
    fn while_loop(
        &mut self,
        label: Option<&ast::Label>,
        cond: &ast::Expr,
        body: &ast::Block,
    ) -> (Option<hir::StmtKind>, bool) {
        let id = self.push_loop(label);
        let c = self.expect(cond, &Type::Bool);
        let (b, _) = self.block(body);
        let broken = self.cx.loops.pop().is_some_and(|l| l.broken);
        let infinite = matches!(cond.kind, ast::ExprKind::Bool(true));
        let kind = c.map(|cond| hir::StmtKind::While { id, cond, body: b });
        (kind, infinite && !broken)
    }

    /// `for v in start..end`: the bounds are typed outside the loop's
    /// scope; `v` is an immutable `int`.
    fn for_range(
        &mut self,
        label: Option<&ast::Label>,
        var: &ast::Ident,
        start: &ast::Expr,
        end: &ast::Expr,
        body: &ast::Block,
    ) -> Option<hir::StmtKind> {
        let st = self.expect(start, &Type::Int);
        let en = self.expect(end, &Type::Int);
        let id = self.push_loop(label);
        self.push_scope();
        let (v, b) = self.for_body(var, Some(Type::Int), body);
        match (st, en) {
            (Some(start), Some(end)) => Some(hir::StmtKind::ForRange {
                id,
                var: v,
                start,
                end,
                body: b,
            }),
            _ => None,
        }
    }

    /// A `for` loop's body, in the loop and the scope its caller pushed
    /// (both popped here), with the read-only loop variable `var` of type
    /// `ty` declared in that scope.
    fn for_body(
        &mut self,
        var: &ast::Ident,
        ty: Option<Type>,
        body: &ast::Block,
    ) -> (hir::LocalId, hir::Block) {
        let v = self.declare(&var.name, ty, false, var.span);
        self.cx.fixed_bindings.insert(v, FixedBinding::ForVar);
        let (b, _) = self.block(body);
        self.pop_scope();
        self.cx.loops.pop();
        (v, b)
    }

    /// `for v in array`: the array is typed outside the loop's scope; the
    /// loop gets a hidden index local and an immutable element variable.
    fn for_each(
        &mut self,
        label: Option<&ast::Label>,
        var: &ast::Ident,
        iter: &ast::Expr,
        body: &ast::Block,
    ) -> Option<hir::StmtKind> {
        let arr = self.value(iter, None);
        let elem = match arr.as_ref().map(|a| &a.ty) {
            Some(Type::Array(t)) => Some((**t).clone()),
            Some(t) => {
                let t = self.ty_name(t);
                self.error(
                    Diagnostic::error(iter.span, format!("cannot iterate over `{t}`"))
                        .with_label(format!("this is `{t}`, not an array")),
                );
                None
            }
            None => None,
        };
        let id = self.push_loop(label);
        self.push_scope();
        let index = self.declare_hidden("<index>", Type::Int, var.span);
        let (v, b) = self.for_body(var, elem.clone(), body);
        match (arr, elem) {
            (Some(array), Some(_)) => Some(hir::StmtKind::ForEach {
                id,
                var: v,
                index,
                array,
                body: b,
            }),
            _ => None,
        }
    }

    /// `try { .. } catch e { .. }`: `e` is an immutable `str` scoped to the
    /// handler; ends the path when both blocks do.
    fn try_catch(
        &mut self,
        body: &ast::Block,
        var: &ast::Ident,
        handler: &ast::Block,
    ) -> (Option<hir::StmtKind>, bool) {
        let (b, be) = self.block(body);
        self.push_scope();
        let catch_var = self.declare(&var.name, Some(Type::Str), false, var.span);
        self.cx
            .fixed_bindings
            .insert(catch_var, FixedBinding::CatchVar);
        let (h, he) = self.block(handler);
        self.pop_scope();
        let kind = hir::StmtKind::Try {
            body: b,
            catch_var,
            handler: h,
        };
        (Some(kind), be && he)
    }

    /// A local no name can refer to (the hidden index of `for x in a`).
    fn declare_hidden(&mut self, name: &str, ty: Type, span: Span) -> hir::LocalId {
        let id = hir::LocalId(self.cx.locals.len() as u32);
        self.cx.locals.push(LocalCx {
            name: name.into(),
            ty: Some(ty),
            mutable: true,
            span,
            assigned: true,
        });
        id
    }

    /// Starts a loop: gives it the next id and checks its label.
    fn push_loop(&mut self, label: Option<&ast::Label>) -> LoopId {
        let id = LoopId(self.cx.next_loop);
        self.cx.next_loop += 1;
        let label = label.map(|l| (label_name(l), l.span));
        if let Some((name, span)) = &label
            && let Some(outer) = self
                .cx
                .loops
                .iter()
                .find_map(|l| l.label.as_ref().filter(|(n, _)| n == name))
        {
            let outer = outer.1;
            self.error(
                Diagnostic::error(*span, format!("label `'{name}` is already in use"))
                    .with_label("this label shadows an enclosing loop's label")
                    .with_secondary(outer, "first used here"),
            );
        }
        self.cx.loops.push(super::LoopCx {
            id,
            label,
            broken: false,
        });
        id
    }

    /// The loop a `break`/`continue` targets (marking a `break`'s target).
    fn jump(&mut self, label: Option<&ast::Label>, is_break: bool, span: Span) -> Option<LoopId> {
        let kw = if is_break { "break" } else { "continue" };
        let found: Option<&mut LoopCx> = match label {
            None => self.cx.loops.last_mut(),
            Some(l) => {
                let name = label_name(l);
                self.cx
                    .loops
                    .iter_mut()
                    .rev()
                    .find(|lp| lp.label.as_ref().is_some_and(|(n, _)| *n == name))
            }
        };
        if let Some(lp) = found {
            lp.broken |= is_break;
            return Some(lp.id);
        }
        let d = match label {
            Some(l) if !self.cx.loops.is_empty() => {
                let name = label_name(l);
                Diagnostic::error(l.span, format!("cannot find label `'{name}`"))
                    .with_label("no enclosing loop has this label")
            }
            _ => Diagnostic::error(span, format!("`{kw}` outside of a loop"))
                .with_label(format!("`{kw}` must be inside a loop")),
        };
        self.error(d);
        None
    }

    fn ret(&mut self, e: Option<&ast::Expr>, span: Span) -> Option<hir::StmtKind> {
        let Some(ret) = self.cx.ret.clone() else {
            if let Some(e) = e {
                self.recover(e);
            }
            return None;
        };
        match (e, &ret) {
            (None, Type::Void) => Some(hir::StmtKind::Return(None)),
            (None, t) => {
                let t = self.quoted(t);
                self.error(
                    Diagnostic::error(
                        span,
                        format!("mismatched types: expected {t}, found nothing"),
                    )
                    .with_label(format!("`{}` returns {t}", self.cx.name)),
                );
                None
            }
            (Some(e), Type::Void) => {
                let v = self.expr(e, None)?;
                if v.ty == Type::Void {
                    // `return f();` with `f` returning nothing: call, then return.
                    let at = v.span;
                    let call = hir::Stmt {
                        kind: hir::StmtKind::Expr(v),
                        span: at,
                    };
                    let ret = hir::Stmt {
                        kind: hir::StmtKind::Return(None),
                        span,
                    };
                    return Some(hir::StmtKind::Block(hir::Block {
                        stmts: vec![call, ret],
                    }));
                }
                let t = self.quoted(&v.ty);
                self.error(
                    Diagnostic::error(
                        e.span,
                        format!("mismatched types: expected nothing, found {t}"),
                    )
                    .with_label(format!("`{}` has no return type", self.cx.name)),
                );
                None
            }
            (Some(e), t) => Some(hir::StmtKind::Return(Some(self.expect(e, t)?))),
        }
    }

    fn assign(
        &mut self,
        target: &ast::Expr,
        op: Option<hir::BinOp>,
        value: &ast::Expr,
        span: Span,
    ) -> Option<hir::Stmt> {
        let place = self.place(target);
        let Some((place, ty)) = place else {
            self.recover(value);
            return None;
        };
        let value = match op {
            None => self.expect(value, &ty)?,
            Some(op) => {
                let v = self.value(value, Some(&ty))?;
                if v.ty != ty
                    || Self::binary_result(op, &ty) != Some(ty.clone())
                    || op.is_comparison()
                {
                    let sym = format!("{}=", op.symbol());
                    self.bad_operands(&sym, span, (&ty, target), (&v.ty, value));
                    return None;
                }
                v
            }
        };
        Some(hir::Stmt {
            kind: hir::StmtKind::Assign { place, op, value },
            span,
        })
    }

    /// An assignable place and its type, or an error.
    fn place(&mut self, target: &ast::Expr) -> Option<(hir::Place, Type)> {
        match &target.kind {
            ast::ExprKind::Error => None,
            ast::ExprKind::Name(id) => {
                if let Some(l) = self.lookup_local(&id.name) {
                    let local = &mut self.cx.locals[l.0 as usize];
                    if !local.mutable {
                        let (name, def) = (local.name.clone(), local.span);
                        let fixed = self.cx.fixed_bindings.get(&l).copied();
                        self.immutable(id.span, &name, def, fixed);
                        return None;
                    }
                    local.assigned = true;
                    return Some((hir::Place::Local(l), local.ty.clone()?));
                }
                let item = self.modules[self.cx.module]
                    .items
                    .get(&id.name)
                    .map(|(i, _)| *i);
                self.global_place(item, &id.name, target)
            }
            ast::ExprKind::Field(obj, field) => self.field_place(obj, field, target),
            ast::ExprKind::Index(base, index) => self.index_place(base, index, target),
            _ => {
                self.expr(target, None);
                self.error(
                    Diagnostic::error(target.span, "invalid assignment target")
                        .with_label("only variables, `a[i]` and `p.f` can be assigned to"),
                );
                None
            }
        }
    }

    /// `obj.field = ..`: a `var` global of an imported module, or a field
    /// of a struct value.
    fn field_place(
        &mut self,
        obj: &ast::Expr,
        field: &ast::Ident,
        target: &ast::Expr,
    ) -> Option<(hir::Place, Type)> {
        if let Some(t) = self.module_ref(obj) {
            let t = t?;
            let ast::ExprKind::Name(m) = &obj.kind else {
                return None;
            };
            let shown = format!("{}.{}", m.name, field.name);
            let item = self.modules[t].items.get(&field.name).map(|(i, _)| *i);
            if item.is_none() {
                self.no_item(t, m, field);
                return None;
            }
            return self.global_place(item, &shown, target);
        }
        let o = self.value(obj, None)?;
        let Type::Struct(s) = o.ty else {
            let t = self.ty_name(&o.ty);
            self.error(
                Diagnostic::error(field.span, format!("no field `{}` on `{t}`", field.name))
                    .with_label(format!("`{t}` has no fields")),
            );
            return None;
        };
        let (idx, ty) = self.field_of(s, field)?;
        Some((
            hir::Place::Field {
                object: o,
                strukt: s,
                field: idx,
            },
            ty?,
        ))
    }

    /// `base[index] = ..`: an array element (`str` is immutable).
    fn index_place(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        target: &ast::Expr,
    ) -> Option<(hir::Place, Type)> {
        let b = self.value(base, None);
        let i = self.expect(index, &Type::Int);
        let b = b?;
        match &b.ty {
            Type::Array(t) => {
                let t = (**t).clone();
                Some((
                    hir::Place::Index {
                        array: b,
                        index: i?,
                    },
                    t,
                ))
            }
            Type::Str => {
                self.error(
                    Diagnostic::error(target.span, "invalid assignment target")
                        .with_label("`str` is immutable; build a new string instead"),
                );
                None
            }
            t => {
                let t = self.ty_name(t);
                self.error(
                    Diagnostic::error(base.span, format!("cannot index `{t}`"))
                        .with_label(format!("this is `{t}`, not an array or `str`")),
                );
                None
            }
        }
    }

    /// ``cannot assign to immutable `x` ``, with advice that fits how `x`
    /// was bound: a `let` can become a `var`; a `for` or `catch` variable
    /// cannot, so the advice is to copy it into a `var`.
    fn immutable(&mut self, at: Span, name: &str, def: Span, fixed: Option<FixedBinding>) {
        let (declared, help) = match fixed {
            None => (
                format!("`{name}` is declared here; declare it with `var` to make it mutable"),
                None,
            ),
            Some(FixedBinding::ForVar) => (
                format!("`{name}` is the loop variable, which cannot be made mutable"),
                Some(format!(
                    "help: to change it in the body, shadow it with a mutable copy: `var {name} = {name};`"
                )),
            ),
            Some(FixedBinding::CatchVar) => (
                format!("`{name}` is the `catch` variable, which cannot be made mutable"),
                Some(format!(
                    "help: to change it in the handler, shadow it with a mutable copy: `var {name} = {name};`"
                )),
            ),
        };
        let d = Diagnostic::error(at, format!("cannot assign to immutable `{name}`"))
            .with_label("cannot assign twice to an immutable variable")
            .with_secondary(def, declared);
        self.error(match help {
            Some(h) => d.with_note(h),
            None => d,
        });
    }

    /// Assignment to a top-level item (only a `var` global is allowed).
    fn global_place(
        &mut self,
        item: Option<ItemRef>,
        shown: &str,
        target: &ast::Expr,
    ) -> Option<(hir::Place, Type)> {
        match item {
            Some(ItemRef::Global(g)) => {
                let info = &self.globals[g.0 as usize];
                let (mutable, def, ty) = (info.mutable, info.span, info.ty.clone());
                if !mutable {
                    self.immutable(target.span, shown, def, None);
                    return None;
                }
                Some((hir::Place::Global(g), ty?))
            }
            None => {
                let d = Diagnostic::error(
                    target.span,
                    format!("cannot find value `{shown}` in this scope"),
                )
                .with_label("not found in this scope");
                let d = if shown.contains('.') {
                    d
                } else {
                    self.suggest(d, self.cx.module, shown, Kind::Value)
                };
                self.error(d);
                None
            }
            Some(_) => {
                self.error(
                    Diagnostic::error(target.span, "invalid assignment target")
                        .with_label(format!("`{shown}` is not a variable")),
                );
                None
            }
        }
    }
}
