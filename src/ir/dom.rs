//! Dominators (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm"): immediate dominators over the reverse postorder, iterated
//! to a fixpoint; then the dominator tree's children lists and its
//! preorder/postorder numbers, so `dominates` answers in O(1) and no query
//! walks the (possibly very deep) tree.
//!
//! The one implementation for every client: [`DomTree::new`] for an
//! IrCode's CFG (which passes get through [`crate::ir::Cfg::dom_tree`],
//! computed once while the edges stay the same), [`DomTree::from_graph`]
//! for any graph given by successor and predecessor lists (the block view
//! of `opt/loops.rs`, a reversed CFG).
//! Node 0 (block 0) is the entry.
//!
//! Blocks unreachable from the entry have no dominator; `dominates` answers
//! `true` for any query involving one (their code never runs); callers that
//! must not treat them so check [`DomTree::reachable`] first.
use crate::ir::graph::{Grouped, group_by_key};
use crate::ir::{BlockId, Cfg};
use cranelift_entity::{EntityRef, SecondaryMap};

/// A dominator tree over the nodes `N` of a graph (by default an IrCode's
/// blocks). Every table is indexed by the node; nodes beyond the graph read
/// as unreachable.
pub struct DomTree<N: EntityRef = BlockId> {
    /// The number of nodes of the graph.
    len: usize,
    /// Immediate dominator; the entry is its own; `None` if unreachable.
    idom: SecondaryMap<N, Option<N>>,
    /// Dominator-tree children of each node, in increasing order (the entry
    /// is not its own child; unreachable nodes have none and are nobody's),
    /// flat, keyed by node index.
    children: Grouped<N>,
    /// Preorder and postorder numbers in the dominator tree (`u32::MAX`:
    /// unreachable): `a` dominates `b` iff `pre[a] <= pre[b]` and
    /// `post[b] <= post[a]`.
    pre: SecondaryMap<N, u32>,
    post: SecondaryMap<N, u32>,
}

impl DomTree {
    /// The dominator tree of an IrCode's CFG (its `succs` and `preds`).
    pub fn new(cfg: &Cfg) -> DomTree {
        let blocks = &cfg.blocks;
        DomTree::from_graph(
            blocks.len(),
            |b: BlockId| blocks[b].succs.iter().copied(),
            |b| blocks[b].preds.iter().copied(),
        )
    }
}

/// Unique predecessors of `b`, in order. Linear in their number (a
/// function's shared `unwind` block may have one per call).
pub fn unique_preds(cfg: &Cfg, b: BlockId) -> Vec<BlockId> {
    let preds = &cfg.blocks[b].preds;
    let mut out: Vec<BlockId> = Vec::with_capacity(preds.len());
    if preds.len() <= 16 {
        for p in preds {
            if !out.contains(p) {
                out.push(*p);
            }
        }
    } else {
        let mut seen = crate::ir::FxSet::default();
        out.extend(preds.iter().copied().filter(|p| seen.insert(*p)));
    }
    out
}

/// Dominance frontiers (Cooper, Harvey & Kennedy) of the reachable blocks,
/// keyed by block index, each in increasing block order. A function of the
/// edges alone: passes get it through [`Cfg::dominance_frontiers`], computed
/// once while the edges stay the same.
pub fn frontiers(cfg: &Cfg, dom: &DomTree) -> Grouped<BlockId> {
    let n = cfg.blocks.len();
    // `(r, b)`: `b` is in `r`'s frontier; `last[r]` is the last such `b`.
    let mut pairs: Vec<(u32, BlockId)> = Vec::new();
    let mut last = vec![u32::MAX; n];
    for b in (0..n).map(BlockId::new) {
        // A block with fewer than two predecessors is in no frontier.
        if !dom.reachable(b) || cfg.blocks[b].preds.len() < 2 {
            continue;
        }
        let preds = unique_preds(cfg, b);
        if preds.len() < 2 {
            continue;
        }
        let Some(idom) = dom.idom(b) else { continue };
        for p in preds {
            let mut r = p;
            let mut guard = 0;
            while r != idom && dom.reachable(r) && guard <= n {
                guard += 1;
                // `b`'s predecessors are handled one after another, so `r`
                // has `b` only as its last entry, put there by an earlier
                // predecessor's walk, which went on from `r` to `idom`:
                // the rest of this walk is done (linear, not quadratic, in
                // a join of many predecessors along a chain).
                if last[r.index()] == b.0 {
                    break;
                }
                last[r.index()] = b.0;
                pairs.push((r.0, b));
                match dom.idom(r) {
                    Some(d) if d != r => r = d,
                    _ => break,
                }
            }
        }
    }
    group_by_key(n, BlockId(0), |f| {
        for &(r, b) in &pairs {
            f(r as usize, b);
        }
    })
}

impl<N: EntityRef> DomTree<N> {
    /// The dominator tree of the graph of `n` nodes rooted at node 0 whose
    /// edges `succs` lists and `preds` lists backwards (the two must agree;
    /// out-of-range nodes are ignored).
    pub fn from_graph<S, P>(n: usize, succs: impl Fn(N) -> S, preds: impl Fn(N) -> P) -> DomTree<N>
    where
        S: IntoIterator<Item = N>,
        P: IntoIterator<Item = N>,
    {
        let rpo = crate::ir::graph::reverse_postorder(n, &succs);
        let idom = immediate_dominators(n, &rpo, preds);
        let children = children_of(n, &idom);
        let mut tree = DomTree {
            len: n,
            idom,
            children,
            pre: SecondaryMap::with_default(u32::MAX),
            post: SecondaryMap::with_default(u32::MAX),
        };
        tree.number();
        tree
    }

    /// Numbers the tree's nodes in preorder and postorder (one walk).
    fn number(&mut self) {
        if self.len == 0 {
            return;
        }
        self.pre.resize(self.len);
        self.post.resize(self.len);
        let root = N::new(0);
        let mut clock = 0u32;
        let mut stack: Vec<(N, usize)> = vec![(root, 0)];
        self.pre[root] = clock;
        clock += 1;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&c) = self.children(b).get(*i) {
                *i += 1;
                self.pre[c] = clock;
                clock += 1;
                stack.push((c, 0));
            } else {
                self.post[b] = clock;
                clock += 1;
                stack.pop();
            }
        }
    }

    /// The immediate dominator of `b` (the entry's is itself); `None` if
    /// `b` is unreachable.
    pub fn idom(&self, b: N) -> Option<N> {
        self.idom[b]
    }

    /// The number of nodes of the graph (reachable or not).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn reachable(&self, b: N) -> bool {
        self.idom[b].is_some()
    }

    /// The dominator-tree children of `b`, in increasing order.
    pub fn children(&self, b: N) -> &[N] {
        self.children.of(b.index())
    }

    /// Whether node `a` dominates node `b` (reflexive).
    pub fn dominates(&self, a: N, b: N) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return true;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// The nearest node dominating both `a` and `b` (the entry at worst);
    /// `None` if either is unreachable. O(depth of `a`) with O(1) tests.
    pub fn nearest_common(&self, a: N, b: N) -> Option<N> {
        if !self.reachable(a) || !self.reachable(b) {
            return None;
        }
        let mut x = a;
        while !self.dominates(x, b) {
            x = self.idom[x].filter(|&d| d != x)?;
        }
        Some(x)
    }

    /// Whether `a` dominates `b` and both are reachable.
    pub fn dominates_reachable(&self, a: N, b: N) -> bool {
        self.reachable(a) && self.reachable(b) && self.dominates(a, b)
    }
}

/// The dominator-tree children of the `n` nodes whose immediate
/// dominators are `idom`, flat ([`DomTree::children`]), each node's in
/// increasing order (a counting sort by parent).
fn children_of<N: EntityRef>(n: usize, idom: &SecondaryMap<N, Option<N>>) -> Grouped<N> {
    let parent = |b: usize| idom[N::new(b)].filter(|d| d.index() != b);
    crate::ir::graph::group_by_key(n, N::new(0), |f| {
        for b in 1..n {
            if let Some(d) = parent(b) {
                f(d.index(), N::new(b));
            }
        }
    })
}

/// Cooper, Harvey and Kennedy's iteration over the reverse postorder `rpo`
/// of an `n`-node graph: at most (loop connectedness + 3) rounds, and loop
/// connectedness is below `n`.
fn immediate_dominators<N: EntityRef, P: IntoIterator<Item = N>>(
    n: usize,
    rpo: &[N],
    preds: impl Fn(N) -> P,
) -> SecondaryMap<N, Option<N>> {
    let mut rpo_num: SecondaryMap<N, u32> = SecondaryMap::with_default(u32::MAX);
    rpo_num.resize(n);
    for (i, &b) in rpo.iter().enumerate() {
        rpo_num[b] = i as u32;
    }
    let mut idom: SecondaryMap<N, Option<N>> = crate::ir::sized_map(n);
    if n > 0 {
        idom[N::new(0)] = Some(N::new(0));
    }
    let mut rounds = crate::ir::budget::Budget::new("the dominator iteration", n as u64 + 3);
    // Without an edge to a block no later in the reverse postorder (a back
    // edge), every block's predecessors are final when it is reached: one
    // round gives the fixpoint.
    let mut back_edge = false;
    let mut changed = true;
    let mut done: Vec<N> = Vec::new();
    while changed {
        rounds.step();
        changed = false;
        for &b in rpo.iter().skip(1) {
            done.clear();
            for p in preds(b) {
                if p.index() < n && idom[p].is_some() {
                    done.push(p);
                }
                back_edge |= p.index() < n && rpo_num[p] >= rpo_num[b];
            }
            // The processed predecessors, latest in the reverse postorder
            // first: the running intersection then only climbs, so a block
            // joining k predecessors along a chain (the shared handler of a
            // function of k checked calls) costs O(k + depth), not
            // O(k * depth). The intersection does not depend on the order.
            if done.len() > 2 {
                done.sort_unstable_by_key(|p| std::cmp::Reverse(rpo_num[*p]));
            }
            let mut new: Option<N> = None;
            for &p in &done {
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, &rpo_num, 4 * n + 4, p, x),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
        changed &= back_edge;
    }
    idom
}

fn intersect<N: EntityRef>(
    idom: &SecondaryMap<N, Option<N>>,
    rpo_num: &SecondaryMap<N, u32>,
    limit: usize,
    a: N,
    b: N,
) -> N {
    let root = N::new(0);
    let (mut x, mut y) = (a, b);
    let mut guard = 0usize;
    while x != y && guard < limit {
        guard += 1;
        while rpo_num[x] > rpo_num[y] {
            x = idom[x].unwrap_or(root);
        }
        while rpo_num[y] > rpo_num[x] {
            y = idom[y].unwrap_or(root);
        }
    }
    x
}

/// A node of the reversed CFG of a [`PostDomTree`]: node 0 is the virtual
/// exit, node `b + 1` is block `b`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct RevNode(u32);
cranelift_entity::entity_impl!(RevNode);

const VIRTUAL_EXIT: RevNode = RevNode(0);

impl RevNode {
    /// The node of block `b` (out-of-range blocks stay out of range).
    fn of(b: BlockId) -> RevNode {
        RevNode(b.0.saturating_add(1))
    }
    fn block(self) -> Option<BlockId> {
        self.0.checked_sub(1).map(BlockId)
    }
}

/// Post-dominators: the [`DomTree`] of the reversed CFG rooted at a
/// virtual exit whose successors (in the reversed graph) are the blocks
/// `is_exit` selects.
///
/// Block `a` post-dominates block `b` when every path from the start of `b`
/// to an exit block's end passes through `a`. Blocks from which no exit
/// block is reachable (infinite loops, `unreachable` ends) are not in the
/// tree: [`PostDomTree::reaches_exit`] is false for them and every query
/// involving one answers `false` / `None`.
pub struct PostDomTree {
    tree: DomTree<RevNode>,
}

impl PostDomTree {
    /// `is_exit(b)`: control leaves the function at the end of block `b`.
    pub fn new(cfg: &Cfg, is_exit: impl Fn(BlockId) -> bool) -> PostDomTree {
        let n = cfg.blocks.len();
        let mut is_exit_v: SecondaryMap<BlockId, bool> = SecondaryMap::with_capacity(n);
        let mut exits: Vec<RevNode> = Vec::new();
        for b in (0..n).map(BlockId::new) {
            if is_exit(b) {
                is_exit_v[b] = true;
                exits.push(RevNode::of(b));
            }
        }
        let empty: &[BlockId] = &[];
        let block = |v: RevNode| v.block().and_then(|b| cfg.blocks.get(b));
        let tree = DomTree::from_graph(
            n + 1,
            // Reversed successors: the exits for the virtual exit, else the
            // CFG predecessors.
            |v| {
                let roots = if v == VIRTUAL_EXIT { &exits[..] } else { &[] };
                let preds = block(v).map_or(empty, |bb| &bb.preds[..]);
                roots
                    .iter()
                    .copied()
                    .chain(preds.iter().map(|&p| RevNode::of(p)))
            },
            // Reversed predecessors: the CFG successors, and the virtual
            // exit for an exit block.
            |v| {
                let virt = v.block().filter(|&b| is_exit_v[b]).map(|_| VIRTUAL_EXIT);
                let succs = block(v).map_or(empty, |bb| &bb.succs[..]);
                virt.into_iter()
                    .chain(succs.iter().map(|&s| RevNode::of(s)))
            },
        );
        PostDomTree { tree }
    }

    /// The immediate post-dominator of `b`: `Some(None)` when only the
    /// virtual exit post-dominates it, `None` when `b` reaches no exit.
    #[cfg(test)]
    fn ipdom(&self, b: BlockId) -> Option<Option<BlockId>> {
        self.tree.idom(RevNode::of(b)).map(RevNode::block)
    }

    /// Whether an exit block is reachable from block `b`.
    pub fn reaches_exit(&self, b: BlockId) -> bool {
        self.tree.reachable(RevNode::of(b))
    }

    /// Whether block `a` post-dominates block `b` (reflexive); `false` if
    /// either reaches no exit.
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.reaches_exit(a)
            && self.reaches_exit(b)
            && self.tree.dominates(RevNode::of(a), RevNode::of(b))
    }

    /// The nearest block post-dominating both `a` and `b`; `None` when only
    /// the virtual exit does, or either reaches no exit.
    pub fn nearest_common(&self, a: BlockId, b: BlockId) -> Option<BlockId> {
        if !self.reaches_exit(a) || !self.reaches_exit(b) {
            return None;
        }
        self.tree
            .nearest_common(RevNode::of(a), RevNode::of(b))
            .and_then(RevNode::block)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::ir::{BasicBlock, BlockId};
    use cranelift_entity::PrimaryMap;

    fn b(x: u32) -> BlockId {
        BlockId(x)
    }

    /// A CFG of `n` blocks with the edges `edges`, listed in that order.
    pub(crate) fn cfg(edges: &[(u32, u32)], n: usize) -> Cfg {
        let mut blocks: PrimaryMap<BlockId, BasicBlock> =
            (0..n).map(|_| BasicBlock::default()).collect();
        for &(a, b) in edges {
            blocks[BlockId(a)].succs.push(BlockId(b));
            blocks[BlockId(b)].preds.push(BlockId(a));
        }
        Cfg {
            blocks,
            ..Cfg::default()
        }
    }

    #[test]
    fn diamond_and_loop() {
        // 0 → 1, 0 → 2, 1 → 3, 2 → 3, 3 → 1 (a loop through 1), 4 unreachable.
        let d = DomTree::new(&cfg(&[(0, 1), (0, 2), (1, 3), (2, 3), (3, 1)], 5));
        assert_eq!(d.idom(b(3)), Some(b(0)));
        assert_eq!(d.idom(b(1)), Some(b(0)));
        assert!(d.dominates(b(0), b(3)));
        assert!(!d.dominates(b(1), b(3)));
        assert!(!d.dominates(b(2), b(3)));
        assert!(d.dominates(b(3), b(3)));
        assert!(!d.reachable(b(4)));
        let chain = DomTree::new(&cfg(&[(0, 1), (1, 2), (2, 3)], 4));
        assert!(chain.dominates(b(1), b(3)));
        assert!(!chain.dominates(b(3), b(1)));
        assert_eq!(d.children(b(0)), &[b(1), b(2), b(3)]);
        assert!(d.children(b(4)).is_empty() && d.children(b(99)).is_empty());
        assert!(
            d.dominates(b(4), b(1))
                && !d.dominates_reachable(b(4), b(1))
                && !d.dominates_reachable(b(0), b(4))
        );
        assert_eq!(d.nearest_common(b(1), b(2)), Some(b(0)));
        assert_eq!(d.nearest_common(b(3), b(3)), Some(b(3)));
        assert_eq!(chain.nearest_common(b(3), b(2)), Some(b(2)));
        assert_eq!(d.nearest_common(b(1), b(4)), None);
    }

    #[test]
    fn a_join_of_a_whole_chain_is_dominated_by_the_chain_start() {
        // 0 -> 1 -> .. -> k, each of 1..=k also -> k + 1 (a handler every
        // checked call of a long function reaches), whatever the order the
        // predecessors are listed in.
        let k = 300u32;
        let sink = k + 1;
        for reversed in [false, true] {
            let mut preds: Vec<Vec<u32>> = (0..=sink)
                .map(|x| {
                    if (1..=k).contains(&x) {
                        vec![x - 1]
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            preds[sink as usize] = (1..=k).collect();
            if reversed {
                preds[sink as usize].reverse();
            }
            let n = sink as usize + 1;
            let g: DomTree = DomTree::from_graph(
                n,
                |x: BlockId| {
                    let x = x.index() as u32;
                    let mut s = Vec::new();
                    if x < k {
                        s.push(b(x + 1));
                    }
                    if (1..=k).contains(&x) {
                        s.push(b(sink));
                    }
                    s
                },
                |x| preds[x.index()].iter().map(|&y| b(y)).collect::<Vec<_>>(),
            );
            assert_eq!(g.idom(b(sink)), Some(b(1)), "reversed: {reversed}");
            assert_eq!(g.idom(b(k)), Some(b(k - 1)));
            assert!(g.dominates(b(1), b(sink)) && !g.dominates(b(2), b(sink)));
        }
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
        let g: DomTree = DomTree::from_graph(
            5,
            |x: BlockId| succs[x.index()].iter().map(|&y| b(y)).collect::<Vec<_>>(),
            |x| preds[x.index()].iter().map(|&y| b(y)).collect::<Vec<_>>(),
        );
        let idoms = |d: &DomTree| (0..5).map(|x| d.idom(b(x))).collect::<Vec<_>>();
        assert_eq!(idoms(&a), idoms(&g));
        assert_eq!(
            idoms(&a),
            vec![Some(b(0)), Some(b(0)), Some(b(1)), Some(b(0)), None]
        );
        assert_eq!(g.children(b(1)), &[b(2)]);
        assert!(g.dominates(b(1), b(2)) && !g.dominates(b(1), b(3)));
        let empty: DomTree = DomTree::from_graph(0, |_| Vec::new(), |_| Vec::new());
        assert!(!empty.reachable(b(0)));
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
        let p = PostDomTree::new(&c, |x| x == b(4) || x == b(5));
        assert!(p.post_dominates(b(3), b(1)));
        assert!(p.post_dominates(b(4), b(3)));
        assert!(p.post_dominates(b(4), b(1)));
        assert!(!p.post_dominates(b(3), b(2)), "2 may leave through 5");
        assert!(!p.post_dominates(b(3), b(0)));
        assert!(!p.post_dominates(b(4), b(0)));
        assert!(p.post_dominates(b(0), b(0)));
        assert!(!p.reaches_exit(b(6)));
        assert!(!p.post_dominates(b(6), b(6)));
        assert_eq!(p.ipdom(b(1)), Some(Some(b(3))));
        assert_eq!(p.ipdom(b(3)), Some(Some(b(4))));
        assert_eq!(p.ipdom(b(2)), Some(None), "only the virtual exit");
        assert_eq!(p.ipdom(b(6)), None);
        assert_eq!(p.nearest_common(b(1), b(3)), Some(b(3)));
        assert_eq!(p.nearest_common(b(1), b(2)), None);
        assert_eq!(p.nearest_common(b(1), b(6)), None);
        // One exit: the chain 0 → 1 → 2 with a side branch 0 → 2.
        let c = cfg(&[(0, 1), (1, 2), (0, 2)], 3);
        let p = PostDomTree::new(&c, |x| x == b(2));
        assert!(p.post_dominates(b(2), b(0)));
        assert!(!p.post_dominates(b(1), b(0)));
        assert_eq!(p.nearest_common(b(0), b(1)), Some(b(2)));
    }
}
