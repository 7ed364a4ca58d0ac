//! When a compaction can be skipped: [`is_compacted`] says, without
//! moving anything, whether [`compact_only`] would leave a function as it
//! is; [`compact_if_needed`] compacts one that is not compacted (a lowered
//! block view often is). A pass that changed nothing asks
//! `PassCtx::compact_unchanged` instead, which knows when the pipeline
//! handed it a compacted function.
//!
//! Invariants: when `is_compacted(ir)`, `compact_only` on a copy of `ir`
//! gives `ir` back (checked in debug builds by [`compact_if_needed`]); and
//! the result of a compaction is compacted (`tests/it/ir/compact_props.rs`).

use crate::ir::compact::{CompactStats, compact_only};
use crate::ir::edges::block_succs;
use crate::ir::edit::{for_each_value_use, removable};
use crate::ir::{BlockId, Inst, IrCode, Operand, Value};
use cranelift_entity::EntityRef;

/// Compacts `ir` unless it is compacted already: what a pass does after
/// lowering a block view ([`crate::ir::blocks::BlockIr::lower`]), whose
/// result mostly needs no compaction (`loops`' new blocks, say).
pub fn compact_if_needed(ir: &mut IrCode) -> CompactStats {
    if !is_compacted(ir) {
        return compact_only(ir);
    }
    #[cfg(debug_assertions)]
    {
        let mut again = ir.clone();
        compact_only(&mut again);
        debug_assert!(
            again == *ir,
            "is_compacted, but compaction changed fn {}",
            ir.name
        );
    }
    CompactStats::default()
}

/// Whether [`compact_only`] would leave `ir` as it is: no copy, no branch
/// on a constant, no dead statement, no `nothing` beside other statements
/// and no empty block, every block reachable from the entry, `preds` and
/// `succs` as the terminators give them (preds in block order), and every
/// φ with one operand per edge, edges from predecessors only, and two
/// different values besides itself. Linear; moves nothing.
pub fn is_compacted(ir: &IrCode) -> bool {
    statements_are_compacted(ir) && cfg_is_compacted(ir) && phis_are_compacted(ir)
}

/// No copy, no branch on a constant, no dead statement.
fn statements_are_compacted(ir: &IrCode) -> bool {
    let insts = &ir.stmts.inst;
    let mut uses = vec![0u32; insts.len()];
    for inst in insts.values() {
        match inst {
            Inst::Copy(_) => return false,
            Inst::GotoIfNot { cond, .. }
                if !matches!(cond, Operand::Value(_) | Operand::Arg(_)) =>
            {
                return false;
            }
            _ => {}
        }
        for_each_value_use(inst, |w| {
            if let Some(c) = uses.get_mut(w.index()) {
                *c += 1;
            }
        });
    }
    !insts.iter().any(|(v, inst)| {
        uses[v.index()] == 0
            && !matches!(inst, Inst::Nothing)
            && (removable(inst, ir.stmts.flags[v]) || matches!(inst, Inst::Upsilon(_)))
    })
}

/// Blocks neither empty nor holding `nothing` beside other statements,
/// all reachable, with the `preds` and `succs` compaction would list.
fn cfg_is_compacted(ir: &IrCode) -> bool {
    let blocks = &ir.cfg.blocks;
    let nb = blocks.len() as u32;
    // How many of each block's preds were matched so far, in block order.
    let mut matched = vec![0usize; blocks.len()];
    for (b, bb) in blocks.iter() {
        let len = bb.stmts.len();
        if len == 0
            || (len > 1
                && bb
                    .values()
                    .any(|v| matches!(ir.stmts.inst[v], Inst::Nothing)))
        {
            return false;
        }
        let last = ir.stmts.inst.get(Value(bb.stmts.end - 1));
        let succs = block_succs(last, b.0, nb);
        if bb.succs.as_slice() != &succs[..] {
            return false;
        }
        for s in succs {
            let k = &mut matched[s.index()];
            if blocks[s].preds.get(*k) != Some(&b) {
                return false;
            }
            *k += 1;
        }
    }
    blocks
        .iter()
        .all(|(b, bb)| matched[b.index()] == bb.preds.len())
        && all_reachable(ir)
}

fn all_reachable(ir: &IrCode) -> bool {
    let blocks = &ir.cfg.blocks;
    if blocks.is_empty() {
        return true;
    }
    let mut seen = vec![false; blocks.len()];
    seen[0] = true;
    let mut work = vec![BlockId(0)];
    let mut count = 1;
    while let Some(b) = work.pop() {
        for &s in &blocks[b].succs {
            if !seen[s.index()] {
                seen[s.index()] = true;
                count += 1;
                work.push(s);
            }
        }
    }
    count == blocks.len()
}

/// Every φ with one value per edge, its edges predecessors of its block
/// (whose `preds` are sorted, [`cfg_is_compacted`]), and at least two
/// different values besides itself.
fn phis_are_compacted(ir: &IrCode) -> bool {
    for bb in ir.cfg.blocks.values() {
        for v in bb.values() {
            let Inst::Phi { edges, values } = &ir.stmts.inst[v] else {
                continue;
            };
            if edges.len() != values.len()
                || !edges.iter().all(|e| bb.preds.binary_search(e).is_ok())
            {
                return false;
            }
            let mut others = values.iter().filter(|&&x| x != Operand::Value(v));
            let first = others.next();
            if first.is_some_and(|f| others.all(|x| x == f)) {
                return false;
            }
        }
    }
    true
}
