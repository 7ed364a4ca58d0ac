//! Loop canonicalisation on the block view ([`BlockIr`]).
//!
//! The loops are [`LoopNest`]'s natural loops over the block view's
//! positions (dominators from [`DomTree`] over the same graph). Each loop
//! is given:
//! - a dedicated preheader: a block that is the header's only predecessor
//!   from outside the loop and has the header as its only successor
//!   (several outside predecessors are merged by φs in the preheader);
//! - dedicated exits: every exit block's predecessors all lie in the loop
//!   (an exit also entered from outside gets a new block between).
//!
//! Handler blocks (with `φᶜ`) and a loop headed by the entry block are left
//! alone. Fixes are made in rounds: one analysis, then every needed fix
//! whose blocks no earlier fix of the round touched (new blocks are placed
//! right before their target in one linear rebuild of the layout); rounds
//! repeat until nothing is needed.
//! Counters: `loops.preheaders`, `loops.exits`.

use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Term};
use crate::ir::compacted::compact_if_needed;
use crate::ir::dom::DomTree;
use crate::ir::edges::block_succs;
use crate::ir::edit::default_flags;
use crate::ir::loops::{LoopId, LoopNest};
use crate::ir::{BlockId, FxSet, Inst, IrCode, Operand};
use crate::opt::PassCtx;
use cranelift_entity::EntityRef;
use std::sync::Arc;

/// The block view's edges by position and its loops ([`LoopNest`], over
/// positions).
struct Analysis {
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    loops: Arc<LoopNest>,
}

fn analyse(bir: &BlockIr) -> Analysis {
    let pos = bir.positions();
    let at = |l: Label| pos[l];
    let succs: Vec<Vec<usize>> = bir
        .blocks
        .iter()
        .map(|b| b.term.succs().into_iter().filter_map(at).collect())
        .collect();
    let preds = preds_of(&succs);
    analysis_of(succs, preds)
}

/// [`analyse`] of the block view [`BlockIr::from_ir`] would make of `ir`
/// (its positions are `ir`'s blocks), without making it. When `ir`'s CFG
/// lists exactly these edges (it does unless a pass left it stale), the
/// loops are the CFG's cached ones ([`crate::ir::Cfg::loop_nest`]), which
/// the passes after this one then find already built.
fn analyse_ir(ir: &IrCode) -> Analysis {
    let nb = ir.cfg.blocks.len() as u32;
    let succs: Vec<Vec<usize>> = ir
        .cfg
        .blocks
        .keys()
        .map(|b| {
            let last = ir.last_stmt(b).map(|(_, i)| i);
            block_succs(last, b.0, nb)
                .into_iter()
                .filter(|s| s.0 < nb)
                .map(|s| s.index())
                .collect()
        })
        .collect();
    let preds = preds_of(&succs);
    let same = |mine: &[usize], cfg: &[BlockId]| {
        mine.len() == cfg.len() && mine.iter().zip(cfg).all(|(a, b)| *a == b.index())
    };
    let cfg_agrees = ir
        .cfg
        .blocks
        .values()
        .enumerate()
        .all(|(b, bb)| same(&succs[b], &bb.succs) && same(&preds[b], &bb.preds));
    if !cfg_agrees {
        return analysis_of(succs, preds);
    }
    Analysis {
        loops: ir.cfg.loop_nest(),
        succs,
        preds,
    }
}

/// Whether some edge of `ir`'s CFG goes back to its own block or an
/// earlier one: every cycle has such an edge, so without one there is no
/// loop.
pub(crate) fn has_back_edge(ir: &IrCode) -> bool {
    let nb = ir.cfg.blocks.len() as u32;
    ir.cfg.blocks.keys().any(|b| {
        let last = ir.last_stmt(b).map(|(_, i)| i);
        block_succs(last, b.0, nb).iter().any(|s| s.0 <= b.0)
    })
}

/// Each node's predecessors in `succs`, in node order (a repeated edge
/// once).
fn preds_of(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut preds = vec![Vec::new(); succs.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            // `b`'s edges come one after another: a repeated edge has `b`
            // last already (no scan of a join's many predecessors).
            if preds[s].last() != Some(&b) {
                preds[s].push(b);
            }
        }
    }
    preds
}

/// The edges, dominators and loops of the graph `succs` (with its `preds`)
/// over positions.
fn analysis_of(succs: Vec<Vec<usize>>, preds: Vec<Vec<usize>>) -> Analysis {
    let n = succs.len();
    // The graph's nodes are layout positions, as `BlockId`s.
    let succ_of = |b: BlockId| succs[b.index()].iter().map(|&s| BlockId::new(s));
    let pred_of = |b: BlockId| preds[b.index()].iter().map(|&p| BlockId::new(p));
    let doms = DomTree::from_graph(n, succ_of, pred_of);
    let loops = Arc::new(LoopNest::from_graph(n, succ_of, pred_of, &doms));
    Analysis {
        succs,
        preds,
        loops,
    }
}

/// A new block that receives the edges from the positions `from` to the
/// block at `target` (which keeps its φs, now with one operand on the new
/// block); the caller places it in the layout.
pub(crate) fn split_edges(bir: &mut BlockIr, from: &[usize], target: usize) -> BBlock {
    let t_label = bir.blocks[target].label;
    let from_labels: Vec<Label> = from.iter().map(|&f| bir.blocks[f].label).collect();
    // Membership by a set when there are many edges (a linear search per φ
    // operand would be quadratic in a block's predecessors).
    let from_set: Option<FxSet<Label>> =
        (from_labels.len() > 8).then(|| from_labels.iter().copied().collect());
    let is_from = |e: &Label| match &from_set {
        Some(set) => set.contains(e),
        None => from_labels.contains(e),
    };
    let new_label = bir.fresh_label();
    let span = bir.blocks[target].term_span;
    let mut new_stmts = Vec::new();
    let mut fresh = Vec::new();
    for s in bir.blocks[target].stmts.iter() {
        match &s.inst {
            Inst::Phi { .. } => fresh.push(s.clone()),
            Inst::Nothing => {}
            _ => break,
        }
    }
    let mut replacements = Vec::new();
    for phi in fresh {
        let Inst::Phi { edges, values } = &phi.inst else {
            continue;
        };
        let (mut ie, mut iv) = (Vec::new(), Vec::new());
        for (e, v) in edges.iter().zip(values) {
            if is_from(e) {
                ie.push(*e);
                iv.push(*v);
            }
        }
        let incoming = if iv.len() == 1 {
            iv[0]
        } else {
            let id = bir.fresh_value();
            let inst = Inst::Phi {
                edges: ie,
                values: iv,
            };
            let flags = default_flags(&inst);
            new_stmts.push(BStmt {
                id,
                inst,
                ty: phi.ty.clone(),
                span: phi.span,
                flags,
                name: phi.name,
            });
            Operand::Value(id)
        };
        replacements.push((phi.id, incoming));
    }
    // `replacements` follows the block's φs in order: one walk pairs them.
    let mut next = replacements.into_iter().peekable();
    for s in bir.blocks[target].stmts.iter_mut() {
        if next.peek().is_none() {
            break;
        }
        if next.peek().is_some_and(|(id, _)| *id == s.id)
            && let Some((_, inc)) = next.next()
            && let Inst::Phi { edges, values } = &mut s.inst
        {
            let mut kept = 0;
            for i in 0..edges.len().min(values.len()) {
                if !is_from(&edges[i]) {
                    edges[kept] = edges[i];
                    values[kept] = values[i];
                    kept += 1;
                }
            }
            edges.truncate(kept);
            values.truncate(kept);
            edges.push(new_label);
            values.push(inc);
        }
    }
    for &f in from {
        bir.blocks[f].term.retarget(t_label, new_label);
    }
    BBlock {
        label: new_label,
        stmts: new_stmts,
        term: Term::Goto(t_label),
        term_span: span,
        term_flags: bir.blocks[target].term_flags,
    }
}

fn is_handler(b: &BBlock) -> bool {
    b.stmts.iter().any(|s| matches!(s.inst, Inst::PhiC { .. }))
}

/// One fix of a round, by positions: a preheader before the loop header
/// `h` taking the edges from `outside`, or a dedicated exit before `x`
/// taking the edges from the loop blocks `inside`.
enum Fix {
    Preheader { h: usize, outside: Vec<usize> },
    Exit { x: usize, inside: Vec<usize> },
}

/// One round: every fix needed whose blocks no earlier fix of the round
/// touched; new blocks go right before their target. Returns the number of
/// (preheader, exit) fixes made and whether a fix was deferred.
fn round(bir: &mut BlockIr) -> (u64, u64, bool) {
    let a = analyse(bir);
    let Plan { fixes, deferred } = plan(&a, |b| is_handler(&bir.blocks[b]));
    let (p, x) = apply(bir, fixes);
    (p, x, deferred)
}

/// Makes the blocks of `fixes` (planned over `bir` as it is) and places
/// each right before its target; returns the number of (preheader, exit)
/// fixes made.
fn apply(bir: &mut BlockIr, fixes: Vec<Fix>) -> (u64, u64) {
    let mut new_blocks: Vec<(Label, BBlock)> = Vec::new();
    let (mut preheaders, mut exits) = (0, 0);
    for fix in fixes {
        let (target, from) = match &fix {
            Fix::Preheader { h, outside } => {
                preheaders += 1;
                (*h, outside)
            }
            Fix::Exit { x, inside } => {
                exits += 1;
                (*x, inside)
            }
        };
        let label = bir.blocks[target].label;
        new_blocks.push((label, split_edges(bir, from, target)));
    }
    let mut before: crate::ir::FxMap<Label, Vec<BBlock>> = crate::ir::FxMap::default();
    for (anchor, blk) in new_blocks {
        before.entry(anchor).or_default().push(blk);
    }
    bir.insert_before(before);
    (preheaders, exits)
}

/// The fixes of one round.
struct Plan {
    /// In the order they are made.
    fixes: Vec<Fix>,
    /// Whether another round may find a fix: some needed fix was left
    /// because a fix of this round touches its blocks, or an exit fix's new
    /// block leaves an enclosing loop (see [`plan`]). Otherwise the round
    /// leaves every loop with a dedicated preheader and dedicated exits
    /// (checked in debug builds).
    deferred: bool,
}

/// The fixes of one round over the analysis `a` (`handler(b)`: position
/// `b` is a handler block, left alone).
fn plan(a: &Analysis, handler: impl Fn(usize) -> bool) -> Plan {
    let n = a.succs.len();
    let mut touched = vec![false; n];
    let mut member: Vec<Option<LoopId>> = vec![None; n];
    // The loop whose exit fix made a block's new predecessor.
    let mut exit_of: Vec<Option<LoopId>> = vec![None; n];
    let mut fixes = Vec::new();
    let mut deferred = false;
    // Outer loops first among nested ones (header order), as before.
    let mut order: Vec<LoopId> = a.loops.loops.keys().collect();
    order.sort_unstable_by_key(|&i| a.loops.loops[i].header);
    for id in order {
        let lp = &a.loops.loops[id];
        let id = Some(id);
        for &b in &lp.blocks {
            member[b.index()] = id;
        }
        let h = lp.header.index();
        if h != 0 && !handler(h) {
            let outside: Vec<usize> = a.preds[h]
                .iter()
                .copied()
                .filter(|&p| member[p] != id)
                .collect();
            let dedicated = outside.len() == 1 && a.succs[outside[0]].len() == 1;
            if !outside.is_empty() && !dedicated {
                if touched[h] || outside.iter().any(|&p| touched[p]) {
                    deferred = true;
                } else {
                    touched[h] = true;
                    outside.iter().for_each(|&p| touched[p] = true);
                    fixes.push(Fix::Preheader { h, outside });
                }
            }
        }
        for &b in &lp.blocks {
            for &x in &a.succs[b.index()] {
                if member[x] == id || exit_of[x] == id || handler(x) {
                    continue;
                }
                if a.preds[x].iter().any(|&p| member[p] != id) {
                    let inside: Vec<usize> = a.preds[x]
                        .iter()
                        .copied()
                        .filter(|&p| member[p] == id)
                        .collect();
                    if touched[x] || inside.iter().any(|&p| touched[p]) {
                        deferred = true;
                        continue;
                    }
                    // The new block is outside every loop that holds its
                    // predecessors but not `x`: an enclosing one for which
                    // `x` was a dedicated exit gets a predecessor from
                    // outside there.
                    let parent = lp.parent.map(|q| &a.loops.loops[q]);
                    deferred |= parent.is_some_and(|q| !q.contains(BlockId::new(x)));
                    touched[x] = true;
                    exit_of[x] = id;
                    inside.iter().for_each(|&p| touched[p] = true);
                    fixes.push(Fix::Exit { x, inside });
                }
            }
        }
    }
    Plan { fixes, deferred }
}

/// Whether block `b` of `ir` is a handler (starts with a `φᶜ`).
fn ir_handler(ir: &IrCode, b: usize) -> bool {
    ir.cfg.blocks[BlockId::new(b)]
        .values()
        .any(|v| matches!(ir.stmts.inst.get(v), Some(Inst::PhiC { .. })))
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    // The first round is planned on `ir` itself (whose blocks are the
    // block view's positions): most functions need no fix, and then no
    // block view is built.
    if !has_back_edge(ir) {
        return;
    }
    let Plan {
        fixes,
        mut deferred,
    } = plan(&analyse_ir(ir), |b| ir_handler(ir, b));
    if fixes.is_empty() {
        return;
    }
    let counters = &mut ctx.counters;
    let mut bir = BlockIr::from_ir(ir);
    let limit = 2 * bir.blocks.len() + 4;
    let (p, x) = apply(&mut bir, fixes);
    counters.add("loops.preheaders", p);
    counters.add("loops.exits", x);
    for _ in 1..limit {
        if !deferred {
            // Checked in debug builds: another round finds nothing to fix.
            debug_assert_eq!(round(&mut bir), (0, 0, false), "loops: a fix was missed");
            break;
        }
        let (p, x, d) = round(&mut bir);
        counters.add("loops.preheaders", p);
        counters.add("loops.exits", x);
        deferred = d;
    }
    *ir = bir.lower();
    compact_if_needed(ir);
}
