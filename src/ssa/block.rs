//! The builder's own blocks: their terminators, their contents while
//! they are being filled, and the storage they are reused from.
//!
//! Invariants:
//! - A block whose `term` is `None` is still being filled.
//! - `Blocks` derefs to the current function's blocks only; a spent block
//!   (from an earlier function) is emptied before it is handed out again.
use super::builder::{Blk, Var};
use crate::ir::Operand;
use crate::span::Span;

/// How control leaves a builder block. Distinct from `ir::blocks::Term`
/// (the terminator of the block view passes do CFG surgery on): see
/// [`BuildBlock`] for why construction keeps its own block IR.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildTerm {
    Goto(Blk),
    /// Goes to `then` when `cond` is true, else to `els`.
    Branch {
        cond: Operand,
        then: Blk,
        els: Blk,
    },
    Return(Option<Operand>),
    Unwind,
    Unreachable,
}

/// The successors of a terminator, in order (no allocation).
pub type Succs = std::iter::Flatten<std::array::IntoIter<Option<Blk>, 2>>;

impl BuildTerm {
    pub fn succs(&self) -> Succs {
        match self {
            BuildTerm::Goto(b) => [Some(*b), None],
            BuildTerm::Branch { then, els, .. } => [Some(*then), Some(*els)],
            _ => [None, None],
        }
        .into_iter()
        .flatten()
    }
}

/// A block under construction. SSA construction keeps its own block IR
/// rather than `ir::blocks::BBlock` (the passes' block view for CFG
/// surgery) because it holds what only Braun et al.'s algorithm needs and
/// would be dead weight there: statements are indices into the builder's
/// `nodes` (which forwarding of trivial φs rewrites in place) instead of
/// owned statements, φs are kept apart from the other statements, the
/// terminator is absent while the block is being filled, and a block carries
/// its sealing state and incomplete φs; it also has no labels to keep
/// stable, as construction never reorders blocks (emission lays them out
/// once). `ir::blocks` starts from a finished IrCode, this starts from
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct BuildBlock {
    pub phis: Vec<u32>,
    /// Non-φ statements in order (φᶜ first when the block is a handler).
    pub stmts: Vec<u32>,
    pub term: Option<(BuildTerm, Span)>,
    pub preds: Vec<Blk>,
    pub sealed: bool,
    /// An error path: laid out last, its statements flagged `COLD`.
    pub cold: bool,
    /// When the block first became current (layout follows source order).
    pub seq: u32,
    pub(super) incomplete: Vec<(Var, u32)>,
}

/// The blocks of the function being built, over storage kept from earlier
/// functions: `store[..len]` are this function's blocks (what the slice
/// derefs to); the blocks above `len` are spent, and a spent block is
/// emptied when [`Blocks::push_empty`] takes it again. Reusing blocks in
/// place keeps their allocations without moving them.
#[derive(Default)]
pub struct Blocks {
    store: Vec<BuildBlock>,
    len: usize,
}

impl std::ops::Deref for Blocks {
    type Target = [BuildBlock];
    fn deref(&self) -> &[BuildBlock] {
        &self.store[..self.len]
    }
}

impl std::ops::DerefMut for Blocks {
    fn deref_mut(&mut self) -> &mut [BuildBlock] {
        &mut self.store[..self.len]
    }
}

impl Blocks {
    /// Marks every block spent.
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// A new empty, unsealed block not yet placed in the layout.
    pub(super) fn push_empty(&mut self) -> Blk {
        if self.len == self.store.len() {
            self.store.push(BuildBlock::default());
        } else {
            let blk = &mut self.store[self.len];
            blk.phis.clear();
            blk.stmts.clear();
            blk.preds.clear();
            blk.incomplete.clear();
            blk.term = None;
            blk.sealed = false;
            blk.cold = false;
        }
        self.store[self.len].seq = u32::MAX;
        self.len += 1;
        self.len as Blk - 1
    }
}
