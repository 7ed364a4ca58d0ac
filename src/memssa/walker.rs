//! The clobber walker: for an access, the nearest def or φ above it that
//! may write what it reads (LLVM's `ClobberWalker`).
//!
//! Straight chains of defs are walked one def at a time. At a φ every
//! incoming path is explored (with an explicit worklist, never recursion);
//! the location is translated across the φ's edges (an IR φ of the block
//! used as base or index becomes its incoming value). If every path meets
//! the same clobber it is the answer, otherwise the φ is. Crossing a loop
//! back edge with a location whose operands are not loop-invariant makes
//! the query *imprecise* (facts about SSA values of one iteration no longer
//! hold, see [`alias`](super::alias)).
//!
//! Every query has a step budget ([`MemorySsa::walk_limit`], default 100,
//! like LLVM's `memssa-check-limit`); past it the answer is the access the
//! walk had reached, which is always a correct (conservative) clobber.
//! [`MemorySsa::clobbering_access`] caches its answer in the access
//! (`optimized`); edits through the updater invalidate it.

use super::alias::{AliasCtx, Effect, MemLoc};
use super::{AccessId, AccessKind, LIVE_ON_ENTRY, MemorySsa};
use crate::ir::FxSet;
use crate::ir::{BlockId, Inst, IrCode, Operand};

impl MemorySsa {
    /// The clobber of `a`'s own location, starting above `a` (for a def
    /// this skips the def itself). Cached in the access.
    pub fn clobbering_access(&mut self, ir: &IrCode, a: AccessId) -> AccessId {
        self.stats.queries += 1;
        if a == LIVE_ON_ENTRY || matches!(self.access(a).kind, AccessKind::Phi { .. }) {
            return a;
        }
        if let Some(c) = self.optimized(a) {
            self.stats.cache_hits += 1;
            return c;
        }
        let Some(start) = self.access(a).defining else {
            return LIVE_ON_ENTRY;
        };
        let effect = self.access(a).effect.clone();
        let c = self.walk(ir, start, &effect);
        self.set_optimized(a, c);
        c
    }

    fn clobbers(&self, ir: &IrCode, def: AccessId, loc: &Effect, imprecise: bool) -> bool {
        let ctx = AliasCtx {
            ir,
            dom: &self.dom,
            block_of: &self.block_of,
        };
        ctx.overlaps(&self.access(def).effect, loc, imprecise)
    }

    /// The walk from `start` (included) for `loc`.
    pub(crate) fn walk(&mut self, ir: &IrCode, start: AccessId, loc: &Effect) -> AccessId {
        let mut cur = start;
        let mut steps = 0u32;
        loop {
            steps += 1;
            if steps > self.walk_limit {
                self.stats.budget_exhausted += 1;
                return cur;
            }
            match &self.access(cur).kind {
                AccessKind::LiveOnEntry => return cur,
                AccessKind::Def { .. } => {
                    if self.clobbers(ir, cur, loc, false) {
                        return cur;
                    }
                    match self.access(cur).defining {
                        Some(d) => cur = d,
                        None => return cur,
                    }
                }
                AccessKind::Use { .. } => match self.access(cur).defining {
                    Some(d) => cur = d,
                    None => return LIVE_ON_ENTRY,
                },
                AccessKind::Phi { .. } => return self.walk_phi(ir, cur, loc, &mut steps),
            }
        }
    }

    /// Explores every path above φ `p`; the common clobber or `p`.
    fn walk_phi(&mut self, ir: &IrCode, p: AccessId, loc: &Effect, steps: &mut u32) -> AccessId {
        let mut seen: FxSet<(AccessId, Effect, bool)> = FxSet::default();
        let mut found: Option<AccessId> = None;
        let mut work: Vec<(AccessId, Effect, bool)> = vec![(p, loc.clone(), false)];
        while let Some((mut cur, l, imprecise)) = work.pop() {
            loop {
                *steps += 1;
                if *steps > self.walk_limit {
                    self.stats.budget_exhausted += 1;
                    return p;
                }
                match &self.access(cur).kind {
                    AccessKind::LiveOnEntry => {
                        if found.is_some_and(|f| f != cur) {
                            return p;
                        }
                        found = Some(cur);
                        break;
                    }
                    AccessKind::Def { .. } | AccessKind::Use { .. } => {
                        if matches!(self.access(cur).kind, AccessKind::Def { .. })
                            && self.clobbers(ir, cur, &l, imprecise)
                        {
                            if found.is_some_and(|f| f != cur) {
                                return p;
                            }
                            found = Some(cur);
                            break;
                        }
                        match self.access(cur).defining {
                            Some(d) => cur = d,
                            None => break,
                        }
                    }
                    AccessKind::Phi { incoming } => {
                        if !seen.insert((cur, l.clone(), imprecise)) {
                            break;
                        }
                        let incoming = incoming.clone();
                        let block = self.access(cur).block;
                        for (pred, acc) in incoming {
                            let (tl, imp) = self.translate(ir, &l, block, pred, imprecise);
                            work.push((acc, tl, imp));
                        }
                        break;
                    }
                }
            }
        }
        match found {
            Some(f) if self.dominates(f, p) => f,
            _ => p,
        }
    }

    /// Translates `loc` from the head of `block` to the end of `pred`.
    fn translate(
        &self,
        ir: &IrCode,
        loc: &Effect,
        block: BlockId,
        pred: BlockId,
        imprecise: bool,
    ) -> (Effect, bool) {
        let Effect::Locs(locs) = loc else {
            return (loc.clone(), imprecise);
        };
        let back_edge = self.dom.reachable(pred) && self.dom.dominates(block, pred);
        let mut imp = imprecise;
        let mut tr = |op: &Option<Operand>| -> Option<Operand> {
            let o = (*op)?;
            let Operand::Value(v) = o else { return Some(o) };
            if self.block_of[v] == Some(block)
                && let Some(Inst::Phi { edges, values }) = ir.stmts.get(v)
                && let Some(i) = edges.iter().position(|e| *e == pred)
            {
                return values.get(i).copied();
            }
            if back_edge {
                let outside = self.block_of[v].is_some_and(|b| {
                    b != block && self.dom.reachable(b) && self.dom.dominates(b, block)
                });
                if !outside {
                    imp = true;
                }
            }
            Some(o)
        };
        let out: Vec<MemLoc> = locs
            .iter()
            .map(|m| MemLoc {
                class: m.class.clone(),
                base: tr(&m.base),
                index: tr(&m.index),
            })
            .collect();
        (Effect::Locs(out), imp)
    }
}
