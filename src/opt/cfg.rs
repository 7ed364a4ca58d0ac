//! CFG simplification on the block view ([`BlockIr`]), then compaction:
//! - a branch on a constant becomes a `goto`; the dead edge's φ operands go;
//! - an empty block `E: goto T` is threaded: each predecessor `P` jumps to
//!   `T` directly (T's φs get `P => value on E`), unless `P` already reaches
//!   `T` with a different φ value;
//! - a block `B` whose only predecessor `A` ends in `goto B` is merged into
//!   `A` (B's φs become copies); handler blocks (with `φᶜ`) are never merged;
//! - compaction then drops unreachable blocks and folds φs.
//!
//! Rounds repeat until nothing changes; each change removes a block or an
//! edge, so it terminates. Counters: `simplifycfg.branches`,
//! `simplifycfg.threaded`, `simplifycfg.merged`, `simplifycfg.blocks`.

use crate::ir::blocks::{BlockIr, Label, Term};
use crate::ir::compact::compact_only;
use crate::ir::{BlockId, Inst, IrCode, Operand};
use crate::opt::PassCtx;

/// Removes the operands of edge `from` from the φs of block `to` (`pos`:
/// the block index of each label, [`BlockIr::positions`]).
fn drop_phi_edge(bir: &mut BlockIr, pos: &[Option<usize>], to: Label, from: Label) {
    if let Some(b) = pos
        .get(to as usize)
        .copied()
        .flatten()
        .and_then(|i| bir.blocks.get_mut(i))
    {
        for s in b.phis_mut() {
            if let Inst::Phi { edges, values } = &mut s.inst {
                while let Some(i) = edges.iter().position(|e| e.0 == from) {
                    edges.remove(i);
                    values.remove(i);
                }
            }
        }
    }
}

/// The φ operands of block at `pos` along edge `from`, or `None` if some φ
/// has no operand for it.
fn phi_values_on(bir: &BlockIr, pos: usize, from: Label) -> Option<Vec<Operand>> {
    let mut out = Vec::new();
    for s in bir.blocks[pos].stmts.iter() {
        match &s.inst {
            Inst::Phi { edges, values } => {
                out.push(values[edges.iter().position(|e| e.0 == from)?])
            }
            Inst::Nothing => {}
            _ => break,
        }
    }
    Some(out)
}

fn fold_constant_branches(bir: &mut BlockIr) -> u64 {
    let mut n = 0;
    let mut killed = Vec::new();
    for b in &mut bir.blocks {
        if let Term::Branch {
            cond: Operand::Bool(c),
            then,
            els,
        } = b.term
        {
            let (keep, dead) = if c { (then, els) } else { (els, then) };
            b.term = Term::Goto(keep);
            if dead != keep {
                killed.push((dead, b.label));
            }
            n += 1;
        }
    }
    let pos = bir.positions();
    for (to, from) in killed {
        drop_phi_edge(bir, &pos, to, from);
    }
    n
}

fn is_empty(b: &crate::ir::blocks::BBlock) -> bool {
    b.stmts.iter().all(|s| matches!(s.inst, Inst::Nothing))
}

/// Removes the blocks unreachable from the entry, and their φ edges.
fn remove_unreachable(bir: &mut BlockIr) {
    let pos = bir.positions();
    let mut live = vec![false; bir.blocks.len()];
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        if i >= live.len() || live[i] {
            continue;
        }
        live[i] = true;
        for s in bir.blocks[i].term.succs() {
            if let Some(j) = pos.get(s as usize).copied().flatten() {
                work.push(j);
            }
        }
    }
    let mut dead = Vec::new();
    for (i, b) in bir.blocks.iter().enumerate() {
        if !live[i] {
            for s in b.term.succs() {
                dead.push((s, b.label));
            }
        }
    }
    for (to, from) in dead {
        drop_phi_edge(bir, &pos, to, from);
    }
    let mut i = 0;
    bir.blocks.retain(|_| {
        i += 1;
        live[i - 1]
    });
}

/// One round of threading and merging; returns (threaded, merged).
fn round(bir: &mut BlockIr) -> (u64, u64) {
    remove_unreachable(bir);
    let preds = bir.preds();
    let edges: std::collections::HashSet<(Label, Label)> = preds
        .iter()
        .enumerate()
        .flat_map(|(t, ps)| ps.iter().map(move |&p| (p, t as Label)))
        .collect();
    let pos = bir.positions();
    let at = |l: Label| pos.get(l as usize).copied().flatten();
    let mut dirty = vec![false; pos.len()];
    let mut removed = vec![false; bir.blocks.len()];
    let (mut threaded, mut merged) = (0, 0);
    #[allow(
        clippy::needless_range_loop,
        reason = "the body mutates `bir.blocks` and indexes parallel vectors by `ei`"
    )]
    for ei in 1..bir.blocks.len() {
        let e = bir.blocks[ei].label;
        if dirty[e as usize] {
            continue;
        }
        let e_preds = &preds[e as usize];
        // Merge e into its single predecessor.
        if e_preds.len() == 1 && e_preds[0] != e {
            let a = e_preds[0];
            let Some(ai) = at(a) else { continue };
            let handler = bir.blocks[ei]
                .stmts
                .iter()
                .any(|s| matches!(s.inst, Inst::PhiC { .. }));
            if bir.blocks[ai].term == Term::Goto(e) && !dirty[a as usize] && !handler {
                let mut stmts = std::mem::take(&mut bir.blocks[ei].stmts);
                for s in &mut stmts {
                    if let Inst::Phi { values, .. } = &s.inst {
                        s.inst = match values.first() {
                            Some(v) => Inst::Copy(*v),
                            None => Inst::Nothing,
                        };
                    }
                }
                let term = bir.blocks[ei].term.clone();
                let span = bir.blocks[ei].term_span;
                let succs = term.succs();
                let blk = &mut bir.blocks[ai];
                blk.stmts.extend(stmts);
                blk.term = term;
                blk.term_span = span;
                for s in succs {
                    if let Some(si) = at(s) {
                        bir.blocks[si].rename_phi_edge(e, a);
                        dirty[s as usize] = true;
                    }
                }
                bir.blocks[ei].term = Term::Unreachable;
                removed[ei] = true;
                dirty[a as usize] = true;
                dirty[e as usize] = true;
                merged += 1;
                continue;
            }
        }
        // Thread an empty block.
        let Term::Goto(t) = bir.blocks[ei].term else {
            continue;
        };
        let Some(ti) = at(t) else { continue };
        if t == e || dirty[t as usize] || !is_empty(&bir.blocks[ei]) || e_preds.is_empty() {
            continue;
        }
        let mut any = false;
        let Some(on_e) = phi_values_on(bir, ti, e) else {
            continue;
        };
        let mut all = true;
        for &p in e_preds {
            let Some(pi) = at(p) else {
                all = false;
                continue;
            };
            // Retargeting the true edge of a branch would only bring back a
            // trampoline block at lowering (it must fall through).
            let true_edge = matches!(bir.blocks[pi].term, Term::Branch { then, .. } if then == e);
            if dirty[p as usize] || p == t || true_edge {
                all = false;
                continue;
            }
            if edges.contains(&(p, t)) {
                match phi_values_on(bir, ti, p) {
                    Some(on_p) if on_p.iter().zip(&on_e).all(|(x, y)| x == y) => {}
                    _ => {
                        all = false;
                        continue;
                    }
                }
            } else {
                for s in bir.blocks[ti].phis_mut() {
                    if let Inst::Phi { edges, values } = &mut s.inst
                        && let Some(i) = edges.iter().position(|x| x.0 == e)
                    {
                        let v = values[i];
                        edges.push(BlockId(p));
                        values.push(v);
                    }
                }
            }
            bir.blocks[pi].term.retarget(e, t);
            dirty[p as usize] = true;
            threaded += 1;
            any = true;
        }
        if all {
            drop_phi_edge(bir, &pos, t, e);
            removed[ei] = true;
        }
        if any || all {
            dirty[e as usize] = true;
            dirty[t as usize] = true;
        }
    }
    let mut i = 0;
    bir.blocks.retain(|_| {
        i += 1;
        !removed[i - 1]
    });
    (threaded, merged)
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let counters = &mut ctx.counters;
    let mut bir = BlockIr::from_ir(ir);
    let mut branches = fold_constant_branches(&mut bir);
    let (mut threaded, mut merged) = (0, 0);
    for _ in 0..=bir.blocks.len() + 1 {
        let (t, m) = round(&mut bir);
        branches += fold_constant_branches(&mut bir);
        threaded += t;
        merged += m;
        if t == 0 && m == 0 {
            break;
        }
    }
    *ir = bir.lower();
    let stats = compact_only(ir);
    counters.add("simplifycfg.branches", branches);
    counters.add("simplifycfg.threaded", threaded);
    counters.add("simplifycfg.merged", merged);
    counters.add("simplifycfg.blocks", stats.blocks_removed as u64);
}
