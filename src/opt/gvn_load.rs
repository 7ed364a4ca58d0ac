//! Redundant load elimination and store-to-load forwarding, across
//! blocks, through the MemorySSA walker (the load part of LLVM's GVN).
//!
//! For each load `L` with clobber `C` (the walker's answer; it dominates
//! `L` and nothing between may write `L`'s location):
//! - `C` a store to the same location (same class, same SSA base and
//!   index): `L` is the stored value (`gvn_load.forwarded`);
//! - `C` the allocation of `L`'s base: `L` is the initial value — a field's
//!   initialiser, the length, or the fill (`gvn_load.forwarded_alloc`);
//! - otherwise, an earlier load of the same location with the same clobber
//!   that dominates `L`: `L` is that load (`gvn_load.redundant`).
//!
//! Bril's `load`/`store` calls are loads and stores of the slot their
//! pointer names (no allocation initialises a slot). A Bril load may raise
//! (bad pointer, uninitialised slot), but never after a store to, or a
//! load from, the same slot with nothing between that writes Bril memory:
//! `free` and `alloc` write every slot. So removing it removes no error.
//! The stored value must have the load's type (a pointer has one).
//!
//! Same SSA operands and dominance make both accesses name the same
//! memory cell in the same execution, so the location must-aliases. A
//! removed load's access is removed through the updater; MemorySSA is
//! verified before compaction.

use crate::ir::FxMap;
use crate::ir::compact::compact;
use crate::ir::edit::{NewNodes, replace_uses};
use crate::ir::{Inst, IrCode, Loc, Operand, Value};
use crate::memssa::alias::{AliasResult, Effect};
use crate::memssa::{AccessId, AccessKind, MemorySsa};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};
use crate::rtfns::Effect as RtEffect;

fn same_loc(m: &MemorySsa, ir: &IrCode, a: &Effect, b: &Effect) -> bool {
    let (Effect::Locs(x), Effect::Locs(y)) = (a, b) else {
        return false;
    };
    let ([x], [y]) = (x.as_slice(), y.as_slice()) else {
        return false;
    };
    let ctx = m.alias_ctx(ir);
    x.index.is_some() == y.index.is_some() && ctx.alias(x, y, false) == AliasResult::Must
}

/// What a load of `loc`/`base`/`index` reads right after allocation `alloc`.
fn initial_value(ir: &IrCode, alloc: Value, loc: &Loc, base: &Option<Operand>) -> Option<Operand> {
    if *base != Some(Operand::Value(alloc)) {
        return None;
    }
    match (ir.stmts.get(alloc)?, loc) {
        (Inst::NewStruct { strukt, fields }, Loc::Field { strukt: s, field }) if s == strukt => {
            fields.get(*field as usize).copied()
        }
        (Inst::NewArray { len, .. }, Loc::ArrayLen) => Some(*len),
        (Inst::NewArray { fill, .. }, Loc::ArrayElem(_)) => Some(*fill),
        _ => None,
    }
}

/// Whether `inst` is a load: a Toy `Load` or a Bril `load` call.
fn is_load(inst: &Inst) -> bool {
    match inst {
        Inst::Load { .. } => true,
        Inst::Runtime { func, .. } => func.row().effect == RtEffect::ReadsBrilSlot,
        _ => false,
    }
}

/// The value that store `inst` writes, when `inst` is a Toy `Store` or a
/// Bril `store` call of a value of type `ty`.
fn stored_value(ir: &IrCode, inst: &Inst, ty: &crate::ir::Type) -> Option<Operand> {
    match inst {
        Inst::Store { value, .. } => Some(*value),
        Inst::Runtime { func, args } if func.row().effect == RtEffect::WritesBrilSlot => {
            let value = *args.get(1)?;
            (ir.operand_type(&value).as_ref() == Some(ty)).then_some(value)
        }
        _ => None,
    }
}

/// After removing the Bril load `v`: its `no_exception()` check, the next
/// statement of its block, is `true` (no exception is pending in normal
/// flow before a statement, and nothing raises in between now), so that
/// `simplifycfg` folds the branch.
fn clear_exception_check(ir: &mut IrCode, m: &MemorySsa, v: Value) {
    let next = Value(v.0 + 1);
    if matches!(ir.stmts.get(next), Some(Inst::NoException)) && m.block_of(next) == m.block_of(v) {
        replace_uses(ir, next, Operand::Bool(true));
    }
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let mut loads: Vec<Value> = (0..ir.stmts.len() as u32)
        .map(Value)
        .filter(|v| is_load(&ir.stmts[*v]))
        .collect();
    // Without a load there is nothing to replace (and no MemorySSA to build).
    if loads.is_empty() {
        return;
    }
    let mut m = crate::timing::time("memssa.build", || MemorySsa::build(ir, &ctx.summaries));
    // Every use's clobber at once (cached in the accesses).
    crate::timing::time("memssa.walk", || m.ensure_optimized_uses(ir));
    loads.retain(|v| m.block_of(*v).is_some_and(|b| m.dom.reachable(b)));
    // Loads by clobber, for the redundancy check.
    let mut by_clobber: FxMap<(AccessId, Effect), Vec<(Value, AccessId)>> = FxMap::default();
    let mut changed = false;
    // Statement order: a dominating load usually comes first (one that does
    // not is only a missed opportunity).
    for v in loads {
        let Some(a) = m.access_for(v) else { continue };
        let c = m.clobbering_access(ir, a);
        let eff = m.access(a).effect.clone();
        // The value, its counter, and the statement it comes from.
        let mut with: Option<(Operand, &str, Value)> = None;
        if let AccessKind::Def { inst: d } = m.access(c).kind {
            let ty = &ir.stmts.ty[v];
            match (ir.stmts.get(d), ir.stmts.get(v)) {
                (
                    Some(Inst::NewArray { .. } | Inst::NewStruct { .. }),
                    Some(Inst::Load { loc, base, .. }),
                ) => {
                    with =
                        initial_value(ir, d, loc, base).map(|x| (x, "gvn_load.forwarded_alloc", d));
                }
                (Some(store), _) if same_loc(&m, ir, &m.access(c).effect, &eff) => {
                    with = stored_value(ir, store, ty).map(|x| (x, "gvn_load.forwarded", d));
                }
                _ => {}
            }
        }
        if with.is_none() {
            let list = by_clobber.entry((c, eff.clone())).or_default();
            // The most recent candidates only (bounded work per load).
            for &(w, wa) in list.iter().rev().take(16) {
                if m.dominates(wa, a) && same_loc(&m, ir, &m.access(wa).effect, &eff) {
                    with = Some((Operand::Value(w), "gvn_load.redundant", w));
                    break;
                }
            }
        }
        match with {
            Some((x, counter, from)) => {
                let (at, src) = (ir.stmts.span[v], ir.stmts.span[from]);
                ctx.remark(ir, RemarkKind::Passed, at, |d| {
                    let msg = Msg::new(format!("load {} at ", d.place_of(v))).at(at);
                    match counter {
                        "gvn_load.redundant" => msg.t(" is redundant with ").at(src),
                        "gvn_load.forwarded" => msg.t(" gets the value stored at ").at(src),
                        _ => msg
                            .t(" gets the initial value of the allocation at ")
                            .at(src),
                    }
                });
                m.remove_access(a);
                replace_uses(ir, v, x);
                clear_exception_check(ir, &m, v);
                ctx.counters.add(counter, 1);
                changed = true;
            }
            None => by_clobber.entry((c, eff)).or_default().push((v, a)),
        }
    }
    ctx.check_memssa(&m, ir);
    if changed {
        compact(ir, NewNodes::new(ir));
    }
}
