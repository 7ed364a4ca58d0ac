//! Persistent maps from SSA variables to what a variable read finds at the
//! end of a block ([`Entry`]), for the builder's lookups.
//!
//! Each map ([`Env`]) is a treap whose shape depends only on its keys
//! (priorities are a hash of the key), with path copying: `insert` makes a
//! new version in O(log n) time and space and leaves the old one intact,
//! and copying an `Env` is O(1) (after [`EnvArena::freeze`]). So a block's
//! map can start as its dominator's and diverge. The nodes of every version live in one
//! [`EnvArena`] per function: a node is never changed or freed once made,
//! so versions share them freely and the whole arena goes at once.
use super::builder::{Blk, Var};
use crate::ir::Operand;

/// What a read of a variable finds at the end of a block.
#[derive(Clone, Copy, Debug)]
pub enum Entry {
    /// The variable's value (possibly a φ forwarded since).
    Val(Operand),
    /// The walk towards the definition stops at this block: a join of a
    /// region that assigns the variable (its value there is a φ, or comes
    /// from its single live predecessor).
    Stop(Blk),
}

/// No node (an empty subtree).
const NIL: u32 = u32::MAX;

/// A treap node: `kids[0]` holds the smaller keys, `kids[1]` the larger.
/// (Indexing the children by a comparison's result, rather than branching
/// on it, keeps the searches free of unpredictable branches.)
#[derive(Clone, Copy)]
struct Node {
    key: Var,
    kids: [u32; 2],
    val: Entry,
}

/// The treap priority of a key (a bijective integer hash: no two keys tie).
fn prio(k: Var) -> u32 {
    let mut x = k.wrapping_mul(0x9e37_79b9);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^ (x >> 13)
}

/// One version of a map: the root of its treap in the [`EnvArena`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Env {
    root: u32,
}

impl Default for Env {
    fn default() -> Env {
        Env { root: NIL }
    }
}

/// The nodes of all the maps of one function.
///
/// Nodes from `frozen` on were made since the last [`EnvArena::freeze`]:
/// each is reachable from one map only (the one whose insertion made it),
/// so an insertion into that map may change it in place instead of
/// copying it.
#[derive(Default)]
pub struct EnvArena {
    nodes: Vec<Node>,
    frozen: u32,
    /// Working storage of [`EnvArena::entries`].
    stack: Vec<u32>,
}

impl EnvArena {
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.frozen = 0;
    }

    /// Called before a map is copied: from now on its nodes are shared.
    pub fn freeze(&mut self) {
        self.frozen = self.nodes.len() as u32;
    }

    fn node(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        self.nodes.len() as u32 - 1
    }

    pub fn get(&self, env: Env, key: Var) -> Option<Entry> {
        let mut t = env.root;
        while t != NIL {
            let n = &self.nodes[t as usize];
            if key == n.key {
                return Some(n.val);
            }
            t = n.kids[(key > n.key) as usize];
        }
        None
    }

    /// Sets `key` to `val` in `env` (other versions sharing nodes keep
    /// theirs).
    pub fn insert(&mut self, env: &mut Env, key: Var, val: Entry) {
        env.root = self.insert_at(env.root, key, prio(key), val);
    }

    /// Appends every entry of `env` to `out`, in key order.
    pub fn entries(&mut self, env: Env, out: &mut Vec<(Var, Entry)>) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let mut t = env.root;
        loop {
            while t != NIL {
                stack.push(t);
                t = self.nodes[t as usize].kids[0];
            }
            let Some(n) = stack.pop() else { break };
            let n = &self.nodes[n as usize];
            out.push((n.key, n.val));
            t = n.kids[1];
        }
        self.stack = stack;
    }

    /// Path-copying insertion. The recursion depth is the treap's depth,
    /// which its hashed priorities keep logarithmic for any set of keys.
    fn insert_at(&mut self, t: u32, key: Var, p: u32, val: Entry) -> u32 {
        if t == NIL {
            return self.node(Node {
                key,
                kids: [NIL, NIL],
                val,
            });
        }
        let n = self.nodes[t as usize];
        let owned = t >= self.frozen;
        if key == n.key {
            if owned {
                self.nodes[t as usize].val = val;
                return t;
            }
            return self.node(Node { val, ..n });
        }
        if p > prio(n.key) {
            // The new key becomes this subtree's root: split `n` around it.
            let kids = self.split(t, key);
            return self.node(Node { key, kids, val });
        }
        let side = (key > n.key) as usize;
        let kid = self.insert_at(n.kids[side], key, p, val);
        self.with_kid(t, side, kid)
    }

    /// Node `t` with `kids[side]` set to `kid`: `t` itself, changed in
    /// place, when no other version shares it, else a changed copy.
    fn with_kid(&mut self, t: u32, side: usize, kid: u32) -> u32 {
        if t >= self.frozen {
            self.nodes[t as usize].kids[side] = kid;
            return t;
        }
        let mut copy = self.nodes[t as usize];
        copy.kids[side] = kid;
        self.node(copy)
    }

    /// The keys below and above `key` (which is not in `t`), as two treaps.
    fn split(&mut self, t: u32, key: Var) -> [u32; 2] {
        if t == NIL {
            return [NIL, NIL];
        }
        let n = self.nodes[t as usize];
        // `n` (with its subtree away from `key`) belongs to the result on
        // its own side of `key` (`1 - side`); its subtree towards `key` is
        // split, the part on `n`'s side becoming `n`'s child there and the
        // other part the result on `side`.
        let side = (n.key < key) as usize;
        let parts = self.split(n.kids[side], key);
        let t = self.with_kid(t, side, parts[1 - side]);
        let mut out = [t, t];
        out[side] = parts[side];
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_independent_and_lookups_match_a_plain_map() {
        let mut arena = EnvArena::default();
        let mut a = Env::default();
        let mut model = std::collections::BTreeMap::new();
        for i in 0..2000u32 {
            let k = (i * 7919) % 1009;
            arena.insert(&mut a, k, Entry::Stop(i));
            model.insert(k, i);
        }
        // Rewrites of unshared nodes happen in place.
        let len = arena.nodes.len();
        arena.insert(&mut a, 0, Entry::Stop(7));
        assert_eq!(arena.nodes.len(), len);
        arena.insert(&mut a, 0, Entry::Stop(model[&0]));
        arena.freeze();
        let b = a;
        arena.insert(&mut a, 5, Entry::Stop(99_999));
        arena.insert(&mut a, 1_500, Entry::Stop(3));
        arena.insert(&mut a, 5, Entry::Stop(99_999));
        for (k, v) in &model {
            match arena.get(b, *k) {
                Some(Entry::Stop(x)) => assert_eq!(x, *v),
                other => panic!("key {k}: {other:?}"),
            }
        }
        assert!(matches!(arena.get(a, 5), Some(Entry::Stop(99_999))));
        assert!(arena.get(b, 5_000).is_none());
        assert!(arena.get(b, 1_500).is_none());
        assert!(matches!(arena.get(a, 1_500), Some(Entry::Stop(3))));
        let mut entries = Vec::new();
        arena.entries(b, &mut entries);
        let keys: Vec<Var> = entries.into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
    }
}
