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
use crate::ir::dom::DomTree;
use crate::ir::{BlockId, Cfg};
use std::collections::HashSet;

/// One natural loop. Block numbers are the graph's nodes (IrCode blocks,
/// or whatever numbering [`LoopNest::from_graph`] was given).
#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub header: u32,
    /// Sources of the back edges into `header`, in increasing order.
    pub latches: Vec<u32>,
    /// The blocks of the loop, header included, as a set (for `contains`).
    pub body: HashSet<u32>,
    /// The same blocks, in increasing order.
    pub blocks: Vec<u32>,
    /// The dedicated preheader: the header's only predecessor outside the
    /// loop, if its only successor is the header (the `loops` pass makes
    /// one for every loop it can).
    pub preheader: Option<u32>,
    /// Blocks outside the loop with a predecessor inside, in increasing order.
    pub exits: Vec<u32>,
    /// Index in [`LoopNest::loops`] of the smallest enclosing loop.
    pub parent: Option<usize>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

impl LoopInfo {
    pub fn contains(&self, b: BlockId) -> bool {
        self.body.contains(&b.0)
    }
}

/// Every natural loop of a function (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct LoopNest {
    /// Innermost first.
    pub loops: Vec<LoopInfo>,
    /// The index of the innermost loop of each block (`None`: in no loop).
    innermost: Vec<Option<usize>>,
}

impl LoopNest {
    /// The loops of an IrCode's CFG, whose dominator tree is `dom`.
    pub fn new(cfg: &Cfg, dom: &DomTree) -> LoopNest {
        let blocks = &cfg.blocks;
        LoopNest::from_graph(
            blocks.len(),
            |b| blocks[b as usize].succs.iter().map(|s| s.0),
            |b| blocks[b as usize].preds.iter().map(|p| p.0),
            dom,
        )
    }

    /// The loops of the `n`-node graph given by `succs` and `preds` (which
    /// must agree; nodes `>= n` are ignored) rooted at node 0, whose
    /// dominator tree is `dom`.
    pub fn from_graph<S, P>(
        n: usize,
        succs: impl Fn(u32) -> S,
        preds: impl Fn(u32) -> P,
        dom: &DomTree,
    ) -> LoopNest
    where
        S: IntoIterator<Item = u32>,
        P: IntoIterator<Item = u32>,
    {
        let mut loops = natural_loops(n, &succs, &preds, dom);
        for l in &mut loops {
            l.preheader = preheader(l, &succs, &preds, dom);
            let mut exits: Vec<u32> = l
                .blocks
                .iter()
                .flat_map(|&b| succs(b))
                .filter(|s| (*s as usize) < n && !l.body.contains(s))
                .collect();
            exits.sort_unstable();
            exits.dedup();
            l.exits = exits;
        }
        loops.sort_by_key(|l| (l.blocks.len(), l.latches[0]));
        let innermost = nest(&mut loops, n);
        LoopNest { loops, innermost }
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The innermost loop containing block `b`.
    pub fn loop_of(&self, b: u32) -> Option<&LoopInfo> {
        self.innermost
            .get(b as usize)
            .copied()
            .flatten()
            .map(|i| &self.loops[i])
    }
}

/// The loops (header, latches, body, blocks) in header order.
fn natural_loops<S, P>(
    n: usize,
    succs: &impl Fn(u32) -> S,
    preds: &impl Fn(u32) -> P,
    dom: &DomTree,
) -> Vec<LoopInfo>
where
    S: IntoIterator<Item = u32>,
    P: IntoIterator<Item = u32>,
{
    // Latches per header (in increasing order, as `t` increases).
    let mut latches: Vec<Vec<u32>> = vec![Vec::new(); n];
    for t in 0..n as u32 {
        if !dom.reachable(t) {
            continue;
        }
        for h in succs(t) {
            if (h as usize) < n
                && dom.reachable(h)
                && dom.dominates(h, t)
                && latches[h as usize].last() != Some(&t)
            {
                latches[h as usize].push(t);
            }
        }
    }
    let mut loops = Vec::new();
    for (h, lat) in latches.into_iter().enumerate() {
        if lat.is_empty() {
            continue;
        }
        let h = h as u32;
        let mut body = HashSet::new();
        body.insert(h);
        let mut work = lat.clone();
        while let Some(b) = work.pop() {
            if !body.insert(b) {
                continue;
            }
            work.extend(
                preds(b)
                    .into_iter()
                    .filter(|&p| (p as usize) < n && dom.reachable(p) && !body.contains(&p)),
            );
        }
        let mut blocks: Vec<u32> = body.iter().copied().collect();
        blocks.sort_unstable();
        loops.push(LoopInfo {
            header: h,
            latches: lat,
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
    succs: &impl Fn(u32) -> S,
    preds: &impl Fn(u32) -> P,
    dom: &DomTree,
) -> Option<u32>
where
    S: IntoIterator<Item = u32>,
    P: IntoIterator<Item = u32>,
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
/// innermost loop of each of the `n` blocks. Outer loops are visited first,
/// each claiming its blocks, so a loop's parent is the last claimant of its
/// header before it.
fn nest(loops: &mut [LoopInfo], n: usize) -> Vec<Option<usize>> {
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for i in (0..loops.len()).rev() {
        let parent = owner.get(loops[i].header as usize).copied().flatten();
        loops[i].parent = parent;
        loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
        for &b in &loops[i].blocks {
            if let Some(o) = owner.get_mut(b as usize) {
                *o = Some(i);
            }
        }
    }
    owner
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nest_of(edges: &[(u32, u32)], n: usize) -> LoopNest {
        let succs: Vec<Vec<u32>> = (0..n as u32)
            .map(|b| edges.iter().filter(|e| e.0 == b).map(|e| e.1).collect())
            .collect();
        let preds: Vec<Vec<u32>> = (0..n as u32)
            .map(|b| edges.iter().filter(|e| e.1 == b).map(|e| e.0).collect())
            .collect();
        let dom = DomTree::from_graph(
            n,
            |b| succs[b as usize].clone(),
            |b| preds[b as usize].clone(),
        );
        LoopNest::from_graph(
            n,
            |b| succs[b as usize].clone(),
            |b| preds[b as usize].clone(),
            &dom,
        )
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
        let (inner, outer) = (&nest.loops[0], &nest.loops[1]);
        assert_eq!(
            (inner.header, &inner.blocks, &inner.latches),
            (4, &vec![4, 5], &vec![5])
        );
        assert_eq!(
            (inner.preheader, &inner.exits, inner.parent, inner.depth),
            (Some(3), &vec![6], Some(1), 2)
        );
        assert_eq!(
            (outer.header, &outer.blocks, &outer.latches),
            (2, &vec![2, 3, 4, 5, 6, 7], &vec![6, 7])
        );
        assert_eq!(
            (outer.preheader, &outer.exits, outer.parent, outer.depth),
            (Some(1), &vec![8], None, 1)
        );
        assert_eq!(nest.loop_of(5).map(|l| l.header), Some(4));
        assert_eq!(nest.loop_of(6).map(|l| l.header), Some(2));
        assert!(nest.loop_of(8).is_none() && nest.loop_of(99).is_none());
    }

    #[test]
    fn no_preheader_when_entered_twice_and_unreachable_latches_ignored() {
        // 0 → 1, 0 → 2, 1 → 2, 2 → 3 → 2: two outside predecessors of 2;
        // 4 → 2 is unreachable.
        let nest = nest_of(&[(0, 1), (0, 2), (1, 2), (2, 3), (3, 2), (4, 2)], 5);
        assert_eq!(nest.loops.len(), 1);
        assert_eq!(nest.loops[0].blocks, vec![2, 3]);
        assert_eq!(nest.loops[0].preheader, None);
        assert!(nest_of(&[(0, 1)], 2).is_empty());
    }
}
