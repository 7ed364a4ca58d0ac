//! Natural loops of an [`IrCode`] for the MemorySSA passes: back edges
//! `t → h` with `h` dominating `t`, bodies by backward reachability from
//! the latches (loops sharing a header are merged), the dedicated preheader
//! (the header's only outside predecessor, whose only successor is the
//! header; the `loops` pass makes one) and the exit blocks. Listed
//! innermost (smallest) first.

use crate::ir::dom::DomTree;
use crate::ir::{BlockId, IrCode};

pub struct LoopInfo {
    pub header: u32,
    /// Membership flag per block.
    pub body: Vec<bool>,
    pub blocks: Vec<u32>,
    pub preheader: Option<u32>,
    /// Blocks outside the loop with a predecessor inside.
    pub exits: Vec<u32>,
}

impl LoopInfo {
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.get(b.0 as usize).copied().unwrap_or(false)
    }
}

pub fn find_loops(ir: &IrCode, dom: &DomTree) -> Vec<LoopInfo> {
    let n = ir.cfg.blocks.len();
    let mut loops: Vec<LoopInfo> = Vec::new();
    for t in 0..n {
        if !dom.reachable(t as u32) {
            continue;
        }
        for s in &ir.cfg.blocks[t].succs {
            let h = s.0;
            if !dom.dominates(h, t as u32) || !dom.reachable(h) {
                continue;
            }
            let idx = match loops.iter().position(|l| l.header == h) {
                Some(i) => i,
                None => {
                    let mut body = vec![false; n];
                    body[h as usize] = true;
                    loops.push(LoopInfo { header: h, body, blocks: Vec::new(), preheader: None, exits: Vec::new() });
                    loops.len() - 1
                }
            };
            let body = &mut loops[idx].body;
            let mut work = vec![t as u32];
            while let Some(b) = work.pop() {
                if body[b as usize] {
                    continue;
                }
                body[b as usize] = true;
                for p in &ir.cfg.blocks[b as usize].preds {
                    if dom.reachable(p.0) {
                        work.push(p.0);
                    }
                }
            }
        }
    }
    for l in &mut loops {
        l.blocks = (0..n as u32).filter(|&b| l.body[b as usize]).collect();
        let outside: Vec<u32> =
            ir.cfg.blocks[l.header as usize].preds.iter().map(|p| p.0).filter(|&p| !l.body[p as usize]).collect();
        if let [p] = outside.as_slice() {
            let succs = &ir.cfg.blocks[*p as usize].succs;
            if succs.len() == 1 && succs[0].0 == l.header && dom.reachable(*p) {
                l.preheader = Some(*p);
            }
        }
        let mut exits = Vec::new();
        for &b in &l.blocks {
            for s in &ir.cfg.blocks[b as usize].succs {
                if !l.body[s.0 as usize] && !exits.contains(&s.0) {
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
