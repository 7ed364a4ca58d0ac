//! Removal of redundant φ-SCCs (Braun et al. 2013, §3.2), which makes the
//! result minimal even where trivial-φ removal alone cannot (φs that only
//! feed each other around a loop, irreducible shapes).
//!
//! A set of φs whose operands are only each other and one outside value `x`
//! all stand for `x`. SCCs of the φ graph are visited operands-first (the
//! order Tarjan's algorithm emits them); an SCC with exactly one outside
//! operand is replaced by it, one with several is searched again among its
//! inner φs (those with no outside operand). Iterative throughout.
//!
//! With reducible control flow and no trivial φ left, only copies can make
//! such a set: [`Builder::note_copy`] watches the assignments for them, and
//! emission searches only the functions where it saw one (in debug builds
//! it searches the others too, and checks that nothing is found).
use super::builder::{Builder, Var};
use crate::ir::graph::{SccScratch, sccs_flat_in};
use crate::ir::{Inst, Operand, Value};

impl Builder {
    /// Keeps [`Builder::may_have_redundant_phis`] for an assignment to
    /// `var` of a value that is `new` (a node no variable had before, not a
    /// φ) or not (a constant, a parameter, a φ, or a node already assigned).
    /// A variable declared inside a loop is assigned afresh in each of its
    /// iterations, so only a loop nested deeper can carry its value around.
    pub(super) fn note_copy(&mut self, var: Var, new: bool) {
        if self.may_have_redundant_phis {
            return;
        }
        let v = var as usize;
        if v >= self.decl_depth.len() {
            self.decl_depth.resize(v + 1, u32::MAX);
        }
        let decl = &mut self.decl_depth[v];
        if *decl == u32::MAX {
            *decl = self.loop_depth;
        }
        if self.loop_depth > *decl && !new {
            self.may_have_redundant_phis = true;
        }
    }
}

/// Whether `p` has an operand that is another live φ: only such φs can be
/// in an SCC of more than one φ.
fn has_phi_operand(b: &Builder, p: u32) -> bool {
    let Inst::Phi { values, .. } = &b.nodes[p as usize].inst else {
        return false;
    };
    values.iter().any(|&op| match b.resolve(op) {
        Operand::Value(Value(n)) => {
            n != p
                && b.forward[n as usize].is_none()
                && matches!(b.nodes[n as usize].inst, Inst::Phi { .. })
        }
        _ => false,
    })
}

/// Not in the set being searched (see [`tarjan`]).
const NONE: u32 = u32::MAX;

/// Working storage of [`remove_redundant_phis`], kept from function to
/// function. `pos` is all [`NONE`] and `member` all `false` (of any
/// length) before and after each use.
#[derive(Default)]
pub struct SccWork {
    pos: Vec<u32>,
    member: Vec<bool>,
    phis: Vec<u32>,
    sets: Vec<Vec<u32>>,
    users: Vec<u32>,
    comps: Vec<u32>,
    tarjan: SccScratch,
}

/// Removes every redundant φ-SCC among the live φs of `b`.
pub fn remove_redundant_phis(b: &mut Builder, w: &mut SccWork) {
    // A φ without φ operands is an SCC of its own, with no operands'
    // SCCs to wait for.
    let mut phis = std::mem::take(&mut w.phis);
    phis.clear();
    for blk in 0..b.blocks.len() {
        for i in 0..b.blocks[blk].phis.len() {
            let p = b.blocks[blk].phis[i];
            if b.forward[p as usize].is_some() {
                continue;
            }
            if has_phi_operand(b, p) {
                phis.push(p);
            } else {
                b.try_remove_trivial_phi(p);
            }
        }
    }
    phis.sort_unstable();
    phis.retain(|&p| b.forward[p as usize].is_none());
    if phis.is_empty() {
        w.phis = phis;
        return;
    }
    // Per node: its position in the set searched, and whether it is in the
    // SCC at hand.
    w.pos.resize(b.nodes.len(), NONE);
    w.member.resize(b.nodes.len(), false);
    let mut work = std::mem::take(&mut w.sets);
    work.clear();
    work.push(phis);
    while let Some(set) = work.pop() {
        tarjan(b, &set, w);
        let SccWork {
            member,
            users,
            comps,
            tarjan,
            ..
        } = w;
        let mut start = 0;
        for &end in &tarjan.ends {
            let scc = &comps[start..end];
            start = end;
            if scc.len() == 1 {
                b.try_remove_trivial_phi(scc[0]);
                continue;
            }
            for &p in scc {
                member[p as usize] = true;
            }
            let (outer, inner) = outside_operands(b, scc, member);
            match outer {
                Outer::One(x) => {
                    users.clear();
                    for &p in scc {
                        b.replace_phi(p, x);
                        users.extend(b.phi_users.of(p).filter(|u| !member[*u as usize]));
                    }
                    for &p in scc {
                        member[p as usize] = false;
                    }
                    for &u in users.iter() {
                        b.try_remove_trivial_phi(u);
                    }
                }
                Outer::None | Outer::Several => {
                    for &p in scc {
                        member[p as usize] = false;
                    }
                    if matches!(outer, Outer::Several)
                        && !inner.is_empty()
                        && inner.len() < scc.len()
                    {
                        work.push(inner);
                    }
                }
            }
        }
        w.phis = set;
    }
    w.sets = work;
}

/// How many distinct operands from outside an SCC its φs have.
enum Outer {
    None,
    One(Operand),
    Several,
}

/// The operands of the φs of `scc` (whose nodes `member` marks) that come
/// from outside it, and its inner φs (those with none).
fn outside_operands(b: &Builder, scc: &[u32], member: &[bool]) -> (Outer, Vec<u32>) {
    let mut outer = Outer::None;
    let mut inner = Vec::new();
    for &p in scc {
        let mut is_inner = true;
        if let Inst::Phi { values, .. } = &b.nodes[p as usize].inst {
            for &op in values {
                let op = b.resolve(op);
                if let Operand::Value(Value(n)) = op
                    && member[n as usize]
                {
                    continue;
                }
                is_inner = false;
                outer = match outer {
                    Outer::None => Outer::One(op),
                    Outer::One(x) if x == op => Outer::One(x),
                    _ => Outer::Several,
                };
            }
        }
        if is_inner {
            inner.push(p);
        }
    }
    (outer, inner)
}

/// Tarjan's SCCs of the graph "φ → its φ operands" restricted to `set`,
/// operands' SCCs before their users', listed flat: component `i` is
/// `w.comps[ends[i-1]..ends[i]]` with `ends` those of `w.tarjan`. `w.pos`
/// (all [`NONE`], as it is left) maps a node to its position in `set`
/// meanwhile. Iterative.
fn tarjan(b: &Builder, set: &[u32], w: &mut SccWork) {
    for (i, &p) in set.iter().enumerate() {
        w.pos[p as usize] = i as u32;
    }
    let at: &[u32] = &w.pos;
    sccs_flat_in(&mut w.tarjan, set.len(), |v| {
        let values: &[Operand] = match &b.nodes[set[v] as usize].inst {
            Inst::Phi { values, .. } => values,
            _ => &[],
        };
        values.iter().filter_map(move |&op| match b.resolve(op) {
            Operand::Value(Value(n)) if at[n as usize] != NONE => Some(at[n as usize] as usize),
            _ => None,
        })
    });
    for &p in set {
        w.pos[p as usize] = NONE;
    }
    // `sccs_flat_in` lists a component from its DFS root down the Tarjan
    // stack; this pass visits a component's φs in stack-pop order (root
    // last).
    w.comps.clear();
    w.comps.extend(w.tarjan.nodes.iter().map(|&v| set[v]));
    let mut start = 0;
    for &end in &w.tarjan.ends {
        w.comps[start..end].reverse();
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Type};
    use crate::span::Span;

    #[test]
    fn copies_in_loops_are_old_values_assigned_in_deeper_loops() {
        let mut b = Builder::new(vec![Type::Int; 3]);
        // Until the front end vouches for reducible control flow, the
        // search is always needed.
        assert!(b.may_have_redundant_phis);
        b.may_have_redundant_phis = false;
        // Declared outside all loops, then given a new value in one.
        b.write_var(0, 0, Operand::Arg(0));
        b.loop_depth = 1;
        let n = b.binary(
            BinaryOp::IAdd,
            Operand::Arg(0),
            Operand::Int(1),
            Type::Int,
            Span::default(),
        );
        b.write_var(0, 0, n);
        // Declared in the loop: assigned again at the same depth, old values
        // included, it is not carried around.
        b.write_var(1, 0, Operand::Int(0));
        b.write_var(1, 0, Operand::Arg(0));
        b.write_var(1, 0, n);
        assert!(!b.may_have_redundant_phis);
        // In a nested loop, an old value: `n` is variable 0's already.
        b.loop_depth = 2;
        b.write_var(1, 0, n);
        assert!(b.may_have_redundant_phis);

        // A constant assigned in a loop to a variable declared outside.
        let mut b = Builder::new(vec![Type::Int; 1]);
        b.may_have_redundant_phis = false;
        b.write_var(0, 0, Operand::Int(0));
        b.loop_depth = 1;
        b.write_var(0, 0, Operand::Int(0));
        assert!(b.may_have_redundant_phis);
    }
}
