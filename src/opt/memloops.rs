//! Natural loops of an [`IrCode`] for the MemorySSA passes: back edges
//! `t → h` with `h` dominating `t`, bodies by backward reachability from
//! the latches (loops sharing a header are merged), the dedicated preheader
//! (the header's only outside predecessor, whose only successor is the
//! header; the `loops` pass makes one) and the exit blocks. Listed
//! innermost (smallest) first.

use crate::ir::dom::DomTree;
use crate::ir::{BlockId, IrCode};
use std::collections::{HashMap, HashSet};

pub struct LoopInfo {
    pub header: u32,
    /// The blocks of the loop (a set: no per-function array per loop, so
    /// many loops stay linear).
    pub body: HashSet<u32>,
    pub blocks: Vec<u32>,
    pub preheader: Option<u32>,
    /// Blocks outside the loop with a predecessor inside.
    pub exits: Vec<u32>,
}

impl LoopInfo {
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.contains(&b.0)
    }
}

pub fn find_loops(ir: &IrCode, dom: &DomTree) -> Vec<LoopInfo> {
    let n = ir.cfg.blocks.len();
    let mut loops: Vec<LoopInfo> = Vec::new();
    // Header block → its index in `loops`.
    let mut index: HashMap<u32, usize> = HashMap::new();
    for t in 0..n {
        if !dom.reachable(t as u32) {
            continue;
        }
        for s in &ir.cfg.blocks[t].succs {
            let h = s.0;
            if !dom.dominates(h, t as u32) || !dom.reachable(h) {
                continue;
            }
            let idx = match index.get(&h) {
                Some(&i) => i,
                None => {
                    index.insert(h, loops.len());
                    let mut body = HashSet::new();
                    body.insert(h);
                    loops.push(LoopInfo { header: h, body, blocks: Vec::new(), preheader: None, exits: Vec::new() });
                    loops.len() - 1
                }
            };
            let body = &mut loops[idx].body;
            let mut work = vec![t as u32];
            while let Some(b) = work.pop() {
                if !body.insert(b) {
                    continue;
                }
                for p in &ir.cfg.blocks[b as usize].preds {
                    if dom.reachable(p.0) {
                        work.push(p.0);
                    }
                }
            }
        }
    }
    for l in &mut loops {
        let mut blocks: Vec<u32> = l.body.iter().copied().collect();
        blocks.sort_unstable();
        l.blocks = blocks;
        let outside: Vec<u32> =
            ir.cfg.blocks[l.header as usize].preds.iter().map(|p| p.0).filter(|p| !l.body.contains(p)).collect();
        if let [p] = outside.as_slice() {
            let succs = &ir.cfg.blocks[*p as usize].succs;
            if succs.len() == 1 && succs[0].0 == l.header && dom.reachable(*p) {
                l.preheader = Some(*p);
            }
        }
        let mut exits = Vec::new();
        for &b in &l.blocks {
            for s in &ir.cfg.blocks[b as usize].succs {
                if !l.body.contains(&s.0) && !exits.contains(&s.0) {
                    exits.push(s.0);
                }
            }
        }
        exits.sort_unstable();
        l.exits = exits;
    }
    loops.sort_by_key(|l| l.blocks.len());
    loops
}
