//! Loop versioning for bounds checks on affine indices: a loop whose
//! bounds checks `i <ᵤ len` have indices `A + B*k` affine in its induction
//! variable `k` (with `A`, `B` and `len` defined outside the loop) gets a
//! guard in its preheader that holds only when every such index of every
//! iteration is in bounds, and a copy of itself without those checks, run
//! when the guard holds; otherwise the original loop runs, checks and all.
//! (LLVM's `LoopVersioning` with runtime bounds checks.)
//!
//! **The loops.** Any natural loop (innermost first; a loop overlapping one
//! already versioned in this round waits for the next, see [`ROUNDS`])
//! with a dedicated preheader,
//! one latch, at most [`MAX_LOOP_STMTS`] statements, no `ϒ`, `φᶜ` or
//! `take_exception` in it, and dedicated exits without `φᶜ`; its header has
//! a φ `k = φ(preheader ⇒ first, latch ⇒ s)` with `s = k + 1`, and a block
//! dominating the latch ends in `goto X if not s < n` (or `s <= n`) with
//! `X` outside the loop and `n` defined outside: the shape of a rotated
//! `for k in first..n`. Then every iteration runs with `k` in
//! `first..=last`, `last = n - 1` (or `n`), provided `first <= last` and
//! both are small (the guard requires it; see [`guard`]): the first
//! iteration has `k = first`, and each later one runs with the `s` that
//! passed `s < n` in the iteration before. Other exits only make fewer
//! iterations.
//!
//! **The checks.** A block of the loop ending in `goto R if not i <ᵤ len`
//! whose `R` raises `index_out_of_bounds`, with `i` affine
//! ([`guard::affine`]) and `len` defined outside the loop (an SSA value:
//! the same in every iteration, whatever `push`/`pop` or aliasing do to
//! the array; the check compares against this value, so proving the
//! comparison true is all removing it needs).
//!
//! **Short loops.** The preheader first tests `first + MIN_TRIPS < n`
//! ([`clone::MIN_TRIPS`]) and runs the original loop when it fails,
//! without evaluating the guard.
//!
//! **Exceptions, zero trips.** The guard is pure comparisons: it raises
//! nothing, and when the loop would run no iteration past its first
//! (`first > last`) or none at all, it only fails. When it fails, the
//! original loop runs from its first iteration, so an out-of-bounds index
//! raises at the same iteration with the same message, into the same
//! handler. When it holds, the removed checks could not have failed, and
//! every other statement, check and exit of the copy is the original's.
//!
//! **Values used after the loop.** A value `v` of the loop used outside it
//! must be used in a block with an exit `X` of the loop above it in the
//! dominator tree, below every block of the loop (with dedicated exits,
//! `X` is then the last exit every path to the use took), and `v` must
//! dominate `X`; `X` gets
//! `φ(original exits ⇒ v, copied exits ⇒ v′)` and the use reads it. A φ of
//! an exit gets the copied edges beside the original ones.
//!
//! **Cost.** A loop around a versioned loop, and a nested loop whose
//! bounds vary per entry in a way the pass cannot estimate, are not worth
//! the copy ([`cost`]).
//!
//! **Then.** A function with a versioned loop gets `licm` again, as the
//! step `version.licm`: a guard is computed in its loop's preheader, which
//! for an inner loop lies in the enclosing loop, and the comparisons of
//! bounds that do not vary there (`n`, lengths, the loop's start) move out
//! of it instead of being evaluated again at every entry of the inner loop.
//!
//! Counters: `version.loops`, `version.checks_removed`,
//! `version.skipped_overlap`, `version.skipped_outer`,
//! `version.skipped_trips`, and `version.licm.*`. Remarks: "versioned the
//! loop at L:C: removed N bounds checks", "did not version the loop at
//! L:C: WHY".

mod clone;
mod cost;
pub mod guard;

use crate::ir::dom::DomTree;
use crate::ir::loops::{LoopInfo, LoopNest};
use crate::ir::{BinaryOp, BlockId, Cmp, Inst, IrCode, Operand, RaiseKind, Value};
use crate::ir::{FxMap, FxSet};
use crate::opt::PassCtx;
use crate::opt::checks::raise_kind;
use crate::opt::remarks::{Msg, RemarkKind};
use cranelift_entity::SecondaryMap;
use guard::{Affine, LoopView};

/// The largest loop (statements, nested loops included) copied.
pub const MAX_LOOP_STMTS: usize = 160;

/// One check to remove in the copy.
pub struct Check {
    /// The block ending in the check's branch.
    pub block: BlockId,
    pub index: Affine,
    pub len: Operand,
    /// The comparison's position (the indexing expression).
    pub span: crate::span::Span,
}

/// A use outside the loop of a value defined in it: statement `user`
/// (in `block`) reads `v`; a φ's operand on the edge from `edge` only.
pub struct OutUse {
    pub user: Value,
    pub block: BlockId,
    pub edge: Option<BlockId>,
    pub v: Value,
    pub exit: BlockId,
}

/// A use outside a loop before its exit is known: `(user, block, φ edge,
/// value)`, as in [`OutUse`].
type RawUse = (Value, BlockId, Option<BlockId>, Value);

/// One loop to version.
pub struct Plan {
    pub header: BlockId,
    pub preheader: BlockId,
    pub blocks: Vec<BlockId>,
    pub exits: Vec<BlockId>,
    pub first: Operand,
    /// `n` of the exit test; the last `k` is `n - 1`, or `n` when
    /// `inclusive`.
    pub n: Operand,
    pub inclusive: bool,
    /// Where the remark points: the induction variable's increment (the
    /// loop's `for`).
    pub span: crate::span::Span,
    pub checks: Vec<Check>,
    pub uses: Vec<OutUse>,
}

impl Plan {
    /// The blocks the rewrite of this plan edits.
    fn touched(&self) -> impl Iterator<Item = BlockId> + '_ {
        let uses = self.uses.iter().map(|u| u.block);
        (self.blocks.iter().chain(&self.exits).copied())
            .chain([self.preheader])
            .chain(uses)
    }
}

struct Ctx<'a> {
    ir: &'a IrCode,
    dom: &'a DomTree,
    block_of: SecondaryMap<Value, Option<BlockId>>,
}

impl Ctx<'_> {
    fn outside(&self, l: &LoopInfo, op: &Operand) -> bool {
        l.defined_outside(&self.block_of, op)
    }

    fn inst(&self, op: &Operand) -> Option<&Inst> {
        match op {
            Operand::Value(v) => self.ir.stmts.get(*v),
            _ => None,
        }
    }

    /// The loop's statements, if it may be copied (see the module doc).
    fn copyable(&self, l: &LoopInfo) -> bool {
        let mut n = 0;
        for &b in &l.blocks {
            for s in self.ir.cfg.blocks[b].values() {
                n += 1;
                match self.ir.stmts.get(s) {
                    Some(Inst::Upsilon(_) | Inst::PhiC { .. } | Inst::TakeException) => {
                        return false;
                    }
                    None => return false,
                    _ => {}
                }
            }
        }
        n <= MAX_LOOP_STMTS
            && l.exits.iter().all(|&x| {
                let blk = &self.ir.cfg.blocks[x];
                blk.preds.iter().all(|p| l.contains(*p))
                    && blk
                        .values()
                        .all(|s| !matches!(self.ir.stmts.get(s), Some(Inst::PhiC { .. })))
            })
    }

    /// The induction variable and its exit test: `(k, first, n, inclusive,
    /// the increment)`.
    fn induction(
        &self,
        l: &LoopInfo,
        ph: BlockId,
    ) -> Option<(Value, Operand, Operand, bool, Value)> {
        let [latch] = l.latches[..] else { return None };
        for s in self.ir.cfg.blocks[l.header].values() {
            let Some(Inst::Phi { edges, values }) = self.ir.stmts.get(s) else {
                break;
            };
            let (Some(pi), Some(li)) = (
                edges.iter().position(|e| *e == ph),
                edges.iter().position(|e| *e == latch),
            ) else {
                continue;
            };
            if edges.len() != 2 {
                continue;
            }
            let next = values[li];
            let Some(Inst::Binary(BinaryOp::IAdd, x, y)) = self.inst(&next) else {
                continue;
            };
            let k = Operand::Value(s);
            if !((*x == k && *y == Operand::Int(1)) || (*y == k && *x == Operand::Int(1))) {
                continue;
            }
            if let Some((n, inclusive)) = self.exit_test(l, latch, next)
                && let Operand::Value(inc) = next
            {
                return Some((s, values[pi], n, inclusive, inc));
            }
        }
        None
    }

    /// A block dominating `latch` that leaves the loop unless `next < n`
    /// (or `next <= n`): `(n, inclusive)`.
    fn exit_test(&self, l: &LoopInfo, latch: BlockId, next: Operand) -> Option<(Operand, bool)> {
        let mut b = latch;
        loop {
            if let Some((_, Inst::GotoIfNot { cond, dest })) = self.ir.last_stmt(b)
                && !l.contains(*dest)
                && l.contains(b.next())
                && let Some(Inst::Binary(BinaryOp::ICmp(c @ (Cmp::Lt | Cmp::Le)), x, n)) =
                    self.inst(cond)
                && *x == next
                && self.outside(l, n)
            {
                return Some((*n, *c == Cmp::Le));
            }
            if b == l.header {
                return None;
            }
            b = self.dom.idom(b)?;
        }
    }

    /// The removable checks of loop `l` with induction variable `iv`.
    fn checks(&self, l: &LoopInfo, iv: Value) -> Vec<Check> {
        let invariant = |o: &Operand| self.outside(l, o);
        let view = LoopView {
            ir: self.ir,
            iv,
            invariant: &invariant,
        };
        let mut out = Vec::new();
        for &b in &l.blocks {
            let Some((_, Inst::GotoIfNot { cond, dest })) = self.ir.last_stmt(b) else {
                continue;
            };
            if l.contains(*dest) || raise_kind(self.ir, *dest) != Some(RaiseKind::IndexOutOfBounds)
            {
                continue;
            }
            let Some(Inst::Binary(BinaryOp::ICmp(Cmp::Ult), i, len)) = self.inst(cond) else {
                continue;
            };
            if invariant(cond) || !invariant(len) {
                continue;
            }
            if let Some(index) = guard::affine(&view, *i, 0) {
                out.push(Check {
                    block: b,
                    index,
                    len: *len,
                    span: match cond {
                        Operand::Value(c) => self.ir.stmts.span[*c],
                        _ => self.ir.span,
                    },
                });
            }
        }
        out
    }

    /// The nearest exit of `l` dominating block `b` (outside `l`), if no
    /// block of `l` comes first on the way up the dominator tree.
    fn exit_above(&self, l: &LoopInfo, b: BlockId) -> Option<BlockId> {
        let mut x = b;
        loop {
            if l.contains(x) {
                return None;
            }
            if l.exits.binary_search(&x).is_ok() {
                return Some(x);
            }
            x = self.dom.idom(x).filter(|p| *p != x)?;
        }
    }

    fn plan(
        &self,
        l: &LoopInfo,
        uses: &[(Value, BlockId, Option<BlockId>, Value)],
    ) -> Option<Plan> {
        let ph = l.preheader?;
        if !self.copyable(l) {
            return None;
        }
        let (iv, first, n, inclusive, inc) = self.induction(l, ph)?;
        let checks = self.checks(l, iv);
        if checks.is_empty() {
            return None;
        }
        let mut out = Vec::new();
        for &(user, block, edge, v) in uses {
            let at = edge.unwrap_or(block);
            let exit = self.exit_above(l, at)?;
            let def = self.block_of[v]?;
            if !self.dom.dominates(def, exit) {
                return None;
            }
            out.push(OutUse {
                user,
                block,
                edge,
                v,
                exit,
            });
        }
        Some(Plan {
            header: l.header,
            preheader: ph,
            blocks: l.blocks.clone(),
            exits: l.exits.clone(),
            first,
            n,
            inclusive,
            span: self.ir.stmts.span[inc],
            checks,
            uses: out,
        })
    }
}

/// For each loop, the uses outside it of values defined in it, as
/// `(user, block, φ edge, value)`; a φ of an exit reading along an edge
/// from the loop is not one (the copy adds its own edge).
fn outside_uses(
    ir: &IrCode,
    nest: &LoopNest,
    block_of: &SecondaryMap<Value, Option<BlockId>>,
) -> FxMap<BlockId, Vec<RawUse>> {
    let mut out: FxMap<BlockId, Vec<_>> = FxMap::default();
    let mut note = |user: Value, block: BlockId, edge: Option<BlockId>, op: &Operand| {
        let Operand::Value(v) = op else { return };
        let Some(def) = block_of[*v] else { return };
        let from = edge.unwrap_or(block);
        let mut lp = nest.loop_of(def);
        while let Some(l) = lp {
            if !l.contains(block) && !l.contains(from) {
                out.entry(l.header)
                    .or_default()
                    .push((user, block, edge, *v));
            }
            lp = l.parent.map(|id| &nest.loops[id]);
        }
    };
    for (b, blk) in ir.cfg.blocks.iter() {
        for s in blk.values() {
            match ir.stmts.get(s) {
                Some(Inst::Phi { edges, values }) => {
                    for (e, v) in edges.iter().zip(values) {
                        note(s, b, Some(*e), v);
                    }
                }
                Some(inst) => crate::ir::edit::for_each_operand(inst, |o| note(s, b, None, o)),
                None => {}
            }
        }
    }
    out
}

/// How many rounds run: the second (only if a loop waits for it) versions
/// the loops that shared a block (an exit, a preheader, a block using
/// their values) with one the first versioned; the copies a round made
/// are not versioned again, and a loop around a versioned one is declined
/// ([`cost`]).
pub const ROUNDS: usize = 2;

/// The `version` pass (see the module doc).
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    if !crate::opt::loops::has_back_edge(ir) {
        return;
    }
    let mut skip: FxSet<BlockId> = FxSet::default();
    let mut changed = false;
    for round in 0..ROUNDS {
        match version_round(ir, ctx, &skip, round) {
            Some((next, waiting)) => {
                changed = true;
                skip = next;
                if !waiting {
                    break;
                }
            }
            None => break,
        }
    }
    if changed {
        crate::ir::compact::compact_only(ir);
        ctx.run_step("version", "licm", ir, crate::opt::licm::run);
    }
}

/// Round `round` over the loops of `ir` whose headers are not in `skip`;
/// returns, if it versioned any, the headers not to version again (in the
/// new, not compacted, IR) and whether a loop waits for the next round
/// (it overlapped one versioned now). The last round counts the loops
/// still waiting; declines are reported in the first round (a later one
/// sees the same loops again).
fn version_round(
    ir: &mut IrCode,
    ctx: &mut PassCtx,
    skip: &FxSet<BlockId>,
    round: usize,
) -> Option<(FxSet<BlockId>, bool)> {
    let last = round + 1 == ROUNDS;
    let dom = ir.cfg.dom_tree();
    let nest = ir.cfg.loop_nest();
    if nest.loops.is_empty() {
        return None;
    }
    let c = Ctx {
        ir,
        dom: &dom,
        block_of: ir.block_of(),
    };
    let uses = outside_uses(ir, &nest, &c.block_of);
    let mut taken: FxSet<BlockId> = FxSet::default();
    let mut plans = Vec::new();
    let mut overlap = 0;
    for l in nest.loops.values().filter(|l| !skip.contains(&l.header)) {
        let none = Vec::new();
        let Some(p) = c.plan(l, uses.get(&l.header).unwrap_or(&none)) else {
            continue;
        };
        if let Some(why) = cost::decline(&c, &nest, l, &p, skip, &plans) {
            if round == 0 {
                why.report(ctx, ir, p.span);
            }
            continue;
        }
        if p.touched().any(|b| taken.contains(&b)) {
            overlap += 1;
            continue;
        }
        taken.extend(p.touched());
        plans.push(p);
    }
    if last {
        ctx.counters.add("version.skipped_overlap", overlap);
    }
    if plans.is_empty() {
        return None;
    }
    let (applied, next) = clone::version(ir, &plans, skip);
    let done: Vec<&Plan> = (plans.iter().zip(applied))
        .filter_map(|(p, a)| a.then_some(p))
        .collect();
    let removed: usize = done.iter().map(|p| p.checks.len()).sum();
    ctx.counters.add("version.loops", done.len() as u64);
    ctx.counters.add("version.checks_removed", removed as u64);
    for p in &done {
        let n = p.checks.len();
        let s = if n == 1 { "" } else { "s" };
        let mut msg = Msg::new("versioned the loop at ")
            .at(p.span)
            .t(format!(": removed {n} bounds check{s} (at "));
        for (i, c) in p.checks.iter().enumerate() {
            msg = if i == 0 { msg } else { msg.t(", ") }.at(c.span);
        }
        ctx.remark(ir, RemarkKind::Passed, p.span, |_| msg.t(")"));
    }
    (!done.is_empty()).then_some((next, overlap > 0))
}
