//! LICM's second half: hoisting loop-invariant runtime checks together with
//! their branch, and the element loads they guard.
//!
//! **Guaranteed to execute first.** From a loop's header, the *entry chain*
//! is the straight line of blocks the first iteration must run: it follows
//! a block's `goto` (or fallthrough) to a loop block whose only predecessor
//! it is, and a runtime check `goto R if not c` (to a block `R` that raises)
//! to its fallthrough, and stops at anything else: any other branch (a
//! conditional part of the body, the exit test of a `while`-shaped loop),
//! a block with another predecessor (the header again, a merge), or a
//! statement that is not *quiet*. Quiet statements have no effect a raise
//! at the top of the loop could reveal: pure operations, loads, struct
//! allocations, runtime functions flagged effect-free and nothrow. Not
//! quiet: calls (they may write, print, throw or not return), stores, `ϒ`
//! (the handler would see it), array allocations (they may fail), raises.
//!
//! The body of a loop runs at least once when its preheader is reached only
//! for a loop whose exit test is not first: a rotated loop
//! ([`crate::opt::rotate`]), or one whose header starts with checks. For a
//! `while`-shaped loop the chain stops at the header's exit test.
//!
//! **What moves.** Walking the chain in order:
//! - a check whose condition is defined outside the loop moves to the
//!   preheader: the preheader ends in `goto R if not c` and a new block
//!   follows it (the new preheader). Sound: in the first iteration the check
//!   ran with the same condition after quiet statements only, so it raises
//!   there iff it raises now, with the same message (`R`'s operands must be
//!   defined outside the loop) and, in a `try`, into the same handler with
//!   the same `ϒ` values (no `ϒ` ran in between); and a check that passes
//!   once passes in every iteration. `R` must be entered only from the check
//!   and leave by `unwind` or to a handler outside the loop. The first
//!   check whose condition varies (or whose `R` does not qualify) ends the
//!   chain: a later check may not raise before it.
//! - an element load `a[i]` with `a` and `i` defined outside the loop and
//!   its MemorySSA clobber outside the loop moves after the hoisted checks.
//!   Sound: the first iteration ran it with the same memory (only quiet
//!   statements in between, and no check left before it), so it is in
//!   bounds at the new place; nothing in the loop writes it, so it reads the
//!   same value in every iteration.
//!
//! **The failure path keeps its definitions.** Moving the check gives `R`
//! a new predecessor outside the loop, so every block reachable from `R`
//! without passing the header (the handler and the code after the `try`)
//! gains a path from the preheader that skips the loop. A value defined in
//! the loop dominated its uses there before the move and would not after
//! it, so the check stays when any such block uses one (a `φ` operand
//! counts when its edge comes from such a block; `φᶜ` operands are `ϒ`s,
//! read dynamically, and do not count). Values defined outside the loop
//! still dominate: every new path is an old one with the loop cut out.
//! The search is bounded ([`FAILURE_PATH_BUDGET`] statements); past the
//! bound the check stays.
//!
//! Checks `throw` raises are not moved: they are the program's own control
//! flow, not runtime checks. Counters: `licm.hoisted_check_branches`,
//! `licm.hoisted_elem_loads`.

use crate::ir::blocks::{BBlock, BlockIr, Label, Positions, Term};
use crate::ir::compact::compact_only;
use crate::ir::edit::{for_each_operand, is_pure};
use crate::ir::loops::LoopInfo;
use crate::ir::{BlockId, Flags, Inst, IrCode, Loc, Operand, RaiseKind, Value};
use crate::ir::{FxMap, FxSet};
use crate::memssa::alias::Summaries;
use crate::memssa::{LIVE_ON_ENTRY, MemorySsa};
use crate::opt::remarks::{Describe, Msg, NameTables, RemarkKind};
use crate::opt::{Counters, PassCtx};
use crate::span::Span;
use cranelift_entity::{EntityRef, SecondaryMap};

/// How many statements [`Ctx::failure_path_keeps_defs`] may look at for
/// one check: a bound that keeps the pass linear in functions with many
/// loops inside one `try`.
pub const FAILURE_PATH_BUDGET: usize = 4096;

/// What to move out of one loop.
struct Hoist {
    preheader: BlockId,
    header: BlockId,
    /// (check block, condition, raise block), in chain order.
    checks: Vec<(BlockId, Operand, BlockId)>,
    loads: Vec<Value>,
}

/// Whether a raise at the loop's top could not reveal that `inst` was
/// skipped.
fn quiet(inst: &Inst, flags: Flags) -> bool {
    match inst {
        Inst::Upsilon(_) | Inst::TakeException => false,
        Inst::Undef => true,
        Inst::Load { .. } | Inst::NewStruct { .. } => true,
        Inst::Runtime { .. } => {
            flags.contains(Flags::EFFECT_FREE) && flags.contains(Flags::NOTHROW)
        }
        other => is_pure(other),
    }
}

struct Ctx<'a> {
    ir: &'a IrCode,
    /// The block of each statement.
    block_of: SecondaryMap<Value, Option<BlockId>>,
}

impl Ctx<'_> {
    /// Whether `op` is defined outside loop `l` (constants and arguments are).
    fn outside(&self, l: &LoopInfo, op: &Operand) -> bool {
        l.defined_outside(&self.block_of, op)
    }

    /// Whether block `r`, entered from the check in `from`, raises a runtime
    /// error with operands defined outside `l` and leaves by `unwind` or to
    /// a handler outside `l`.
    fn movable_raise(&self, l: &LoopInfo, r: BlockId, from: BlockId) -> bool {
        let Some(blk) = self.ir.cfg.blocks.get(r) else {
            return false;
        };
        if l.contains(r) || blk.preds.len() != 1 || blk.preds[0] != from {
            return false;
        }
        let mut raised = false;
        for s in blk.stmts.clone() {
            let Some(inst) = self.ir.stmts.inst.get(Value(s)) else {
                return false;
            };
            let mut ok = true;
            for_each_operand(inst, |op| ok &= self.outside(l, op));
            if !ok {
                return false;
            }
            match inst {
                Inst::Raise { kind, .. } if !raised => {
                    if *kind == RaiseKind::Throw {
                        return false;
                    }
                    raised = true;
                }
                Inst::Upsilon(_) | Inst::Nothing if raised => {}
                Inst::Unwind => return raised,
                Inst::Goto(h) => return raised && !l.contains(*h),
                _ => return false,
            }
        }
        false
    }

    /// Whether the blocks reachable from `r` without passing `l`'s header
    /// use no value defined in `l` (see the module doc), within the budget.
    fn failure_path_keeps_defs(&self, l: &LoopInfo, r: BlockId) -> bool {
        let blocks = &self.ir.cfg.blocks;
        let mut seen: FxSet<BlockId> = FxSet::from_iter([r]);
        let mut order = vec![r];
        let mut budget = FAILURE_PATH_BUDGET;
        let mut i = 0;
        while let Some(&b) = order.get(i) {
            i += 1;
            let Some(blk) = blocks.get(b) else {
                return false;
            };
            budget = match budget.checked_sub(blk.stmts.len() + 1) {
                Some(left) => left,
                None => return false,
            };
            for &s in &blk.succs {
                if s == l.header {
                    continue;
                }
                if l.contains(s) {
                    return false;
                }
                if seen.insert(s) {
                    order.push(s);
                }
            }
        }
        let in_loop = |op: &Operand| !self.outside(l, op);
        order.iter().all(|&b| {
            blocks[b]
                .stmts
                .clone()
                .all(|s| match &self.ir.stmts.inst[Value(s)] {
                    Inst::Phi { edges, values } => edges
                        .iter()
                        .zip(values)
                        .all(|(e, v)| !seen.contains(e) || !in_loop(v)),
                    Inst::PhiC { .. } => true,
                    inst => {
                        let mut ok = true;
                        for_each_operand(inst, |op| ok &= !in_loop(op));
                        ok
                    }
                })
        })
    }

    /// The checks and element loads of `l`'s entry chain that may move.
    fn plan(&self, m: &mut MemorySsa, l: &LoopInfo) -> Option<Hoist> {
        let ph = l.preheader?;
        let ir = self.ir;
        // The preheader ends in `goto H` or falls through into it.
        match self.ir.last_stmt(ph) {
            Some((_, Inst::Goto(t))) if *t == l.header => {}
            Some((_, i)) if !i.is_terminator() && ph.next() == l.header => {}
            _ => return None,
        }
        let mut h = Hoist {
            preheader: ph,
            header: l.header,
            checks: Vec::new(),
            loads: Vec::new(),
        };
        let mut cur = l.header;
        for _ in 0..ir.cfg.blocks.len() {
            let blk = &ir.cfg.blocks[cur];
            for s in blk.stmts.clone() {
                let inst = &ir.stmts.inst[Value(s)];
                if inst.is_terminator() {
                    break;
                }
                if !quiet(inst, ir.stmts.flags[Value(s)]) {
                    return Some(h);
                }
                if let Inst::Load {
                    loc: Loc::ArrayElem(_),
                    base: Some(b),
                    index: Some(i),
                } = inst
                    && self.outside(l, b)
                    && self.outside(l, i)
                {
                    let clobber = m.access_for(Value(s)).map(|a| m.clobbering_access(ir, a));
                    if clobber.is_some_and(|c| c == LIVE_ON_ENTRY || !l.contains(m.access(c).block))
                    {
                        h.loads.push(Value(s));
                    }
                }
            }
            let next = match self.ir.last_stmt(cur) {
                Some((_, Inst::GotoIfNot { cond, dest })) => {
                    if !self.outside(l, cond)
                        || !self.movable_raise(l, *dest, cur)
                        || !self.failure_path_keeps_defs(l, *dest)
                    {
                        return Some(h);
                    }
                    h.checks.push((cur, *cond, *dest));
                    cur.next()
                }
                Some((_, Inst::Goto(t))) => *t,
                Some((_, i)) if !i.is_terminator() => cur.next(),
                _ => return Some(h),
            };
            let ok = next.index() < ir.cfg.blocks.len()
                && l.contains(next)
                && next != l.header
                && ir.cfg.blocks[next].preds.len() == 1;
            if !ok {
                return Some(h);
            }
            cur = next;
        }
        Some(h)
    }
}

/// Moves the hoistable checks and element loads of every loop; returns
/// whether anything moved.
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) -> bool {
    let mut said = Vec::new();
    let names = ctx.remarks_on().then_some(&*ctx.names);
    let changed = hoist_checks(ir, &mut ctx.counters, &ctx.summaries, names, &mut said);
    for (span, msg) in said {
        ctx.remark(ir, RemarkKind::Passed, span, |_| msg);
    }
    changed
}

/// The remarks on the checks and element loads `h` moves out of its loop.
fn hoist_remarks(ir: &IrCode, names: &NameTables, h: &Hoist, said: &mut Vec<(Span, Msg)>) {
    let d = Describe { ir, names };
    for &(_, cond, _) in &h.checks {
        let span = match cond {
            Operand::Value(c) => ir.stmts.span[c],
            _ => continue,
        };
        let msg = Msg::new(format!(
            "hoisted the check {} out of the loop at ",
            d.operand(&cond)
        ));
        said.push((span, msg.at(span)));
    }
    for &v in &h.loads {
        let span = ir.stmts.span[v];
        let msg = Msg::new(format!(
            "hoisted load {} out of the loop at ",
            d.place_of(v)
        ));
        said.push((span, msg.at(span).t(" (with its check)")));
    }
}

/// [`run`], the remarks to make going to `said` when `names` is given.
fn hoist_checks(
    ir: &mut IrCode,
    counters: &mut Counters,
    sums: &Summaries,
    names: Option<&NameTables>,
    said: &mut Vec<(Span, Msg)>,
) -> bool {
    let nest = ir.cfg.loop_nest();
    let loops = &nest.loops;
    if loops.is_empty() {
        return false;
    }
    let mut m = crate::timing::time("memssa.build", || MemorySsa::build(ir, sums));
    let ctx = Ctx {
        ir,
        block_of: ir.block_of(),
    };
    let plans: Vec<Hoist> = loops
        .values()
        .filter_map(|l| ctx.plan(&mut m, l))
        .filter(|h| !h.checks.is_empty() || !h.loads.is_empty())
        .collect();
    if plans.is_empty() {
        return false;
    }
    let (nchecks, nloads) = plans
        .iter()
        .fold((0, 0), |(c, l), h| (c + h.checks.len(), l + h.loads.len()));
    if let Some(names) = names {
        for h in &plans {
            hoist_remarks(ir, names, h, said);
        }
    }
    let mut bir = BlockIr::from_ir(ir);
    // Labels of the block view are the original block numbers; the moves
    // below change no block's position (new blocks go in `before`).
    let pos = bir.positions();
    let mut before: FxMap<Label, Vec<BBlock>> = FxMap::default();
    for h in &plans {
        if let Some(chain) = move_into_preheader(&mut bir, &ctx.block_of, h, &pos) {
            before.entry(h.header).or_default().extend(chain);
        }
    }
    bir.insert_before(before);
    *ir = bir.lower();
    compact_only(ir);
    counters.add("licm.hoisted_check_branches", nchecks as u64);
    counters.add("licm.hoisted_elem_loads", nloads as u64);
    true
}

/// Moves the loads of `h` to the end of its preheader and turns its checks
/// into straight jumps in the loop; returns the chain of blocks
/// `N₁ → … → Nₖ → header` (each ending in one hoisted check, the loads in
/// `Nₖ`) to insert before the header, or `None` when there are no checks.
fn move_into_preheader(
    bir: &mut BlockIr,
    block_of: &SecondaryMap<Value, Option<BlockId>>,
    h: &Hoist,
    pos: &Positions,
) -> Option<Vec<BBlock>> {
    let at = |b: BlockId| pos[b];
    let mut moved = Vec::new();
    for v in &h.loads {
        let Some(b) = block_of[*v].and_then(at) else {
            continue;
        };
        if let Some(i) = bir.blocks[b].stmts.iter().position(|s| s.id == *v) {
            moved.push(bir.blocks[b].stmts.remove(i));
        }
    }
    for &(c, _, _) in &h.checks {
        if let Some(cb) = at(c)
            && let Term::Branch { then, .. } = bir.blocks[cb].term
        {
            bir.blocks[cb].term = Term::Goto(then);
        }
    }
    let php = at(h.preheader)?;
    if h.checks.is_empty() {
        bir.blocks[php].stmts.extend(moved);
        return None;
    }
    // preheader → N₁ → … → Nₖ → header, each ending in one check.
    let span = bir.blocks[php].term_span;
    let labels: Vec<Label> = h.checks.iter().map(|_| bir.fresh_label()).collect();
    bir.blocks[php].term = Term::Branch {
        cond: h.checks[0].1,
        then: labels[0],
        els: h.checks[0].2,
    };
    let mut chain = Vec::new();
    for (k, &label) in labels.iter().enumerate() {
        let term = match h.checks.get(k + 1) {
            Some(&(_, cond, r)) => Term::Branch {
                cond,
                then: labels[k + 1],
                els: r,
            },
            None => Term::Goto(h.header),
        };
        chain.push(BBlock {
            label,
            stmts: Vec::new(),
            term,
            term_span: span,
            term_flags: Flags::default(),
        });
    }
    if let Some(last) = chain.last_mut() {
        last.stmts = moved;
    }
    let new_pre = labels[labels.len() - 1];
    if let Some(hp) = at(h.header) {
        bir.blocks[hp].rename_phi_edge(h.preheader, new_pre);
    }
    Some(chain)
}
