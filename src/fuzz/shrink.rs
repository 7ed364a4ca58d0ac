//! Test-case reduction: deletes functions and statements, replaces compound
//! statements by their bodies and simplifies expressions while a predicate
//! (usually "toyc still disagrees with the oracle in the same way") holds.
//!
//! Invariants: every candidate handed to the predicate is
//! [`well_formed`] (names in scope, jumps inside loops and last in their
//! block, functions with a return type ending in `return`, no call of a
//! deleted function); the result is a fixpoint of the single-step edits,
//! or the best program found when the predicate budget runs out.

use super::ast::*;
use std::collections::HashSet;

/// Shrinks `p` while `still_fails` holds (which it must for `p` itself).
/// Stops after `max_tries` predicate calls.
pub fn shrink(
    p: &Program,
    max_tries: usize,
    still_fails: &mut dyn FnMut(&Program) -> bool,
) -> Program {
    let mut best = p.clone();
    let mut tries = 0;
    loop {
        let mut progress = false;
        for edit in [
            Edit::DeleteFunc,
            Edit::DeleteGlobal,
            Edit::DeleteStmt,
            Edit::Unwrap,
            Edit::Simplify,
            Edit::DeleteStruct,
        ] {
            // Walk the candidates of this edit kind from the last one, so
            // that a success does not shift the indices still to try.
            let total = count(&best, edit);
            for k in (0..total).rev() {
                let Some(cand) = apply(&best, edit, k) else {
                    continue;
                };
                if !well_formed(&cand) {
                    continue;
                }
                tries += 1;
                if tries > max_tries {
                    return best;
                }
                if still_fails(&cand) {
                    best = cand;
                    progress = true;
                }
            }
        }
        if !progress {
            return best;
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Edit {
    DeleteFunc,
    /// Delete a global nothing refers to.
    DeleteGlobal,
    /// Delete the last struct if its name is not written anywhere else.
    DeleteStruct,
    DeleteStmt,
    /// Replace an `if`/loop/`try`/block by a block of one of its bodies.
    Unwrap,
    /// Replace an operator by an operand, a literal by 0.
    Simplify,
}

fn count(p: &Program, edit: Edit) -> usize {
    match edit {
        Edit::DeleteFunc => p.funcs.len(),
        Edit::DeleteGlobal => p.globals.len(),
        Edit::DeleteStruct => 1,
        _ => {
            let mut c = p.clone();
            let mut n = usize::MAX;
            edit_nth(&mut c, edit, &mut n);
            usize::MAX - n
        }
    }
}

/// `p` with the `k`-th edit of kind `edit` applied, if it applies.
fn apply(p: &Program, edit: Edit, k: usize) -> Option<Program> {
    let mut c = p.clone();
    if edit == Edit::DeleteFunc {
        return delete_func(&mut c, k).then_some(c);
    }
    if edit == Edit::DeleteStruct {
        return delete_last_struct(&mut c).then_some(c);
    }
    if edit == Edit::DeleteGlobal {
        // `well_formed` rejects the program if the global was used.
        c.globals.remove(k);
        return Some(c);
    }
    let mut n = k;
    edit_nth(&mut c, edit, &mut n).then_some(c)
}

/// Deletes the last struct (so no index changes) if no value of it can
/// exist: its name appears nowhere in the printed program but in its own
/// declaration (every literal, typed `nil` and type annotation names it).
fn delete_last_struct(p: &mut Program) -> bool {
    if p.structs.len() <= 1 {
        return false;
    }
    let name = p.structs.last().map(|s| s.name.clone()).unwrap_or_default();
    let text = super::print::print_program(&mut p.clone()).text();
    let decl = format!("struct {name} ");
    let used = text.lines().filter(|l| !l.starts_with(&decl)).any(|l| {
        l.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == name)
    });
    if used {
        return false;
    }
    p.structs.pop();
    true
}

/// The functions called in `body`.
pub fn calls_in(body: &[Stmt]) -> HashSet<usize> {
    let mut called = HashSet::new();
    walk_exprs_in(body, &mut |e| {
        if let ExprKind::Call(j, _) = e.kind {
            called.insert(j);
        }
    });
    called
}

/// Deletes `fnK` if nothing calls it (never `main`), renumbering calls.
fn delete_func(p: &mut Program, k: usize) -> bool {
    if k == 0 || k >= p.funcs.len() {
        return false;
    }
    let mut called = HashSet::new();
    for f in &p.funcs {
        called.extend(calls_in(&f.body));
    }
    for g in &p.globals {
        walk_expr(&g.init, &mut |e| {
            if let ExprKind::Call(j, _) = e.kind {
                called.insert(j);
            }
        });
    }
    if called.contains(&k) {
        return false;
    }
    p.funcs.remove(k);
    if let Some(m) = &mut p.module_from
        && k < *m
    {
        *m -= 1;
    }
    for f in &mut p.funcs {
        for s in &mut f.body {
            renumber_stmt(s, k);
        }
    }
    true
}

fn renumber_stmt(s: &mut Stmt, removed: usize) {
    let mut fix = |e: &mut Expr| {
        if let ExprKind::Call(j, _) = &mut e.kind
            && *j > removed
        {
            *j -= 1;
        }
    };
    stmt_exprs_deep(s, &mut fix);
}

/// Applies the `*n`-th edit of kind `edit` (counting down `*n`); true if
/// it was applied. With `*n` huge it counts the candidates instead.
fn edit_nth(p: &mut Program, edit: Edit, n: &mut usize) -> bool {
    for f in &mut p.funcs {
        if edit_block(&mut f.body, edit, n) {
            return true;
        }
    }
    false
}

fn edit_block(b: &mut Vec<Stmt>, edit: Edit, n: &mut usize) -> bool {
    let mut i = 0;
    while i < b.len() {
        match edit {
            Edit::DeleteStmt => {
                if *n == 0 {
                    b.remove(i);
                    return true;
                }
                *n -= 1;
            }
            Edit::Unwrap => {
                for alt in 0..2 {
                    if let Some(inner) = unwrap_alt(&b[i], alt) {
                        if *n == 0 {
                            b[i] = Stmt::new(StmtKind::Block(inner));
                            return true;
                        }
                        *n -= 1;
                    }
                }
                if let StmtKind::Block(inner) = &b[i].kind {
                    if *n == 0 {
                        let inner = inner.clone();
                        b.splice(i..=i, inner);
                        return true;
                    }
                    *n -= 1;
                }
            }
            Edit::Simplify => {
                let mut done = false;
                stmt_exprs_mut(&mut b[i], &mut |e| {
                    if !done && simplify_nth(e, n) {
                        done = true;
                    }
                });
                if done {
                    return true;
                }
            }
            Edit::DeleteFunc | Edit::DeleteGlobal | Edit::DeleteStruct => unreachable!(),
        }
        if sub_blocks(&mut b[i])
            .into_iter()
            .any(|sb| edit_block(sb, edit, n))
        {
            return true;
        }
        i += 1;
    }
    false
}

/// The `alt`-th body of a compound statement, as a replacement.
fn unwrap_alt(s: &Stmt, alt: usize) -> Option<Vec<Stmt>> {
    match (&s.kind, alt) {
        (StmtKind::If(_, t, _), 0) => Some(t.clone()),
        (StmtKind::If(_, _, Some(e)), 1) => Some(e.clone()),
        (StmtKind::While { body, .. }, 0)
        | (StmtKind::ForRange { body, .. }, 0)
        | (StmtKind::ForEach { body, .. }, 0)
        | (StmtKind::Try { body, .. }, 0) => Some(body.clone()),
        _ => None,
    }
}

/// Tries the `*n`-th simplification inside `e` (pre-order).
fn simplify_nth(e: &mut Expr, n: &mut usize) -> bool {
    let options: Vec<Expr> = match &e.kind {
        ExprKind::Binary(op, l, r) if !is_comparison(*op) => vec![(**l).clone(), (**r).clone()],
        ExprKind::Neg(x) | ExprKind::Not(x) => vec![(**x).clone()],
        ExprKind::Int(v) if *v != 0 => vec![Expr::new(ExprKind::Int(0))],
        ExprKind::Float(v) if *v != 0.0 || v.is_sign_negative() => {
            vec![Expr::new(ExprKind::Float(0.0))]
        }
        ExprKind::Str(s) if !s.is_empty() => vec![Expr::new(ExprKind::Str(String::new()))],
        ExprKind::ArrayLit(t, xs) if xs.len() > 1 => {
            vec![Expr::new(ExprKind::ArrayLit(
                t.clone(),
                vec![xs[0].clone()],
            ))]
        }
        _ => Vec::new(),
    };
    for o in options {
        if *n == 0 {
            *e = o;
            return true;
        }
        *n -= 1;
    }
    let mut done = false;
    children_mut(e, &mut |c| {
        if !done && simplify_nth(c, n) {
            done = true;
        }
    });
    done
}

fn is_comparison(op: BinOp) -> bool {
    use BinOp::*;
    matches!(op, Eq | Ne | Lt | Le | Gt | Ge)
}

fn children_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Neg(x) | ExprKind::Not(x) | ExprKind::Field(x, ..) => f(x),
        ExprKind::Binary(_, l, r) | ExprKind::Index(l, r) | ExprKind::ArrayRep(l, r) => {
            f(l);
            f(r);
        }
        ExprKind::Call(_, xs)
        | ExprKind::Builtin(_, xs)
        | ExprKind::Lib(_, xs)
        | ExprKind::ArrayLit(_, xs) => xs.iter_mut().for_each(f),
        ExprKind::StructLit(_, fs) => fs.iter_mut().for_each(|(_, x)| f(x)),
        _ => {}
    }
}

/// The statement's own top-level expressions (not those in sub-blocks).
fn stmt_exprs_mut(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Let { init, .. } => f(init),
        StmtKind::Assign { place, value, .. } => {
            match place {
                Place::Var(_) => {}
                Place::Index(a, i) => {
                    f(a);
                    f(i);
                }
                Place::Field(p, ..) => f(p),
            }
            f(value);
        }
        StmtKind::Print { args, .. } => args.iter_mut().for_each(&mut *f),
        StmtKind::Push(a, b) => {
            f(a);
            f(b);
        }
        StmtKind::Expr(e) | StmtKind::Throw(e) | StmtKind::Assert(e, _) | StmtKind::Exit(e) => f(e),
        StmtKind::If(c, ..) | StmtKind::While { cond: c, .. } => f(c),
        StmtKind::ForRange { lo, hi, .. } => {
            f(lo);
            f(hi);
        }
        StmtKind::ForEach { arr, .. } => f(arr),
        StmtKind::Return(Some(e)) => f(e),
        _ => {}
    }
}

/// Every expression of the statement, sub-blocks included.
fn stmt_exprs_deep(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    stmt_exprs_mut(s, f);
    for b in sub_blocks(s) {
        for s in b.iter_mut() {
            stmt_exprs_deep(s, f);
        }
    }
}

fn sub_blocks(s: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match &mut s.kind {
        StmtKind::If(_, t, e) => {
            let mut v = vec![t];
            if let Some(e) = e {
                v.push(e);
            }
            v
        }
        StmtKind::While { body, .. }
        | StmtKind::ForRange { body, .. }
        | StmtKind::ForEach { body, .. } => vec![body],
        StmtKind::Try { body, handler, .. } => vec![body, handler],
        StmtKind::Block(b) => vec![b],
        _ => Vec::new(),
    }
}

/// Calls `f` on `e` and every expression inside it (pre-order).
pub fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    let mut c = e.clone();
    children_mut(&mut c, &mut |x| walk_expr(x, f));
}

/// Calls `f` on every expression in `body`, sub-blocks included.
pub fn walk_exprs_in(body: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in body {
        let mut s = s.clone();
        stmt_exprs_deep(&mut s, &mut |e| walk_expr(e, f));
    }
}

/// Whether `p` is a valid program in the sense of the module invariants.
pub fn well_formed(p: &Program) -> bool {
    let globals: Vec<String> = p.globals.iter().map(|g| g.name.clone()).collect();
    p.funcs.iter().all(|f| {
        if f.ret.is_some() && !matches!(f.body.last().map(|s| &s.kind), Some(StmtKind::Return(_))) {
            return false;
        }
        let mut scope: Vec<String> = globals.clone();
        scope.extend(f.params.iter().map(|(n, _)| n.clone()));
        let mut ck = Checker {
            scope,
            loops: Vec::new(),
            nfuncs: p.funcs.len(),
        };
        ck.block(&f.body)
    })
}

struct Checker {
    scope: Vec<String>,
    loops: Vec<Option<String>>,
    nfuncs: usize,
}

impl Checker {
    fn block(&mut self, b: &[Stmt]) -> bool {
        let mark = self.scope.len();
        let mut ok = true;
        for (k, s) in b.iter().enumerate() {
            let jump = matches!(
                s.kind,
                StmtKind::Break(_)
                    | StmtKind::Continue(_)
                    | StmtKind::Return(_)
                    | StmtKind::Throw(_)
            );
            if (jump && k + 1 != b.len()) || !self.stmt(s) {
                ok = false;
                break;
            }
        }
        self.scope.truncate(mark);
        ok
    }

    fn expr(&self, e: &Expr) -> bool {
        let mut ok = true;
        walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Var(n) if !self.scope.contains(n) => ok = false,
            ExprKind::Call(j, _) if *j >= self.nfuncs || *j == 0 => ok = false,
            _ => {}
        });
        ok
    }

    fn jump_ok(&self, l: &Option<String>) -> bool {
        match l {
            None => !self.loops.is_empty(),
            Some(l) => self.loops.iter().any(|x| x.as_ref() == Some(l)),
        }
    }

    fn in_loop(&mut self, label: &Option<String>, var: Option<&String>, body: &[Stmt]) -> bool {
        self.loops.push(label.clone());
        let mark = self.scope.len();
        if let Some(v) = var {
            self.scope.push(v.clone());
        }
        let ok = self.block(body);
        self.scope.truncate(mark);
        self.loops.pop();
        ok
    }

    fn stmt(&mut self, s: &Stmt) -> bool {
        let mut own = s.clone();
        let mut exprs_ok = true;
        // Only this statement's own expressions: sub-blocks are checked
        // below with their scopes.
        stmt_exprs_mut(&mut own, &mut |e| exprs_ok &= self.expr(e));
        if let StmtKind::Assign {
            place: Place::Var(n),
            ..
        } = &s.kind
        {
            exprs_ok &= self.scope.contains(n);
        }
        if !exprs_ok {
            return false;
        }
        match &s.kind {
            StmtKind::Let { name, .. } => {
                self.scope.push(name.clone());
                true
            }
            StmtKind::If(_, t, e) => self.block(t) && e.as_ref().is_none_or(|e| self.block(e)),
            StmtKind::While { label, body, .. } => self.in_loop(label, None, body),
            StmtKind::ForRange {
                label, var, body, ..
            }
            | StmtKind::ForEach {
                label, var, body, ..
            } => self.in_loop(label, Some(var), body),
            StmtKind::Break(l) | StmtKind::Continue(l) => self.jump_ok(l),
            StmtKind::Try { body, var, handler } => {
                if !self.block(body) {
                    return false;
                }
                self.scope.push(var.clone());
                let ok = self.block(handler);
                self.scope.pop();
                ok
            }
            StmtKind::Block(b) => self.block(b),
            _ => true,
        }
    }
}
