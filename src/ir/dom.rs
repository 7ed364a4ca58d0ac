//! Dominators (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm"): immediate dominators over the reverse postorder, iterated
//! to a fixpoint; then the dominator tree's children lists and its
//! preorder/postorder numbers, so `dominates` answers in O(1) and no query
//! walks the (possibly very deep) tree.
//!
//! The one implementation for every client: [`DomTree::new`] for an
//! IrCode's CFG, [`DomTree::from_graph`] for any graph given by successor
//! and predecessor lists (the block view of `opt/loops.rs`, a reversed CFG).
//! Block 0 is the entry.
//!
//! Blocks unreachable from the entry have no dominator; `dominates` answers
//! `true` for any query involving one (their code never runs); callers that
//! must not treat them so check [`DomTree::reachable`] first.
use crate::ir::Cfg;

pub struct DomTree {
    /// Immediate dominator; the entry is its own; `None` if unreachable.
    pub idom: Vec<Option<u32>>,
    /// Dominator-tree children of each block, in increasing block order
    /// (the entry is not its own child; unreachable blocks have none and
    /// are nobody's).
    children: Vec<Vec<u32>>,
    /// Preorder and postorder numbers in the dominator tree (`u32::MAX`:
    /// unreachable): `a` dominates `b` iff `pre[a] <= pre[b]` and
    /// `post[b] <= post[a]`.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    /// The dominator tree of an IrCode's CFG (its `succs` and `preds`).
    pub fn new(cfg: &Cfg) -> DomTree {
        let blocks = &cfg.blocks;
        DomTree::from_graph(
            blocks.len(),
            |b| blocks[b as usize].succs.iter().map(|s| s.0),
            |b| blocks[b as usize].preds.iter().map(|p| p.0),
        )
    }

    /// The dominator tree of the graph of `n` nodes rooted at node 0 whose
    /// edges `succs` lists and `preds` lists backwards (the two must agree;
    /// out-of-range nodes are ignored).
    pub fn from_graph<S, P>(n: usize, succs: impl Fn(u32) -> S, preds: impl Fn(u32) -> P) -> DomTree
    where
        S: IntoIterator<Item = u32>,
        P: IntoIterator<Item = u32>,
    {
        let rpo = crate::ir::graph::reverse_postorder(n, &succs);
        let mut rpo_num = vec![u32::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_num[b as usize] = i as u32;
        }
        let mut idom: Vec<Option<u32>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
        }
        // Cooper, Harvey and Kennedy: at most (loop connectedness + 3)
        // rounds in reverse postorder, and loop connectedness is below n.
        let mut rounds = crate::ir::budget::Budget::new("the dominator iteration", n as u64 + 3);
        let mut changed = true;
        while changed {
            rounds.step();
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<u32> = None;
                for p in preds(b) {
                    if (p as usize) >= n || idom[p as usize].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(x) => intersect(&idom, &rpo_num, p, x),
                    });
                }
                if new.is_some() && idom[b as usize] != new {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (b, d) in idom.iter().enumerate().skip(1) {
            if let Some(d) = *d
                && d as usize != b
            {
                children[d as usize].push(b as u32);
            }
        }
        let mut pre = vec![u32::MAX; n];
        let mut post = vec![u32::MAX; n];
        if n > 0 {
            let mut clock = 0u32;
            let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
            pre[0] = clock;
            clock += 1;
            while let Some(&mut (b, ref mut i)) = stack.last_mut() {
                if *i < children[b as usize].len() {
                    let c = children[b as usize][*i];
                    *i += 1;
                    pre[c as usize] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    post[b as usize] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        DomTree {
            idom,
            children,
            pre,
            post,
        }
    }

    pub fn reachable(&self, b: u32) -> bool {
        self.idom.get(b as usize).is_some_and(|d| d.is_some())
    }

    /// The dominator-tree children of `b`, in increasing block order.
    pub fn children(&self, b: u32) -> &[u32] {
        self.children.get(b as usize).map_or(&[], |c| c.as_slice())
    }

    /// Whether block `a` dominates block `b` (reflexive).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return true;
        }
        self.pre[a as usize] <= self.pre[b as usize]
            && self.post[b as usize] <= self.post[a as usize]
    }

    /// The nearest block dominating both `a` and `b` (the entry at worst);
    /// `None` if either is unreachable. O(depth of `a`) with O(1) tests.
    pub fn nearest_common(&self, a: u32, b: u32) -> Option<u32> {
        if !self.reachable(a) || !self.reachable(b) {
            return None;
        }
        let mut x = a;
        while !self.dominates(x, b) {
            x = self.idom[x as usize].filter(|&d| d != x)?;
        }
        Some(x)
    }

    /// Whether `a` dominates `b` and both are reachable.
    pub fn dominates_reachable(&self, a: u32, b: u32) -> bool {
        self.reachable(a) && self.reachable(b) && self.dominates(a, b)
    }
}

fn intersect(idom: &[Option<u32>], rpo_num: &[u32], a: u32, b: u32) -> u32 {
    let (mut x, mut y) = (a, b);
    let mut guard = 0usize;
    while x != y && guard < 4 * idom.len() + 4 {
        guard += 1;
        while rpo_num[x as usize] > rpo_num[y as usize] {
            x = idom[x as usize].unwrap_or(0);
        }
        while rpo_num[y as usize] > rpo_num[x as usize] {
            y = idom[y as usize].unwrap_or(0);
        }
    }
    x
}

/// Post-dominators: the [`DomTree`] of the reversed CFG rooted at a
/// virtual exit whose successors (in the reversed graph) are the blocks
/// `is_exit` selects. In that graph node 0 is the virtual exit and node
/// `b + 1` is block `b`.
///
/// Block `a` post-dominates block `b` when every path from the start of `b`
/// to an exit block's end passes through `a`. Blocks from which no exit
/// block is reachable (infinite loops, `unreachable` ends) are not in the
/// tree: [`PostDomTree::reaches_exit`] is false for them and every query
/// involving one answers `false` / `None`.
pub struct PostDomTree {
    /// Immediate post-dominator; `Some(VIRTUAL)` (= the block count) for
    /// blocks whose only post-dominator is the virtual exit; `None` for
    /// blocks that reach no exit.
    pub ipdom: Vec<Option<u32>>,
    /// The dominator tree of the reversed graph (node `b + 1`: block `b`).
    tree: DomTree,
}

impl PostDomTree {
    /// `is_exit(b)`: control leaves the function at the end of block `b`.
    pub fn new(cfg: &Cfg, is_exit: impl Fn(u32) -> bool) -> PostDomTree {
        let n = cfg.blocks.len();
        let exits: Vec<u32> = (0..n as u32).filter(|&b| is_exit(b)).collect();
        let mut is_exit_v = vec![false; n];
        for &e in &exits {
            is_exit_v[e as usize] = true;
        }
        // Out-of-range block numbers stay out of range (and are ignored).
        let node = |b: u32| b.saturating_add(1);
        let empty: &[crate::ir::BlockId] = &[];
        let tree = DomTree::from_graph(
            n + 1,
            // Reversed successors: the exits for the virtual exit, else the
            // CFG predecessors.
            |v| {
                let (roots, preds) = match v.checked_sub(1) {
                    None => (&exits[..], empty),
                    Some(b) => (
                        &[][..],
                        cfg.blocks.get(b as usize).map_or(empty, |bb| &bb.preds[..]),
                    ),
                };
                roots
                    .iter()
                    .map(|&e| node(e))
                    .chain(preds.iter().map(|p| node(p.0)))
            },
            // Reversed predecessors: the CFG successors, and the virtual
            // exit for an exit block.
            |v| {
                let b = v.checked_sub(1).filter(|&b| (b as usize) < n);
                let virt = b.filter(|&b| is_exit_v[b as usize]).map(|_| 0);
                let succs = b.map_or(empty, |b| &cfg.blocks[b as usize].succs[..]);
                virt.into_iter().chain(succs.iter().map(|s| node(s.0)))
            },
        );
        let ipdom = (0..n)
            .map(|b| tree.idom[b + 1].map(|d| if d == 0 { n as u32 } else { d - 1 }))
            .collect();
        PostDomTree { ipdom, tree }
    }

    /// Whether an exit block is reachable from block `b`.
    pub fn reaches_exit(&self, b: u32) -> bool {
        self.ipdom.get(b as usize).is_some_and(|d| d.is_some())
    }

    /// Whether block `a` post-dominates block `b` (reflexive); `false` if
    /// either reaches no exit.
    pub fn post_dominates(&self, a: u32, b: u32) -> bool {
        self.reaches_exit(a) && self.reaches_exit(b) && self.tree.dominates(a + 1, b + 1)
    }

    /// The nearest block post-dominating both `a` and `b`; `None` when only
    /// the virtual exit does, or either reaches no exit.
    pub fn nearest_common(&self, a: u32, b: u32) -> Option<u32> {
        if !self.reaches_exit(a) || !self.reaches_exit(b) {
            return None;
        }
        self.tree
            .nearest_common(a + 1, b + 1)
            .and_then(|x| x.checked_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BasicBlock, BlockId};

    fn cfg(edges: &[(u32, u32)], n: usize) -> Cfg {
        let mut blocks: Vec<BasicBlock> = (0..n).map(|_| BasicBlock::default()).collect();
        for &(a, b) in edges {
            blocks[a as usize].succs.push(BlockId(b));
            blocks[b as usize].preds.push(BlockId(a));
        }
        Cfg { blocks }
    }

    #[test]
    fn diamond_and_loop() {
        // 0 → 1, 0 → 2, 1 → 3, 2 → 3, 3 → 1 (a loop through 1), 4 unreachable.
        let d = DomTree::new(&cfg(&[(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)], 5));
        assert_eq!(d.idom[3], Some(0));
        assert_eq!(d.idom[1], Some(0));
        assert!(d.dominates(0, 3));
        assert!(!d.dominates(1, 3));
        assert!(!d.dominates(2, 3));
        assert!(d.dominates(3, 3));
        assert!(!d.reachable(4));
        let chain = DomTree::new(&cfg(&[(0, 1), (1, 2), (2, 3)], 4));
        assert!(chain.dominates(1, 3));
        assert!(!chain.dominates(3, 1));
        assert_eq!(d.children(0), &[1, 2, 3]);
        assert!(d.children(4).is_empty() && d.children(99).is_empty());
        assert!(d.dominates(4, 1) && !d.dominates_reachable(4, 1) && !d.dominates_reachable(0, 4));
        assert_eq!(d.nearest_common(1, 2), Some(0));
        assert_eq!(d.nearest_common(3, 3), Some(3));
        assert_eq!(chain.nearest_common(3, 2), Some(2));
        assert_eq!(d.nearest_common(1, 4), None);
    }

    #[test]
    fn from_graph_matches_new_and_ignores_out_of_range_nodes() {
        let edges = [(0, 1), (1, 2), (2, 1), (1, 3), (0, 3)];
        let c = cfg(&edges, 5);
        let a = DomTree::new(&c);
        let succs: Vec<Vec<u32>> = (0..5u32)
            .map(|b| {
                edges
                    .iter()
                    .filter(|e| e.0 == b)
                    .map(|e| e.1)
                    .chain([77])
                    .collect()
            })
            .collect();
        let preds: Vec<Vec<u32>> = (0..5u32)
            .map(|b| edges.iter().filter(|e| e.1 == b).map(|e| e.0).collect())
            .collect();
        let b = DomTree::from_graph(
            5,
            |x| succs[x as usize].clone(),
            |x| preds[x as usize].clone(),
        );
        assert_eq!(a.idom, b.idom);
        assert_eq!(a.idom, vec![Some(0), Some(0), Some(1), Some(0), None]);
        assert_eq!(b.children(1), &[2]);
        assert!(b.dominates(1, 2) && !b.dominates(1, 3));
        let empty = DomTree::from_graph(0, |_| Vec::new(), |_| Vec::new());
        assert!(!empty.reachable(0));
    }

    #[test]
    fn diamond_loop_two_exits_and_an_infinite_loop() {
        // 0 → 1, 0 → 2, 1 → 3, 2 → 3, 3 → 4 (exit); 3 → 1 (a loop);
        // 2 → 5 (a second exit); 0 → 6, 6 → 6 (an infinite loop).
        let c = cfg(
            &[
                (0, 1),
                (0, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (3, 1),
                (2, 5),
                (0, 6),
                (6, 6),
            ],
            7,
        );
        let p = PostDomTree::new(&c, |b| b == 4 || b == 5);
        assert!(p.post_dominates(3, 1));
        assert!(p.post_dominates(4, 3));
        assert!(p.post_dominates(4, 1));
        assert!(!p.post_dominates(3, 2), "2 may leave through 5");
        assert!(!p.post_dominates(3, 0));
        assert!(!p.post_dominates(4, 0));
        assert!(p.post_dominates(0, 0));
        assert!(!p.reaches_exit(6));
        assert!(!p.post_dominates(6, 6));
        assert_eq!(p.ipdom[1], Some(3));
        assert_eq!(p.ipdom[3], Some(4));
        assert_eq!(p.ipdom[2], Some(7), "only the virtual exit");
        assert_eq!(p.nearest_common(1, 3), Some(3));
        assert_eq!(p.nearest_common(1, 2), None);
        assert_eq!(p.nearest_common(1, 6), None);
        // One exit: the chain 0 → 1 → 2 with a side branch 0 → 2.
        let c = cfg(&[(0, 1), (1, 2), (0, 2)], 3);
        let p = PostDomTree::new(&c, |b| b == 2);
        assert!(p.post_dominates(2, 0));
        assert!(!p.post_dominates(1, 0));
        assert_eq!(p.nearest_common(0, 1), Some(2));
    }
}
