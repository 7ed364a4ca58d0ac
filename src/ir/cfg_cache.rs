//! The analyses of a CFG's edges, computed once for as long as the edges
//! stay the same: [`Cfg::dom_tree`] (the dominator tree),
//! [`Cfg::loop_nest`] (the natural loops) and [`Cfg::dominance_frontiers`].
//! A function goes through many passes that leave its CFG alone (`cse`,
//! `knownbits`, `gvn_load`, a compaction that folds nothing); each asks for
//! its dominator tree, and gets the one already built.
//!
//! Invariant: a cached analysis is handed out only while every block's
//! `succs` and `preds` are exactly the recorded ones, compared in full on
//! every request. A pass that changes the CFG in any way, by any means,
//! gets fresh analyses: the cache needs no invalidation, and nothing a
//! pass does can make it hand out a stale one. All three analyses are
//! functions of the edges alone (block contents do not enter them).
//!
//! The cache is not part of the CFG's value: a clone starts empty, and
//! equality and `Debug` ignore it.

use crate::ir::dom::{DomTree, frontiers};
use crate::ir::graph::Grouped;
use crate::ir::loops::LoopNest;
use crate::ir::{BlockId, Cfg};
use std::sync::{Arc, Mutex};

/// What [`CfgCache`] holds: the edges it was computed from
/// ([`edge_key`]), the dominator tree, and the loop nest and dominance
/// frontiers once asked for.
struct Cached {
    key: Vec<u32>,
    dom: Arc<DomTree>,
    loops: Option<Arc<LoopNest>>,
    frontiers: Option<Arc<Grouped<BlockId>>>,
}

/// The analyses last computed for a [`Cfg`] (see the module doc).
#[derive(Default)]
pub struct CfgCache(Mutex<Option<Cached>>);

impl Clone for CfgCache {
    fn clone(&self) -> CfgCache {
        CfgCache::default()
    }
}

impl PartialEq for CfgCache {
    fn eq(&self, _: &CfgCache) -> bool {
        true
    }
}

impl std::fmt::Debug for CfgCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CfgCache")
    }
}

/// The edges of `cfg`, flat: for each block, its number of successors,
/// the successors, its number of predecessors, the predecessors.
fn edge_key(cfg: &Cfg) -> Vec<u32> {
    let mut key = Vec::with_capacity(cfg.blocks.len() * 6);
    for bb in cfg.blocks.values() {
        for list in [&bb.succs, &bb.preds] {
            key.push(list.len() as u32);
            key.extend(list.iter().map(|b| b.0));
        }
    }
    key
}

/// Whether `key` ([`edge_key`]) lists exactly the edges of `cfg`.
fn same_edges(key: &[u32], cfg: &Cfg) -> bool {
    let mut rest = key;
    for bb in cfg.blocks.values() {
        for list in [&bb.succs, &bb.preds] {
            let n = list.len();
            let Some((&k, tail)) = rest.split_first() else {
                return false;
            };
            if k as usize != n || tail.len() < n {
                return false;
            }
            if !tail[..n].iter().zip(list).all(|(a, b)| *a == b.0) {
                return false;
            }
            rest = &tail[n..];
        }
    }
    rest.is_empty()
}

impl Cfg {
    /// The cache entry for the CFG's current edges, made anew (with the
    /// dominator tree) when they changed.
    fn current<R>(&self, f: impl FnOnce(&Cfg, &mut Cached) -> R) -> R {
        let mut slot = self.cache.0.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_mut() {
            Some(c) if same_edges(&c.key, self) => f(self, c),
            _ => {
                let c = slot.insert(Cached {
                    key: edge_key(self),
                    dom: Arc::new(DomTree::new(self)),
                    loops: None,
                    frontiers: None,
                });
                f(self, c)
            }
        }
    }

    /// The dominator tree of this CFG ([`DomTree::new`]), built once for
    /// as long as the edges stay the same.
    pub fn dom_tree(&self) -> Arc<DomTree> {
        self.current(|_, c| c.dom.clone())
    }

    /// The natural loops of this CFG ([`LoopNest::new`]), found once for
    /// as long as the edges stay the same.
    pub fn loop_nest(&self) -> Arc<LoopNest> {
        self.current(|cfg, c| {
            c.loops
                .get_or_insert_with(|| Arc::new(LoopNest::new(cfg, &c.dom)))
                .clone()
        })
    }

    /// The dominance frontiers of this CFG ([`frontiers`]), computed once
    /// for as long as the edges stay the same.
    pub fn dominance_frontiers(&self) -> Arc<Grouped<BlockId>> {
        self.current(|cfg, c| {
            c.frontiers
                .get_or_insert_with(|| Arc::new(frontiers(cfg, &c.dom)))
                .clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::dom::tests::cfg;
    use crate::ir::{BasicBlock, BlockId};
    use std::sync::Arc;

    #[test]
    fn same_edges_same_analyses() {
        // 0 → 1 → 2 → 1 (a loop), 2 → 3.
        let c = cfg(&[(0, 1), (1, 2), (2, 1), (2, 3)], 4);
        let (d1, d2) = (c.dom_tree(), c.dom_tree());
        assert!(Arc::ptr_eq(&d1, &d2));
        let (l1, l2) = (c.loop_nest(), c.loop_nest());
        assert!(Arc::ptr_eq(&l1, &l2));
        let (f1, f2) = (c.dominance_frontiers(), c.dominance_frontiers());
        assert!(Arc::ptr_eq(&f1, &f2));
        // Block 2 (the latch) has the loop header 1 in its frontier.
        assert_eq!(f1.of(2), [BlockId(1)]);
        assert_eq!(l1.loops.len(), 1);
        // Asking for the loops keeps the dominator tree.
        assert!(Arc::ptr_eq(&d1, &c.dom_tree()));
    }

    #[test]
    fn any_edge_change_recomputes() {
        let mut c = cfg(&[(0, 1), (1, 2), (2, 1), (2, 3)], 4);
        let d = c.dom_tree();
        let l = c.loop_nest();
        assert!(d.dominates(BlockId(1), BlockId(3)));
        // A new edge 0 → 3: 1 no longer dominates 3.
        c.blocks[BlockId(0)].succs.push(BlockId(3));
        c.blocks[BlockId(3)].preds.push(BlockId(0));
        let d2 = c.dom_tree();
        assert!(!Arc::ptr_eq(&d, &d2));
        assert!(!d2.dominates(BlockId(1), BlockId(3)));
        // The back edge removed: no loop.
        c.blocks[BlockId(2)].succs.retain(|s| *s != BlockId(1));
        c.blocks[BlockId(1)].preds.retain(|p| *p != BlockId(2));
        let l2 = c.loop_nest();
        assert!(!Arc::ptr_eq(&l, &l2));
        assert!(l2.loops.is_empty());
        // Without the back edge the latch's frontier is the join 3, which
        // the new edge 0 → 3 made, not the header.
        assert_eq!(c.dominance_frontiers().of(2), [BlockId(3)]);
        // A new block without edges changes the key too.
        let before = c.dom_tree();
        c.blocks.push(BasicBlock::default());
        let after = c.dom_tree();
        assert!(!Arc::ptr_eq(&before, &after));
        assert!(!after.reachable(BlockId(4)));
    }

    #[test]
    fn a_reordered_pred_list_recomputes() {
        let mut c = cfg(&[(0, 1), (0, 2), (1, 3), (2, 3)], 4);
        let l = c.loop_nest();
        c.blocks[BlockId(3)].preds.reverse();
        assert!(!Arc::ptr_eq(&l, &c.loop_nest()));
    }

    #[test]
    fn a_clone_starts_empty_and_equality_ignores_the_cache() {
        let c = cfg(&[(0, 1)], 2);
        let d = c.dom_tree();
        let copy = c.clone();
        assert!(!Arc::ptr_eq(&d, &copy.dom_tree()));
        assert_eq!(c, copy);
        assert_eq!(c, cfg(&[(0, 1)], 2));
    }
}
