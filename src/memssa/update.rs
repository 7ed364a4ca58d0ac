//! The updater: keeps MemorySSA valid while a pass edits the function
//! (LLVM's `MemorySSAUpdater`).
//!
//! - A new or moved use takes the reaching def at its new place, found by
//!   an iterative search (the block's list backwards, then up the
//!   dominator tree: a block without a φ sees its immediate dominator's
//!   last version). No recursion (LLVM #121279 overflowed the stack in the
//!   recursive `getPreviousDefRecursive`).
//! - A new or moved def may need new φs: they are placed on the iterated
//!   dominance frontier of its block, every cached clobber is dropped and
//!   defining accesses are renamed again (linear in the function).
//! - A removed def's users take its defining access; caches pointing at it
//!   are dropped.

use super::alias::Effect;
use super::build::{idf, rename};
use super::{Access, AccessId, AccessKind, LIVE_ON_ENTRY, MemorySsa};
use crate::ir::dom::frontiers;
use crate::ir::{BlockId, IrCode, Value};

impl MemorySsa {
    /// The version of memory just before list position `pos` of `block`.
    pub fn previous_def(&self, block: BlockId, pos: usize) -> AccessId {
        if !self.dom.reachable(block) {
            return LIVE_ON_ENTRY;
        }
        let mut b = block;
        let mut end = pos;
        let mut guard = 0usize;
        loop {
            let list = self.block_accesses(b);
            for &a in list[..end.min(list.len())].iter().rev() {
                if !matches!(self.access(a).kind, AccessKind::Use { .. }) {
                    return a;
                }
            }
            match self.dom.idom(b) {
                Some(d) if d != b && guard <= self.dom.len() => {
                    guard += 1;
                    b = d;
                    end = usize::MAX;
                }
                _ => return LIVE_ON_ENTRY,
            }
        }
    }

    /// Records that statement `v` (e.g. a new node) lives in `block`.
    pub fn record_stmt(&mut self, v: Value, block: BlockId) {
        self.block_of[v] = Some(block);
    }

    /// Creates the access of a new statement `inst` in `block` at list
    /// position `pos` (clamped; never before the φ). `is_def` chooses the
    /// kind; `effect` is what it reads (use) or writes (def).
    pub fn create_access(
        &mut self,
        ir: &IrCode,
        inst: Value,
        block: BlockId,
        pos: usize,
        is_def: bool,
        effect: Effect,
    ) -> AccessId {
        self.record_stmt(inst, block);
        let num = if is_def {
            self.next_num += 1;
            self.next_num - 1
        } else {
            0
        };
        let kind = if is_def {
            AccessKind::Def { inst }
        } else {
            AccessKind::Use { inst }
        };
        let id = self.push(Access {
            kind,
            block,
            num,
            defining: None,
            optimized: None,
            effect,
            removed: false,
        });
        self.by_inst[inst] = Some(id);
        let pos = self.clamp_pos(block, pos);
        self.lists[block].insert(pos, id);
        self.relink(ir, id, is_def);
        id
    }

    fn clamp_pos(&self, block: BlockId, pos: usize) -> usize {
        let list = self.block_accesses(block);
        let first = usize::from(self.phi_for(block).is_some());
        pos.clamp(first, list.len())
    }

    /// After `a` is placed: a use takes the previous def; a def triggers φ
    /// placement and renaming.
    fn relink(&mut self, ir: &IrCode, a: AccessId, is_def: bool) {
        let block = self.access(a).block;
        if !is_def {
            let pos = self.position(a).unwrap_or(0);
            let d = self.previous_def(block, pos);
            self.set_defining(a, d);
            self.reset_optimized(a);
            return;
        }
        if self.dom.reachable(block) {
            let df = frontiers(&ir.cfg, &self.dom);
            for b in idf(&df, &[block]) {
                if self.dom.reachable(b) {
                    self.new_phi(ir, b);
                }
            }
        }
        self.reset_all_optimized();
        rename(ir, self);
    }

    /// Drops every cached clobber.
    pub fn reset_all_optimized(&mut self) {
        for acc in self.accesses.values_mut() {
            acc.optimized = None;
        }
    }

    /// Moves `a` (a def or use) to list position `pos` of `block`; its
    /// statement has moved there (now `inst`).
    pub fn move_access(
        &mut self,
        ir: &IrCode,
        a: AccessId,
        inst: Value,
        block: BlockId,
        pos: usize,
    ) {
        let old = self.access(a).block;
        self.lists[old].retain(|&x| x != a);
        if let AccessKind::Def { inst: i } | AccessKind::Use { inst: i } = self.access(a).kind {
            self.by_inst[i] = None;
        }
        let is_def = matches!(self.access(a).kind, AccessKind::Def { .. });
        self.accesses[a].kind = if is_def {
            AccessKind::Def { inst }
        } else {
            AccessKind::Use { inst }
        };
        self.accesses[a].block = block;
        self.by_inst[inst] = Some(a);
        self.record_stmt(inst, block);
        let pos = self.clamp_pos(block, pos);
        self.lists[block].insert(pos, a);
        self.relink(ir, a, is_def);
    }

    /// Removes `a` (its statement was deleted or replaced). Users of a def
    /// or φ take its defining access (a φ must have one distinct operand,
    /// or no users).
    pub fn remove_access(&mut self, a: AccessId) {
        if a == LIVE_ON_ENTRY || self.access(a).removed {
            return;
        }
        let repl = match &self.access(a).kind {
            AccessKind::Phi { incoming } => {
                let mut ops: Vec<AccessId> = incoming
                    .iter()
                    .map(|(_, x)| *x)
                    .filter(|&x| x != a)
                    .collect();
                ops.dedup();
                ops.first().copied().unwrap_or(LIVE_ON_ENTRY)
            }
            _ => self.access(a).defining.unwrap_or(LIVE_ON_ENTRY),
        };
        let users = self.users(a);
        for u in users {
            if u == a {
                continue;
            }
            if self.access(u).defining == Some(a) {
                self.set_defining(u, repl);
                self.reset_optimized(u);
            }
            if matches!(self.access(u).kind, AccessKind::Phi { .. }) {
                let preds: Vec<BlockId> = match &self.access(u).kind {
                    AccessKind::Phi { incoming } => incoming
                        .iter()
                        .filter(|(_, x)| *x == a)
                        .map(|(p, _)| *p)
                        .collect(),
                    _ => Vec::new(),
                };
                for p in preds {
                    self.set_phi_incoming(u, p, repl);
                }
            }
        }
        // Caches of defs naming `a` read as dropped (see `optimized`); uses
        // optimized past `a` stay valid: removing a def only removes a
        // possible clobber.
        if let Some(d) = self.access(a).defining {
            self.accesses[a].defining = None;
            self.drop_user(d, a);
        }
        if let AccessKind::Phi { incoming } = self.access(a).kind.clone() {
            self.accesses[a].kind = AccessKind::Phi {
                incoming: Vec::new(),
            };
            for (_, x) in incoming {
                self.drop_user(x, a);
            }
            let b = self.access(a).block;
            self.phis[b] = None;
        }
        let b = self.access(a).block;
        self.lists[b].retain(|&x| x != a);
        if let AccessKind::Def { inst } | AccessKind::Use { inst } = self.access(a).kind {
            self.by_inst[inst] = None;
        }
        self.users[a].clear();
        self.accesses[a].removed = true;
    }
}
