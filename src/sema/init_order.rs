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
use super::hir::{self, FuncId, GlobalId, Visitor, walk_expr, walk_stmt};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::BinaryHeap;

/// What a piece of HIR reads and calls.
#[derive(Default)]
struct Uses {
    reads: Vec<GlobalId>,
    calls: Vec<(FuncId, Span)>,
}

impl Visitor for Uses {
    fn stmt(&mut self, s: &hir::Stmt) {
        // A compound assignment reads the global first.
        if let hir::StmtKind::Assign {
            place: hir::Place::Global(g),
            op: Some(_),
            ..
        } = &s.kind
        {
            self.reads.push(*g);
        }
        walk_stmt(self, s);
    }

    fn expr(&mut self, e: &hir::Expr) {
        match &e.kind {
            hir::ExprKind::Global(g) => self.reads.push(*g),
            hir::ExprKind::Call { func, .. } => self.calls.push((*func, e.span)),
            _ => {}
        }
        walk_expr(self, e);
    }
}

impl Sema<'_> {
    /// Reports global initialisers that reach a read of a global not yet
    /// initialised through calls. Runs after every body is typed.
    pub(super) fn check_init_reads(&mut self) {
        // Only a global initialiser's calls are checked: without one, no
        // body needs walking.
        if self.init_stmts.is_empty() {
            return;
        }
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
