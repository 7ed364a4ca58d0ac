//! Dead code elimination, mark-sweep (aggressive on values, not on control):
//! a statement is live when it cannot be removed ([`removable`] is false:
//! effects, terminators, throws) or a live statement uses it; every other
//! statement is deleted, so dead φ cycles (`%2 = φ(.., %3)`,
//! `%3 = %2 + 1`, neither used elsewhere) go too, which the use-count DCE of
//! compaction cannot see. Then compaction removes them and renumbers.
//!
//! Counters: `dce.removed` (statements deleted), `dce.blocks` (blocks found
//! unreachable by the compaction).

use crate::ir::compact::compact_only;
use crate::ir::edit::{for_each_value_use, removable};
use crate::ir::{Inst, IrCode, Value};
use crate::opt::PassCtx;
use cranelift_entity::{EntityRef, SecondaryMap};

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let n = ir.stmts.len();
    let mut live: SecondaryMap<Value, bool> = crate::ir::sized_map(n);
    let mut work = Vec::new();
    for (s, inst) in ir.stmts.inst.iter() {
        if !matches!(inst, Inst::Nothing) && !removable(inst, ir.stmts.flags[s]) {
            live[s] = true;
            work.push(s);
        }
    }
    while let Some(s) = work.pop() {
        for_each_value_use(&ir.stmts.inst[s], |v| {
            if v.index() < n && !live[v] {
                live[v] = true;
                work.push(v);
            }
        });
    }
    let mut removed = 0;
    for (s, inst) in ir.stmts.inst.iter_mut() {
        let is_live = live[s];
        if !is_live && !matches!(inst, Inst::Nothing) {
            *inst = Inst::Nothing;
            removed += 1;
        }
    }
    let stats = match removed > 0 {
        true => compact_only(ir),
        false => ctx.compact_unchanged(ir),
    };
    let counters = &mut ctx.counters;
    counters.add("dce.removed", removed + stats.dead_removed as u64);
    counters.add("dce.blocks", stats.blocks_removed as u64);
}
