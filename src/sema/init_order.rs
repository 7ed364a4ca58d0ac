//! Reads of globals before their initialisation through function calls.
//!
//! Globals are initialised one after another (the order of `<init>`). A
//! global initialiser that calls a function which, directly or through
//! further calls, reads a global initialised at the same point or later
//! would see an uninitialised value (a null reference for `str`, arrays and
//! structs). That is a compile error at the call, like the direct case.
//!
//! For every function, the latest init position of any global it may read
//! (transitively) is computed once: a max-propagation over the reversed
//! call graph, processing values from the largest down (each function is
//! settled the first time it is reached), O((F + E) log F).

use super::Sema;
use super::hir::{self, FuncId, GlobalId};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::BinaryHeap;

/// What a piece of HIR reads and calls.
#[derive(Default)]
struct Uses {
    reads: Vec<GlobalId>,
    calls: Vec<(FuncId, Span)>,
}

impl Uses {
    fn expr(&mut self, e: &hir::Expr) {
        use hir::ExprKind::*;
        match &e.kind {
            Int(_) | Float(_) | Bool(_) | Str(_) | Nil | Local(_) => {}
            Global(g) => self.reads.push(*g),
            Unary(_, a) => self.expr(a),
            Binary(_, a, b) | And(a, b) | Or(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Call { func, args } => {
                self.calls.push((*func, e.span));
                args.iter().for_each(|a| self.expr(a));
            }
            Builtin { args, .. } | ArrayLit(args) => args.iter().for_each(|a| self.expr(a)),
            Index { base, index } => {
                self.expr(base);
                self.expr(index);
            }
            Field { object, .. } => self.expr(object),
            ArrayRepeat { value, count } => {
                self.expr(value);
                self.expr(count);
            }
            StructLit { fields, .. } => fields.iter().for_each(|(_, v)| self.expr(v)),
        }
    }

    fn block(&mut self, b: &hir::Block) {
        b.stmts.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &hir::Stmt) {
        use hir::StmtKind::*;
        match &s.kind {
            Let { init, .. } => self.expr(init),
            Assign { place, op, value } => {
                match place {
                    hir::Place::Local(_) => {}
                    // A compound assignment reads the global first.
                    hir::Place::Global(g) => {
                        if op.is_some() {
                            self.reads.push(*g);
                        }
                    }
                    hir::Place::Index { array, index } => {
                        self.expr(array);
                        self.expr(index);
                    }
                    hir::Place::Field { object, .. } => self.expr(object),
                }
                self.expr(value);
            }
            Expr(e) | Throw(e) => self.expr(e),
            If {
                cond,
                then_block,
                else_block,
            } => {
                self.expr(cond);
                self.block(then_block);
                self.block(else_block);
            }
            While { cond, body, .. } => {
                self.expr(cond);
                self.block(body);
            }
            ForRange {
                start, end, body, ..
            } => {
                self.expr(start);
                self.expr(end);
                self.block(body);
            }
            ForEach { array, body, .. } => {
                self.expr(array);
                self.block(body);
            }
            Break(_) | Continue(_) | Return(None) => {}
            Return(Some(e)) => self.expr(e),
            Try { body, handler, .. } => {
                self.block(body);
                self.block(handler);
            }
            Block(b) => self.block(b),
        }
    }
}

impl Sema<'_> {
    /// Reports global initialisers that reach a read of a global not yet
    /// initialised through calls. Runs after every body is typed.
    pub(super) fn check_init_reads(&mut self) {
        let nf = self.bodies.len();
        // Init position of every global (globals without one never count).
        let pos: Vec<Option<usize>> = self.globals.iter().map(|g| g.init_pos).collect();
        // Per function: the latest-initialised global it reads directly.
        let mut best: Vec<Option<(usize, GlobalId)>> = vec![None; nf];
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); nf];
        for (f, body) in self.bodies.iter().enumerate() {
            let Some(body) = body else { continue };
            let mut u = Uses::default();
            u.block(&body.body);
            for g in u.reads {
                if let Some(p) = pos[g.0 as usize]
                    && best[f].is_none_or(|(bp, _)| p > bp)
                {
                    best[f] = Some((p, g));
                }
            }
            for (c, _) in u.calls {
                if let Some(list) = callers.get_mut(c.0 as usize) {
                    list.push(f);
                }
            }
        }
        // Propagate maxima to callers, largest first.
        let mut heap: BinaryHeap<(usize, u32, usize)> = best
            .iter()
            .enumerate()
            .filter_map(|(f, b)| b.map(|(p, g)| (p, g.0, f)))
            .collect();
        let mut settled = vec![false; nf];
        while let Some((p, g, f)) = heap.pop() {
            if settled[f] {
                continue;
            }
            settled[f] = true;
            for &c in &callers[f] {
                if !settled[c] && best[c].is_none_or(|(bp, _)| p > bp) {
                    best[c] = Some((p, GlobalId(g)));
                    heap.push((p, g, c));
                }
            }
        }
        for stmt in std::mem::take(&mut self.init_stmts) {
            if let hir::StmtKind::Assign {
                place: hir::Place::Global(target),
                value,
                ..
            } = &stmt.kind
            {
                let at = self.globals[target.0 as usize]
                    .init_pos
                    .unwrap_or(usize::MAX);
                let mut u = Uses::default();
                u.expr(value);
                for (c, span) in u.calls {
                    if let Some(Some((p, g))) = best.get(c.0 as usize)
                        && *p >= at
                    {
                        let (gname, gspan) = (
                            self.globals[g.0 as usize].name.clone(),
                            self.globals[g.0 as usize].span,
                        );
                        let fname = self.funcs[c.0 as usize].name.clone();
                        self.error(
                            Diagnostic::error(
                                span,
                                format!("cannot use global `{gname}` before it is initialised"),
                            )
                            .with_label(format!("this call reads `{gname}` (through `{fname}`)"))
                            .with_secondary(
                                gspan,
                                "initialised later: globals are initialised in source order",
                            ),
                        );
                    }
                }
            }
            self.init_stmts.push(stmt);
        }
    }
}
