//! Natural loops and their nest: the one loop analysis, used by every pass
//! that looks at loops (`loops`, `rotate`, `licm`, `licm_checks`,
//! `promote`).
//!
//! A back edge is an edge `t → h` between reachable blocks where `h`
//! dominates `t`; `t` is a *latch* of the loop headed by `h`. All back edges
//! into one header make one loop, whose body is `h` plus every reachable
//! block that reaches a latch without passing through `h` (a backward walk
//! from the latches). Two natural loops are either disjoint or one contains
//! the other, so the loops form a tree, the *nest*.
//!
//! Invariants of a [`LoopNest`]:
//! - `loops` is innermost first: ordered by body size, equal sizes (always
//!   disjoint loops) by their first latch; a loop's parent comes after it.
//! - `parent` is the smallest loop containing the loop (`None`: outermost);
//!   `depth` is 1 for an outermost loop, the parent's + 1 otherwise.
//! - `blocks`, `latches` and `exits` are sorted and free of duplicates.
//! - Linear apart from the bodies themselves: the cost is the number of
//!   blocks and edges plus the sum of the body sizes (no per-loop array
//!   over every block of the function).
use crate::ir::FxSet;
use crate::ir::dom::DomTree;
use crate::ir::{BlockId, Cfg};
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

/// A loop of a [`LoopNest`], its index in [`LoopNest::loops`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);
cranelift_entity::entity_impl!(LoopId);

/// One natural loop. Blocks are the graph's nodes (IrCode blocks, or the
/// layout positions [`LoopNest::from_graph`] was given).
#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub header: BlockId,
    /// Sources of the back edges into `header`, in increasing order.
    pub latches: Vec<BlockId>,
    /// The blocks of the loop, header included, as a set (for `contains`).
    pub body: FxSet<BlockId>,
    /// The same blocks, in increasing order.
    pub blocks: Vec<BlockId>,
    /// The dedicated preheader: the header's only predecessor outside the
    /// loop, if its only successor is the header (the `loops` pass makes
    /// one for every loop it can).
    pub preheader: Option<BlockId>,
    /// Blocks outside the loop with a predecessor inside, in increasing order.
    pub exits: Vec<BlockId>,
    /// The smallest enclosing loop.
    pub parent: Option<LoopId>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

impl LoopInfo {
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.contains(&b)
    }

    /// Whether `op` is defined outside this loop (constants and arguments
    /// are); `block_of` is [`crate::ir::IrCode::block_of`].
    pub fn defined_outside(
        &self,
        block_of: &SecondaryMap<crate::ir::Value, Option<BlockId>>,
        op: &crate::ir::Operand,
    ) -> bool {
        match op {
            crate::ir::Operand::Value(v) => block_of[*v].is_some_and(|b| !self.contains(b)),
            _ => true,
        }
    }
}

/// Every natural loop of a function (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct LoopNest {
    /// Innermost first.
    pub loops: PrimaryMap<LoopId, LoopInfo>,
    /// The innermost loop of each block (`None`: in no loop).
    innermost: SecondaryMap<BlockId, Option<LoopId>>,
}

impl LoopNest {
    /// The loops of an IrCode's CFG, whose dominator tree is `dom`.
    pub fn new(cfg: &Cfg, dom: &DomTree) -> LoopNest {
        let blocks = &cfg.blocks;
        LoopNest::from_graph(
            blocks.len(),
            |b: BlockId| blocks[b].succs.iter().copied(),
            |b| blocks[b].preds.iter().copied(),
            dom,
        )
    }

    /// The loops of the `n`-node graph given by `succs` and `preds` (which
    /// must agree; nodes `>= n` are ignored) rooted at node 0, whose
    /// dominator tree is `dom`.
    pub fn from_graph<S, P>(
        n: usize,
        succs: impl Fn(BlockId) -> S,
        preds: impl Fn(BlockId) -> P,
        dom: &DomTree,
    ) -> LoopNest
    where
        S: IntoIterator<Item = BlockId>,
        P: IntoIterator<Item = BlockId>,
    {
        let mut loops = natural_loops(n, &succs, &preds, dom);
        for l in &mut loops {
            l.preheader = preheader(l, &succs, &preds, dom);
            let mut exits: Vec<BlockId> = l
                .blocks
                .iter()
                .flat_map(|&b| succs(b))
                .filter(|s| s.index() < n && !l.body.contains(s))
                .collect();
            exits.sort_unstable();
            exits.dedup();
            l.exits = exits;
        }
        loops.sort_by_key(|l| (l.blocks.len(), l.latches[0]));
        let mut loops = PrimaryMap::from(loops);
        let innermost = nest(&mut loops, n);
        LoopNest { loops, innermost }
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The innermost loop containing block `b`.
    pub fn loop_of(&self, b: BlockId) -> Option<&LoopInfo> {
        self.innermost[b].map(|i| &self.loops[i])
    }
}

/// The loops (header, latches, body, blocks) in header order.
fn natural_loops<S, P>(
    n: usize,
    succs: &impl Fn(BlockId) -> S,
    preds: &impl Fn(BlockId) -> P,
    dom: &DomTree,
) -> Vec<LoopInfo>
where
    S: IntoIterator<Item = BlockId>,
    P: IntoIterator<Item = BlockId>,
{
    // Latches per header (in increasing order, as `t` increases).
    let mut latches: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::with_capacity(n);
    for t in (0..n).map(BlockId::new) {
        if !dom.reachable(t) {
            continue;
        }
        for h in succs(t) {
            if h.index() < n
                && dom.reachable(h)
                && dom.dominates(h, t)
                && latches[h].last() != Some(&t)
            {
                latches[h].push(t);
            }
        }
    }
    let mut loops = Vec::new();
    for (h, lat) in latches.iter() {
        if lat.is_empty() {
            continue;
        }
        let mut body = FxSet::default();
        body.insert(h);
        let mut work = lat.clone();
        while let Some(b) = work.pop() {
            if !body.insert(b) {
                continue;
            }
            work.extend(
                preds(b)
                    .into_iter()
                    .filter(|&p| p.index() < n && dom.reachable(p) && !body.contains(&p)),
            );
        }
        let mut blocks: Vec<BlockId> = body.iter().copied().collect();
        blocks.sort_unstable();
        loops.push(LoopInfo {
            header: h,
            latches: lat.clone(),
            body,
            blocks,
            preheader: None,
            exits: Vec::new(),
            parent: None,
            depth: 1,
        });
    }
    loops
}

/// The dedicated preheader of `l` (see [`LoopInfo::preheader`]).
fn preheader<S, P>(
    l: &LoopInfo,
    succs: &impl Fn(BlockId) -> S,
    preds: &impl Fn(BlockId) -> P,
    dom: &DomTree,
) -> Option<BlockId>
where
    S: IntoIterator<Item = BlockId>,
    P: IntoIterator<Item = BlockId>,
{
    let mut outside = preds(l.header).into_iter().filter(|p| !l.body.contains(p));
    let p = outside.next()?;
    if outside.next().is_some() || !dom.reachable(p) {
        return None;
    }
    let mut ss = succs(p).into_iter();
    (ss.next() == Some(l.header) && ss.next().is_none()).then_some(p)
}

/// Fills in `parent` and `depth` of `loops` (innermost first); returns the
/// innermost loop of each block. Outer loops are visited first, each
/// claiming its blocks, so a loop's parent is the last claimant of its
/// header before it. `n` is the number of blocks.
fn nest(
    loops: &mut PrimaryMap<LoopId, LoopInfo>,
    n: usize,
) -> SecondaryMap<BlockId, Option<LoopId>> {
    let mut owner: SecondaryMap<BlockId, Option<LoopId>> = crate::ir::sized_map(n);
    let ids: Vec<LoopId> = loops.keys().rev().collect();
    for i in ids {
        let parent = owner[loops[i].header];
        loops[i].parent = parent;
        loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
        for &b in &loops[i].blocks {
            owner[b] = Some(i);
        }
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest_of(edges: &[(u32, u32)], n: usize) -> LoopNest {
        // The edges out of each node (`back`: into it).
        let adjacent = |back: bool| -> Vec<Vec<BlockId>> {
            (0..n as u32)
                .map(|b| {
                    let ends = edges
                        .iter()
                        .map(|&(s, t)| if back { (t, s) } else { (s, t) });
                    ends.filter(|e| e.0 == b).map(|e| BlockId(e.1)).collect()
                })
                .collect()
        };
        let (succs, preds) = (adjacent(false), adjacent(true));
        let dom = DomTree::from_graph(
            n,
            |b: BlockId| succs[b.index()].clone(),
            |b| preds[b.index()].clone(),
        );
        LoopNest::from_graph(
            n,
            |b| succs[b.index()].clone(),
            |b| preds[b.index()].clone(),
            &dom,
        )
    }

    fn ids(bs: &[u32]) -> Vec<BlockId> {
        bs.iter().map(|&b| BlockId(b)).collect()
    }

    #[test]
    fn nested_loops_with_preheaders_exits_and_two_latches() {
        // 0 → 1 (preheader of 2); 2 → 3 (preheader of 4); 4 → 5 → 4 (inner
        // loop), 4 → 6; 6 → 2 and 6 → 7; 7 → 2 (a second latch), 7 → 8 exit.
        let edges = [
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 5),
            (5, 4),
            (4, 6),
            (6, 2),
            (6, 7),
            (7, 2),
            (7, 8),
        ];
        let nest = nest_of(&edges, 9);
        assert_eq!(nest.loops.len(), 2);
        let (inner, outer) = (&nest.loops[LoopId(0)], &nest.loops[LoopId(1)]);
        assert_eq!(
            (inner.header, &inner.blocks, &inner.latches),
            (BlockId(4), &ids(&[4, 5]), &ids(&[5]))
        );
        assert_eq!(
            (inner.preheader, &inner.exits, inner.parent, inner.depth),
            (Some(BlockId(3)), &ids(&[6]), Some(LoopId(1)), 2)
        );
        assert_eq!(
            (outer.header, &outer.blocks, &outer.latches),
            (BlockId(2), &ids(&[2, 3, 4, 5, 6, 7]), &ids(&[6, 7]))
        );
        assert_eq!(
            (outer.preheader, &outer.exits, outer.parent, outer.depth),
            (Some(BlockId(1)), &ids(&[8]), None, 1)
        );
        assert_eq!(nest.loop_of(BlockId(5)).map(|l| l.header), Some(BlockId(4)));
        assert_eq!(nest.loop_of(BlockId(6)).map(|l| l.header), Some(BlockId(2)));
        assert!(nest.loop_of(BlockId(8)).is_none() && nest.loop_of(BlockId(99)).is_none());
    }

    #[test]
    fn no_preheader_when_entered_twice_and_unreachable_latches_ignored() {
        // 0 → 1, 0 → 2, 1 → 2, 2 → 3 → 2: two outside predecessors of 2;
        // 4 → 2 is unreachable.
        let nest = nest_of(&[(0, 1), (0, 2), (1, 2), (2, 3), (3, 2), (4, 2)], 5);
        assert_eq!(nest.loops.len(), 1);
        assert_eq!(nest.loops[LoopId(0)].blocks, ids(&[2, 3]));
        assert_eq!(nest.loops[LoopId(0)].preheader, None);
        assert!(nest_of(&[(0, 1)], 2).is_empty());
    }
}
