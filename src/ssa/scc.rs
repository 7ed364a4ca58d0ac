//! Removal of redundant φ-SCCs (Braun et al. 2013, §3.2), which makes the
//! result minimal even where trivial-φ removal alone cannot (φs that only
//! feed each other around a loop, irreducible shapes).
//!
//! A set of φs whose operands are only each other and one outside value `x`
//! all stand for `x`. SCCs of the φ graph are visited operands-first (the
//! order Tarjan's algorithm emits them); an SCC with exactly one outside
//! operand is replaced by it, one with several is searched again among its
//! inner φs (those with no outside operand). Iterative throughout.
use super::builder::{Builder, FxMap, FxSet, OpKey, op_key};
use crate::ir::{Inst, Operand, Value};

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

/// Removes every redundant φ-SCC among the live φs of `b`.
pub fn remove_redundant_phis(b: &mut Builder) {
    // A φ without φ operands is an SCC of its own, with no operands'
    // SCCs to wait for.
    let mut phis: Vec<u32> = Vec::new();
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
    let mut work = vec![phis];
    while let Some(set) = work.pop() {
        for scc in tarjan(b, &set) {
            if scc.len() == 1 {
                b.try_remove_trivial_phi(scc[0]);
                continue;
            }
            let members: FxSet<u32> = scc.iter().copied().collect();
            let mut inner = Vec::new();
            let mut outer: Vec<Operand> = Vec::new();
            let mut seen: FxSet<OpKey> = FxSet::default();
            for &p in &scc {
                let mut is_inner = true;
                for op in b.phi_operands(p) {
                    if let Operand::Value(Value(n)) = op
                        && members.contains(&n)
                    {
                        continue;
                    }
                    is_inner = false;
                    if seen.insert(op_key(op)) {
                        outer.push(op);
                    }
                }
                if is_inner {
                    inner.push(p);
                }
            }
            if outer.len() == 1 {
                let x = outer[0];
                let mut users = Vec::new();
                for &p in &scc {
                    b.replace_phi(p, x);
                    users.extend(
                        b.phi_users[p as usize]
                            .iter()
                            .copied()
                            .filter(|u| !members.contains(u)),
                    );
                }
                for u in users {
                    b.try_remove_trivial_phi(u);
                }
            } else if outer.len() > 1 && !inner.is_empty() && inner.len() < scc.len() {
                work.push(inner);
            }
        }
    }
}

/// Tarjan's SCCs of the graph "φ → its φ operands" restricted to `set`,
/// operands' SCCs before their users'. Iterative.
fn tarjan(b: &Builder, set: &[u32]) -> Vec<Vec<u32>> {
    let index_of: FxMap<u32, usize> = set.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let succ: Vec<Vec<usize>> = set
        .iter()
        .map(|&p| {
            b.phi_operands(p)
                .into_iter()
                .filter_map(|op| match op {
                    Operand::Value(Value(n)) => index_of.get(&n).copied(),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // `sccs` lists a component from its DFS root down the Tarjan stack;
    // this pass visits a component's φs in stack-pop order (root last).
    crate::ir::graph::sccs(&succ)
        .into_iter()
        .map(|comp| comp.into_iter().rev().map(|w| set[w]).collect())
        .collect()
}
