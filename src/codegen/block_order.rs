//! The order and kinds of a function's blocks for translation: the
//! reverse postorder blocks are translated (and laid out) in, which blocks
//! lie on a CFG cycle, and which are error paths.

use crate::ir::{BlockId, Inst, IrCode};
use cranelift_entity::SecondaryMap;

/// Blocks reachable from block 0, in the reverse postorder of a search
/// that enters each block's branch target before its fallthrough
/// (`succs` reversed), so a block's fallthrough successor is emitted right
/// after it: the order blocks are translated (and Cranelift lays them out) in.
pub fn reverse_postorder(code: &IrCode) -> Vec<BlockId> {
    let blocks = &code.cfg.blocks;
    crate::ir::graph::reverse_postorder(blocks.len(), |b: BlockId| {
        blocks[b].succs.iter().rev().copied()
    })
}

/// Per IR block `n`: the loop header `h` to branch to instead, when `n`
/// is a latch that only jumps back (`goto h`, with `h` before it) and is
/// reached only by falling through from a conditional branch. That branch
/// then targets `h` itself: `brif c, h, exit`, whose two edges Cranelift
/// gives each an edge block, the back edge's first, so that its branch
/// editing ends the loop in one conditional jump back to `h` (through a
/// block of its own, `n`'s jump and the branch over it would both stay:
/// `jge exit; jmp h`). `n` itself is not translated.
pub(super) fn bypassed_latches(code: &IrCode) -> SecondaryMap<BlockId, Option<BlockId>> {
    let blocks = &code.cfg.blocks;
    let mut out = SecondaryMap::with_capacity(blocks.len());
    for (n, blk) in blocks.iter() {
        let [p] = blk.preds[..] else { continue };
        if p.next() != n {
            continue;
        }
        let mut stmts = blk
            .values()
            .filter(|&s| code.stmts.inst[s] != Inst::Nothing);
        let (Some(g), None) = (stmts.next(), stmts.next()) else {
            continue;
        };
        let Inst::Goto(h) = code.stmts.inst[g] else {
            continue;
        };
        let falls_from_branch = matches!(
            code.last_stmt(p),
            Some((_, Inst::GotoIfNot { dest, .. })) if *dest != n
        );
        if falls_from_branch && h.0 <= p.0 {
            out[n] = Some(h);
        }
    }
    out
}

/// Per IR block: whether it lies on a cycle of the CFG, that is in a
/// strongly connected component with more than one block or with an edge
/// to itself (reducible or not).
pub(super) fn cycle_blocks(code: &IrCode) -> SecondaryMap<BlockId, bool> {
    let blocks = &code.cfg.blocks;
    let n = blocks.len();
    let succs = |b: usize| blocks[BlockId(b as u32)].succs.iter().map(|s| s.0 as usize);
    let (nodes, ends) = crate::ir::graph::sccs_flat(n, succs);
    let mut on_cycle = SecondaryMap::with_capacity(n);
    let mut start = 0;
    for end in ends {
        let comp = &nodes[start..end];
        let cyclic = comp.len() > 1 || succs(comp[0]).any(|s| s == comp[0]);
        if cyclic {
            for &b in comp {
                on_cycle[BlockId(b as u32)] = true;
            }
        }
        start = end;
    }
    on_cycle
}

/// Per IR block: whether it is an error path (it holds a `COLD` statement
/// or a `Raise`); such blocks are marked cold for Cranelift.
pub(super) fn cold_blocks(code: &IrCode) -> SecondaryMap<BlockId, bool> {
    let mut cold = SecondaryMap::with_capacity(code.cfg.blocks.len());
    for (b, blk) in code.cfg.blocks.iter() {
        cold[b] = blk.values().any(|s| {
            code.stmts.flags[s].contains(crate::ir::Flags::COLD)
                || matches!(code.stmts.inst[s], Inst::Raise { .. })
        });
    }
    cold
}
