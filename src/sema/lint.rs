//! Warnings: things that compile but are probably mistakes.
//!
//! Unreachable statements are found while checking, since they need the
//! reachability of `stmt.rs` (`Sema::block` calls [`Sema::unreachable`]).
//! The rest are found here on the finished [`hir::Program`], so they see
//! exactly what runs:
//! - a local (`let`, `var`, parameter, `for` or `catch` variable) that is
//!   never read (`unused variable`, or `assigned to, but never used` when
//!   it is assigned);
//! - a `var` local that is never assigned after its declaration;
//! - an import no name resolves through;
//! - a function of the main file that `main` and the global initialisers
//!   never reach through calls (functions of imported modules are their
//!   module's interface and never warn);
//! - a comparison (`== != < <= > >=`) of two literals.
//!
//! A name starting with `_` silences the unused warnings for it, as in
//! Rust. Compound assignment (`x += 1`) is an assignment, not a read.

use super::hir::{self, BinOp, ExprKind, FuncId, LocalId, UnOp, Visitor, walk_expr};
use super::{ItemRef, Sema};
use crate::diag::Diagnostic;
use crate::span::Span;

/// What a function body does with its locals and which functions it calls.
#[derive(Default)]
struct Uses {
    read: Vec<bool>,
    calls: Vec<FuncId>,
    /// Comparisons of two literals: their span and constant result.
    constant_comparisons: Vec<(Span, bool)>,
}

impl Uses {
    fn of(f: &hir::Function) -> Uses {
        let mut u = Uses {
            read: vec![false; f.locals.len()],
            ..Uses::default()
        };
        u.block(&f.body);
        u
    }
}

impl Visitor for Uses {
    fn expr(&mut self, e: &hir::Expr) {
        match &e.kind {
            ExprKind::Local(l) => self.read[l.0 as usize] = true,
            ExprKind::Binary(op, l, r) => {
                if let Some(v) = constant_comparison(*op, l, r) {
                    self.constant_comparisons.push((e.span, v));
                }
            }
            ExprKind::Call { func, .. } => self.calls.push(*func),
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// A literal operand of a comparison (a negated number literal counts).
#[derive(PartialEq, PartialOrd)]
enum Literal<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
}

fn literal(e: &hir::Expr) -> Option<Literal<'_>> {
    match &e.kind {
        ExprKind::Int(v) => Some(Literal::Int(*v)),
        ExprKind::Float(v) => Some(Literal::Float(*v)),
        ExprKind::Bool(v) => Some(Literal::Bool(*v)),
        ExprKind::Str(s) => Some(Literal::Str(s)),
        ExprKind::Unary(UnOp::Neg, x) => match x.kind {
            ExprKind::Int(v) => Some(Literal::Int(v.wrapping_neg())),
            ExprKind::Float(v) => Some(Literal::Float(-v)),
            _ => None,
        },
        _ => None,
    }
}

/// The value of `l op r` when both are literals and `op` compares; Toy's
/// orders (bytewise for `str`, IEEE for floats) are Rust's.
fn constant_comparison(op: BinOp, l: &hir::Expr, r: &hir::Expr) -> Option<bool> {
    if !op.is_comparison() {
        return None;
    }
    let (a, b) = (literal(l)?, literal(r)?);
    Some(match op {
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        _ => return None,
    })
}

/// Whether a name opts out of the unused warnings (`_x`), or is one no
/// source text can name (`<index>`).
fn silenced(name: &str) -> bool {
    name.starts_with('_') || name.starts_with('<')
}

impl Sema<'_> {
    /// Warns about `at`, the first statement after `end`, which ended the
    /// path (stmt.rs defines which statements do).
    pub(super) fn unreachable(&mut self, at: Span, end: Span) {
        self.warn(
            Diagnostic::warning(at, "unreachable statement")
                .with_label("this statement is never executed")
                .with_secondary(end, "any code after this is unreachable"),
        );
    }

    /// Every warning of a complete, error-free program but those found
    /// while checking. A large program's functions are walked on `pool`'s
    /// threads; the warnings come in function order either way.
    pub(super) fn lint(&self, program: &hir::Program, pool: &crate::par::Pool) -> Vec<Diagnostic> {
        let funcs = &program.functions;
        let work = program.body_bytes() / crate::par::SOURCE_BYTES_PER_STATEMENT;
        let uses: Vec<Uses> = pool.map(funcs.len(), work, |i| Uses::of(&funcs[i]));
        let mut out = Vec::new();
        for (f, u) in program.functions.iter().zip(&uses) {
            locals(f, u, &mut out);
            for &(span, value) in &u.constant_comparisons {
                out.push(
                    Diagnostic::warning(span, format!("comparison is always {value}"))
                        .with_label("both sides are literals"),
                );
            }
        }
        self.unused_imports(&mut out);
        self.unused_functions(program, &uses, &mut out);
        out
    }

    fn unused_imports(&self, out: &mut Vec<Diagnostic>) {
        for m in &self.modules {
            let used = m.used_imports.borrow();
            for (name, (item, span)) in &m.items {
                if matches!(item, ItemRef::Import(_)) && !used.contains(name) {
                    out.push(
                        Diagnostic::warning(*span, format!("unused import `{name}`"))
                            .with_label(format!("nothing in this file uses `{name}`"))
                            .with_note("remove the import"),
                    );
                }
            }
        }
    }

    /// Functions of the main file that no call path from `main` or the
    /// global initialisers reaches.
    fn unused_functions(&self, program: &hir::Program, uses: &[Uses], out: &mut Vec<Diagnostic>) {
        let mut reached = vec![false; program.functions.len()];
        let mut work = vec![program.main, program.init];
        // Functions of imported modules are their interface: roots too.
        for (i, f) in self.funcs.iter().enumerate() {
            if !self.modules[f.module].is_main {
                work.push(FuncId(i as u32));
            }
        }
        while let Some(f) = work.pop() {
            if std::mem::replace(&mut reached[f.0 as usize], true) {
                continue;
            }
            work.extend(uses[f.0 as usize].calls.iter().copied());
        }
        for (i, f) in self.funcs.iter().enumerate() {
            if !reached[i] && !silenced(&f.name) {
                out.push(
                    Diagnostic::warning(
                        f.name_span,
                        format!("function `{}` is never used", f.name),
                    )
                    .with_label(format!("no call from `main` reaches `{}`", f.name))
                    .with_note(format!(
                        "if this is intentional, prefix its name with an underscore: `_{}`",
                        f.name
                    )),
                );
            }
        }
    }
}

/// The unused-variable and never-reassigned warnings of one function.
fn locals(f: &hir::Function, u: &Uses, out: &mut Vec<Diagnostic>) {
    for (i, l) in f.locals.iter().enumerate() {
        if silenced(&l.name) {
            continue;
        }
        let is_param = f.params.contains(&LocalId(i as u32));
        let name = &l.name;
        let underscore = format!("if this is intentional, prefix it with an underscore: `_{name}`");
        if !u.read[i] {
            let d = if l.assigned {
                Diagnostic::warning(
                    l.span,
                    format!("variable `{name}` is assigned to, but never used"),
                )
                .with_label(format!("`{name}` is assigned but never read"))
            } else {
                Diagnostic::warning(l.span, format!("unused variable `{name}`"))
                    .with_label(format!("`{name}` is never read"))
            };
            out.push(d.with_note(underscore));
        } else if l.mutable && !is_param && !l.assigned {
            out.push(
                Diagnostic::warning(l.span, format!("variable `{name}` is never reassigned"))
                    .with_label(format!(
                        "`{name}` is declared with `var` but never assigned to"
                    ))
                    .with_note("declare it with `let`"),
            );
        }
    }
}
