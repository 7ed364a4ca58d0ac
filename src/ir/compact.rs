//! Compaction: applies a [`NewNodes`] buffer, renumbers statements and
//! blocks, and cleans up in the same linear-time run (Julia's `compact!`).
//!
//! What one compaction does, in this order:
//! 1. Forwards every `Copy` (replace-all-uses) to its source.
//! 2. Finds the blocks reachable from the entry, following each block's
//!    terminator; a `GotoIfNot` whose condition is a constant has only its
//!    taken edge (the dead edge is killed).
//! 3. Prunes every φ of a live block to its live incoming edges, then folds a
//!    φ whose operands (ignoring itself) are all one value — this covers a
//!    block left with a single predecessor — with a worklist over φ users.
//! 4. Removes dead statements: unused and removable ([`removable`]), with a
//!    worklist on use counts, so chains of dead statements go at once.
//! 5. Emits the live blocks in their old order with new numbers: a
//!    `GotoIfNot` found constant in step 2 becomes a `Goto` (false) or
//!    disappears (true, fallthrough); one whose condition became constant
//!    only by step 3's φ folding stays (its edges were live for the φs);
//!    a block left empty keeps one `Nothing`; a block that falls through into
//!    a block that no longer follows it gets an explicit `Goto`.
//! 6. Renames every operand, φ edge and branch target, and rebuilds
//!    `preds`/`succs` from the terminators.
//!
//! [`IncrementalCompact`] exposes the same run as an iterator: a pass walks
//! the statements in final order, rewriting them (operands it sees are
//! already forwarded through the copies seen so far), and `finish` performs
//! the cleanup above in the same sweep's aftermath.

use crate::ir::edges::{Succs, block_succs, cfg_reusing};
use crate::ir::edit::{NewNodes, for_each_operand_mut, for_each_value_use, removable};
use crate::ir::{
    BlockId, Cfg, Flags, Inst, InstructionStream, IrCode, NameId, Operand, Type, Value, VarName,
};
use crate::span::Span;
use cranelift_entity::EntityRef;

/// What a compaction did (the `compact.*` counters).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CompactStats {
    pub copies_forwarded: u32,
    pub phis_folded: u32,
    pub dead_removed: u32,
    pub branches_folded: u32,
    pub blocks_removed: u32,
    pub nodes_inserted: u32,
}

/// Applies `new` to `ir` and compacts it (see the module doc).
pub fn compact(ir: &mut IrCode, new: NewNodes) -> CompactStats {
    IncrementalCompact::new(ir, new).finish()
}

/// Compacts `ir` with no pending nodes.
pub fn compact_only(ir: &mut IrCode) -> CompactStats {
    let new = NewNodes::new(ir);
    compact(ir, new)
}

/// The value a dangling use is renamed to (only reachable from invalid
/// input, e.g. a cycle of copies); the verifier reports it. Not `u32::MAX`,
/// so that printing it (`%{n+1}`) cannot overflow.
const DANGLING: Value = Value(u32::MAX - 1);

/// A compaction in progress; see the module doc.
pub struct IncrementalCompact<'a> {
    ir: &'a mut IrCode,
    /// Original statements then new nodes, indexed by value.
    insts: Vec<Inst>,
    tys: Vec<Type>,
    spans: Vec<Span>,
    flags: Vec<Flags>,
    names: Vec<Option<NameId>>,
    /// The stream's table of names, which `names` index.
    name_table: Vec<VarName>,
    /// The values of every original block in final placement order, block
    /// after block: block `b`'s are `order[block_start[b]..block_start[b + 1]]`.
    order: Vec<u32>,
    block_start: Vec<u32>,
    subst: Vec<Option<Operand>>,
    new_count: u32,
    /// The position in `order` of the next statement [`Self::next_value`] yields.
    cur: usize,
    /// The value last yielded (its copy, if any, is recorded on the next step).
    last: Option<u32>,
}

impl<'a> IncrementalCompact<'a> {
    pub fn new(ir: &'a mut IrCode, new: NewNodes) -> IncrementalCompact<'a> {
        let stream = std::mem::take(&mut ir.stmts);
        let len = stream.len();
        // Working vectors, indexed by value: the stream's, then new nodes'.
        let (mut inst, mut ty, mut span, mut flags, mut names): (
            Vec<_>,
            Vec<_>,
            Vec<_>,
            Vec<_>,
            Vec<_>,
        ) = (
            stream.inst.into(),
            stream.ty.into(),
            stream.span.into(),
            stream.flags.into(),
            stream.name.into(),
        );
        let name_table = stream.names;
        // The new nodes placed before and after each statement, in buffer
        // order: `placed` sorted by (position, after?), stably.
        let new_count = new.nodes.len() as u32;
        let mut placed: Vec<(u32, bool, u32)> = Vec::new();
        let mut orphans = Vec::new();
        for (i, node) in new.nodes.into_iter().enumerate() {
            let v = len as u32 + i as u32;
            if (node.pos as usize) < len {
                placed.push((node.pos, node.attach_after, v));
            } else {
                orphans.push(v);
            }
            inst.push(node.inst);
            ty.push(node.ty);
            span.push(node.span);
            flags.push(node.flags);
            names.push(node.name);
        }
        placed.sort_by_key(|&(pos, after, _)| (pos, after));
        let (order, block_start) = placement_order(&ir.cfg, len, &placed, orphans);
        let n = inst.len();
        IncrementalCompact {
            ir,
            insts: inst,
            tys: ty,
            spans: span,
            flags,
            names,
            name_table,
            order,
            block_start,
            subst: vec![None; n],
            new_count,
            cur: 0,
            last: None,
        }
    }

    /// The next statement in final order (block by block), with its operands
    /// already forwarded through the copies seen so far.
    pub fn next_value(&mut self) -> Option<Value> {
        self.record_last();
        let v = *self.order.get(self.cur)?;
        self.cur += 1;
        let subst = &mut self.subst;
        if let Some(inst) = self.insts.get_mut(v as usize) {
            for_each_operand_mut(inst, |op| *op = resolve(subst, *op));
        }
        self.last = Some(v);
        Some(Value(v))
    }

    pub fn inst(&self, v: Value) -> &Inst {
        self.insts.get(v.index()).unwrap_or(&Inst::Nothing)
    }

    /// The instruction of `v`, to rewrite (`Copy(x)` replaces all uses,
    /// `Nothing` deletes).
    pub fn inst_mut(&mut self, v: Value) -> Option<&mut Inst> {
        self.insts.get_mut(v.index())
    }

    pub fn ty(&self, v: Value) -> &Type {
        self.tys.get(v.index()).unwrap_or(&Type::Void)
    }

    /// Resolves `op` through the copies recorded so far.
    pub fn resolve(&mut self, op: Operand) -> Operand {
        resolve(&mut self.subst, op)
    }

    fn record_last(&mut self) {
        if let Some(v) = self.last.take()
            && let Some(Inst::Copy(op)) = self.insts.get(v as usize)
        {
            self.subst[v as usize] = Some(*op);
        }
    }

    /// The successor blocks of old block `b` as its terminator says, the
    /// condition of a `GotoIfNot` resolved (a constant keeps one edge).
    fn succs_of(&mut self, b: usize) -> Succs {
        let nblocks = self.nblocks() as u32;
        let last = self.block(b).last().map(|&l| &self.insts[l as usize]);
        let succs = match last {
            Some(Inst::GotoIfNot { cond, dest }) => match resolve(&mut self.subst, *cond) {
                Operand::Bool(true) => block_succs(None, b as u32, nblocks),
                Operand::Bool(false) => Succs::one(*dest),
                _ => block_succs(last, b as u32, nblocks),
            },
            _ => block_succs(last, b as u32, nblocks),
        };
        let mut live = Succs::default();
        for s in succs.into_iter().filter(|s| s.0 < nblocks) {
            live.push(s);
        }
        live
    }

    /// The number of old blocks.
    fn nblocks(&self) -> usize {
        self.block_start.len() - 1
    }

    /// Old block `b`'s values in final placement order.
    fn block(&self, b: usize) -> &[u32] {
        &self.order[self.block_start[b] as usize..self.block_start[b + 1] as usize]
    }

    /// Completes the compaction and writes the result back into the IrCode:
    /// copies forwarded, blocks reachable with constant branches folded,
    /// φ edges pruned and trivial φs folded, dead statements dropped, then
    /// the survivors emitted and renumbered.
    pub fn finish(mut self) -> CompactStats {
        self.record_last();
        let mut stats = CompactStats::default();
        for v in 0..self.insts.len() {
            if let Inst::Copy(op) = self.insts[v] {
                self.subst[v] = Some(op);
                stats.copies_forwarded += 1;
            }
        }
        let mut reach = self.reachable_blocks();
        let phis = self.prune_phi_edges(&reach);
        stats.phis_folded = self.fold_trivial_phis(phis);
        // A branch whose condition became constant through the φs just
        // folded is folded too (and what that frees), so that the result
        // is compacted: compacting it again would change nothing.
        while self.newly_constant_branch(&reach) {
            reach = self.reachable_blocks();
            let phis = self.prune_phi_edges(&reach);
            stats.phis_folded += self.fold_trivial_phis(phis);
        }
        stats.blocks_removed = self.nblocks() as u32 - reach.live_count;
        let (keep, dead_removed) = self.surviving_statements(&reach);
        stats.dead_removed = dead_removed;
        let (out, ranges, renumber) = self.emit(&keep, &reach, &mut stats);
        self.rename_and_store(out, ranges, &renumber);
        stats
    }

    /// Whether a live block's branch that `reach` did not fold now has a
    /// constant condition (through φs folded since).
    fn newly_constant_branch(&mut self, reach: &Reach) -> bool {
        (0..self.nblocks()).any(|b| {
            reach.live[b] && reach.folded[b].is_none() && self.constant_branch(b).is_some()
        })
    }

    /// The constant old block `b`'s branch condition resolves to, if it
    /// ends in a branch.
    fn constant_branch(&mut self, b: usize) -> Option<bool> {
        let &last = self.block(b).last()?;
        let Inst::GotoIfNot { cond, .. } = self.insts[last as usize] else {
            return None;
        };
        match resolve(&mut self.subst, cond) {
            Operand::Bool(k) => Some(k),
            _ => None,
        }
    }

    /// Reachability from the entry, with constant branches folded.
    fn reachable_blocks(&mut self) -> Reach {
        let nblocks = self.nblocks();
        let mut live = vec![false; nblocks];
        let mut succs: Vec<Succs> = vec![Succs::default(); nblocks];
        let mut stack = Vec::new();
        if nblocks > 0 {
            live[0] = true;
            stack.push(0usize);
        }
        // The constant branches folded here (a condition that becomes
        // constant only when φs fold is found by the next round).
        let mut folded: Vec<Option<bool>> = vec![None; nblocks];
        while let Some(b) = stack.pop() {
            succs[b] = self.succs_of(b);
            folded[b] = self.constant_branch(b);
            for s in succs[b] {
                if !live[s.index()] {
                    live[s.index()] = true;
                    stack.push(s.index());
                }
            }
        }
        let mut new_id = vec![None; nblocks];
        let mut live_count = 0u32;
        for b in 0..nblocks {
            if live[b] {
                new_id[b] = Some(live_count);
                live_count += 1;
            }
        }
        Reach {
            live,
            succs,
            folded,
            new_id,
            live_count,
        }
    }

    /// Drops the φ edges from dead blocks and dead edges (operands
    /// resolved through copies); returns every φ of a live block.
    fn prune_phi_edges(&mut self, reach: &Reach) -> Vec<u32> {
        let mut phis = Vec::new();
        for b in 0..self.nblocks() {
            if !reach.live[b] {
                continue;
            }
            let vals = &self.order[self.block_start[b] as usize..self.block_start[b + 1] as usize];
            for &v in vals {
                if let Inst::Phi { edges, values } = &mut self.insts[v as usize] {
                    let mut kept = 0;
                    for k in 0..edges.len().min(values.len()) {
                        let p = edges[k].index();
                        if reach.live.get(p) == Some(&true)
                            && reach.succs[p].contains(&BlockId(b as u32))
                        {
                            edges[kept] = edges[k];
                            values[kept] = resolve(&mut self.subst, values[k]);
                            kept += 1;
                        }
                    }
                    edges.truncate(kept);
                    values.truncate(kept);
                    phis.push(v);
                }
            }
        }
        phis
    }

    /// Folds every φ whose operands are one value and itself into that
    /// value, to a fixpoint; returns how many. After a sweep over `phis`,
    /// the φs using a folded one are re-checked (their users gathered only
    /// once one folds: most compactions fold none), then `phis` is swept
    /// again until a sweep folds nothing (a φ whose operand reaches a
    /// folded φ only through another folded φ is not among its users).
    fn fold_trivial_phis(&mut self, phis: Vec<u32>) -> u32 {
        let mut folded = 0;
        let mut users = None;
        loop {
            let mut work: Vec<u32> = phis
                .iter()
                .copied()
                .filter(|&p| self.fold_if_trivial(p))
                .collect();
            if work.is_empty() {
                return folded;
            }
            folded += work.len() as u32;
            let users = users.get_or_insert_with(|| self.phi_users(&phis));
            while let Some(p) = work.pop() {
                // `p` folded once, so its users are queued once.
                for &q in users.of(p as usize) {
                    if self.fold_if_trivial(q) {
                        folded += 1;
                        work.push(q);
                    }
                }
            }
        }
    }

    /// Folds φ `p` into its one value besides itself, if it has one and is
    /// not folded yet; returns whether it folded now.
    fn fold_if_trivial(&mut self, p: u32) -> bool {
        if self.subst[p as usize].is_some() {
            return false;
        }
        let Inst::Phi { values, .. } = &self.insts[p as usize] else {
            return false;
        };
        let mut unique: Option<Operand> = None;
        for &val in values {
            let r = resolve(&mut self.subst, val);
            if r == Operand::Value(Value(p)) {
                continue;
            }
            match unique {
                None => unique = Some(r),
                Some(u) if u == r => {}
                Some(_) => return false,
            }
        }
        let Some(u) = unique else { return false };
        self.subst[p as usize] = Some(u);
        true
    }

    /// The φs of `phis` that use each value, keyed by value index (a φ
    /// using `w` twice is listed twice).
    fn phi_users(&self, phis: &[u32]) -> crate::ir::graph::Grouped<u32> {
        let n = self.insts.len();
        crate::ir::graph::group_by_key(n, 0u32, |f| {
            for &p in phis {
                let Inst::Phi { values, .. } = &self.insts[p as usize] else {
                    continue;
                };
                for val in values {
                    if let Operand::Value(w) = val
                        && w.index() < n
                    {
                        f(w.index(), p);
                    }
                }
            }
        })
    }

    /// Calls `f` on each value statement `v` uses, resolved through copies
    /// (`φᶜ` upsilons as they are); constants and dangling copies skipped.
    fn for_each_operand_of(&mut self, v: usize, mut f: impl FnMut(Value)) {
        let subst = &mut self.subst;
        let inst = &self.insts[v];
        let phic = matches!(inst, Inst::PhiC { .. });
        for_each_value_use(inst, |w| {
            let w = if phic {
                w
            } else {
                match resolve(subst, Operand::Value(w)) {
                    Operand::Value(x) => x,
                    _ => DANGLING,
                }
            };
            if w != DANGLING {
                f(w);
            }
        });
    }

    /// The statements that survive: alive (in a live block, not forwarded,
    /// not deleted) and not dead, where dead are the removable statements
    /// no surviving statement uses, transitively (a worklist over use
    /// counts, so dead cycles through φs stay only when something live uses
    /// them); and how many are dead.
    fn surviving_statements(&mut self, reach: &Reach) -> (Vec<bool>, u32) {
        let n = self.insts.len();
        // Alive: in a live block, not forwarded to another value, not
        // deleted. That does not change from here on (resolving only
        // shortens chains of copies already recorded).
        let mut keep = vec![false; n];
        let mut counts = vec![0u32; n];
        for b in (0..self.nblocks()).filter(|&b| reach.live[b]) {
            for k in self.block_start[b]..self.block_start[b + 1] {
                let v = self.order[k as usize] as usize;
                if self.subst[v].is_some() || matches!(self.insts[v], Inst::Nothing) {
                    continue;
                }
                keep[v] = true;
                self.for_each_operand_of(v, |w| {
                    if let Some(c) = counts.get_mut(w.index()) {
                        *c += 1;
                    }
                });
            }
        }
        let can_die = |this: &Self, keep: &[bool], v: usize| {
            keep[v]
                && (removable(&this.insts[v], this.flags[v])
                    || matches!(this.insts[v], Inst::Upsilon(_)))
        };
        let mut work: Vec<usize> = (0..n)
            .filter(|&v| counts[v] == 0 && can_die(self, &keep, v))
            .collect();
        let mut freed = Vec::new();
        let mut dead = 0;
        while let Some(v) = work.pop() {
            if !keep[v] {
                continue;
            }
            keep[v] = false;
            dead += 1;
            self.for_each_operand_of(v, |w| {
                let w = w.index();
                if let Some(c) = counts.get_mut(w) {
                    *c = c.saturating_sub(1);
                    if *c == 0 {
                        freed.push(w);
                    }
                }
            });
            work.extend(freed.drain(..).filter(|&w| can_die(self, &keep, w)));
        }
        (keep, dead)
    }

    /// Emits the surviving statements block by block (branches folded,
    /// block numbers mapped, a `goto` where a fallthrough no longer
    /// reaches the next block, `nothing` in a block left empty). Returns
    /// the stream, each block's range and each old value's new number.
    fn emit(
        &mut self,
        keep: &[bool],
        reach: &Reach,
        stats: &mut CompactStats,
    ) -> (
        InstructionStream,
        Vec<std::ops::Range<u32>>,
        Vec<Option<u32>>,
    ) {
        let n = self.insts.len();
        let nblocks = self.nblocks();
        let mut out = InstructionStream::with_capacity(n + nblocks);
        out.names = std::mem::take(&mut self.name_table);
        let mut ranges = Vec::with_capacity(reach.live_count as usize);
        let mut renumber = vec![None; n];
        let map_block = |b: BlockId| {
            BlockId(
                reach
                    .new_id
                    .get(b.index())
                    .copied()
                    .flatten()
                    .unwrap_or(u32::MAX - 1),
            )
        };
        for b in 0..nblocks {
            let Some(nb) = reach.new_id[b] else { continue };
            let start = out.len() as u32;
            let mut last_span = self.ir.span;
            for k in self.block_start[b]..self.block_start[b + 1] {
                let v = self.order[k as usize] as usize;
                last_span = self.spans[v];
                if !keep[v] {
                    continue;
                }
                if let Inst::GotoIfNot { dest, .. } = self.insts[v] {
                    match reach.folded[b] {
                        Some(true) => {
                            stats.branches_folded += 1;
                            continue;
                        }
                        Some(false) => {
                            stats.branches_folded += 1;
                            self.insts[v] = Inst::Goto(dest);
                        }
                        None => {}
                    }
                }
                if v as u32 >= n as u32 - self.new_count {
                    stats.nodes_inserted += 1;
                }
                renumber[v] = Some(out.len() as u32);
                let w = out.push_named(
                    Inst::Nothing,
                    std::mem::replace(&mut self.tys[v], Type::Void),
                    self.spans[v],
                    self.flags[v],
                    self.names[v].take(),
                );
                out.take_inst(w, &mut self.insts[v]);
                match &mut out.inst[w] {
                    Inst::GotoIfNot { dest, .. } | Inst::Goto(dest) => *dest = map_block(*dest),
                    Inst::Phi { edges, .. } => edges.iter_mut().for_each(|e| *e = map_block(*e)),
                    _ => {}
                }
            }
            let falls = match out.inst.last() {
                Some((_, i)) if out.len() as u32 > start => {
                    !i.is_terminator() || matches!(i, Inst::GotoIfNot { .. })
                }
                _ => true,
            };
            if falls && b + 1 < nblocks && reach.live[b + 1] && reach.new_id[b + 1] != Some(nb + 1)
            {
                out.push(
                    Inst::Goto(map_block(BlockId(b as u32 + 1))),
                    Type::Void,
                    last_span,
                    Flags::default(),
                );
            }
            if out.len() as u32 == start {
                out.push(Inst::Nothing, Type::Void, last_span, Flags::default());
            }
            ranges.push(start..out.len() as u32);
        }
        (out, ranges, renumber)
    }

    /// Renames every operand to its resolved, renumbered value and stores
    /// the stream and its CFG into the IrCode.
    fn rename_and_store(
        &mut self,
        mut out: InstructionStream,
        ranges: Vec<std::ops::Range<u32>>,
        renumber: &[Option<u32>],
    ) {
        for inst in out.inst.values_mut() {
            if let Inst::PhiC { upsilons } = inst {
                upsilons.retain(|u| renumber.get(u.index()).copied().flatten().is_some());
                for u in upsilons.iter_mut() {
                    *u = renumber[u.index()].map_or(DANGLING, Value);
                }
                continue;
            }
            let subst = &mut self.subst;
            for_each_operand_mut(inst, |op| {
                if let Operand::Value(_) = op {
                    *op = match resolve(subst, *op) {
                        Operand::Value(w) => Operand::Value(
                            renumber
                                .get(w.index())
                                .copied()
                                .flatten()
                                .map_or(DANGLING, Value),
                        ),
                        other => other,
                    };
                }
            });
        }
        self.ir.stmts = out;
        let old = std::mem::take(&mut self.ir.cfg);
        self.ir.cfg = cfg_reusing(&self.ir.stmts.inst, ranges, old);
    }
}

/// The final placement of the statements of `cfg`'s blocks (the first
/// `len` values) and of the new nodes `placed` (`(position, after?,
/// value)`, sorted) and `orphans` (placed outside the stream: before the
/// last block's final statement), flat, with each block's start in it
/// (one more entry than blocks).
fn placement_order(
    cfg: &Cfg,
    len: usize,
    placed: &[(u32, bool, u32)],
    orphans: Vec<u32>,
) -> (Vec<u32>, Vec<u32>) {
    let mut order = Vec::with_capacity(len + placed.len() + orphans.len());
    let mut block_start = Vec::with_capacity(cfg.blocks.len() + 1);
    for bb in cfg.blocks.values() {
        block_start.push(order.len() as u32);
        let end = bb.stmts.end.min(len as u32).max(bb.stmts.start);
        if placed.is_empty() {
            order.extend(bb.stmts.start..end);
            continue;
        }
        for s in bb.stmts.start..end {
            let mut k = placed.partition_point(|p| p.0 < s);
            while k < placed.len() && placed[k].0 == s && !placed[k].1 {
                order.push(placed[k].2);
                k += 1;
            }
            order.push(s);
            while k < placed.len() && placed[k].0 == s {
                order.push(placed[k].2);
                k += 1;
            }
        }
    }
    if let Some(&last_start) = block_start.last() {
        // Before the final terminator.
        let at = (order.len().saturating_sub(1)).max(last_start as usize);
        order.splice(at..at, orphans);
    }
    block_start.push(order.len() as u32);
    (order, block_start)
}

/// The block layout [`IncrementalCompact::finish`] computes first.
struct Reach {
    /// Per old block: reachable from the entry.
    live: Vec<bool>,
    /// Per reachable old block: its successors (constant branches folded).
    succs: Vec<Succs>,
    /// Per old block: the constant its branch condition folded to.
    folded: Vec<Option<bool>>,
    /// Per old block: its number in the result, if it survives.
    new_id: Vec<Option<u32>>,
    live_count: u32,
}

/// Follows the copy chain from `op` (bounded: a cycle of copies resolves
/// to `op` itself) and shortens the chain for the next lookup.
pub(crate) fn resolve(subst: &mut [Option<Operand>], op: Operand) -> Operand {
    let mut cur = op;
    let mut steps = 0usize;
    while let Operand::Value(v) = cur {
        match subst.get(v.index()).copied().flatten() {
            Some(next) => {
                cur = next;
                steps += 1;
                if steps > subst.len() {
                    return op;
                }
            }
            None => break,
        }
    }
    if let (Operand::Value(v), true) = (op, steps > 1) {
        subst[v.index()] = Some(cur);
    }
    cur
}
