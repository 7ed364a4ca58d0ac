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
use crate::ir::compact::compact_only;
use crate::ir::dom::DomTree;
use crate::ir::edit::default_flags;
use crate::ir::loops::{LoopId, LoopNest};
use crate::ir::{BlockId, Inst, IrCode, Operand};
use crate::opt::PassCtx;
use cranelift_entity::EntityRef;

/// The block view's edges by position and its loops ([`LoopNest`], over
/// positions).
struct Analysis {
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    loops: LoopNest,
}

fn analyse(bir: &BlockIr) -> Analysis {
    let pos = bir.positions();
    let n = bir.blocks.len();
    let at = |l: Label| pos[l];
    let succs: Vec<Vec<usize>> = bir
        .blocks
        .iter()
        .map(|b| b.term.succs().into_iter().filter_map(at).collect())
        .collect();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    // The graph's nodes are layout positions, as `BlockId`s.
    let succ_of = |b: BlockId| succs[b.index()].iter().map(|&s| BlockId::new(s));
    let pred_of = |b: BlockId| preds[b.index()].iter().map(|&p| BlockId::new(p));
    let doms = DomTree::from_graph(n, succ_of, pred_of);
    let loops = LoopNest::from_graph(n, succ_of, pred_of, &doms);
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
            if from_labels.contains(e) {
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
                name: phi.name.clone(),
            });
            Operand::Value(id)
        };
        replacements.push((phi.id, incoming));
    }
    for s in bir.blocks[target].stmts.iter_mut() {
        if let Some((_, inc)) = replacements.iter().find(|(id, _)| *id == s.id)
            && let Inst::Phi { edges, values } = &mut s.inst
        {
            let mut i = 0;
            while i < edges.len() {
                if from_labels.contains(&edges[i]) {
                    edges.remove(i);
                    values.remove(i);
                } else {
                    i += 1;
                }
            }
            edges.push(new_label);
            values.push(*inc);
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
    }
}

fn is_handler(b: &BBlock) -> bool {
    b.stmts.iter().any(|s| matches!(s.inst, Inst::PhiC { .. }))
}

/// One round: every fix needed whose blocks no earlier fix of the round
/// touched; new blocks go right before their target. Returns the number of
/// (preheader, exit) fixes made.
fn round(bir: &mut BlockIr) -> (u64, u64) {
    let a = analyse(bir);
    let n = bir.blocks.len();
    let mut touched = vec![false; n];
    let mut member: Vec<Option<LoopId>> = vec![None; n];
    let mut new_blocks: Vec<(Label, BBlock)> = Vec::new();
    let (mut preheaders, mut exits) = (0, 0);
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
        if h != 0 && !is_handler(&bir.blocks[h]) {
            let outside: Vec<usize> = a.preds[h]
                .iter()
                .copied()
                .filter(|&p| member[p] != id)
                .collect();
            let dedicated = outside.len() == 1 && a.succs[outside[0]].len() == 1;
            if !outside.is_empty()
                && !dedicated
                && !touched[h]
                && outside.iter().all(|&p| !touched[p])
            {
                let label = bir.blocks[h].label;
                new_blocks.push((label, split_edges(bir, &outside, h)));
                touched[h] = true;
                outside.iter().for_each(|&p| touched[p] = true);
                preheaders += 1;
            }
        }
        for &b in &lp.blocks {
            for &x in &a.succs[b.index()] {
                if member[x] == id || touched[x] || is_handler(&bir.blocks[x]) {
                    continue;
                }
                if a.preds[x].iter().any(|&p| member[p] != id) {
                    let inside: Vec<usize> = a.preds[x]
                        .iter()
                        .copied()
                        .filter(|&p| member[p] == id)
                        .collect();
                    if inside.iter().any(|&p| touched[p]) {
                        continue;
                    }
                    let label = bir.blocks[x].label;
                    new_blocks.push((label, split_edges(bir, &inside, x)));
                    touched[x] = true;
                    inside.iter().for_each(|&p| touched[p] = true);
                    exits += 1;
                }
            }
        }
    }
    let mut before: crate::ir::FxMap<Label, Vec<BBlock>> = crate::ir::FxMap::default();
    for (anchor, blk) in new_blocks {
        before.entry(anchor).or_default().push(blk);
    }
    bir.insert_before(before);
    (preheaders, exits)
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let counters = &mut ctx.counters;
    let mut bir = BlockIr::from_ir(ir);
    let limit = 2 * bir.blocks.len() + 4;
    let mut changed = false;
    for _ in 0..limit {
        let (p, x) = round(&mut bir);
        counters.add("loops.preheaders", p);
        counters.add("loops.exits", x);
        if p == 0 && x == 0 {
            break;
        }
        changed = true;
    }
    if changed {
        *ir = bir.lower();
        compact_only(ir);
    }
}
