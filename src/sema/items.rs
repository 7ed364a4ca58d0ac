//! Top-level items: registering names, resolving types and signatures,
//! typing global initialisers into `<init>`, driving the body checks, and
//! checking `main`.

use super::hir::{self, Builtin, FuncId, GlobalId, LocalId, StructId, Type};
use super::suggest::Kind;
use super::{FnCx, FuncInfo, GlobalInfo, ItemRef, Sema, StructInfo};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast;

const BUILTIN_TYPES: [&str; 4] = ["int", "float", "bool", "str"];

impl<'a> Sema<'a> {
    /// Defines `name` in module `m`'s namespace; a second definition is an
    /// error pointing at the first.
    fn define(&mut self, m: usize, name: &ast::Ident, item: ItemRef) {
        if let Some((_, first)) = self.modules[m].items.get(&name.name) {
            let first = *first;
            self.error(
                Diagnostic::error(
                    name.span,
                    format!("duplicate definition of `{}`", name.name),
                )
                .with_label(format!("`{}` is defined again here", name.name))
                .with_secondary(first, "first defined here"),
            );
            return;
        }
        self.modules[m]
            .items
            .insert(name.name.clone(), (item, name.span));
    }

    /// [`define`](Self::define), unless `name` is a built-in `kind` (a
    /// `"type"` or a `"function"`), which is an error.
    fn define_unless_builtin(
        &mut self,
        m: usize,
        name: &ast::Ident,
        builtin: Option<&str>,
        item: ItemRef,
    ) {
        let Some(kind) = builtin else {
            return self.define(m, name, item);
        };
        self.error(
            Diagnostic::error(
                name.span,
                format!("duplicate definition of `{}`", name.name),
            )
            .with_label(format!("`{}` is a built-in {kind}", name.name)),
        );
    }

    /// Qualified item name: bare in the main module, `m.x` elsewhere.
    fn qualify(&self, m: usize, name: &str) -> String {
        if self.modules[m].is_main {
            name.to_string()
        } else {
            format!("{}.{}", self.modules[m].name, name)
        }
    }

    /// Gives every struct, function and global of every module its id and
    /// enters every top-level name into its module's namespace.
    pub(super) fn register_items(&mut self, asts: &[ast::Module]) {
        for (m, module) in asts.iter().enumerate() {
            for (i, item) in module.items.iter().enumerate() {
                match item {
                    ast::Item::Import(imp) => {
                        let target = self.modules[m]
                            .imports
                            .get(&imp.name.name)
                            .copied()
                            .flatten();
                        self.define(m, &imp.name, ItemRef::Import(target));
                    }
                    ast::Item::Struct(s) => {
                        let id = StructId(self.structs.len() as u32);
                        self.structs.push(StructInfo {
                            name: self.qualify(m, &s.name.name),
                            span: s.span,
                            fields: Vec::new(),
                        });
                        let builtin = BUILTIN_TYPES.contains(&s.name.name.as_str());
                        let kind = builtin.then_some("type");
                        self.define_unless_builtin(m, &s.name, kind, ItemRef::Struct(id));
                    }
                    ast::Item::Fn(f) => {
                        let id = FuncId(self.funcs.len() as u32);
                        self.funcs.push(FuncInfo {
                            name: self.qualify(m, &f.name.name),
                            module: m,
                            item: i,
                            params: Vec::new(),
                            ret: None,
                            span: f.span,
                            name_span: f.name.span,
                        });
                        let kind = Builtin::from_name(&f.name.name).map(|_| "function");
                        self.define_unless_builtin(m, &f.name, kind, ItemRef::Func(id));
                    }
                    ast::Item::Global(g) => {
                        let id = GlobalId(self.globals.len() as u32);
                        self.globals.push(GlobalInfo {
                            name: self.qualify(m, &g.name.name),
                            module: m,
                            item: i,
                            mutable: g.mutable,
                            ty: None,
                            ready: false,
                            init_pos: None,
                            span: g.span,
                        });
                        self.define(m, &g.name, ItemRef::Global(id));
                    }
                }
            }
        }
        self.bodies = (0..self.funcs.len()).map(|_| None).collect();
    }

    /// Resolves a written type in module `m`; `None` after reporting why
    /// (or silently for a type that failed to parse).
    pub(super) fn resolve_type(&mut self, m: usize, t: &ast::TypeExpr) -> Option<Type> {
        match &t.kind {
            ast::TypeExprKind::Error => None,
            ast::TypeExprKind::Array(inner) => {
                Some(Type::Array(Box::new(self.resolve_type(m, inner)?)))
            }
            ast::TypeExprKind::Named(id) => match id.name.as_str() {
                "int" => Some(Type::Int),
                "float" => Some(Type::Float),
                "bool" => Some(Type::Bool),
                "str" => Some(Type::Str),
                n => match self.modules[m].items.get(n) {
                    Some((ItemRef::Struct(s), _)) => Some(Type::Struct(*s)),
                    other => {
                        let label = match other {
                            Some((ItemRef::Import(_), _)) => {
                                format!("`{n}` is a module, not a type")
                            }
                            Some((ItemRef::Func(_), _)) => {
                                format!("`{n}` is a function, not a type")
                            }
                            Some((ItemRef::Global(_), _)) => {
                                format!("`{n}` is a global, not a type")
                            }
                            _ => "not a type in this module".to_string(),
                        };
                        let d = Diagnostic::error(id.span, format!("cannot find type `{n}`"))
                            .with_label(label);
                        let d = if other.is_none() {
                            self.suggest(d, m, n, Kind::Type)
                        } else {
                            d
                        };
                        self.error(d);
                        None
                    }
                },
            },
            ast::TypeExprKind::Qualified(q) => {
                self.qualified_struct(m, &q.0, &q.1).map(Type::Struct)
            }
        }
    }

    /// `mi.ti` as a struct of an imported module, reporting errors.
    pub(super) fn qualified_struct(
        &mut self,
        m: usize,
        mi: &ast::Ident,
        ti: &ast::Ident,
    ) -> Option<StructId> {
        let span = mi.span.to(ti.span);
        match self.modules[m].import_target(&mi.name) {
            Some(None) => None,
            Some(Some(t)) => match self.modules[t].items.get(&ti.name) {
                Some((ItemRef::Struct(s), _)) => Some(*s),
                Some(_) => {
                    self.error(
                        Diagnostic::error(
                            span,
                            format!("cannot find type `{}.{}`", mi.name, ti.name),
                        )
                        .with_label(format!("`{}.{}` is not a struct", mi.name, ti.name)),
                    );
                    None
                }
                None => {
                    self.no_item(t, mi, ti);
                    None
                }
            },
            None => {
                self.error(
                    Diagnostic::error(span, format!("cannot find type `{}.{}`", mi.name, ti.name))
                        .with_label(format!("no module `{}` is imported here", mi.name)),
                );
                None
            }
        }
    }

    /// Resolves struct field types and function signatures; reports
    /// duplicate fields and parameters.
    pub(super) fn resolve_signatures(&mut self, asts: &[ast::Module]) {
        let mut sid = 0usize;
        let mut fid = 0usize;
        for (m, module) in asts.iter().enumerate() {
            for item in &module.items {
                match item {
                    ast::Item::Struct(s) => {
                        let fields = s.fields.iter().map(|f| (&f.name, &f.ty));
                        self.structs[sid].fields = self.typed_names(m, fields, "field", false);
                        sid += 1;
                    }
                    ast::Item::Fn(f) => {
                        let params = f.params.iter().map(|p| (&p.name, &p.ty));
                        let params = self.typed_names(m, params, "parameter", true);
                        let ret = match &f.ret {
                            None => Some(Type::Void),
                            Some(t) => self.resolve_type(m, t),
                        };
                        self.funcs[fid].params = params;
                        self.funcs[fid].ret = ret;
                        fid += 1;
                    }
                    _ => {}
                }
            }
        }
    }

    /// The names and resolved types of struct fields or parameters (`what`),
    /// reporting every name declared twice. A repeated name is kept when
    /// `keep_repeated` (a parameter still takes its argument), else dropped.
    fn typed_names<'n>(
        &mut self,
        m: usize,
        entries: impl Iterator<Item = (&'n ast::Ident, &'n ast::TypeExpr)>,
        what: &str,
        keep_repeated: bool,
    ) -> Vec<(String, Option<Type>, Span)> {
        let mut out: Vec<(String, Option<Type>, Span)> = Vec::new();
        for (name, ty) in entries {
            let ty = self.resolve_type(m, ty);
            if let Some((_, _, first)) = out.iter().find(|(n, _, _)| *n == name.name) {
                let first = *first;
                self.error(
                    Diagnostic::error(
                        name.span,
                        format!("duplicate definition of `{}`", name.name),
                    )
                    .with_label(format!("this {what} is declared twice"))
                    .with_secondary(first, "first defined here"),
                );
                if !keep_repeated {
                    continue;
                }
            }
            out.push((name.name.clone(), ty, name.span));
        }
        out
    }

    /// Types every global initialiser, modules dependencies first, globals
    /// in source order, appending the assignments to `<init>`.
    pub(super) fn check_globals(&mut self, asts: &[ast::Module]) {
        let mut next_pos = 0usize;
        for m in self.order.clone() {
            for gi in 0..self.globals.len() {
                if self.globals[gi].module != m {
                    continue;
                }
                let ast::Item::Global(g) = &asts[m].items[self.globals[gi].item] else {
                    continue;
                };
                self.cx = FnCx {
                    module: m,
                    ret: Some(Type::Void),
                    name: "<init>".into(),
                    in_init: true,
                    ..FnCx::default()
                };
                let ann = g.ty.as_ref().map(|t| self.resolve_type(m, t));
                let value = match &ann {
                    Some(Some(t)) => self.expect(&g.init, t),
                    Some(None) => {
                        self.recover(&g.init);
                        None
                    }
                    None => self.value(&g.init, None),
                };
                let ty = match ann {
                    Some(t) => t,
                    None => value.as_ref().map(|v| v.ty.clone()),
                };
                self.globals[gi].ty = ty;
                self.globals[gi].ready = true;
                self.globals[gi].init_pos = Some(next_pos);
                next_pos += 1;
                if let Some(value) = value {
                    self.init_stmts.push(hir::Stmt {
                        kind: hir::StmtKind::Assign {
                            place: hir::Place::Global(GlobalId(gi as u32)),
                            op: None,
                            value,
                        },
                        span: g.span,
                    });
                }
            }
        }
    }

    /// Types every function body; a large program's on `pool`'s threads,
    /// in [`BODY_CHUNKS`] runs of consecutive functions, each checked by a
    /// copy of the checker ([`Sema::for_bodies`]). What a body's check
    /// changes is its own: its body, its diagnostics and warnings (taken
    /// back in function order, so they are the same as one thread's) and
    /// the imports its names went through (merged back).
    pub(super) fn check_functions(&mut self, asts: &[ast::Module], pool: &crate::par::Pool) {
        let n = self.funcs.len();
        let size = |fi: usize| {
            let span = self.funcs[fi].span;
            span.end.saturating_sub(span.start) as usize
        };
        let work = (0..n).map(size).sum::<usize>() / crate::par::SOURCE_BYTES_PER_STATEMENT;
        if n < 2 * BODY_CHUNKS || !pool.would_parallelize(work) {
            for fi in 0..n {
                self.check_function(fi, asts);
            }
            return;
        }
        let mut chunks: Vec<(std::ops::Range<usize>, Sema<'a>)> = chunk_ranges(n, size)
            .into_iter()
            .map(|r| (r, self.for_bodies()))
            .collect();
        pool.map_mut(&mut chunks, work, |_, (range, sema)| {
            for fi in range.clone() {
                sema.check_function(fi, asts);
            }
        });
        let known = self.diags.len();
        for (range, mut sema) in chunks {
            for fi in range {
                self.bodies[fi] = sema.bodies[fi].take();
            }
            self.diags.extend(sema.diags.into_iter().skip(known));
            self.warnings.extend(sema.warnings);
            for (mine, theirs) in self.modules.iter().zip(sema.modules) {
                mine.used_imports
                    .borrow_mut()
                    .extend(theirs.used_imports.into_inner());
            }
        }
    }

    /// A checker for function bodies: everything declared so far, no
    /// warnings, the diagnostics so far (a body's check looks at the
    /// parser's), and room for every body.
    fn for_bodies(&self) -> Sema<'a> {
        Sema {
            sources: self.sources,
            modules: self.modules.clone(),
            order: self.order.clone(),
            diags: self.diags.clone(),
            warnings: Vec::new(),
            structs: self.structs.clone(),
            funcs: self.funcs.clone(),
            globals: self.globals.clone(),
            bodies: (0..self.funcs.len()).map(|_| None).collect(),
            init_stmts: Vec::new(),
            main: self.main,
            main_has_syntax_errors: self.main_has_syntax_errors,
            load_errors: self.load_errors.clone(),
            cx: FnCx::default(),
        }
    }

    /// Types function `fi`'s body into `bodies[fi]`.
    fn check_function(&mut self, fi: usize, asts: &[ast::Module]) {
        let (m, item) = (self.funcs[fi].module, self.funcs[fi].item);
        let ast::Item::Fn(f) = &asts[m].items[item] else {
            return;
        };
        self.cx = FnCx {
            module: m,
            ret: self.funcs[fi].ret.clone(),
            name: self.funcs[fi].name.clone(),
            ..FnCx::default()
        };
        self.push_scope();
        let params: Vec<LocalId> = self.funcs[fi]
            .params
            .clone()
            .into_iter()
            .map(|(name, ty, span)| self.declare(&name, ty, true, span))
            .collect();
        let (body, diverges) = self.block(&f.body);
        self.pop_scope();
        // After a syntax error in the function, recovery may have cut
        // or moved its statements: a missing return is not reported.
        if let Some(ret) = &self.funcs[fi].ret
            && !diverges
            && *ret != Type::Void
            && !self.has_load_error_in(f.span)
        {
            let end = f.body.span.end as usize;
            let close = Span::new(
                f.body.span.file,
                end.saturating_sub(1).max(f.body.span.start as usize),
                end,
            );
            let msg = format!(
                "function `{}` must return `{}` on every path",
                self.funcs[fi].name,
                self.ty_name(ret)
            );
            self.error(
                Diagnostic::error(f.name.span, msg)
                    .with_label(format!("`{}` does not return on every path", f.name.name))
                    .with_secondary(close, "the end of the body is reachable"),
            );
        }
        let cx = std::mem::take(&mut self.cx);
        self.bodies[fi] = Some(hir::Function {
            name: self.funcs[fi].name.clone(),
            params,
            ret: self.funcs[fi].ret.clone().unwrap_or(Type::Void),
            locals: cx
                .locals
                .into_iter()
                .map(|l| hir::LocalDef {
                    name: l.name,
                    ty: l.ty.unwrap_or(Type::Void),
                    mutable: l.mutable,
                    span: l.span,
                    assigned: l.assigned,
                })
                .collect(),
            body,
            span: self.funcs[fi].span,
        });
    }

    /// Finds `main` in the main module and checks its signature.
    pub(super) fn check_main(&mut self, asts: &[ast::Module]) {
        let file = self.modules[0].file;
        match self.modules[0].items.get("main") {
            Some((ItemRef::Func(id), _)) => {
                let f = &self.funcs[id.0 as usize];
                let ast::Item::Fn(def) = &asts[0].items[f.item] else {
                    return;
                };
                self.main = Some(*id);
                let ret_ok = matches!(f.ret, None | Some(Type::Void) | Some(Type::Int));
                if !f.params.is_empty() || !ret_ok {
                    self.error(
                        Diagnostic::error(
                            def.name.span,
                            "`main` must be `fn main()` or `fn main() -> int`",
                        )
                        .with_label("invalid signature for `main`"),
                    );
                }
            }
            // A `main` that failed to parse was already reported.
            _ if self.main_has_syntax_errors => {}
            _ => {
                let name = self.sources.get(file).name.clone();
                let first = asts[0].items.first().map(|it| match it {
                    ast::Item::Import(i) => i.span,
                    ast::Item::Struct(s) => s.span,
                    ast::Item::Fn(f) => f.span,
                    ast::Item::Global(g) => g.span,
                });
                let at = first.map_or(Span::new(file, 0, 0), |s| {
                    Span::new(file, s.start as usize, s.start as usize)
                });
                self.error(
                    Diagnostic::error(at, format!("no `main` function in `{name}`"))
                        .with_label("add `fn main() { ... }` to this file"),
                );
            }
        }
    }
}

/// How many runs of consecutive functions [`Sema::check_functions`] splits
/// a large program into (the pool hands them out one at a time).
const BODY_CHUNKS: usize = 8;

/// `0..n` cut into [`BODY_CHUNKS`] consecutive ranges of about the same
/// total `size`; none is empty.
fn chunk_ranges(n: usize, size: impl Fn(usize) -> usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = (0..n).map(&size).sum();
    let share = total.div_ceil(BODY_CHUNKS).max(1);
    let mut out = Vec::with_capacity(BODY_CHUNKS);
    let (mut start, mut acc) = (0, 0);
    for fi in 0..n {
        acc += size(fi);
        if acc >= share && fi + 1 < n {
            out.push(start..fi + 1);
            (start, acc) = (fi + 1, 0);
        }
    }
    out.push(start..n);
    out
}
