//! A persistent map from SSA variables to what a variable read finds at the
//! end of a block ([`Entry`]), for the builder's lookups.
//!
//! A treap whose shape depends only on its keys (priorities are a hash of
//! the key), with path copying: `insert` returns a new version in
//! O(log n) time and space and leaves the old one intact, and `clone` is
//! O(1). So a block's map can start as its dominator's and diverge.
use super::builder::{Blk, Var};
use crate::ir::Operand;
use std::rc::Rc;

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

struct Node {
    key: Var,
    val: Entry,
    left: Option<Rc<Node>>,
    right: Option<Rc<Node>>,
}

/// The treap priority of a key (a bijective integer hash: no two keys tie).
fn prio(k: Var) -> u32 {
    let mut x = k.wrapping_mul(0x9e37_79b9);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^ (x >> 13)
}

#[derive(Clone, Default)]
pub struct Env {
    root: Option<Rc<Node>>,
}

impl Env {
    pub fn get(&self, key: Var) -> Option<Entry> {
        let mut t = self.root.as_deref();
        while let Some(n) = t {
            if key == n.key {
                return Some(n.val);
            }
            t = if key < n.key {
                n.left.as_deref()
            } else {
                n.right.as_deref()
            };
        }
        None
    }

    /// Sets `key` to `val` in this version (others sharing nodes keep theirs).
    pub fn insert(&mut self, key: Var, val: Entry) {
        self.root = Some(insert(self.root.as_ref(), key, prio(key), val));
    }

    /// Every entry, in key order.
    pub fn entries(&self) -> Vec<(Var, Entry)> {
        let mut out = Vec::new();
        let mut stack: Vec<&Node> = Vec::new();
        let mut t = self.root.as_deref();
        loop {
            while let Some(n) = t {
                stack.push(n);
                t = n.left.as_deref();
            }
            let Some(n) = stack.pop() else { break };
            out.push((n.key, n.val));
            t = n.right.as_deref();
        }
        out
    }
}

/// Path-copying insertion. The recursion depth is the treap's depth, which
/// its hashed priorities keep logarithmic for any set of keys.
fn insert(t: Option<&Rc<Node>>, key: Var, p: u32, val: Entry) -> Rc<Node> {
    let Some(n) = t else {
        return Rc::new(Node {
            key,
            val,
            left: None,
            right: None,
        });
    };
    if key == n.key {
        return Rc::new(Node {
            key,
            val,
            left: n.left.clone(),
            right: n.right.clone(),
        });
    }
    if p > prio(n.key) {
        // The new key becomes this subtree's root: split `n` around it.
        let (left, right) = split(Some(n), key);
        return Rc::new(Node {
            key,
            val,
            left,
            right,
        });
    }
    if key < n.key {
        let l = insert(n.left.as_ref(), key, p, val);
        Rc::new(Node {
            key: n.key,
            val: n.val,
            left: Some(l),
            right: n.right.clone(),
        })
    } else {
        let r = insert(n.right.as_ref(), key, p, val);
        Rc::new(Node {
            key: n.key,
            val: n.val,
            left: n.left.clone(),
            right: Some(r),
        })
    }
}

/// The keys below and above `key` (which is not in `t`), as two treaps.
fn split(t: Option<&Rc<Node>>, key: Var) -> (Option<Rc<Node>>, Option<Rc<Node>>) {
    let Some(n) = t else { return (None, None) };
    if n.key < key {
        let (l, r) = split(n.right.as_ref(), key);
        (
            Some(Rc::new(Node {
                key: n.key,
                val: n.val,
                left: n.left.clone(),
                right: l,
            })),
            r,
        )
    } else {
        let (l, r) = split(n.left.as_ref(), key);
        (
            l,
            Some(Rc::new(Node {
                key: n.key,
                val: n.val,
                left: r,
                right: n.right.clone(),
            })),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_independent_and_lookups_match_a_plain_map() {
        let mut a = Env::default();
        let mut model = std::collections::BTreeMap::new();
        for i in 0..2000u32 {
            let k = (i * 7919) % 1009;
            a.insert(k, Entry::Stop(i));
            model.insert(k, i);
        }
        let b = a.clone();
        a.insert(5, Entry::Stop(99_999));
        for (k, v) in &model {
            match b.get(*k) {
                Some(Entry::Stop(x)) => assert_eq!(x, *v),
                other => panic!("key {k}: {other:?}"),
            }
        }
        assert!(matches!(a.get(5), Some(Entry::Stop(99_999))));
        assert!(b.get(5_000).is_none());
        let keys: Vec<Var> = b.entries().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
    }
}
