//! The φ users of the builder's nodes: for each node, the φs that have
//! (had) it as an operand, in the order they were recorded.
//!
//! Every node's list is a chain of links in one arena, so recording a user
//! never allocates per node, and [`PhiUsers::clear`] keeps the arena for the
//! next function. Lists may hold stale entries (φs that no longer use the
//! node) and repeats; their readers re-check each user.

/// No link (an empty list, or the end of one).
const NIL: u32 = u32::MAX;

#[derive(Default)]
pub struct PhiUsers {
    /// Per node: its list's first and last link (`NIL` when empty).
    ends: Vec<(u32, u32)>,
    /// (user φ, next link of the same list).
    links: Vec<(u32, u32)>,
}

impl PhiUsers {
    pub fn clear(&mut self) {
        self.ends.clear();
        self.links.clear();
    }

    /// Makes room for the next node, with no users yet.
    pub fn push_node(&mut self) {
        self.ends.push((NIL, NIL));
    }

    /// Records `phi` as a user of node `n` (at the end of its list).
    pub fn add(&mut self, n: u32, phi: u32) {
        let link = self.links.len() as u32;
        self.links.push((phi, NIL));
        let (first, last) = &mut self.ends[n as usize];
        if *last == NIL {
            *first = link;
        } else {
            self.links[*last as usize].1 = link;
        }
        *last = link;
    }

    /// Appends the users of `from` to those of `to` (`from != to`).
    pub fn copy(&mut self, from: u32, to: u32) {
        debug_assert_ne!(from, to);
        let mut at = self.ends[from as usize].0;
        while at != NIL {
            let (u, next) = self.links[at as usize];
            self.add(to, u);
            at = next;
        }
    }

    /// The users of node `n`, in the order they were recorded.
    pub fn of(&self, n: u32) -> Users<'_> {
        Users {
            links: &self.links,
            at: self.ends[n as usize].0,
        }
    }
}

/// An iterator over one node's users ([`PhiUsers::of`]).
pub struct Users<'a> {
    links: &'a [(u32, u32)],
    at: u32,
}

impl Iterator for Users<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.at == NIL {
            return None;
        }
        let (u, next) = self.links[self.at as usize];
        self.at = next;
        Some(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_their_order_and_copies_append() {
        let mut u = PhiUsers::default();
        for _ in 0..3 {
            u.push_node();
        }
        u.add(0, 7);
        u.add(1, 8);
        u.add(0, 9);
        u.add(2, 5);
        assert_eq!(u.of(0).collect::<Vec<_>>(), vec![7, 9]);
        u.copy(0, 2);
        assert_eq!(u.of(2).collect::<Vec<_>>(), vec![5, 7, 9]);
        assert_eq!(u.of(0).collect::<Vec<_>>(), vec![7, 9]);
        assert_eq!(u.of(1).collect::<Vec<_>>(), vec![8]);
        u.clear();
        u.push_node();
        assert_eq!(u.of(0).count(), 0);
    }
}
