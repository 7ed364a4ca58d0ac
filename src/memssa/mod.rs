//! MemorySSA over [`IrCode`], after LLVM's `MemorySSA`.
//!
//! Every instruction that touches Toy-visible memory gets one access:
//! - a `MemoryDef` for stores, allocations, and calls that may write;
//! - a `MemoryUse` for loads and calls that only read;
//! - a `MemoryPhi` at the head of a block where two memory versions meet
//!   (placed on the iterated dominance frontier of the blocks holding defs,
//!   so only where needed).
//!
//! Invariants (checked by [`verify::verify`]):
//! - `liveOnEntry` (access 0) dominates every access; it is in no block list.
//! - Each block's list holds its accesses in statement order, its φ (at most
//!   one) first.
//! - The defining access of a use or def dominates it; a φ has one incoming
//!   access per predecessor of its block, each dominating the end of that
//!   predecessor. Accesses in unreachable blocks (and φ operands from
//!   unreachable predecessors) are `liveOnEntry`.
//! - `users[a]` lists exactly the accesses that name `a` as defining access
//!   or φ operand (with repetition removed).
//! - An optimized use's defining access is its clobber (as LLVM's
//!   `optimizeUses` leaves it); a def's cached clobber (`->N`) is a def, φ or
//!   `liveOnEntry` that dominates it. Any edit that could change a clobber
//!   resets the caches it affects.

pub mod alias;
pub mod build;
pub mod print;
pub mod update;
pub mod verify;
pub mod walker;

use crate::ir::FxSet;
use crate::ir::dom::DomTree;
use crate::ir::{BlockId, IrCode, Value};
use alias::Effect;
use cranelift_entity::{PrimaryMap, SecondaryMap};

/// An access, indexed in [`MemorySsa::accesses`]. `AccessId(0)` is `liveOnEntry`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccessId(pub u32);
cranelift_entity::entity_impl!(AccessId);

pub const LIVE_ON_ENTRY: AccessId = AccessId(0);

#[derive(Clone, Debug, PartialEq)]
pub enum AccessKind {
    LiveOnEntry,
    /// A write (store, allocation, call that may write) by statement `inst`.
    Def {
        inst: Value,
    },
    /// A read (load, read-only call) by statement `inst`.
    Use {
        inst: Value,
    },
    /// A merge of memory versions at the head of a block: `incoming[i]`
    /// flows in from predecessor `incoming[i].0`.
    Phi {
        incoming: Vec<(BlockId, AccessId)>,
    },
}

#[derive(Clone, Debug)]
pub struct Access {
    pub kind: AccessKind,
    pub block: BlockId,
    /// The printed number of defs and φs (`liveOnEntry` and uses: 0).
    pub num: u32,
    /// Defining access of a def or use (`None` for φs, liveOnEntry, removed).
    pub defining: Option<AccessId>,
    /// For a use: its defining access is its clobber. For a def: the cached
    /// clobber of its own location (`->N`).
    pub optimized: Option<AccessId>,
    /// What the instruction reads (uses) or writes (defs).
    pub effect: Effect,
    pub removed: bool,
}

/// MemorySSA of one function.
pub struct MemorySsa {
    pub accesses: PrimaryMap<AccessId, Access>,
    /// The access of each statement that has one.
    pub(crate) by_inst: SecondaryMap<Value, Option<AccessId>>,
    pub(crate) phis: SecondaryMap<BlockId, Option<AccessId>>,
    pub(crate) lists: SecondaryMap<BlockId, Vec<AccessId>>,
    pub(crate) users: SecondaryMap<AccessId, FxSet<AccessId>>,
    /// Number of statements of the stream when built (statement order is
    /// value order below it).
    pub(crate) n_stmts: u32,
    pub dom: std::sync::Arc<DomTree>,
    /// Step budget of one walker query (LLVM's `memssa-check-limit`).
    pub walk_limit: u32,
    pub(crate) next_num: u32,
    /// Block of each statement (new statements are recorded on creation).
    pub(crate) block_of: SecondaryMap<Value, Option<BlockId>>,
    /// What the walker did: queries, cache hits, budget overruns.
    pub(crate) stats: WalkStats,
}

/// Counters of the walker (for tests and `--stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    pub queries: u64,
    pub cache_hits: u64,
    pub budget_exhausted: u64,
}

impl MemorySsa {
    /// Builds MemorySSA for `ir` (see [`build`]); calls take their effects
    /// from `sums`, the summaries of `ir`'s module.
    pub fn build(ir: &IrCode, sums: &alias::Summaries) -> MemorySsa {
        build::build(ir, sums)
    }

    pub fn access(&self, a: AccessId) -> &Access {
        &self.accesses[a]
    }

    /// The use or def of statement `inst`, if it touches memory.
    pub fn access_for(&self, inst: Value) -> Option<AccessId> {
        self.by_inst[inst].filter(|a| !self.access(*a).removed)
    }

    /// The φ at the head of `block`, if any.
    pub fn phi_for(&self, block: BlockId) -> Option<AccessId> {
        self.phis[block]
    }

    /// The accesses of `block` in order (φ first).
    pub fn block_accesses(&self, block: BlockId) -> &[AccessId] {
        &self.lists[block]
    }

    pub fn defining_access(&self, a: AccessId) -> Option<AccessId> {
        self.access(a).defining
    }

    /// The accesses naming `a` as defining access or φ operand, in id
    /// order.
    pub fn users(&self, a: AccessId) -> Vec<AccessId> {
        let mut v: Vec<AccessId> = self.users[a].iter().copied().collect();
        v.sort_unstable();
        v
    }

    pub(crate) fn has_user(&self, a: AccessId, u: AccessId) -> bool {
        self.users[a].contains(&u)
    }

    pub fn inst_of(&self, a: AccessId) -> Option<Value> {
        match self.access(a).kind {
            AccessKind::Def { inst } | AccessKind::Use { inst } => Some(inst),
            _ => None,
        }
    }

    /// `optimized` of LLVM: the cached clobber, if still valid (a cache
    /// naming a removed access counts as dropped).
    pub fn optimized(&self, a: AccessId) -> Option<AccessId> {
        self.access(a)
            .optimized
            .filter(|o| !self.access(*o).removed)
    }

    /// Records `clobber` as `a`'s clobber. For a use this also makes it the
    /// defining access (as LLVM's `MemoryUse::setOptimized`).
    pub fn set_optimized(&mut self, a: AccessId, clobber: AccessId) {
        if matches!(self.access(a).kind, AccessKind::Use { .. }) {
            self.set_defining(a, clobber);
        }
        self.accesses[a].optimized = Some(clobber);
    }

    /// Drops `a`'s cached clobber (the defining access stays).
    pub fn reset_optimized(&mut self, a: AccessId) {
        self.accesses[a].optimized = None;
    }

    pub(crate) fn set_defining(&mut self, a: AccessId, d: AccessId) {
        if let Some(old) = self.accesses[a].defining {
            if old == d {
                return;
            }
            self.accesses[a].defining = None;
            self.drop_user(old, a);
        }
        self.accesses[a].defining = Some(d);
        self.add_user(d, a);
    }

    pub(crate) fn add_user(&mut self, d: AccessId, user: AccessId) {
        self.users[d].insert(user);
    }

    /// Removes `user` from `d`'s users unless it still refers to `d`.
    pub(crate) fn drop_user(&mut self, d: AccessId, user: AccessId) {
        let still = match &self.access(user).kind {
            AccessKind::Phi { incoming } => incoming.iter().any(|(_, x)| *x == d),
            _ => false,
        } || self.access(user).defining == Some(d);
        if !still {
            self.users[d].remove(&user);
        }
    }

    /// Position of `a` in its block's list (`None` for liveOnEntry/removed).
    pub fn position(&self, a: AccessId) -> Option<usize> {
        if a == LIVE_ON_ENTRY {
            return None;
        }
        self.block_accesses(self.access(a).block)
            .iter()
            .position(|&x| x == a)
    }

    /// Whether access `a` dominates access `b` (reflexive; liveOnEntry
    /// dominates everything; within a block, by list order).
    pub fn dominates(&self, a: AccessId, b: AccessId) -> bool {
        if a == b || a == LIVE_ON_ENTRY {
            return true;
        }
        if b == LIVE_ON_ENTRY {
            return false;
        }
        let (ba, bb) = (self.access(a).block, self.access(b).block);
        if ba != bb {
            return self.dom.dominates(ba, bb) && self.dom.reachable(ba);
        }
        if let (Some(x), Some(y)) = (self.inst_of(a), self.inst_of(b))
            && x.0 < self.n_stmts
            && y.0 < self.n_stmts
        {
            return x.0 <= y.0;
        }
        if matches!(self.access(a).kind, AccessKind::Phi { .. }) {
            return true;
        }
        if matches!(self.access(b).kind, AccessKind::Phi { .. }) {
            return false;
        }
        match (self.position(a), self.position(b)) {
            (Some(pa), Some(pb)) => pa <= pb,
            _ => false,
        }
    }

    /// The walker statistics so far.
    pub fn walk_stats(&self) -> WalkStats {
        self.stats
    }

    /// Optimizes every use (LLVM's `ensureOptimizedUses`): each use's
    /// defining access becomes its clobber.
    pub fn ensure_optimized_uses(&mut self, ir: &IrCode) {
        let uses: Vec<AccessId> = self
            .accesses
            .keys()
            .skip(1)
            .filter(|&a| {
                let acc = self.access(a);
                !acc.removed
                    && matches!(acc.kind, AccessKind::Use { .. })
                    && acc.optimized.is_none()
            })
            .collect();
        for u in uses {
            let c = self.clobbering_access(ir, u);
            self.set_optimized(u, c);
        }
    }

    /// The block holding statement `v`.
    pub fn block_of(&self, v: Value) -> Option<BlockId> {
        self.block_of[v]
    }

    /// Live accesses (not removed), liveOnEntry excluded.
    pub fn live_accesses(&self) -> impl Iterator<Item = AccessId> + '_ {
        self.accesses
            .keys()
            .skip(1)
            .filter(|a| !self.access(*a).removed)
    }
}

impl MemorySsa {
    /// The alias analysis context of this function.
    pub fn alias_ctx<'a>(&'a self, ir: &'a IrCode) -> alias::AliasCtx<'a> {
        alias::AliasCtx {
            ir,
            dom: &self.dom,
            block_of: &self.block_of,
        }
    }
}
