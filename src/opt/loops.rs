//! Loop canonicalisation on the block view ([`BlockIr`]).
//!
//! Natural loops come from back edges `t → h` where `h` dominates `t`
//! (dominators by Cooper, Harvey & Kennedy's iterative algorithm over the
//! reverse postorder). Each loop is given:
//! - a dedicated preheader: a block that is the header's only predecessor
//!   from outside the loop and has the header as its only successor
//!   (several outside predecessors are merged by φs in the preheader);
//! - dedicated exits: every exit block's predecessors all lie in the loop
//!   (an exit also entered from outside gets a new block between).
//!
//! Handler blocks (with `φᶜ`) and a loop headed by the entry block are left
//! alone. One fix at a time, recomputing the analysis, until none is needed.
//! Counters: `loops.preheaders`, `loops.exits`.

use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Term};
use crate::ir::compact::compact_only;
use crate::ir::edit::default_flags;
use crate::ir::{BlockId, Inst, IrCode, Operand};
use crate::opt::Counters;

/// Dominator information of a [`BlockIr`], by position in `blocks`.
pub struct Doms {
    /// Immediate dominator position (the entry's is itself); `None` for
    /// unreachable blocks.
    pub idom: Vec<Option<usize>>,
    pub rpo_index: Vec<usize>,
}

impl Doms {
    pub fn compute(bir: &BlockIr, succs: &[Vec<usize>], preds: &[Vec<usize>]) -> Doms {
        let n = bir.blocks.len();
        let mut rpo = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        if n > 0 {
            // Iterative DFS postorder.
            let mut stack = vec![(0usize, 0usize)];
            seen[0] = true;
            while let Some(&mut (b, ref mut i)) = stack.last_mut() {
                if let Some(&s) = succs[b].get(*i) {
                    *i += 1;
                    if !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    rpo.push(b);
                    stack.pop();
                }
            }
            rpo.reverse();
        }
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i;
        }
        let mut idom: Vec<Option<usize>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<usize> = None;
                for &p in &preds[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(mut x) => {
                            let mut y = p;
                            while x != y {
                                while rpo_index[x] > rpo_index[y] {
                                    x = idom[x].unwrap_or(0);
                                }
                                while rpo_index[y] > rpo_index[x] {
                                    y = idom[y].unwrap_or(0);
                                }
                            }
                            x
                        }
                    });
                }
                if new.is_some() && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Doms { idom, rpo_index }
    }

    /// Whether `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(p) if p != b => b = p,
                _ => return false,
            }
        }
    }
}

struct Analysis {
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    /// (header, body) per natural loop, bodies as position flags.
    loops: Vec<(usize, Vec<bool>)>,
}

fn analyse(bir: &BlockIr) -> Analysis {
    let pos = bir.positions();
    let n = bir.blocks.len();
    let at = |l: Label| pos.get(l as usize).copied().flatten();
    let succs: Vec<Vec<usize>> = bir.blocks.iter().map(|b| b.term.succs().into_iter().filter_map(at).collect()).collect();
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    let doms = Doms::compute(bir, &succs, &preds);
    let mut loops: Vec<(usize, Vec<bool>)> = Vec::new();
    for t in 0..n {
        if doms.idom[t].is_none() {
            continue;
        }
        for &h in &succs[t] {
            if !doms.dominates(h, t) {
                continue;
            }
            let idx = match loops.iter().position(|(x, _)| *x == h) {
                Some(i) => i,
                None => {
                    let mut body = vec![false; n];
                    body[h] = true;
                    loops.push((h, body));
                    loops.len() - 1
                }
            };
            let body = &mut loops[idx].1;
            let mut work = vec![t];
            while let Some(b) = work.pop() {
                if body[b] {
                    continue;
                }
                body[b] = true;
                for &p in &preds[b] {
                    if doms.idom[p].is_some() {
                        work.push(p);
                    }
                }
            }
        }
    }
    Analysis { succs, preds, loops }
}

/// Inserts a new block before position `before` that receives the edges
/// from the positions `from` to the block at `target` (which keeps its φs,
/// now with one operand on the new block).
fn split_edges(bir: &mut BlockIr, from: &[usize], target: usize, before: usize) {
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
        let Inst::Phi { edges, values } = &phi.inst else { continue };
        let (mut ie, mut iv) = (Vec::new(), Vec::new());
        for (e, v) in edges.iter().zip(values) {
            if from_labels.contains(&e.0) {
                ie.push(*e);
                iv.push(*v);
            }
        }
        let incoming = if iv.len() == 1 {
            iv[0]
        } else {
            let id = bir.fresh_value();
            let inst = Inst::Phi { edges: ie, values: iv };
            let flags = default_flags(&inst);
            new_stmts.push(BStmt { id, inst, ty: phi.ty.clone(), span: phi.span, flags });
            Operand::Value(id)
        };
        replacements.push((phi.id, incoming));
    }
    for s in bir.blocks[target].stmts.iter_mut() {
        if let Some((_, inc)) = replacements.iter().find(|(id, _)| *id == s.id) {
            if let Inst::Phi { edges, values } = &mut s.inst {
                let mut i = 0;
                while i < edges.len() {
                    if from_labels.contains(&edges[i].0) {
                        edges.remove(i);
                        values.remove(i);
                    } else {
                        i += 1;
                    }
                }
                edges.push(BlockId(new_label));
                values.push(*inc);
            }
        }
    }
    for &f in from {
        bir.blocks[f].term.retarget(t_label, new_label);
    }
    bir.blocks.insert(before, BBlock { label: new_label, stmts: new_stmts, term: Term::Goto(t_label), term_span: span });
}

fn is_handler(b: &BBlock) -> bool {
    b.stmts.iter().any(|s| matches!(s.inst, Inst::PhiC { .. }))
}

/// Makes one needed fix; returns which kind, or `None` when canonical.
fn fix_one(bir: &mut BlockIr) -> Option<&'static str> {
    let a = analyse(bir);
    for (h, body) in &a.loops {
        let h = *h;
        if h == 0 || is_handler(&bir.blocks[h]) {
            continue;
        }
        let outside: Vec<usize> = a.preds[h].iter().copied().filter(|&p| !body[p]).collect();
        if outside.is_empty() {
            continue;
        }
        let dedicated = outside.len() == 1 && a.succs[outside[0]].len() == 1;
        if !dedicated {
            split_edges(bir, &outside, h, h);
            return Some("loops.preheaders");
        }
    }
    for (_, body) in &a.loops {
        for b in 0..body.len() {
            if !body[b] {
                continue;
            }
            for &x in &a.succs[b] {
                if body[x] || is_handler(&bir.blocks[x]) {
                    continue;
                }
                if a.preds[x].iter().any(|&p| !body[p]) {
                    let inside: Vec<usize> = a.preds[x].iter().copied().filter(|&p| body[p]).collect();
                    split_edges(bir, &inside, x, x);
                    return Some("loops.exits");
                }
            }
        }
    }
    None
}

pub fn run(ir: &mut IrCode, counters: &mut Counters) {
    let mut bir = BlockIr::from_ir(ir);
    let limit = 4 * bir.blocks.len() + 4;
    let mut changed = false;
    for _ in 0..limit {
        match fix_one(&mut bir) {
            Some(kind) => {
                counters.add(kind, 1);
                changed = true;
            }
            None => break,
        }
    }
    if changed {
        *ir = bir.lower();
        compact_only(ir);
    }
}
