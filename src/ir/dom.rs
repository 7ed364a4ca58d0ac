//! Dominators (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm"): immediate dominators over the reverse postorder, iterated
//! to a fixpoint; then `dominates` answers in O(1) with DFS numbering of
//! the dominator tree.
//!
//! Blocks unreachable from the entry (block 0) have no dominator; every
//! query involving one answers `true` (their code never runs).
use crate::ir::Cfg;

pub struct DomTree {
    /// Immediate dominator; the entry is its own; `None` if unreachable.
    pub idom: Vec<Option<u32>>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl DomTree {
    pub fn new(cfg: &Cfg) -> DomTree {
        let n = cfg.blocks.len();
        // Reverse postorder by an iterative DFS.
        let mut rpo_num = vec![u32::MAX; n];
        let mut postorder = Vec::with_capacity(n);
        if n > 0 {
            let mut seen = vec![false; n];
            let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
            seen[0] = true;
            while let Some(&mut (b, ref mut i)) = stack.last_mut() {
                let succs = &cfg.blocks[b as usize].succs;
                if *i < succs.len() {
                    let s = succs[*i].0;
                    *i += 1;
                    if (s as usize) < n && !seen[s as usize] {
                        seen[s as usize] = true;
                        stack.push((s, 0));
                    }
                } else {
                    postorder.push(b);
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
                for p in &cfg.blocks[b as usize].preds {
                    let p = p.0;
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
        // Pre/post numbers of the dominator tree for O(1) queries.
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
        DomTree { idom, pre, post }
    }

    pub fn reachable(&self, b: u32) -> bool {
        self.idom.get(b as usize).is_some_and(|d| d.is_some())
    }

    /// Whether block `a` dominates block `b` (reflexive).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return true;
        }
        self.pre[a as usize] <= self.pre[b as usize] && self.post[b as usize] <= self.post[a as usize]
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
    }
}
