//! Scalar promotion (LLVM's LICM promotion), run at the end of `licm`.
//!
//! A location `L` is promoted in loop `P` when it is one of
//! - a global;
//! - field `f` of a base defined outside `P` and known non-nil at the
//!   preheader ([`known_nonnil`]);
//! - element `a[i]` of an array `a` and an index `i` both defined outside
//!   `P` (so the same in every iteration), with `0 <= i < len(a)` known at
//!   the preheader ([`known_inbounds`]: a dominating bounds check, a π
//!   fact, or a constant index below the constant length of a fresh
//!   allocation, and no array of `a`'s type ever shrinks in the function);
//!
//! and:
//! - `P` stores to `L`, and every statement of `P` whose memory effect may
//!   overlap `L` in *any* iteration is a load or a store of exactly `L`.
//!   Fields and globals use the alias analysis in its cross-iteration mode;
//!   elements use [`overlap::elem_overlaps`]: another array of the same element type
//!   blocks unless the two are provably different objects (distinct
//!   allocations, an allocation in the loop, an allocation against an
//!   argument), `a[j]` blocks unless `j` and `i` are `r + c` and `r + d`
//!   with `c != d` and the same invariant root `r` (or both constant), and
//!   a write to the length of an array that may be `a` blocks (the exit
//!   stores rely on `i` staying in bounds). Calls count through their
//!   summaries, `print` of a composite reads everything. Accesses of `L`
//!   with an index that is the same value (`r + c` again) count as `L`;
//! - `P` has a dedicated preheader and every exit block has all its
//!   predecessors inside `P` (the `loops` pass makes both);
//! - the loop has at most `MAX_EXITS` exits (code size: every exit gets
//!   a store per promoted location, at most `MAX_EXIT_STORES` per loop).
//!
//! Then: one load of `L` at the end of the preheader (none when the
//! preheader stores `L` with nothing that may write memory after that
//! store: the stored value enters the loop), a φ at the header and
//! at every other block of `P` (and exit block) with two or more
//! predecessors, loads replaced by the value reaching them, stores removed,
//! and one store of the reaching value at the start of every exit block.
//!
//! Why this is sound:
//! - The preheader load cannot fault (the conditions above) and reads what
//!   the first iteration would have read: nothing between them writes `L`.
//! - Every access of `P` that may touch `L` in some iteration is one of the
//!   promoted loads and stores, so the register holds exactly what memory
//!   would hold at each of them; nothing else in `P` can observe memory at
//!   `L` before the exit store. This is the condition of LLVM issue #195513
//!   (fixed by reverting PR #187529, PR #195606): a load whose clobber walk
//!   answers "outside the loop" may still read the stored location in one
//!   iteration only — its address varies, e.g. an array variable `p`
//!   assigned `a` before the loop and `b` inside it reads `a[0]` in the
//!   first iteration only — so the clobber walk (which translates `p`
//!   across the back edge and finds no clobber) must not be what clears
//!   a load. LLVM's store hoisting therefore requires every load of the
//!   loop to be dominated by the hoisted store; promotion here asks more:
//!   each possibly-aliasing load is one of `L`'s own (replaced by the
//!   register) or proven disjoint from `L` in every iteration, by alias
//!   facts that hold across iterations, never by the walker.
//!   (`licm` itself hoists no stores.)
//! - The exit store runs even on paths where the loop stored nothing; it
//!   then writes back the value loaded in the preheader, unchanged. That is
//!   allowed because `L` is dereferenceable and writable at every exit
//!   (globals always; the field of a base known non-nil; the element, in
//!   bounds at the preheader, with no length change in the loop) and the
//!   program is single threaded. So a store on some paths only is
//!   promoted; a location not known dereferenceable is never promoted,
//!   even when stored on every path, since the loop may run zero times.
//! - Exceptions: a `raise` (or a call that may throw) inside the loop
//!   leaves it by an explicit edge to a handler or `unwind` block, an exit
//!   block, whose store materialises the value before anything can observe
//!   memory; a call that may read or write `L` is an overlapping access and
//!   blocks promotion. `return`/`unwind` blocks cannot be inside a loop
//!   (they reach no latch).
//!
//! Runtime checks of the promoted accesses stay where they are (the
//! `checks` pass removes those it can prove). Counter: `licm.promoted`
//! (locations).

mod overlap;
mod rewrite;

use crate::ir::FxSet;
use crate::ir::compact::compact;
use crate::ir::edit::NewNodes;
use crate::ir::loops::LoopInfo;
use crate::ir::{BlockId, Inst, IrCode, Loc, Operand, Type, Value};
use crate::memssa::MemorySsa;
use crate::memssa::alias::{Effect, InstEffect, Summaries, inst_effect};
use crate::opt::PassCtx;
use crate::opt::licm::{
    BoundsFacts, Guards, bounds_facts, known_inbounds, known_nonnil, nonnil_guards,
};
use crate::opt::remarks::{Msg, NameTables, RemarkKind, promotion};
use crate::span::Span;
use cranelift_entity::EntityRef;
use overlap::accesses_of;
use rewrite::{exit_stores, fill_phis, flow_through_loop, insert_phis, rewrite_accesses};

/// Rounds of (promote in disjoint loops, compact): an outer loop can
/// promote what an inner one promoted (its preheader load and exit stores).
const MAX_ROUNDS: usize = 8;
/// Candidate locations considered per loop.
const MAX_CANDIDATES: usize = 32;
/// Code-size bounds: a loop with more exits than this (each runtime check
/// inside it is an exit to its raise block) is not promoted, and at most
/// `MAX_EXIT_STORES` exit stores are added per loop.
const MAX_EXITS: usize = 16;
const MAX_EXIT_STORES: usize = 64;
/// Statements scanned back from a preheader for a store of the location.
const STORE_SCAN: usize = 64;

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    for _ in 0..MAX_ROUNDS {
        let mut said = Vec::new();
        let n = promote_round(ir, ctx, &mut said);
        for (kind, span, msg) in said {
            ctx.remark(ir, kind, span, |_| msg);
        }
        if n == 0 {
            return;
        }
    }
}

/// One round over every loop (a loop whose blocks a promotion of this
/// round touched waits for the next); the remarks to make go to `said`.
/// Returns how many locations it promoted.
fn promote_round(
    ir: &mut IrCode,
    ctx: &mut PassCtx,
    said: &mut Vec<(RemarkKind, Span, Msg)>,
) -> usize {
    let sums = &ctx.summaries;
    let names = ctx.remarks_on().then_some(&*ctx.names);
    {
        let m = MemorySsa::build(ir, sums);
        let nest = ir.cfg.loop_nest();
        let loops = &nest.loops;
        if loops.is_empty() {
            return 0;
        }
        let guards = nonnil_guards(ir);
        let bounds = bounds_facts(ir, sums);
        let mut new = NewNodes::new(ir);
        let mut touched: FxSet<BlockId> = FxSet::default();
        let mut stores: Vec<(Value, Inst)> = Vec::new();
        let mut n = 0;
        for l in loops.values() {
            if l.blocks
                .iter()
                .chain(&l.exits)
                .chain(&l.preheader)
                .any(|b| touched.contains(b))
            {
                continue;
            }
            let out = (&mut new, &mut stores, &mut *said, names);
            let k = promote_loop(ir, &m, (&guards, &bounds, sums), out, l);
            if k > 0 {
                n += k;
                touched.extend(l.blocks.iter().copied());
                touched.extend(l.exits.iter().copied());
                touched.extend(l.preheader);
            }
        }
        if n == 0 {
            return 0;
        }
        ctx.counters.add("licm.promoted", n as u64);
        // Exit stores after every φ of the round, so φs stay at block heads.
        for (at, st) in stores {
            new.insert_node(ir, at, st, Type::Void, false);
        }
        compact(ir, new);
        n
    }
}

/// Where promotions write: the new nodes, the exit stores, the remarks,
/// and the names remarks use (`None`: no remarks wanted).
type Out<'a, 'b> = (
    &'a mut NewNodes,
    &'a mut Vec<(Value, Inst)>,
    &'a mut Vec<(RemarkKind, Span, Msg)>,
    Option<&'b NameTables>,
);

/// The location a load or store of `inst` names, when it is promotable in
/// shape (a global, a field or an array element).
fn loc_of(inst: &Inst) -> Option<Key> {
    match inst {
        Inst::Load {
            loc: loc @ (Loc::Global(_) | Loc::Field { .. } | Loc::ArrayElem(_)),
            base,
            index,
        }
        | Inst::Store {
            loc: loc @ (Loc::Global(_) | Loc::Field { .. } | Loc::ArrayElem(_)),
            base,
            index,
            ..
        } => Some(Key {
            loc: loc.clone(),
            base: *base,
            index: *index,
        }),
        _ => None,
    }
}

/// A promotable location: `loc` of `base` (fields, elements) at `index`
/// (elements).
#[derive(Clone, Debug, PartialEq)]
struct Key {
    loc: Loc,
    base: Option<Operand>,
    index: Option<Operand>,
}

/// Statements of the loop in block order.
fn loop_stmts(ir: &IrCode, l: &LoopInfo) -> Vec<(BlockId, Value)> {
    let mut out = Vec::new();
    for &b in &l.blocks {
        for s in ir.cfg.blocks[b].stmts.clone() {
            out.push((b, Value(s)));
        }
    }
    out
}

/// Promotes every eligible location of `l`; returns how many.
fn promote_loop(
    ir: &mut IrCode,
    m: &MemorySsa,
    guards: (&Guards, &BoundsFacts, &Summaries),
    (new, stores, said, names): Out,
    l: &LoopInfo,
) -> usize {
    let Some((ph, ph_term, after)) = loop_shape(ir, l) else {
        return 0;
    };
    let stmts = loop_stmts(ir, l);
    let cands = candidates(ir, m, l, &stmts);
    if cands.is_empty() || l.exits.len() > MAX_EXITS {
        return 0;
    }
    // The memory effects of the loop, computed once; the accesses of a
    // promoted location are dropped from it.
    let mut effects = loop_effects(ir, &stmts, guards.2);
    let mut done = 0;
    for (key, first_store) in cands {
        if (done + 1) * l.exits.len() > MAX_EXIT_STORES {
            break;
        }
        let remark = names.map(|n| promotion(ir, n, first_store, true));
        let mark = (new.nodes.len(), stores.len());
        let site = Site {
            l,
            ph,
            ph_term,
            after,
            effects: &effects,
        };
        if let Some(mine) = promote_one(ir, m, guards, new, stores, &site, &key) {
            effects.retain(|(v, _)| !mine.contains(v));
            done += 1;
            said.extend(remark);
        } else {
            new.nodes.truncate(mark.0);
            stores.truncate(mark.1);
            // A place that changes from one iteration to the next (`a[i]`)
            // is no candidate: only an invariant one is worth a remark.
            let varies = |o: &Option<Operand>| match o {
                Some(Operand::Value(v)) => m.block_of(*v).is_none_or(|b| l.contains(b)),
                _ => false,
            };
            if !varies(&key.base) && !varies(&key.index) {
                said.extend(names.map(|n| promotion(ir, n, first_store, false)));
            }
        }
    }
    done
}

/// Whether `l` has the shape promotion needs: a preheader ending in a
/// statement new nodes can attach to, a header without φᶜ, dedicated exits
/// with a statement to put the store before, and body blocks entered from
/// the body only (the header also from the preheader). Returns the
/// preheader, its last statement, and whether new nodes go after it (it is
/// not a `goto`).
fn loop_shape(ir: &IrCode, l: &LoopInfo) -> Option<(BlockId, Value, bool)> {
    if ir.cfg.blocks[l.header].stmts.is_empty() {
        return None;
    }
    let (ph, ph_term, after) = crate::opt::licm::preheader_insertion(ir, l)?;
    for &x in &l.exits {
        let blk = &ir.cfg.blocks[x];
        if blk.preds.iter().any(|&p| !l.contains(p)) || first_non_head(ir, x).is_none() {
            return None;
        }
    }
    for &b in &l.blocks {
        for &p in &ir.cfg.blocks[b].preds {
            if !(l.contains(p) || (b == l.header && p == ph)) {
                return None;
            }
        }
    }
    Some((ph, ph_term, after))
}

/// Candidate locations: those the loop stores to, each with its first
/// store, at most `MAX_CANDIDATES`.
fn candidates(
    ir: &IrCode,
    m: &MemorySsa,
    l: &LoopInfo,
    stmts: &[(BlockId, Value)],
) -> Vec<(Key, Value)> {
    let in_loop = |v: Value| m.block_of(v).is_some_and(|b| l.contains(b));
    let mut cands: Vec<(Key, Value)> = Vec::new();
    for &(_, v) in stmts {
        let Some(inst @ Inst::Store { .. }) = ir.stmts.get(v) else {
            continue;
        };
        if let Some(mut c) = loc_of(inst) {
            c.index = c.index.map(|i| outside_pi_root(ir, &in_loop, i));
            if !cands.iter().any(|(k, _)| *k == c) && cands.len() < MAX_CANDIDATES {
                cands.push((c, v));
            }
        }
    }
    cands
}

/// `o` through the `π`s defined in the loop (`in_loop`): the value they
/// restate, which may be defined outside it. A `π` is its operand's value,
/// so the location is the same; the loop's own checks give them.
fn outside_pi_root(ir: &IrCode, in_loop: &dyn Fn(Value) -> bool, mut o: Operand) -> Operand {
    while let Operand::Value(v) = o
        && in_loop(v)
        && let Some(Inst::Pi { value, .. }) = ir.stmts.get(v)
    {
        o = *value;
    }
    o
}

/// The memory effect of every loop statement that has one.
fn loop_effects(
    ir: &IrCode,
    stmts: &[(BlockId, Value)],
    sums: &Summaries,
) -> Vec<(Value, InstEffect)> {
    stmts
        .iter()
        .filter_map(|&(_, v)| {
            let e = inst_effect(ir, v, ir.stmts.inst.get(v)?, sums)?;
            Some((v, e))
        })
        .collect()
}

/// The value last stored to `key` before the end of the preheader `ph`,
/// when no statement after that store may write memory: the promoted value
/// starts as that operand instead of a load. The scan goes back through
/// `ph` and then through single-predecessor chains (a rotated loop's guard
/// block), at most `STORE_SCAN` statements.
fn stored_in_preheader(ir: &IrCode, ph: BlockId, key: &Key, sums: &Summaries) -> Option<Operand> {
    let mut b = ph;
    let mut budget = STORE_SCAN;
    loop {
        for s in ir.cfg.blocks[b].stmts.clone().rev() {
            budget = budget.checked_sub(1)?;
            let inst = ir.stmts.inst.get(Value(s))?;
            if let Inst::Store { value, .. } = inst
                && loc_of(inst).as_ref() == Some(key)
            {
                return Some(*value);
            }
            if inst_effect(ir, Value(s), inst, sums).is_some_and(|e| e.writes != Effect::None) {
                return None;
            }
        }
        let [p] = ir.cfg.blocks[b].preds.as_slice() else {
            return None;
        };
        if *p == b {
            return None;
        }
        b = *p;
    }
}

/// The first statement of `b` that is not a φ/φᶜ.
fn first_non_head(ir: &IrCode, b: BlockId) -> Option<Value> {
    ir.cfg.blocks[b]
        .stmts
        .clone()
        .find(|&s| {
            !matches!(
                ir.stmts.inst.get(Value(s)),
                Some(Inst::Phi { .. } | Inst::PhiC { .. })
            )
        })
        .map(Value)
}

/// The loop a promotion works on, and where its preheader load goes.
struct Site<'l> {
    l: &'l LoopInfo,
    ph: BlockId,
    /// The preheader's last statement; new preheader nodes attach to it.
    ph_term: Value,
    /// Whether they attach after it (it is not a `goto`).
    after: bool,
    /// The memory effects of the loop's statements, less the accesses of
    /// locations already promoted.
    effects: &'l [(Value, InstEffect)],
}

/// Promotes `key` in the loop of `site` if it may; returns the loop's
/// loads and stores of it, now rewritten. On `None` the caller drops what
/// was added to `new` and `stores`; `ir` is only changed on success.
fn promote_one(
    ir: &mut IrCode,
    m: &MemorySsa,
    facts: (&Guards, &BoundsFacts, &Summaries),
    new: &mut NewNodes,
    stores: &mut Vec<(Value, Inst)>,
    site: &Site,
    key: &Key,
) -> Option<FxSet<Value>> {
    let outside = |o: &Operand| match o {
        Operand::Value(v) => {
            (v.index()) < ir.stmts.len() && m.block_of(*v).is_some_and(|bb| !site.l.contains(bb))
        }
        _ => true,
    };
    if !location_is_safe(ir, m, facts, new, site, key, &outside) {
        return None;
    }
    let (mine, ty) = accesses_of(ir, m, site.effects, key, &outside)?;
    // The preheader load (or the value the preheader last stored).
    let init = match stored_in_preheader(ir, site.ph, key, facts.2) {
        Some(v) => v,
        None => {
            let load = Inst::Load {
                loc: key.loc.clone(),
                base: key.base,
                index: key.index,
            };
            Operand::Value(new.insert_node(ir, site.ph_term, load, ty.clone(), site.after))
        }
    };
    let phi_of = insert_phis(ir, new, site.l, &ty)?;
    let flow = flow_through_loop(ir, site, &mine, &phi_of, init)?;
    fill_phis(new, &phi_of, &flow, site.ph, init)?;
    exit_stores(ir, new, stores, site.l, &flow, key, &ty)?;
    rewrite_accesses(ir, site.l, &mine, &flow)?;
    Some(mine)
}

/// Base and index are defined outside the loop (the same in every
/// iteration) and the location cannot fault at the preheader.
fn location_is_safe(
    ir: &IrCode,
    m: &MemorySsa,
    (guards, bounds, _): (&Guards, &BoundsFacts, &Summaries),
    new: &NewNodes,
    site: &Site,
    key: &Key,
    outside: &dyn Fn(&Operand) -> bool,
) -> bool {
    match (&key.loc, &key.base, &key.index) {
        (Loc::Field { .. }, Some(b), _) => {
            outside(b) && known_nonnil(ir, new, m, guards, b, site.ph)
        }
        (Loc::ArrayElem(_), Some(b), Some(i)) => {
            outside(b) && outside(i) && known_inbounds(ir, new, m, bounds, b, i, site.ph)
        }
        (Loc::Global(_), _, _) => true,
        _ => false,
    }
}
