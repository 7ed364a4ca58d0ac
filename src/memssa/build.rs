//! Construction: accesses in statement order, φs on the iterated dominance
//! frontier of the blocks holding defs (the entry counts, for
//! `liveOnEntry`), then renaming by an explicit-stack walk over the
//! dominator tree (no recursion, whatever its depth).

use super::alias::{Effect, Summaries, inst_effect};
use super::{Access, AccessId, AccessKind, LIVE_ON_ENTRY, MemorySsa, WalkStats};
use crate::ir::dom::unique_preds;
use crate::ir::graph::Grouped;
use crate::ir::{BlockId, IrCode};
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

/// The iterated dominance frontier of `blocks`.
pub(crate) fn idf(df: &Grouped<BlockId>, blocks: &[BlockId]) -> Vec<BlockId> {
    let n = df.start.len().saturating_sub(1);
    let mut in_set: SecondaryMap<BlockId, bool> = crate::ir::sized_map(n);
    let mut queued: SecondaryMap<BlockId, bool> = crate::ir::sized_map(n);
    let mut work: Vec<BlockId> = Vec::new();
    for &b in blocks {
        if !queued[b] {
            queued[b] = true;
            work.push(b);
        }
    }
    let mut out = Vec::new();
    while let Some(b) = work.pop() {
        for &f in df.of(b.index()) {
            if !in_set[f] {
                in_set[f] = true;
                out.push(f);
                if !queued[f] {
                    queued[f] = true;
                    work.push(f);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// MemorySSA for `ir`, over its CFG's dominator tree ([`crate::ir::Cfg::dom_tree`]).
pub fn build(ir: &IrCode, sums: &Summaries) -> MemorySsa {
    let dom = ir.cfg.dom_tree();
    let mut m = MemorySsa {
        accesses: PrimaryMap::new(),
        by_inst: crate::ir::sized_map(ir.stmts.len()),
        phis: SecondaryMap::new(),
        lists: SecondaryMap::new(),
        users: SecondaryMap::new(),
        n_stmts: ir.stmts.len() as u32,
        dom,
        walk_limit: 100,
        next_num: 1,
        block_of: crate::ir::sized_map(ir.stmts.len()),
        stats: WalkStats::default(),
    };
    m.push(Access {
        kind: AccessKind::LiveOnEntry,
        block: BlockId(0),
        num: 0,
        defining: None,
        optimized: None,
        effect: Effect::None,
        removed: false,
    });
    let mut def_blocks: Vec<BlockId> = vec![BlockId(0)];
    for (b, blk) in ir.cfg.blocks.iter() {
        for v in blk.values() {
            m.block_of[v] = Some(b);
            let Some(inst) = ir.stmts.inst.get(v) else {
                continue;
            };
            let Some(eff) = inst_effect(ir, v, inst, sums) else {
                continue;
            };
            let (kind, effect, num) = if eff.writes != Effect::None {
                if def_blocks.last() != Some(&b) {
                    def_blocks.push(b);
                }
                m.next_num += 1;
                (AccessKind::Def { inst: v }, eff.writes, m.next_num - 1)
            } else {
                (AccessKind::Use { inst: v }, eff.reads, 0)
            };
            let id = m.push(Access {
                kind,
                block: b,
                num,
                defining: None,
                optimized: None,
                effect,
                removed: false,
            });
            m.by_inst[v] = Some(id);
            m.lists[b].push(id);
        }
    }
    let df = ir.cfg.dominance_frontiers();
    let reachable_defs: Vec<BlockId> = def_blocks
        .into_iter()
        .filter(|&b| m.dom.reachable(b))
        .collect();
    for b in idf(&df, &reachable_defs) {
        m.new_phi(ir, b);
    }
    rename(ir, &mut m);
    m
}

impl MemorySsa {
    pub(crate) fn push(&mut self, a: Access) -> AccessId {
        self.accesses.push(a)
    }

    /// Creates an empty φ (operands liveOnEntry) at the head of `b`.
    pub(crate) fn new_phi(&mut self, ir: &IrCode, b: BlockId) -> AccessId {
        if let Some(p) = self.phi_for(b) {
            return p;
        }
        let incoming: Vec<(BlockId, AccessId)> = unique_preds(&ir.cfg, b)
            .into_iter()
            .map(|p| (p, LIVE_ON_ENTRY))
            .collect();
        let num = self.next_num;
        self.next_num += 1;
        let id = self.push(Access {
            kind: AccessKind::Phi {
                incoming: incoming.clone(),
            },
            block: b,
            num,
            defining: None,
            optimized: None,
            effect: Effect::None,
            removed: false,
        });
        for (_, a) in incoming {
            self.add_user(a, id);
        }
        self.phis[b] = Some(id);
        self.lists[b].insert(0, id);
        id
    }
}

/// Sets every defining access and φ operand from the block lists, by a
/// preorder walk of the dominator tree with an explicit stack. Caches of
/// optimized clobbers are kept only where still dominating.
pub(crate) fn rename(ir: &IrCode, m: &mut MemorySsa) {
    let n = ir.cfg.blocks.len();
    // Unreachable blocks: everything is liveOnEntry.
    for b in (0..n).map(BlockId::new) {
        if m.dom.reachable(b) {
            continue;
        }
        for a in m.lists[b].clone() {
            if !matches!(m.access(a).kind, AccessKind::Phi { .. }) {
                m.set_defining(a, LIVE_ON_ENTRY);
            }
        }
    }
    if n == 0 {
        return;
    }
    let mut stack: Vec<(BlockId, AccessId)> = vec![(BlockId(0), LIVE_ON_ENTRY)];
    while let Some((b, incoming)) = stack.pop() {
        let mut cur = incoming;
        // By index: renaming changes accesses and users, never the lists.
        for k in 0..m.lists[b].len() {
            let a = m.lists[b][k];
            match m.access(a).kind {
                AccessKind::Phi { .. } => cur = a,
                AccessKind::Def { .. } => {
                    m.set_defining(a, cur);
                    cur = a;
                }
                AccessKind::Use { .. } => {
                    let keep = m
                        .access(a)
                        .optimized
                        .is_some_and(|o| m.access(a).defining == Some(o));
                    if !keep {
                        m.set_defining(a, cur);
                    }
                }
                AccessKind::LiveOnEntry => {}
            }
        }
        for &s in &ir.cfg.blocks[b].succs {
            if let Some(p) = m.phi_for(s) {
                m.set_phi_incoming(p, b, cur);
            }
        }
        for &c in m.dom.children(b).iter().rev() {
            stack.push((c, cur));
        }
    }
}

impl MemorySsa {
    /// Sets φ `p`'s operand for the edge from `pred`.
    pub(crate) fn set_phi_incoming(&mut self, p: AccessId, pred: BlockId, val: AccessId) {
        let mut old = None;
        if let AccessKind::Phi { incoming } = &mut self.accesses[p].kind {
            for e in incoming.iter_mut() {
                if e.0 == pred {
                    old = Some(e.1);
                    e.1 = val;
                }
            }
        }
        if let Some(o) = old {
            if o != val {
                self.drop_user(o, p);
            }
            self.add_user(val, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::idf;
    use crate::ir::dom::frontiers;
    use crate::ir::handbuild::ir_from_blocks;
    use crate::ir::{BlockId, Inst, Operand, Type};

    #[test]
    fn frontiers_of_a_diamond_then_a_loop() {
        // #0 → #1, #2 → #3 (join); #3 → #4 → #3 (loop), #3 → #5.
        let branch = |dest| Inst::GotoIfNot {
            cond: Operand::Arg(0),
            dest: BlockId(dest),
        };
        let void = |i| (i, Type::Void);
        let ir = ir_from_blocks(
            "f",
            vec![Type::Bool],
            Type::Void,
            vec![
                vec![void(branch(2))],
                vec![void(Inst::Goto(BlockId(3)))],
                vec![void(Inst::Goto(BlockId(3)))],
                vec![void(branch(5))],
                vec![void(Inst::Goto(BlockId(3)))],
                vec![void(Inst::Return(None))],
            ],
        );
        let df = frontiers(&ir.cfg, &ir.cfg.dom_tree());
        let of: Vec<Vec<u32>> = (0..6)
            .map(|b| df.of(b).iter().map(|x| x.0).collect())
            .collect();
        assert_eq!(of, [vec![], vec![3], vec![3], vec![3], vec![3], vec![]]);
        assert_eq!(idf(&df, &[BlockId(1)]), [BlockId(3)]);
        assert_eq!(idf(&df, &[BlockId(0), BlockId(5)]), []);
    }
}
