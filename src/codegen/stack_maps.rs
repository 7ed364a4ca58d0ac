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
//! block's start, a branch argument is used at its branch.

use super::gc::FrameRoots;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{
    self as cl, Function, InstBuilder, StackSlotData, StackSlotKind, UserStackMapEntry, types,
};
use cranelift_entity::{EntitySet, SecondaryMap};

/// A set of reference values, by their index in `FrameRoots::refs`.
type Bits = Vec<u64>;

fn union_into(into: &mut Bits, from: &Bits) {
    for (a, b) in into.iter_mut().zip(from) {
        *a |= *b;
    }
}

/// No index: the value is not a reference.
const NOT_REF: u32 = u32::MAX;

struct Liveness<'f> {
    func: &'f Function,
    /// Reference value → its index (`NOT_REF` for other values).
    index: SecondaryMap<cl::Value, u32>,
    words: usize,
    safepoints: &'f EntitySet<cl::Inst>,
}

impl Liveness<'_> {
    fn add(&self, set: &mut Bits, v: cl::Value) {
        let v = self.func.dfg.resolve_aliases(v);
        let i = self.index[v];
        if i != NOT_REF {
            set[i as usize / 64] |= 1 << (i % 64);
        }
    }

    fn remove(&self, set: &mut Bits, v: cl::Value) {
        let i = self.index[v];
        if i != NOT_REF {
            set[i as usize / 64] &= !(1 << (i % 64));
        }
    }

    fn successors(&self, block: cl::Block) -> Vec<cl::Block> {
        let dfg = &self.func.dfg;
        let Some(last) = self.func.layout.last_inst(block) else {
            return Vec::new();
        };
        dfg.insts[last]
            .branch_destination(&dfg.jump_tables, &dfg.exception_tables)
            .iter()
            .map(|bc| bc.block(&dfg.value_lists))
            .collect()
    }

    /// The values live on entry to `block` given those live at its end;
    /// calls `at_safepoint(call, live across it)` for each safepoint.
    fn transfer(
        &self,
        block: cl::Block,
        mut live: Bits,
        mut at_safepoint: impl FnMut(cl::Inst, &Bits),
    ) -> Bits {
        let dfg = &self.func.dfg;
        let mut inst = self.func.layout.last_inst(block);
        while let Some(i) = inst {
            for &r in dfg.inst_results(i) {
                self.remove(&mut live, r);
            }
            if self.safepoints.contains(i) {
                at_safepoint(i, &live);
            }
            for v in dfg.inst_values(i) {
                self.add(&mut live, v);
            }
            inst = self.func.layout.prev_inst(i);
        }
        for &p in dfg.block_params(block) {
            self.remove(&mut live, p);
        }
        live
    }

    /// Live-in sets of every block, to the fixpoint.
    fn solve(&self, order: &[cl::Block]) -> SecondaryMap<cl::Block, Bits> {
        let mut live_in: SecondaryMap<cl::Block, Bits> = SecondaryMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            // Reverse layout order: the layout is a reverse postorder, so
            // successors mostly come first and few rounds are needed.
            for &b in order.iter().rev() {
                let out = self.live_out(b, &live_in);
                let new_in = self.transfer(b, out, |_, _| {});
                if live_in[b] != new_in {
                    live_in[b] = new_in;
                    changed = true;
                }
            }
        }
        live_in
    }

    fn live_out(&self, b: cl::Block, live_in: &SecondaryMap<cl::Block, Bits>) -> Bits {
        let mut out = vec![0u64; self.words];
        for s in self.successors(b) {
            let l = &live_in[s];
            if !l.is_empty() {
                union_into(&mut out, l);
            }
        }
        out
    }
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
    let order: Vec<cl::Block> = func.layout.blocks().collect();
    let (entries, spilled) = {
        let lv = Liveness {
            func,
            words: values.len().div_ceil(64),
            index,
            safepoints: &safepoints,
        };
        let live_in = lv.solve(&order);
        let mut entries: Vec<(cl::Inst, Vec<usize>)> = Vec::new();
        let mut spilled = vec![false; values.len()];
        for &b in &order {
            let out = lv.live_out(b, &live_in);
            lv.transfer(b, out, |call, live| {
                let ids = members(live);
                for &i in &ids {
                    spilled[i] = true;
                }
                entries.push((call, ids));
            });
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

fn members(set: &Bits) -> Vec<usize> {
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
