//! CFG simplification on the block view ([`BlockIr`]), then compaction:
//! - a branch on a constant becomes a `goto`; the dead edge's φ operands go;
//! - an empty block `E: goto T` is threaded: each predecessor `P` jumps to
//!   `T` directly (T's φs get `P => value on E`), unless `P` already reaches
//!   `T` with a different φ value;
//! - a block `B` whose only predecessor `A` ends in `goto B` is merged into
//!   `A` (B's φs become copies); handler blocks (with `φᶜ`) are never merged;
//! - compaction then drops unreachable blocks and folds φs.
//!
//! Rounds repeat until nothing changes; each change removes a block or an
//! edge, so it terminates. Counters: `simplifycfg.branches`,
//! `simplifycfg.threaded`, `simplifycfg.merged`, `simplifycfg.blocks`.
//!
//! Two shortcuts give the rounds' result without the block view: a
//! function the rounds would leave as it is ([`may_change`]) is left
//! alone, and one where all they would do is merge blocks into the block
//! right before them (what removed checks leave behind) has its block
//! ranges joined in place ([`merge_adjacent`]). Debug builds run the
//! rounds as well and compare.

use crate::ir::FxSet;
use crate::ir::blocks::{BlockIr, Label, Positions, Term};
use crate::ir::compacted::{compact_if_needed, is_compacted};
use crate::ir::{BlockId, Flags, Inst, IrCode, Operand, Value};
use crate::opt::PassCtx;
use cranelift_entity::{EntityRef, SecondaryMap};

/// Removes the operands of edge `from` from the φs of block `to` (`pos`:
/// the block index of each label, [`BlockIr::positions`]).
fn drop_phi_edge(bir: &mut BlockIr, pos: &Positions, to: Label, from: Label) {
    if let Some(b) = pos[to].and_then(|i| bir.blocks.get_mut(i)) {
        for s in b.phis_mut() {
            if let Inst::Phi { edges, values } = &mut s.inst {
                while let Some(i) = edges.iter().position(|e| *e == from) {
                    edges.remove(i);
                    values.remove(i);
                }
            }
        }
    }
}

/// The φ operands of block at `pos` along edge `from`, or `None` if some φ
/// has no operand for it.
fn phi_values_on(bir: &BlockIr, pos: usize, from: Label) -> Option<Vec<Operand>> {
    let mut out = Vec::new();
    for s in bir.blocks[pos].stmts.iter() {
        match &s.inst {
            Inst::Phi { edges, values } => out.push(values[edges.iter().position(|e| *e == from)?]),
            Inst::Nothing => {}
            _ => break,
        }
    }
    Some(out)
}

fn fold_constant_branches(bir: &mut BlockIr) -> u64 {
    let mut n = 0;
    let mut killed = Vec::new();
    for b in &mut bir.blocks {
        if let Term::Branch {
            cond: Operand::Bool(c),
            then,
            els,
        } = b.term
        {
            let (keep, dead) = if c { (then, els) } else { (els, then) };
            b.term = Term::Goto(keep);
            if dead != keep {
                killed.push((dead, b.label));
            }
            n += 1;
        }
    }
    let pos = bir.positions();
    for (to, from) in killed {
        drop_phi_edge(bir, &pos, to, from);
    }
    n
}

fn is_empty(b: &crate::ir::blocks::BBlock) -> bool {
    b.stmts.iter().all(|s| matches!(s.inst, Inst::Nothing))
}

/// Removes the blocks unreachable from the entry, and their φ edges.
fn remove_unreachable(bir: &mut BlockIr) {
    let pos = bir.positions();
    let mut live = vec![false; bir.blocks.len()];
    let mut work = vec![0usize];
    while let Some(i) = work.pop() {
        if i >= live.len() || live[i] {
            continue;
        }
        live[i] = true;
        for s in bir.blocks[i].term.succs() {
            if let Some(j) = pos[s] {
                work.push(j);
            }
        }
    }
    let mut dead = Vec::new();
    for (i, b) in bir.blocks.iter().enumerate() {
        if !live[i] {
            for s in b.term.succs() {
                dead.push((s, b.label));
            }
        }
    }
    for (to, from) in dead {
        drop_phi_edge(bir, &pos, to, from);
    }
    let mut i = 0;
    bir.blocks.retain(|_| {
        i += 1;
        live[i - 1]
    });
}

/// What a round works from: the predecessors, edges and positions at its
/// start, the labels it changed (a changed block waits for the next round)
/// and the blocks it removed (by position).
struct Round {
    preds: SecondaryMap<Label, Vec<Label>>,
    edges: FxSet<(Label, Label)>,
    pos: Positions,
    dirty: SecondaryMap<Label, bool>,
    removed: Vec<bool>,
}

/// One round of threading (when `thread`) and merging; returns
/// (threaded, merged).
fn round(bir: &mut BlockIr, thread: bool) -> (u64, u64) {
    remove_unreachable(bir);
    let preds = bir.preds();
    let edges = preds
        .iter()
        .flat_map(|(t, ps)| ps.iter().map(move |&p| (p, t)))
        .collect();
    let mut r = Round {
        preds,
        edges,
        pos: bir.positions(),
        dirty: SecondaryMap::new(),
        removed: vec![false; bir.blocks.len()],
    };
    let (mut threaded, mut merged) = (0, 0);
    for ei in 1..bir.blocks.len() {
        if r.dirty[bir.blocks[ei].label] {
            continue;
        }
        if merge_into_pred(bir, &mut r, ei) {
            merged += 1;
        } else if thread {
            threaded += thread_empty(bir, &mut r, ei);
        }
    }
    let mut i = 0;
    bir.blocks.retain(|_| {
        i += 1;
        !r.removed[i - 1]
    });
    (threaded, merged)
}

/// Merges the block at `ei` into its single predecessor when that ends in
/// a `goto` to it and neither changed this round (its φs become copies);
/// never a handler block (with `φᶜ`).
fn merge_into_pred(bir: &mut BlockIr, r: &mut Round, ei: usize) -> bool {
    let e = bir.blocks[ei].label;
    let &[a] = r.preds[e].as_slice() else {
        return false;
    };
    let Some(ai) = r.pos[a] else { return false };
    let handler = bir.blocks[ei]
        .stmts
        .iter()
        .any(|s| matches!(s.inst, Inst::PhiC { .. }));
    if a == e || bir.blocks[ai].term != Term::Goto(e) || r.dirty[a] || handler {
        return false;
    }
    let mut stmts = std::mem::take(&mut bir.blocks[ei].stmts);
    for s in &mut stmts {
        if let Inst::Phi { values, .. } = &s.inst {
            s.inst = match values.first() {
                Some(v) => Inst::Copy(*v),
                None => Inst::Nothing,
            };
        }
    }
    let term = bir.blocks[ei].term.clone();
    let span = bir.blocks[ei].term_span;
    let flags = bir.blocks[ei].term_flags;
    let succs = term.succs();
    let blk = &mut bir.blocks[ai];
    blk.stmts.extend(stmts);
    blk.term = term;
    blk.term_span = span;
    blk.term_flags.insert(flags);
    for s in succs {
        if let Some(si) = r.pos[s] {
            bir.blocks[si].rename_phi_edge(e, a);
            r.dirty[s] = true;
        }
    }
    bir.blocks[ei].term = Term::Unreachable;
    r.removed[ei] = true;
    r.dirty[a] = true;
    r.dirty[e] = true;
    true
}

/// Threads the empty block at `ei` (`E: goto T`): each predecessor that
/// did not change this round, is not `T`, reaches `E` by a `goto` or the
/// false edge of a branch, and does not already reach `T` with other φ
/// values jumps to `T` directly. `E` goes when every predecessor was
/// threaded. Returns how many were.
fn thread_empty(bir: &mut BlockIr, r: &mut Round, ei: usize) -> u64 {
    let e = bir.blocks[ei].label;
    let Term::Goto(t) = bir.blocks[ei].term else {
        return 0;
    };
    let Some(ti) = r.pos[t] else { return 0 };
    let e_preds = r.preds[e].clone();
    if t == e || r.dirty[t] || !is_empty(&bir.blocks[ei]) || e_preds.is_empty() {
        return 0;
    }
    let Some(on_e) = phi_values_on(bir, ti, e) else {
        return 0;
    };
    let mut threaded = 0;
    let mut all = true;
    for p in e_preds {
        let Some(pi) = r.pos[p] else {
            all = false;
            continue;
        };
        // Retargeting the true edge of a branch would only bring back a
        // trampoline block at lowering (it must fall through).
        let true_edge = matches!(bir.blocks[pi].term, Term::Branch { then, .. } if then == e);
        if r.dirty[p] || p == t || true_edge {
            all = false;
            continue;
        }
        if r.edges.contains(&(p, t)) {
            match phi_values_on(bir, ti, p) {
                Some(on_p) if on_p.iter().zip(&on_e).all(|(x, y)| x == y) => {}
                _ => {
                    all = false;
                    continue;
                }
            }
        } else {
            for s in bir.blocks[ti].phis_mut() {
                if let Inst::Phi { edges, values } = &mut s.inst
                    && let Some(i) = edges.iter().position(|x| *x == e)
                {
                    let v = values[i];
                    edges.push(p);
                    values.push(v);
                }
            }
        }
        bir.blocks[pi].term.retarget(e, t);
        r.dirty[p] = true;
        threaded += 1;
    }
    if all {
        drop_phi_edge(bir, &r.pos, t, e);
        r.removed[ei] = true;
    }
    if threaded > 0 || all {
        r.dirty[e] = true;
        r.dirty[t] = true;
    }
    threaded
}

/// Whether block `b` (not the entry) is empty (nothing but `nothing` and a
/// `goto`) and entered other than by the true edge of the branch right
/// before it: one the rounds may thread.
fn threadable(ir: &IrCode, b: BlockId) -> bool {
    let (blocks, insts) = (&ir.cfg.blocks, &ir.stmts.inst);
    let bb = &blocks[b];
    let empty = bb
        .values()
        .all(|v| matches!(insts[v], Inst::Nothing | Inst::Goto(_)));
    let by_true_edge = |p: &BlockId| {
        p.0 + 1 == b.0
            && matches!(blocks[*p].last().map(|v| &insts[v]),
                Some(Inst::GotoIfNot { dest, .. }) if *dest != b)
    };
    empty && !bb.preds.iter().all(by_true_edge)
}

/// Whether [`run`] could change `ir`. It cannot when `ir` is compacted
/// ([`is_compacted`]: every block reachable, no branch on a constant), no
/// branch falls through to its own target, no block is the only successor
/// of its only predecessor, no block with other statements ends in a
/// `goto` to the next block, and no empty block (nothing but a `goto`, if
/// that) is entered other than by the true edge of the branch before it:
/// then the block view lowers back to `ir` itself (debug builds check it).
/// `compacted` is `is_compacted(ir)`.
fn may_change(ir: &IrCode, thread: bool, compacted: bool) -> bool {
    let blocks = &ir.cfg.blocks;
    let insts = &ir.stmts.inst;
    let last = |b: BlockId| blocks[b].last().map(|v| &insts[v]);
    for (b, bb) in blocks.iter() {
        let next = BlockId(b.0 + 1);
        match last(b) {
            Some(Inst::GotoIfNot { dest, .. }) if *dest == next => return true,
            Some(Inst::Goto(d)) if *d == next && bb.stmts.len() > 1 => return true,
            _ => {}
        }
        if b.0 == 0 {
            continue;
        }
        if let &[a] = bb.preds.as_slice()
            && blocks[a].succs.len() == 1
        {
            return true;
        }
        if thread && threadable(ir, b) {
            return true;
        }
    }
    !compacted
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    run_with(ir, ctx, true);
}

/// [`run`] without threading: branches on constants fold and blocks merge,
/// but every empty block stays. What `checks` runs after removing checks
/// (whose folded branches leave blocks to merge): the empty blocks
/// `loops` made (dedicated preheaders and exits) stay, and merging a block
/// into its only predecessor keeps them dedicated, so the loop forms
/// `rotate` and `licm` need survive.
pub fn merge_only(ir: &mut IrCode, ctx: &mut PassCtx) {
    run_with(ir, ctx, false);
}

fn run_with(ir: &mut IrCode, ctx: &mut PassCtx, thread: bool) {
    let compacted = ctx.is_input_compacted(ir);
    if !may_change(ir, thread, compacted) {
        #[cfg(debug_assertions)]
        {
            let mut full = ir.clone();
            simplify(&mut full, &mut PassCtx::default(), thread);
            debug_assert!(
                full == *ir,
                "simplifycfg changed fn {} that may_change passed",
                ir.name
            );
        }
        return;
    }
    #[cfg(debug_assertions)]
    let before = ir.clone();
    if compacted && let Some(merged) = merge_adjacent(ir, thread) {
        #[cfg(debug_assertions)]
        {
            let mut full = before;
            let mut full_ctx = PassCtx::default();
            simplify(&mut full, &mut full_ctx, thread);
            debug_assert!(
                full == *ir && full_ctx.counters.get("simplifycfg.merged") == merged,
                "simplifycfg's merges in place differ from its rounds in fn {}",
                ir.name
            );
        }
        ctx.counters.add("simplifycfg.merged", merged);
        return;
    }
    simplify(ir, ctx, thread);
}

/// The merges [`simplify`] would make, done on `ir` itself when they are
/// all it would do besides dropping `goto`s to the next block: `ir` is
/// compacted (the caller checked), nothing is to be threaded (every empty
/// block is entered by true edges only), no branch targets the next block,
/// and each block `b`
/// that is the only successor of its only predecessor `a` (and not a
/// handler) comes right after it, `a` falling through or ending in a
/// `goto b` (neither of them a lone `nothing`). Then the rounds would merge
/// exactly those pairs, moving no statement: the blocks' ranges join and
/// block numbers close up; the dropped `goto`s become `nothing` for a
/// compaction to remove. Returns how many blocks merged, or `None` (and
/// leaves `ir` alone) when that is not all.
fn merge_adjacent(ir: &mut IrCode, thread: bool) -> Option<u64> {
    let Plan { into_prev, drop } = plan_adjacent(ir, thread)?;
    let n = ir.cfg.blocks.len();
    let mut new_id = vec![0u32; n];
    let mut ranges: Vec<std::ops::Range<u32>> = Vec::with_capacity(n);
    for (b, bb) in ir.cfg.blocks.iter() {
        if into_prev[b.index()] {
            if let Some(r) = ranges.last_mut() {
                r.end = bb.stmts.end;
            }
        } else {
            ranges.push(bb.stmts.clone());
        }
        new_id[b.index()] = ranges.len() as u32 - 1;
    }
    let merged = (n - ranges.len()) as u64;
    for &v in &drop {
        ir.stmts.inst[v] = Inst::Nothing;
    }
    let rename = |b: &mut BlockId| *b = BlockId(new_id[b.index()]);
    for inst in ir.stmts.inst.values_mut() {
        match inst {
            Inst::Goto(d) | Inst::GotoIfNot { dest: d, .. } => rename(d),
            Inst::Phi { edges, .. } => edges.iter_mut().for_each(rename),
            _ => {}
        }
    }
    let old = std::mem::take(&mut ir.cfg);
    ir.cfg = crate::ir::edges::cfg_reusing(&ir.stmts.inst, ranges, old);
    if !drop.is_empty() {
        crate::ir::compact::compact_only(ir);
    }
    Some(merged)
}

/// What [`merge_adjacent`] does: per block, whether it merges into the
/// block before; the `goto`s to the next block it drops.
struct Plan {
    into_prev: Vec<bool>,
    drop: Vec<Value>,
}

/// [`merge_adjacent`]'s plan for a compacted `ir`, or `None` when
/// simplifycfg would do anything else (see there).
fn plan_adjacent(ir: &IrCode, thread: bool) -> Option<Plan> {
    debug_assert!(is_compacted(ir));
    let blocks = &ir.cfg.blocks;
    let insts = &ir.stmts.inst;
    let last = |b: BlockId| blocks[b].last().map(|v| (v, &insts[v]));
    let lone_nothing = |b: BlockId| {
        let bb = &blocks[b];
        bb.stmts.len() == 1 && matches!(insts[Value(bb.stmts.start)], Inst::Nothing)
    };
    let mut plan = Plan {
        into_prev: vec![false; blocks.len()],
        drop: Vec::new(),
    };
    for (b, bb) in blocks.iter() {
        // A branch whose both edges go to the next block.
        if matches!(last(b), Some((_, Inst::GotoIfNot { dest, .. })) if *dest == b.next()) {
            return None;
        }
        if b.0 == 0 {
            continue;
        }
        if thread && threadable(ir, b) {
            return None;
        }
        let &[a] = bb.preds.as_slice() else { continue };
        if blocks[a].succs.len() != 1 || bb.values().any(|v| matches!(insts[v], Inst::PhiC { .. }))
        {
            continue;
        }
        if a.0 + 1 != b.0 || lone_nothing(a) || lone_nothing(b) {
            return None;
        }
        match last(a) {
            Some((_, i)) if !i.is_terminator() => {}
            // The merged block's terminator takes the goto's flags too.
            Some((g, Inst::Goto(_))) => {
                let term_flags = match last(b) {
                    Some((t, i)) if i.is_terminator() => ir.stmts.flags[t],
                    _ => Flags::default(),
                };
                if !term_flags.contains(ir.stmts.flags[g]) {
                    return None;
                }
                plan.drop.push(g);
            }
            _ => return None,
        }
        plan.into_prev[b.index()] = true;
    }
    drop_gotos_to_the_next_group(ir, &mut plan);
    Some(plan)
}

/// Adds to `plan.drop` each `goto` to the next block that ends a group of
/// merged blocks (a block that merges with none is a group of its own)
/// when the group holds a statement besides terminators: lowering leaves a
/// jump to the next block implicit in a block with statements, and keeps
/// it in one that holds nothing else. (The `goto`s inside a group go as
/// its blocks merge.)
fn drop_gotos_to_the_next_group(ir: &IrCode, plan: &mut Plan) {
    let blocks = &ir.cfg.blocks;
    let insts = &ir.stmts.inst;
    let mut group_has_stmt = false;
    for (b, bb) in blocks.iter() {
        if !plan.into_prev[b.index()] {
            group_has_stmt = false;
        }
        let Some(last) = bb.last() else { continue };
        group_has_stmt |= bb.stmts.len() > 1 || !insts[last].is_terminator();
        let ends_group = !plan.into_prev.get(b.index() + 1).copied().unwrap_or(false);
        if ends_group && group_has_stmt && matches!(insts[last], Inst::Goto(d) if d == b.next()) {
            plan.drop.push(last);
        }
    }
}

/// [`run`]'s work: the rounds on the block view, lowering and compaction.
fn simplify(ir: &mut IrCode, ctx: &mut PassCtx, thread: bool) {
    let counters = &mut ctx.counters;
    let mut bir = BlockIr::from_ir(ir);
    let mut branches = fold_constant_branches(&mut bir);
    let (mut threaded, mut merged) = (0, 0);
    for _ in 0..=bir.blocks.len() + 1 {
        let (t, m) = round(&mut bir, thread);
        branches += fold_constant_branches(&mut bir);
        threaded += t;
        merged += m;
        if t == 0 && m == 0 {
            break;
        }
    }
    *ir = bir.lower();
    let stats = compact_if_needed(ir);
    counters.add("simplifycfg.branches", branches);
    counters.add("simplifycfg.threaded", threaded);
    counters.add("simplifycfg.merged", merged);
    counters.add("simplifycfg.blocks", stats.blocks_removed as u64);
}
