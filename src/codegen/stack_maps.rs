//! Stack maps for a non-moving collector: each reference value that is
//! live across a call that may collect is stored, once, right after its
//! definition, into a stack slot of its own, and that slot is listed in the
//! stack map of every such call it is live across.
//!
//! Cranelift's frontend can do this (`declare_value_needs_stack_map`), but
//! it also replaces every later use of the value with a reload from the
//! slot, which a moving collector needs and ours does not: in a loop that
//! indexes an array made before a call, each access would load the array
//! from the stack first (7% more instructions on fannkuch). Here the value
//! stays where the register allocator puts it; the slot is only the
//! collector's copy, and it is exact because an SSA value never changes
//! after its definition (a definition executed again in a loop stores its
//! new value before any later call can see it).
//!
//! Liveness is the classic backward dataflow over the Cranelift CFG,
//! restricted to the reference values: a block parameter is defined at its
//! block's start, a branch argument is used at its branch. Each block is
//! walked once for its upward-exposed uses (`gen`) and definitions
//! (`kill`); the fixpoint iterates over those sets only; a last walk per
//! block lists the values live across each safepoint.

use super::gc::FrameRoots;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{
    self as cl, Function, InstBuilder, StackSlotData, StackSlotKind, UserStackMapEntry, types,
};
use cranelift_entity::{EntitySet, SecondaryMap};

/// No index: the value is not a reference.
const NOT_REF: u32 = u32::MAX;

struct Liveness<'f> {
    func: &'f Function,
    /// Reference value → its index (`NOT_REF` for other values).
    index: SecondaryMap<cl::Value, u32>,
    words: usize,
    safepoints: &'f EntitySet<cl::Inst>,
}

/// Per-block sets, flat: block `k` (in layout order) owns
/// `words[k * w..(k + 1) * w]`.
struct BlockSets {
    w: usize,
    words: Vec<u64>,
}

impl BlockSets {
    fn new(blocks: usize, w: usize) -> BlockSets {
        BlockSets {
            w,
            words: vec![0; blocks * w],
        }
    }
    fn get(&self, k: usize) -> &[u64] {
        &self.words[k * self.w..(k + 1) * self.w]
    }
    fn get_mut(&mut self, k: usize) -> &mut [u64] {
        &mut self.words[k * self.w..(k + 1) * self.w]
    }
}

impl Liveness<'_> {
    fn add(&self, set: &mut [u64], v: cl::Value) {
        let v = self.func.dfg.resolve_aliases(v);
        let i = self.index[v];
        if i != NOT_REF {
            set[i as usize / 64] |= 1 << (i % 64);
        }
    }

    fn remove(&self, set: &mut [u64], v: cl::Value) {
        let i = self.index[v];
        if i != NOT_REF {
            set[i as usize / 64] &= !(1 << (i % 64));
        }
    }

    /// The successors of `block`, by layout position (`pos`).
    fn successors(&self, block: cl::Block, pos: &SecondaryMap<cl::Block, u32>, out: &mut Vec<u32>) {
        let dfg = &self.func.dfg;
        if let Some(last) = self.func.layout.last_inst(block) {
            let dests = dfg.insts[last].branch_destination(&dfg.jump_tables, &dfg.exception_tables);
            out.extend(dests.iter().map(|bc| pos[bc.block(&dfg.value_lists)]));
        }
    }

    /// Walks `block` backwards from `live` (the values live at its end),
    /// leaving the values live on entry; calls `at_safepoint(call, live
    /// across it)` for each safepoint and `defined(v)` for each reference
    /// the block defines.
    fn transfer(
        &self,
        block: cl::Block,
        live: &mut [u64],
        mut at_safepoint: impl FnMut(cl::Inst, &[u64]),
        mut defined: impl FnMut(u32),
    ) {
        let dfg = &self.func.dfg;
        let mut inst = self.func.layout.last_inst(block);
        let mut def = |this: &Self, live: &mut [u64], r: cl::Value| {
            let i = this.index[r];
            if i != NOT_REF {
                defined(i);
            }
            this.remove(live, r);
        };
        while let Some(i) = inst {
            for &r in dfg.inst_results(i) {
                def(self, live, r);
            }
            if self.safepoints.contains(i) {
                at_safepoint(i, live);
            }
            for v in dfg.inst_values(i) {
                self.add(live, v);
            }
            inst = self.func.layout.prev_inst(i);
        }
        for &p in dfg.block_params(block) {
            def(self, live, p);
        }
    }
}

/// The values live on entry to each block of `order` (the function's
/// layout), to the fixpoint of `in = gen ∪ (out − kill)`; the successors
/// of each block, flat (`succs[succ_start[k]..succ_start[k + 1]]`); and
/// whether each block holds a safepoint (only those are walked again).
struct Solution {
    live_in: BlockSets,
    succs: Vec<u32>,
    succ_start: Vec<u32>,
    has_safepoint: Vec<bool>,
}

impl Solution {
    fn live_out(&self, k: usize, out: &mut [u64]) {
        out.fill(0);
        let (lo, hi) = (self.succ_start[k] as usize, self.succ_start[k + 1] as usize);
        for &s in &self.succs[lo..hi] {
            for (a, b) in out.iter_mut().zip(self.live_in.get(s as usize)) {
                *a |= *b;
            }
        }
    }
}

fn solve(lv: &Liveness, order: &[cl::Block]) -> Solution {
    let w = lv.words;
    let mut pos = SecondaryMap::with_default(u32::MAX);
    for (k, &b) in order.iter().enumerate() {
        pos[b] = k as u32;
    }
    let mut succs = Vec::new();
    let mut succ_start = Vec::with_capacity(order.len() + 1);
    let mut gen_ = BlockSets::new(order.len(), w);
    let mut kill = BlockSets::new(order.len(), w);
    let mut has_safepoint = vec![false; order.len()];
    for (k, &b) in order.iter().enumerate() {
        succ_start.push(succs.len() as u32);
        lv.successors(b, &pos, &mut succs);
        let kill_k = kill.get_mut(k);
        let safepoint_k = &mut has_safepoint[k];
        lv.transfer(
            b,
            gen_.get_mut(k),
            |_, _| *safepoint_k = true,
            |i| kill_k[i as usize / 64] |= 1 << (i % 64),
        );
    }
    succ_start.push(succs.len() as u32);
    let mut sol = Solution {
        live_in: BlockSets::new(order.len(), w),
        succs,
        succ_start,
        has_safepoint,
    };
    let mut out = vec![0u64; w];
    let mut changed = true;
    while changed {
        changed = false;
        // Reverse layout order: the layout is a reverse postorder, so
        // successors mostly come first and few rounds are needed.
        for k in (0..order.len()).rev() {
            sol.live_out(k, &mut out);
            let (g, x) = (gen_.get(k), kill.get(k));
            for (j, o) in out.iter_mut().enumerate() {
                *o = g[j] | (*o & !x[j]);
            }
            if sol.live_in.get(k) != out.as_slice() {
                sol.live_in.get_mut(k).copy_from_slice(&out);
                changed = true;
            }
        }
    }
    sol
}

/// Inserts the collector's spills and stack-map entries into `func` (a
/// function just translated, with `roots` recorded by the translation).
pub(super) fn insert(func: &mut Function, roots: &FrameRoots) {
    if roots.refs.is_empty() || roots.safepoints.is_empty() {
        return;
    }
    let mut safepoints = EntitySet::new();
    for &call in &roots.safepoints {
        safepoints.insert(call);
    }
    let mut index = SecondaryMap::with_default(NOT_REF);
    let mut values: Vec<cl::Value> = Vec::new();
    for &v in &roots.refs {
        let v = func.dfg.resolve_aliases(v);
        if index[v] == NOT_REF {
            index[v] = values.len() as u32;
            values.push(v);
        }
    }
    // A derived address shares its reference's index: using it keeps the
    // reference live, and its definition (a load from the reference) uses
    // the reference itself.
    for &(derived, base) in &roots.derived {
        let base = func.dfg.resolve_aliases(base);
        if index[base] != NOT_REF {
            index[func.dfg.resolve_aliases(derived)] = index[base];
        }
    }
    let order: Vec<cl::Block> = func.layout.blocks().collect();
    let (entries, spilled) = {
        let lv = Liveness {
            func,
            words: values.len().div_ceil(64),
            index,
            safepoints: &safepoints,
        };
        let sol = solve(&lv, &order);
        let mut entries: Vec<(cl::Inst, Vec<usize>)> = Vec::new();
        let mut spilled = vec![false; values.len()];
        let mut live = vec![0u64; lv.words];
        for (k, &b) in order.iter().enumerate() {
            if !sol.has_safepoint[k] {
                continue;
            }
            sol.live_out(k, &mut live);
            let at_safepoint = |call, live: &[u64]| {
                let ids = members(live);
                for &i in &ids {
                    spilled[i] = true;
                }
                entries.push((call, ids));
            };
            lv.transfer(b, &mut live, at_safepoint, |_| {});
        }
        (entries, spilled)
    };
    let slots = spill_at_definitions(func, &values, &spilled);
    for (call, ids) in entries {
        for i in ids {
            let Some(slot) = slots[i] else { continue };
            func.dfg.append_user_stack_map_entry(
                call,
                UserStackMapEntry {
                    ty: types::I64,
                    slot,
                    offset: 0,
                },
            );
        }
    }
}

fn members(set: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    for (w, &word) in set.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            out.push(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
    out
}

/// Gives each spilled value a slot and stores it there right after its
/// definition (at the start of its block for a block parameter).
fn spill_at_definitions(
    func: &mut Function,
    values: &[cl::Value],
    spilled: &[bool],
) -> Vec<Option<cl::StackSlot>> {
    let mut slots = vec![None; values.len()];
    for (i, &v) in values.iter().enumerate() {
        if !spilled[i] {
            continue;
        }
        let slot =
            func.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        slots[i] = Some(slot);
        let mut pos = FuncCursor::new(func);
        match pos.func.dfg.value_def(v) {
            cl::ValueDef::Result(inst, _) => {
                pos.goto_inst(inst);
                pos.next_inst();
            }
            cl::ValueDef::Param(block, _) => pos.goto_first_insertion_point(block),
            _ => continue,
        }
        pos.ins().stack_store(types::I64, v, slot, 0);
    }
    slots
}
