//! The MemorySSA verifier: the invariants of [`MemorySsa`](super) against
//! the function. Passes that use MemorySSA run it when their context asks
//! for verification (`opt::PassCtx::check_memssa`), before their edits are
//! compacted away.

use super::alias::{Effect, Summaries, inst_effect};
use super::{AccessId, AccessKind, LIVE_ON_ENTRY, MemorySsa};
use crate::ir::dom::unique_preds;
use crate::ir::{BlockId, IrCode};

/// Checks `m` against `ir` (`sums`: the summaries `m` was built with);
/// `Err` lists every violation.
pub fn verify(m: &MemorySsa, ir: &IrCode, sums: &Summaries) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    check_lists(m, ir, &mut errs);
    check_statements(m, ir, sums, &mut errs);
    for a in m.live_accesses() {
        match &m.access(a).kind {
            AccessKind::Def { .. } | AccessKind::Use { .. } => check_def_or_use(m, a, &mut errs),
            AccessKind::Phi { incoming } => check_phi(m, ir, a, incoming, &mut errs),
            AccessKind::LiveOnEntry => {}
        }
    }
    check_users(m, &mut errs);
    if errs.is_empty() { Ok(()) } else { Err(errs) }
}

/// Each block's access list: live accesses of that block, its φ first,
/// then the defs and uses in statement order.
fn check_lists(m: &MemorySsa, ir: &IrCode, errs: &mut Vec<String>) {
    let n_stmts = ir.stmts.len() as u32;
    for (b, list) in m.lists.iter() {
        let mut last: Option<u32> = None;
        for (k, &a) in list.iter().enumerate() {
            let acc = m.access(a);
            if acc.removed {
                errs.push(format!("block {b}: removed access {} listed", a.0));
            }
            if acc.block != b {
                errs.push(format!(
                    "access {} listed in {b} but says {}",
                    a.0, acc.block
                ));
            }
            match &acc.kind {
                AccessKind::Phi { .. } => {
                    if k != 0 || m.phi_for(b) != Some(a) {
                        errs.push(format!(
                            "block {b}: φ {} not first or not the block's φ",
                            m.name(a)
                        ));
                    }
                }
                AccessKind::Def { inst } | AccessKind::Use { inst } => {
                    if m.block_of(*inst) != Some(b) {
                        errs.push(format!(
                            "access of {inst} listed in {b} but the statement is elsewhere"
                        ));
                    }
                    if inst.0 < n_stmts {
                        if last.is_some_and(|l| l >= inst.0) {
                            errs.push(format!(
                                "block {b}: accesses out of statement order at {inst}"
                            ));
                        }
                        last = Some(inst.0);
                    }
                }
                AccessKind::LiveOnEntry => errs.push("liveOnEntry listed in a block".to_string()),
            }
        }
    }
}

/// Every memory statement has its access, of the right kind.
fn check_statements(m: &MemorySsa, ir: &IrCode, sums: &Summaries, errs: &mut Vec<String>) {
    for (v, inst) in ir.stmts.inst.iter() {
        let want = inst_effect(ir, v, inst, sums).map(|e| e.writes != Effect::None);
        let have = m
            .access_for(v)
            .map(|a| matches!(m.access(a).kind, AccessKind::Def { .. }));
        if want != have {
            errs.push(format!(
                "{v}: expected {:?} access (def?), found {:?}",
                want, have
            ));
        }
    }
}

/// A def or use `a`: its defining access is live, a def, dominates it
/// (liveOnEntry when unreachable) and lists it as a user; its optimized
/// clobber, if any, is sane.
fn check_def_or_use(m: &MemorySsa, a: AccessId, errs: &mut Vec<String>) {
    let acc = m.access(a);
    let reachable = m.dom.reachable(acc.block);
    let Some(d) = acc.defining else {
        errs.push(format!("access {} has no defining access", a.0));
        return;
    };
    if m.access(d).removed {
        errs.push(format!("access {} defined by removed access", a.0));
    }
    if !reachable && d != LIVE_ON_ENTRY {
        errs.push(format!(
            "access {} in unreachable #{} not liveOnEntry",
            a.0,
            acc.block.0 + 1
        ));
    }
    if reachable && (d == a || !m.dominates(d, a)) {
        errs.push(format!(
            "{}: defining access {} does not dominate it",
            m.describe(a),
            m.name(d)
        ));
    }
    if matches!(m.access(d).kind, AccessKind::Use { .. }) {
        errs.push(format!("{}: defined by a use", m.describe(a)));
    }
    if !m.has_user(d, a) {
        errs.push(format!(
            "{}: missing from users of {}",
            m.describe(a),
            m.name(d)
        ));
    }
    if let Some(o) = m.optimized(a) {
        let use_ok = !matches!(acc.kind, AccessKind::Use { .. }) || Some(o) == acc.defining;
        if !use_ok || m.access(o).removed || (reachable && (o == a || !m.dominates(o, a))) {
            errs.push(format!(
                "{}: optimized clobber {} not sane",
                m.describe(a),
                m.name(o)
            ));
        }
    }
}

/// A φ `a`: one operand per predecessor, each live, listing `a` as a user,
/// and dominating its predecessor (liveOnEntry from an unreachable one).
fn check_phi(
    m: &MemorySsa,
    ir: &IrCode,
    a: AccessId,
    incoming: &[(BlockId, AccessId)],
    errs: &mut Vec<String>,
) {
    let preds = unique_preds(&ir.cfg, m.access(a).block);
    let got: Vec<BlockId> = incoming.iter().map(|(p, _)| *p).collect();
    if got.len() != preds.len() || preds.iter().any(|p| !got.contains(p)) {
        errs.push(format!(
            "{}: operands do not match predecessors",
            m.describe(a)
        ));
    }
    for (p, x) in incoming {
        if m.access(*x).removed {
            errs.push(format!("{}: operand removed", m.describe(a)));
            continue;
        }
        if !m.has_user(*x, a) {
            errs.push(format!(
                "{}: missing from users of {}",
                m.describe(a),
                m.name(*x)
            ));
        }
        if !m.dom.reachable(*p) {
            if *x != LIVE_ON_ENTRY {
                errs.push(format!(
                    "{}: operand from unreachable {p} not liveOnEntry",
                    m.describe(a)
                ));
            }
            continue;
        }
        let xb = m.access(*x).block;
        if *x != LIVE_ON_ENTRY && !m.dom.dominates(xb, *p) {
            errs.push(format!(
                "{}: operand {} does not dominate {p}",
                m.describe(a),
                m.name(*x)
            ));
        }
    }
}

/// Every user listed for an access refers to it (or is removed).
fn check_users(m: &MemorySsa, errs: &mut Vec<String>) {
    for (d, us) in m.users.iter() {
        for &u in us.iter() {
            let acc = m.access(u);
            let refers = acc.defining == Some(d)
                || matches!(&acc.kind, AccessKind::Phi { incoming } if incoming.iter().any(|(_, x)| *x == d));
            if !refers && !acc.removed {
                errs.push(format!(
                    "users of {} list {} which does not use it",
                    d.0, u.0
                ));
            }
        }
    }
}
