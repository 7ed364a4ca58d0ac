//! Dead-store elimination with MemorySSA.
//!
//! Two kinds of dead store are removed:
//! - a store overwritten before any read (`dse.overwritten`): scanning
//!   forward from the store through its block and on through blocks that
//!   are the only successor of the previous one and have it as only
//!   predecessor, a later store to the same location (same class, same SSA
//!   base and index, so must-alias) is reached before anything that may
//!   read it. A may-read is: a load that may alias, a call or runtime call
//!   whose summary may read the class, any statement that may throw (a
//!   call without `NOTHROW`, `raise`: a handler or the caller may observe
//!   memory), `return`/`unwind`, or leaving the straight-line chain.
//! - stores into an allocation that never escapes and is never read
//!   (`dse.unread_alloc`): every use of the allocation is as the base of a
//!   store or in a comparison (nil checks). No one, not even a handler,
//!   can observe those stores.
//!
//! Removed stores' accesses are removed through the MemorySSA updater and
//! MemorySSA is verified before compaction.

use crate::ir::compact::compact;
use crate::ir::edit::{delete, for_each_operand, NewNodes};
use crate::ir::{BinaryOp, Flags, Inst, IrCode, Operand, Value};
use crate::memssa::alias::{inst_effect, AliasResult, Effect};
use crate::memssa::MemorySsa;
use crate::opt::Counters;

/// Whether statement `s` may observe the memory `eff` (see module doc).
fn may_read(m: &MemorySsa, ir: &IrCode, s: Value, eff: &Effect) -> bool {
    let inst = &ir.stmts.inst[s.0 as usize];
    match inst {
        Inst::Raise { .. } | Inst::Return(_) | Inst::Unwind | Inst::Upsilon(_) => return true,
        Inst::Call { .. } | Inst::Runtime { .. } if !ir.stmts.flags[s.0 as usize].contains(Flags::NOTHROW) => {
            return true;
        }
        _ => {}
    }
    match inst_effect(ir, s, inst) {
        Some(e) => m.alias_ctx(ir).overlaps(&e.reads, eff, false),
        None => false,
    }
}

fn overwrites(m: &MemorySsa, ir: &IrCode, s: Value, eff: &Effect) -> bool {
    let Inst::Store { .. } = &ir.stmts.inst[s.0 as usize] else { return false };
    let Some(e) = inst_effect(ir, s, &ir.stmts.inst[s.0 as usize]) else { return false };
    let (Effect::Locs(a), Effect::Locs(b)) = (&e.writes, eff) else { return false };
    let ([a], [b]) = (a.as_slice(), b.as_slice()) else { return false };
    a.index.is_some() == b.index.is_some() && m.alias_ctx(ir).alias(a, b, false) == AliasResult::Must
}

/// Whether the store `s` is overwritten before any possible read.
fn overwritten(m: &MemorySsa, ir: &IrCode, s: Value) -> bool {
    let Some(e) = inst_effect(ir, s, &ir.stmts.inst[s.0 as usize]) else { return false };
    let eff = e.writes;
    let Some(mut b) = m.block_of(s) else { return false };
    let mut next = s.0 + 1;
    for _ in 0..ir.cfg.blocks.len() {
        let blk = &ir.cfg.blocks[b.0 as usize];
        for t in next..blk.stmts.end {
            let t = Value(t);
            if overwrites(m, ir, t, &eff) {
                return true;
            }
            if may_read(m, ir, t, &eff) {
                return false;
            }
        }
        let [succ] = blk.succs.as_slice() else { return false };
        let sb = &ir.cfg.blocks[succ.0 as usize];
        if sb.preds.len() != 1 || *succ == b {
            return false;
        }
        b = *succ;
        next = sb.stmts.start;
    }
    false
}

/// Allocations used only as store bases and in comparisons.
fn unread_allocs(ir: &IrCode) -> Vec<bool> {
    let n = ir.stmts.len();
    let mut ok: Vec<bool> = ir.stmts.inst.iter().map(|i| matches!(i, Inst::NewArray { .. } | Inst::NewStruct { .. })).collect();
    for inst in &ir.stmts.inst {
        match inst {
            Inst::Store { base, index, value, .. } => {
                for op in [index.as_ref(), Some(value)].into_iter().flatten() {
                    if let Operand::Value(v) = op {
                        if (v.0 as usize) < n {
                            ok[v.0 as usize] = false;
                        }
                    }
                }
                let _ = base;
            }
            Inst::Binary(BinaryOp::ICmp(_), _, _) => {}
            other => for_each_operand(other, |op| {
                if let Operand::Value(v) = op {
                    if (v.0 as usize) < n {
                        ok[v.0 as usize] = false;
                    }
                }
            }),
        }
    }
    ok
}

pub fn run(ir: &mut IrCode, counters: &mut Counters) {
    let mut m = MemorySsa::build(ir);
    let unread = unread_allocs(ir);
    let mut dead = Vec::new();
    for s in 0..ir.stmts.len() as u32 {
        let v = Value(s);
        let Inst::Store { base, .. } = &ir.stmts.inst[s as usize] else { continue };
        if !m.block_of(v).is_some_and(|b| m.dom.reachable(b.0)) {
            continue;
        }
        if let Some(Operand::Value(a)) = base {
            if unread.get(a.0 as usize).copied().unwrap_or(false) {
                dead.push((v, "dse.unread_alloc"));
                continue;
            }
        }
        if overwritten(&m, ir, v) {
            dead.push((v, "dse.overwritten"));
        }
    }
    for &(v, counter) in &dead {
        if let Some(a) = m.access_for(v) {
            m.remove_access(a);
        }
        delete(ir, v);
        counters.add(counter, 1);
    }
    crate::memssa::verify::check(&m, ir);
    if !dead.is_empty() {
        compact(ir, NewNodes::new(ir));
    }
}
