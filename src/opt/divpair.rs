//! Division pairing: a loop of one block whose float divisions the next
//! iteration could compute early is unrolled by two, and each such
//! division is computed right beside the next iteration's copy of it.
//! Codegen runs two adjacent, independent float divisions as one
//! two-lane division (`codegen::ops::fdiv_pair`): a divider takes about
//! as long for two lanes as for one, and the divisions' throughput, not
//! their latency, bounds such loops (series, numeric integration,
//! matrices given by a formula of their indices).
//!
//! **The loops.** A natural loop of two blocks: its header `H` (φs, then
//! the body) ends in `goto X if not c` with `X` outside the loop, and
//! falls through to the latch `L`, which only jumps back to `H`. `H`
//! holds at most [`MAX_BODY`] statements, each a pure operation, a copy,
//! a π, a load or a store (no call, allocation, ϒ or φᶜ).
//!
//! **Which divisions.** `d = fdiv(a, b)` of `H` whose value in the next
//! iteration can be computed in this one, before `d`: its operand tree,
//! followed through `H`, holds only operations that are pure and cannot
//! trap (`ir::edit::speculatable`, as for `licm`: `idiv` and `irem` only
//! by a constant other than 0 and -1; a copy or a π stands for its
//! operand), constants, values defined
//! outside the loop, and φs of `H`. A φ's value in the next iteration is
//! its operand on the latch edge, computed from this iteration's values
//! by the same rules, but without a division: `d′` waiting for a copy of
//! `d` would not run beside it. The copy of that tree, `d′`, follows `d`
//! at once.
//!
//! **The rewrite.** `H` keeps its φs and its body, with each `d′` right
//! after its `d`, and falls through to `H₂` when `c` holds. `H₂` is a
//! copy of the body (without the φs and the `d′`s) for the next
//! iteration: a φ's use there reads the φ's latch operand as computed in
//! `H`, a `d`'s use reads `d′`, and it ends in the copy of the exit test
//! `goto X if not c₂`, falling through to `L`. The latch operands of
//! `H`'s φs become their copies in `H₂`. So every statement runs in the
//! order it ran before, but the `d′`s, which are pure and cannot trap:
//! when the loop leaves from `H`, the `d′`s were computed for nothing.
//! `X`'s φs get an edge from `H₂` reading the copy of what they read from
//! `H`, and a value of `H` used after the loop is read through a new φ
//! of `X` (`H` is then `X`'s only predecessor: a block after the loop
//! that `H`'s value dominates is reached only through `X`).
//!
//! Counters: `divpair.loops`, `divpair.pairs`. Remark: "unrolled the loop
//! at L:C by two: N float division(s) paired with the next iteration's".

use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Positions, Term};
use crate::ir::edit::{default_flags, for_each_operand, for_each_operand_mut, speculatable};
use crate::ir::loops::LoopInfo;
use crate::ir::{BinaryOp, FxMap, FxSet, Inst, IrCode, Operand, Value};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};
use crate::span::Span;

/// The largest loop body (statements of `H`, φs included) unrolled.
pub const MAX_BODY: usize = 64;

/// A loop of the right shape: header, latch, exit (labels of the view).
#[derive(Clone, Copy)]
struct Shape {
    h: Label,
    latch: Label,
    x: Label,
}

/// A use after the loop of a value `v` of `H`: statement `user` of block
/// `block` (`None`: its terminator) reads it.
struct OutUse {
    block: Label,
    user: Option<Value>,
    /// The φ edge the use is on, for a φ.
    edge: Option<Label>,
    v: Value,
}

/// The `divpair` pass (see the module doc).
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    if !crate::opt::loops::has_back_edge(ir) {
        return;
    }
    let nest = ir.cfg.loop_nest();
    let shapes: Vec<Shape> = nest.loops.values().filter_map(|l| shape(ir, l)).collect();
    if shapes.is_empty() {
        return;
    }
    let mut bir = BlockIr::from_ir(ir);
    let pos = bir.positions();
    let uses = outside_uses(&bir, &shapes, ir);
    let mut new: FxMap<Label, Vec<BBlock>> = FxMap::default();
    let mut done: Vec<(Span, usize)> = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        let Some(uses) = &uses[i] else { continue };
        if !uses.is_empty() && ir.cfg.blocks[s.x].preds[..] != [s.h] {
            continue;
        }
        let span = bir.blocks[pos[s.h].expect("a block")].term_span;
        if let Some((h2, pairs)) = unroll(&mut bir, &pos, *s, uses) {
            new.insert(s.latch, vec![h2]);
            done.push((span, pairs));
        }
    }
    if done.is_empty() {
        return;
    }
    bir.insert_before(new);
    *ir = bir.lower();
    crate::ir::compact::compact_only(ir);
    // The copy reads `i + (j + 1)` where the first iteration computed
    // `i + j`, and `(j + 1) + 1`: `cse`, reassociating, merges them.
    ctx.run_step("divpair", "cse", ir, crate::opt::cse::run_reassociating);
    ctx.counters.add("divpair.loops", done.len() as u64);
    let pairs: usize = done.iter().map(|d| d.1).sum();
    ctx.counters.add("divpair.pairs", pairs as u64);
    for (span, n) in done {
        let s = if n == 1 { "" } else { "s" };
        let msg = Msg::new("unrolled the loop at ").at(span).t(format!(
            " by two: {n} float division{s} paired with the next iteration's"
        ));
        ctx.remark(ir, RemarkKind::Passed, span, |_| msg);
    }
}

/// The loop's shape, if it is one this pass unrolls (see the module doc).
fn shape(ir: &IrCode, l: &LoopInfo) -> Option<Shape> {
    let [latch] = l.latches[..] else { return None };
    if l.blocks.len() != 2 || latch != l.header.next() {
        return None;
    }
    let lb = &ir.cfg.blocks[latch];
    let mut latch_stmts = lb.values();
    match (latch_stmts.next(), latch_stmts.next()) {
        (Some(g), None) if ir.stmts.inst[g] == Inst::Goto(l.header) => {}
        _ => return None,
    }
    let hb = &ir.cfg.blocks[l.header];
    if hb.values().len() > MAX_BODY {
        return None;
    }
    let (_, Inst::GotoIfNot { dest, .. }) = ir.last_stmt(l.header)? else {
        return None;
    };
    if l.contains(*dest) {
        return None;
    }
    let mut any_fdiv = false;
    for s in hb.values() {
        match &ir.stmts.inst[s] {
            Inst::Binary(BinaryOp::FDiv, ..) => any_fdiv = true,
            Inst::Phi { edges, .. } if edges.contains(&latch) => {}
            Inst::Nothing
            | Inst::Copy(_)
            | Inst::Unary(..)
            | Inst::Binary(..)
            | Inst::Pi { .. }
            | Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::GotoIfNot { .. } => {}
            _ => return None,
        }
    }
    any_fdiv.then_some(Shape {
        h: l.header,
        latch,
        x: *dest,
    })
}

/// For each shape, the uses after its loop of its header's values, or
/// `None` when one is in a block another shape rewrites (or the exit is
/// one) or in a φ of another shape's exit along the edge from its header,
/// which this pass declines. A φ of the exit reading along the
/// edge from the header is not a use after the loop (the rewrite gives it
/// an edge of its own).
fn outside_uses(bir: &BlockIr, shapes: &[Shape], ir: &IrCode) -> Vec<Option<Vec<OutUse>>> {
    let mut owner: FxMap<Value, usize> = FxMap::default();
    let mut rewritten: FxSet<Label> = FxSet::default();
    let mut exit_of: FxMap<Label, (Label, usize)> = FxMap::default();
    for (i, s) in shapes.iter().enumerate() {
        owner.extend(ir.cfg.blocks[s.h].values().map(|v| (v, i)));
        rewritten.extend([s.h, s.latch]);
        exit_of.insert(s.h, (s.x, i));
    }
    let mut out: Vec<Option<Vec<OutUse>>> = shapes
        .iter()
        .map(|s| (!rewritten.contains(&s.x)).then(Vec::new))
        .collect();
    for b in &bir.blocks {
        let mut note = |user: Option<Value>, edge: Option<Label>, op: &Operand| {
            let Operand::Value(v) = op else { return };
            let Some(&i) = owner.get(v) else { return };
            let s = shapes[i];
            if b.label == s.h || b.label == s.latch || (b.label == s.x && edge == Some(s.h)) {
                return;
            }
            // A φ of another loop's exit reading along the edge from that
            // loop's header gets a copy of its operand for the new edge,
            // which this loop's rewrite of the use would not see.
            let other_exit_edge = edge
                .and_then(|e| exit_of.get(&e))
                .is_some_and(|&(x, j)| x == b.label && j != i);
            if rewritten.contains(&b.label) || other_exit_edge {
                out[i] = None;
            } else if let Some(list) = &mut out[i] {
                list.push(OutUse {
                    block: b.label,
                    user,
                    edge,
                    v: *v,
                });
            }
        };
        for st in &b.stmts {
            match &st.inst {
                Inst::Phi { edges, values } => {
                    for (e, v) in edges.iter().zip(values) {
                        note(Some(st.id), Some(*e), v);
                    }
                }
                inst => for_each_operand(inst, |o| note(Some(st.id), None, o)),
            }
        }
        if let Some(o) = b.term.operand() {
            note(None, None, o);
        }
    }
    out
}

/// The header's statements and the copies made of them for the next
/// iteration's divisions.
struct Twins<'a> {
    /// The header's statements (φs first) and the position of each.
    stmts: &'a [BStmt],
    at: FxMap<Value, usize>,
    /// The latch operand of each φ.
    latch_op: FxMap<Value, Operand>,
    /// Memos of [`Twins::can`] and [`Twins::make`], by value and whether
    /// the next iteration's value is meant.
    can: FxMap<(Value, bool), bool>,
    made: FxMap<(Value, bool), Operand>,
    /// Statements made and not yet placed, in an order that defines
    /// operands first.
    pending: Vec<BStmt>,
    fresh: &'a mut dyn FnMut() -> Value,
}

impl Twins<'_> {
    /// The header statement `op` names, if any.
    fn stmt(&self, op: &Operand) -> Option<&'_ BStmt> {
        let Operand::Value(v) = op else { return None };
        self.at.get(v).map(|&i| &self.stmts[i])
    }

    /// Whether `op`'s value in this iteration (`next` false) or the next
    /// can be computed by speculable statements.
    fn can(&mut self, op: &Operand, next: bool) -> bool {
        let Some(s) = self.stmt(op) else { return true };
        let (id, inst) = (s.id, s.inst.clone());
        if let Some(&ok) = self.can.get(&(id, next)) {
            return ok;
        }
        // A cycle (only through φs, which a block's statements cannot
        // form without one) is not speculable.
        self.can.insert((id, next), false);
        let ok = match &inst {
            Inst::Phi { .. } if next => {
                let l = self.latch_op[&id];
                self.can(&l, false)
            }
            Inst::Phi { .. } => true,
            Inst::Copy(x) | Inst::Pi { value: x, .. } => self.can(x, next),
            // The next iteration's division would wait for a copy of this
            // one's: two dependent divisions where there was one.
            Inst::Binary(BinaryOp::FDiv, ..) if !next => false,
            inst if speculatable(inst) => {
                let mut ops = Vec::new();
                for_each_operand(inst, |o| ops.push(*o));
                ops.iter().all(|o| self.can(o, next))
            }
            _ => false,
        };
        self.can.insert((id, next), ok);
        ok
    }

    /// `op`'s value in this iteration (`next` false) or the next, computed
    /// before position `before` (new statements go to `pending`); only
    /// when [`Twins::can`] holds.
    fn make(&mut self, op: Operand, next: bool, before: usize) -> Operand {
        let Some(s) = self.stmt(&op) else { return op };
        let (id, inst, ty, span) = (s.id, s.inst.clone(), s.ty.clone(), s.span);
        if let Some(m) = self.made.get(&(id, next)) {
            return *m;
        }
        let made = match inst {
            Inst::Phi { .. } if next => {
                let l = self.latch_op[&id];
                self.make(l, false, before)
            }
            Inst::Copy(x) | Inst::Pi { value: x, .. } => self.make(x, next, before),
            Inst::Phi { .. } => op,
            _ if !next && self.at[&id] < before => op,
            mut inst => {
                let mut ops = Vec::new();
                for_each_operand(&inst, |o| ops.push(*o));
                let ops: Vec<Operand> = ops
                    .into_iter()
                    .map(|o| self.make(o, next, before))
                    .collect();
                let mut it = ops.into_iter();
                for_each_operand_mut(&mut inst, |o| *o = it.next().expect("one per operand"));
                let new = (self.fresh)();
                self.pending.push(BStmt {
                    id: new,
                    flags: default_flags(&inst),
                    inst,
                    ty,
                    span,
                    name: None,
                });
                Operand::Value(new)
            }
        };
        self.made.insert((id, next), made);
        made
    }
}

/// The header's new statements, each pairable division followed by its
/// copy for the next iteration, and the pairs `(d, d′)`.
fn paired_body(
    stmts: &[BStmt],
    latch_op: FxMap<Value, Operand>,
    fresh: &mut dyn FnMut() -> Value,
) -> (Vec<BStmt>, Vec<(Value, Operand)>) {
    let mut tw = Twins {
        stmts,
        at: stmts.iter().enumerate().map(|(i, st)| (st.id, i)).collect(),
        latch_op,
        can: FxMap::default(),
        made: FxMap::default(),
        pending: Vec::new(),
        fresh,
    };
    let mut out = Vec::with_capacity(stmts.len() * 2);
    let mut pairs = Vec::new();
    for (i, st) in stmts.iter().enumerate() {
        let d = Operand::Value(st.id);
        if matches!(st.inst, Inst::Binary(BinaryOp::FDiv, ..)) && tw.can(&d, true) {
            let d2 = tw.make(d, true, i);
            let mut made = std::mem::take(&mut tw.pending);
            let twin = made.pop().expect("the division's copy is made last");
            out.extend(made);
            out.push(st.clone());
            out.push(twin);
            pairs.push((st.id, d2));
        } else {
            out.push(st.clone());
        }
    }
    (out, pairs)
}

/// Renames operands for the copy of the body: a φ to its latch operand, a
/// paired division to its copy, any other statement of the header to its
/// copy in `H₂`.
struct Renaming(FxMap<Value, Operand>);

impl Renaming {
    fn op(&self, o: &mut Operand) {
        if let Operand::Value(v) = o
            && let Some(n) = self.0.get(v)
        {
            *o = *n;
        }
    }
}

/// Unrolls the loop of `s` (see the module doc): rewrites its header, the
/// exit's φs and `uses`, and returns the copy of the body (to place
/// before the latch) and the number of divisions paired; `None`, with
/// nothing changed, when no division pairs.
fn unroll(
    bir: &mut BlockIr,
    pos: &Positions,
    s: Shape,
    uses: &[OutUse],
) -> Option<(BBlock, usize)> {
    let hi = pos[s.h].expect("the header is a block");
    let Term::Branch { cond, .. } = bir.blocks[hi].term else {
        return None;
    };
    let stmts = std::mem::take(&mut bir.blocks[hi].stmts);
    let mut latch_op = FxMap::default();
    for st in &stmts {
        if let Inst::Phi { edges, values } = &st.inst
            && let Some(i) = edges.iter().position(|e| *e == s.latch)
        {
            latch_op.insert(st.id, values[i]);
        }
    }
    let mut ren = Renaming(latch_op.clone());
    let (body, pairs) = paired_body(&stmts, latch_op, &mut || bir.fresh_value());
    if pairs.is_empty() {
        bir.blocks[hi].stmts = stmts;
        return None;
    }
    ren.0.extend(pairs.iter().copied());
    let h2 = bir.fresh_label();
    let mut copy = Vec::with_capacity(stmts.len());
    for st in &stmts {
        if matches!(st.inst, Inst::Phi { .. }) || ren.0.contains_key(&st.id) {
            continue;
        }
        let id = bir.fresh_value();
        ren.0.insert(st.id, Operand::Value(id));
        let mut inst = st.inst.clone();
        for_each_operand_mut(&mut inst, |o| ren.op(o));
        copy.push(BStmt {
            id,
            inst,
            ..st.clone()
        });
    }
    let h = &mut bir.blocks[hi];
    h.stmts = body;
    for st in h.phis_mut() {
        if let Inst::Phi { edges, values } = &mut st.inst {
            for (e, v) in edges.iter().zip(values.iter_mut()) {
                if *e == s.latch {
                    ren.op(v);
                }
            }
        }
    }
    let mut cond2 = cond;
    ren.op(&mut cond2);
    h.term = Term::Branch {
        cond,
        then: h2,
        els: s.x,
    };
    let block = BBlock {
        label: h2,
        stmts: copy,
        term: Term::Branch {
            cond: cond2,
            then: s.latch,
            els: s.x,
        },
        term_span: h.term_span,
        term_flags: h.term_flags,
    };
    let xi = pos[s.x].expect("the exit is a block");
    for st in bir.blocks[xi].phis_mut() {
        if let Inst::Phi { edges, values } = &mut st.inst
            && let Some(i) = edges.iter().position(|e| *e == s.h)
        {
            let mut v = values[i];
            ren.op(&mut v);
            edges.push(h2);
            values.push(v);
        }
    }
    exit_phis(bir, pos, s, h2, uses, &ren);
    Some((block, pairs.len()))
}

/// Reads each value of `uses` after the loop through a new φ of the exit:
/// `φ(H ⇒ v, H₂ ⇒ v′)`.
fn exit_phis(
    bir: &mut BlockIr,
    pos: &Positions,
    s: Shape,
    h2: Label,
    uses: &[OutUse],
    ren: &Renaming,
) {
    let xi = pos[s.x].expect("the exit is a block");
    let mut made: FxMap<Value, Value> = FxMap::default();
    for u in uses {
        let phi = match made.get(&u.v) {
            Some(p) => *p,
            None => {
                let mut v2 = Operand::Value(u.v);
                ren.op(&mut v2);
                let inst = Inst::Phi {
                    edges: vec![s.h, h2],
                    values: vec![Operand::Value(u.v), v2],
                };
                let hi = pos[s.h].expect("the header is a block");
                let def = bir.blocks[hi]
                    .stmts
                    .iter()
                    .find(|st| st.id == u.v)
                    .expect("a value of the header");
                let (ty, span, name) = (def.ty.clone(), def.span, def.name);
                let id = bir.fresh_value();
                let x = &mut bir.blocks[xi];
                let k = x.phis_mut().count();
                x.stmts.insert(
                    k,
                    BStmt {
                        id,
                        flags: default_flags(&inst),
                        inst,
                        ty,
                        span,
                        name,
                    },
                );
                made.insert(u.v, id);
                id
            }
        };
        let b = &mut bir.blocks[pos[u.block].expect("users are in blocks")];
        b.replace_use(u.user, u.edge, Operand::Value(u.v), Operand::Value(phi));
    }
}
