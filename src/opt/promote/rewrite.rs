//! The rewrite of one promoted location into SSA values: φs at the loop's
//! merge points, the value reaching each block, the exit stores, and the
//! loop's loads and stores replaced.

use super::{Key, Site, first_non_head};
use crate::ir::dom::unique_preds;
use crate::ir::edit::{NewNodes, delete, replace_uses};
use crate::ir::loops::LoopInfo;
use crate::ir::{BlockId, Inst, IrCode, Operand, Type, Value};
use crate::ir::{FxMap, FxSet};

/// Per loop block: the promoted value at its entry and at its end.
pub(super) struct Flow {
    block_in: FxMap<BlockId, Operand>,
    block_out: FxMap<BlockId, Operand>,
}

/// An operandless φ at the header and at every other loop block with two
/// or more predecessors, with the predecessors it will take values from.
pub(super) fn insert_phis(
    ir: &IrCode,
    new: &mut NewNodes,
    l: &LoopInfo,
    ty: &Type,
) -> Option<FxMap<BlockId, (Value, Vec<BlockId>)>> {
    let mut phi_of = FxMap::default();
    for &b in &l.blocks {
        let preds = unique_preds(&ir.cfg, b);
        if b == l.header || preds.len() >= 2 {
            let first = ir.cfg.blocks[b].stmts.clone().next()?;
            // Attached before the block's first statement: new φs precede
            // every statement the round attaches there.
            let phi = Inst::Phi {
                edges: preds.clone(),
                values: Vec::new(),
            };
            phi_of.insert(
                b,
                (
                    new.insert_node(ir, Value(first), phi, ty.clone(), false),
                    preds,
                ),
            );
        }
    }
    Some(phi_of)
}

/// The value at the entry and at the end of every loop block: at entry a
/// φ, or the single predecessor's end value (following single-predecessor
/// chains; every cycle of the loop passes the header φ); at the end the
/// block's last store, else its entry value.
pub(super) fn flow_through_loop(
    ir: &IrCode,
    site: &Site,
    mine: &FxSet<Value>,
    phi_of: &FxMap<BlockId, (Value, Vec<BlockId>)>,
    init: Operand,
) -> Option<Flow> {
    let l = site.l;
    let mut stored_in: FxMap<BlockId, Operand> = FxMap::default();
    for &b in &l.blocks {
        let last_store = ir.cfg.blocks[b]
            .stmts
            .clone()
            .filter(|&s| mine.contains(&Value(s)))
            .fold(None, |cur, s| match ir.stmts.inst.get(Value(s)) {
                Some(Inst::Store { value, .. }) => Some(*value),
                _ => cur,
            });
        if let Some(c) = last_store {
            stored_in.insert(b, c);
        }
    }
    let reaching = Reaching {
        phi_of,
        stored_in: &stored_in,
        init,
    };
    let mut memo = Memo::default();
    let mut flow = Flow {
        block_in: FxMap::default(),
        block_out: FxMap::default(),
    };
    for &b in &l.blocks {
        let vin = value_in(ir, site, &reaching, b, &mut memo)?;
        flow.block_in.insert(b, vin);
        flow.block_out
            .insert(b, stored_in.get(&b).copied().unwrap_or(vin));
    }
    Some(flow)
}

/// What decides the value reaching a block: the φs, each block's last
/// stored value, and the value before the loop.
struct Reaching<'a> {
    phi_of: &'a FxMap<BlockId, (Value, Vec<BlockId>)>,
    stored_in: &'a FxMap<BlockId, Operand>,
    init: Operand,
}

/// Entry and end values found so far, per block.
#[derive(Default)]
struct Memo {
    entry: FxMap<BlockId, Operand>,
    out: FxMap<BlockId, Operand>,
}

/// The promoted value at the entry of loop block `b` (see
/// [`flow_through_loop`]), memoising entry and end values on the chain.
fn value_in(
    ir: &IrCode,
    site: &Site,
    r: &Reaching,
    b: BlockId,
    memo: &mut Memo,
) -> Option<Operand> {
    let l = site.l;
    let (phi_of, stored_in, init) = (r.phi_of, r.stored_in, r.init);
    let (entry, out) = (&mut memo.entry, &mut memo.out);
    let mut chain = Vec::new();
    let mut x = b;
    let mut val;
    loop {
        if let Some(v) = entry.get(&x) {
            val = *v;
            break;
        }
        if let Some((phi, _)) = phi_of.get(&x) {
            val = Operand::Value(*phi);
            entry.insert(x, val);
            break;
        }
        chain.push(x);
        let preds = unique_preds(&ir.cfg, x);
        let [p] = preds.as_slice() else { return None };
        if *p == site.ph {
            val = init;
            break;
        }
        if !l.contains(*p) || chain.len() > l.blocks.len() {
            return None;
        }
        if let Some(o) = out.get(p) {
            val = *o;
            break;
        }
        if let Some(sv) = stored_in.get(p) {
            val = *sv;
            out.insert(*p, val);
            break;
        }
        x = *p;
    }
    for c in chain.into_iter().rev() {
        entry.insert(c, val);
        val = stored_in.get(&c).copied().unwrap_or(val);
        out.insert(c, val);
    }
    entry.get(&b).copied().or(Some(val))
}

/// Gives every inserted φ its operands: `init` from the preheader, the
/// predecessor's end value from a loop block.
pub(super) fn fill_phis(
    new: &mut NewNodes,
    phi_of: &FxMap<BlockId, (Value, Vec<BlockId>)>,
    flow: &Flow,
    ph: BlockId,
    init: Operand,
) -> Option<()> {
    for (phi, preds) in phi_of.values() {
        let mut values = Vec::with_capacity(preds.len());
        for p in preds {
            values.push(if *p == ph {
                init
            } else {
                *flow.block_out.get(p)?
            });
        }
        if let Some(n) = new.nodes.get_mut((phi.0 - new.base) as usize)
            && let Inst::Phi { values: vs, .. } = &mut n.inst
        {
            *vs = values;
        }
    }
    Some(())
}

/// A store of the promoted value at every exit (after a φ when the exit
/// has several predecessors), queued in `stores`.
pub(super) fn exit_stores(
    ir: &IrCode,
    new: &mut NewNodes,
    stores: &mut Vec<(Value, Inst)>,
    l: &LoopInfo,
    flow: &Flow,
    key: &Key,
    ty: &Type,
) -> Option<()> {
    for &x in &l.exits {
        let at = first_non_head(ir, x)?;
        let preds = unique_preds(&ir.cfg, x);
        let val = if let [p] = preds.as_slice() {
            *flow.block_out.get(p)?
        } else {
            let values = preds
                .iter()
                .map(|p| flow.block_out.get(p).copied())
                .collect::<Option<Vec<_>>>()?;
            let first = ir.cfg.blocks[x].stmts.clone().next()?;
            let phi = Inst::Phi {
                edges: preds.clone(),
                values,
            };
            Operand::Value(new.insert_node(ir, Value(first), phi, ty.clone(), false))
        };
        stores.push((
            at,
            Inst::Store {
                loc: key.loc.clone(),
                base: key.base,
                index: key.index,
                value: val,
            },
        ));
    }
    Some(())
}

/// Deletes the loop's stores of the location and replaces each load by
/// the value reaching it.
pub(super) fn rewrite_accesses(
    ir: &mut IrCode,
    l: &LoopInfo,
    mine: &FxSet<Value>,
    flow: &Flow,
) -> Option<()> {
    for &b in &l.blocks {
        let mut cur = *flow.block_in.get(&b)?;
        for s in ir.cfg.blocks[b].stmts.clone() {
            let v = Value(s);
            if !mine.contains(&v) {
                continue;
            }
            match ir.stmts.inst.get(Value(s)) {
                Some(Inst::Store { value, .. }) => {
                    cur = *value;
                    delete(ir, v);
                }
                Some(Inst::Load { .. }) => replace_uses(ir, v, cur),
                _ => {}
            }
        }
    }
    Some(())
}
