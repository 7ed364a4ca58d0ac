//! Algorithms on graphs given as successor lists over node indices `0..n`
//! (a CFG, the call graph, the φ-operand graph), shared by every client.
//! The one reverse postorder is [`reverse_postorder`] ([`crate::ir::Cfg::rpo`]
//! for an IrCode's CFG); the one successor function of a block's terminator
//! is [`crate::ir::edges::block_succs`], which each block's `succs` caches.

use cranelift_entity::EntityRef;

/// Items grouped by key, flat, as [`group_by_key`] makes them: key `k`'s
/// items are `items[start[k]..start[k + 1]]`, one allocation for all keys
/// (adjacency lists: a node's users, a tree's children, a block's
/// dominance frontier).
pub struct Grouped<T> {
    pub items: Vec<T>,
    /// One more entry than keys.
    pub start: Vec<u32>,
}

impl<T> Grouped<T> {
    /// The positions in `items` of key `k`'s items (empty for a key
    /// beyond the last).
    pub fn range(&self, k: usize) -> std::ops::Range<usize> {
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&lo), Some(&hi)) => lo as usize..hi as usize,
            _ => 0..0,
        }
    }

    /// Key `k`'s items (none for a key beyond the last).
    pub fn of(&self, k: usize) -> &[T] {
        &self.items[self.range(k)]
    }
}

/// Pairs `(key, item)` grouped by key by a counting sort, each key's items
/// in the order the pairs came. `pairs(f)` calls `f(key, item)` for every
/// pair, keys below `n`, and is called twice, giving the same pairs both
/// times; `fill` only initialises the items.
pub fn group_by_key<T: Copy>(
    n: usize,
    fill: T,
    pairs: impl Fn(&mut dyn FnMut(usize, T)),
) -> Grouped<T> {
    let mut start = vec![0u32; n + 1];
    pairs(&mut |k, _| start[k + 1] += 1);
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut next = start.clone();
    let mut items = vec![fill; start[n] as usize];
    pairs(&mut |k, item| {
        items[next[k] as usize] = item;
        next[k] += 1;
    });
    Grouped { items, start }
}

/// The nodes reachable from node 0 of the `n`-node graph `succs`, in
/// reverse postorder of an iterative depth-first search that enters the
/// successors of a node in the order `succs` lists them (so the successor
/// entered *last* comes right after its node). Successors `>= n` are
/// ignored. Node 0 comes first; every node comes before the nodes it
/// dominates. Linear in nodes + edges; empty when `n == 0`.
pub fn reverse_postorder<N: EntityRef, S>(n: usize, succs: impl Fn(N) -> S) -> Vec<N>
where
    S: IntoIterator<Item = N>,
{
    let mut postorder = Vec::with_capacity(n);
    if n == 0 {
        return postorder;
    }
    let root = N::new(0);
    let mut seen = vec![false; n];
    let mut stack: Vec<(N, S::IntoIter)> = vec![(root, succs(root).into_iter())];
    seen[0] = true;
    while let Some((b, it)) = stack.last_mut() {
        if let Some(s) = it.next() {
            if s.index() < n && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, succs(s).into_iter()));
            }
        } else {
            postorder.push(*b);
            stack.pop();
        }
    }
    postorder.reverse();
    postorder
}

/// The strongly connected components of the graph `succ` (Tarjan's
/// algorithm, iterative so deep call chains cannot overflow the stack), in
/// reverse topological order: a component is listed after every component
/// reachable from it. Linear in nodes + edges.
pub fn sccs(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let (nodes, ends) = sccs_flat(succ.len(), |v| succ[v].iter().copied());
    let mut start = 0;
    ends.into_iter()
        .map(|end| {
            let comp = nodes[start..end].to_vec();
            start = end;
            comp
        })
        .collect()
}

/// [`sccs`] of the `n`-node graph whose successors of `v` are `succs(v)`
/// (those `>= n` ignored), listed flat: component `i` is
/// `nodes[ends[i-1]..ends[i]]` (from 0 for the first), in the same order
/// and with its nodes in the same order as [`sccs`] gives them.
pub fn sccs_flat<S>(n: usize, succs: impl Fn(usize) -> S) -> (Vec<usize>, Vec<usize>)
where
    S: IntoIterator<Item = usize>,
{
    let mut s = SccScratch::default();
    sccs_flat_in(&mut s, n, succs);
    (s.nodes, s.ends)
}

/// Working storage of [`sccs_flat_in`], for callers that run it for many
/// small graphs; `nodes` and `ends` hold the result.
#[derive(Default)]
pub struct SccScratch {
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    pub nodes: Vec<usize>,
    pub ends: Vec<usize>,
}

/// [`sccs_flat`] into `s.nodes` and `s.ends`, reusing `s`'s storage.
pub fn sccs_flat_in<S>(s: &mut SccScratch, n: usize, succs: impl Fn(usize) -> S)
where
    S: IntoIterator<Item = usize>,
{
    const UNSEEN: usize = usize::MAX;
    let SccScratch {
        index,
        low,
        on_stack,
        stack,
        nodes,
        ends,
    } = s;
    index.clear();
    index.resize(n, UNSEEN);
    low.clear();
    low.resize(n, 0);
    on_stack.clear();
    on_stack.resize(n, false);
    stack.clear();
    nodes.clear();
    ends.clear();
    let mut next = 0usize;
    // The DFS path: (node, its successors not looked at yet).
    let mut path: Vec<(usize, S::IntoIter)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        path.push((root, succs(root).into_iter()));
        while let Some((v, it)) = path.last_mut() {
            let v = *v;
            if let Some(w) = it.next() {
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    path.push((w, succs(w).into_iter()));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some((p, _)) = path.last() {
                low[*p] = low[*p].min(low[v]);
            }
            if low[v] == index[v] {
                let first = nodes.len();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    nodes.push(w);
                    if w == v {
                        break;
                    }
                }
                nodes[first..].reverse();
                ends.push(nodes.len());
            }
        }
    }
}
