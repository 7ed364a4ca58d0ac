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
        // Reverse postorder by an iterative DFS.
        let mut rpo_num = vec![u32::MAX; n];
        let mut postorder = Vec::with_capacity(n);
        if n > 0 {
            let mut seen = vec![false; n];
            let mut stack: Vec<(u32, S::IntoIter)> = vec![(0, succs(0).into_iter())];
            seen[0] = true;
            while let Some((b, it)) = stack.last_mut() {
                if let Some(s) = it.next() {
                    if (s as usize) < n && !seen[s as usize] {
                        seen[s as usize] = true;
                        stack.push((s, succs(s).into_iter()));
                    }
                } else {
                    postorder.push(*b);
                    stack.pop();
                }
            }
        }
        let rpo: Vec<u32> = postorder.iter().rev().copied().collect();
        for (i, &b) in rpo.iter().enumerate() {
            rpo_num[b as usize] = i as u32;
        }
        let mut idom: Vec<Option<u32>> = vec![None; n];
        if n > 0 {
            idom[0] = Some(0);
        }
        let mut changed = true;
        while changed {
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
        DomTree { idom, children, pre, post }
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
        self.pre[a as usize] <= self.pre[b as usize] && self.post[b as usize] <= self.post[a as usize]
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
    }

    #[test]
    fn from_graph_matches_new_and_ignores_out_of_range_nodes() {
        let edges = [(0, 1), (1, 2), (2, 1), (1, 3), (0, 3)];
        let c = cfg(&edges, 5);
        let a = DomTree::new(&c);
        let succs: Vec<Vec<u32>> = (0..5u32).map(|b| edges.iter().filter(|e| e.0 == b).map(|e| e.1).chain([77]).collect()).collect();
        let preds: Vec<Vec<u32>> = (0..5u32).map(|b| edges.iter().filter(|e| e.1 == b).map(|e| e.0).collect()).collect();
        let b = DomTree::from_graph(5, |x| succs[x as usize].clone(), |x| preds[x as usize].clone());
        assert_eq!(a.idom, b.idom);
        assert_eq!(a.idom, vec![Some(0), Some(0), Some(1), Some(0), None]);
        assert_eq!(b.children(1), &[2]);
        assert!(b.dominates(1, 2) && !b.dominates(1, 3));
        let empty = DomTree::from_graph(0, |_| Vec::new(), |_| Vec::new());
        assert!(!empty.reachable(0));
    }
}
