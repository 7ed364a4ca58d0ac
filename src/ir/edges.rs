//! A block's CFG edges as its terminator gives them: the successors of
//! one block ([`block_succs`]), and a whole [`Cfg`] built from statement
//! ranges, with `preds` the inverse of `succs` in increasing block order.
//!
//! Architecture invariant: a block's successors are read from its last
//! statement alone (a block without a terminator falls through to the
//! next block); every builder of a `Cfg` from ranges goes through here.
use crate::ir::{BasicBlock, BlockId, Cfg, Inst, IrCode, Value};
use cranelift_entity::{EntityRef, PrimaryMap};

/// The successors of a block whose last statement is `last`, numbered `b`
/// among `nblocks`: the fallthrough block first, then a branch target.
pub fn block_succs(last: Option<&Inst>, b: u32, nblocks: u32) -> Succs {
    let mut fall = Succs::default();
    if b + 1 < nblocks {
        fall.push(BlockId(b + 1));
    }
    match last {
        Some(Inst::Goto(d)) => Succs::one(*d),
        Some(Inst::GotoIfNot { dest, .. }) => {
            if !fall.contains(dest) {
                fall.push(*dest);
            }
            fall
        }
        Some(Inst::Return(_) | Inst::Unwind | Inst::Unreachable) => Succs::default(),
        _ => fall,
    }
}

/// The successors of one block: at most two (a terminator names at most
/// one target besides the fallthrough), stored inline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Succs {
    ids: [BlockId; 2],
    len: u8,
}

impl Default for Succs {
    fn default() -> Succs {
        Succs {
            ids: [BlockId(0); 2],
            len: 0,
        }
    }
}

impl Succs {
    /// The one successor `b`.
    pub fn one(b: BlockId) -> Succs {
        Succs {
            ids: [b; 2],
            len: 1,
        }
    }
    /// Appends `b` (at most two in all).
    pub fn push(&mut self, b: BlockId) {
        self.ids[self.len as usize] = b;
        self.len += 1;
    }
}

impl std::ops::Deref for Succs {
    type Target = [BlockId];
    fn deref(&self) -> &[BlockId] {
        &self.ids[..self.len as usize]
    }
}

impl IntoIterator for Succs {
    type Item = BlockId;
    type IntoIter = std::iter::Take<std::array::IntoIter<BlockId, 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.ids.into_iter().take(self.len as usize)
    }
}

/// A CFG for statements `insts` cut into `ranges`: succs from each block's
/// last statement, preds their inverse (in increasing block order).
pub fn cfg_from_ranges(insts: &PrimaryMap<Value, Inst>, ranges: Vec<std::ops::Range<u32>>) -> Cfg {
    cfg_reusing(insts, ranges, Cfg::default())
}

/// [`cfg_from_ranges`], reusing the `preds` and `succs` vectors of the
/// blocks of `old` (a CFG being replaced) instead of allocating new ones,
/// and its cached analyses ([`crate::ir::cfg_cache`]).
pub fn cfg_reusing(
    insts: &PrimaryMap<Value, Inst>,
    ranges: Vec<std::ops::Range<u32>>,
    old: Cfg,
) -> Cfg {
    let nb = ranges.len() as u32;
    let Cfg { blocks, cache } = old;
    let mut blocks: Vec<BasicBlock> = blocks.into();
    blocks.truncate(ranges.len());
    blocks.resize_with(ranges.len(), BasicBlock::default);
    for (b, (bb, r)) in blocks.iter_mut().zip(ranges).enumerate() {
        let last = if r.end > r.start {
            insts.get(Value(r.end - 1))
        } else {
            None
        };
        bb.preds.clear();
        bb.succs.clear();
        // Pushed one by one: `SmallVec::extend` through a filter costs
        // several times as much for these one or two edges.
        for &s in block_succs(last, b as u32, nb).iter() {
            if s.0 < nb {
                bb.succs.push(s);
            }
        }
        bb.stmts = r;
    }
    for b in 0..blocks.len() {
        for k in 0..blocks[b].succs.len() {
            let s = blocks[b].succs[k];
            blocks[s.index()].preds.push(BlockId(b as u32));
        }
    }
    // The old analyses stay for as long as the edges are the same
    // (`CfgCache` compares them before handing one out).
    Cfg {
        blocks: blocks.into(),
        cache,
    }
}

/// Recomputes `ir.cfg`'s preds and succs from the terminators, keeping the
/// block ranges.
pub fn rebuild_edges(ir: &mut IrCode) {
    let ranges = ir.cfg.blocks.values().map(|b| b.stmts.clone()).collect();
    ir.cfg = cfg_reusing(&ir.stmts.inst, ranges, std::mem::take(&mut ir.cfg));
}
