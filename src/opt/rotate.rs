//! Loop rotation in IrCode (LLVM's `loop-rotate`): `while c { body }`
//! becomes `if c₀ { do { body } while c }`.
//!
//! A loop with header `H` (φs, a short test, `goto X if not c`), body entry
//! `B = H + 1`, preheader `G` and single latch `L` (`goto H`) becomes the
//! the following. A loop that goes on while `c` is false (`while true {
//! if n < 2 { return .. } .. }`, the form of a tail recursion made a loop)
//! is rotated *inverted*: `B` is the branch target, the exit `X` is
//! `H + 1`, and the copies of the test branch to `X` when `c` holds.
//! - `G` ends in a copy of `H`'s test (`H`'s φs read as their `G` inputs)
//!   and branches to `B` or `X`: the guard;
//! - `L` ends in a copy of the test (φs read as their `L` inputs) and
//!   branches to `B` or `X`: the loop is now exited at its bottom;
//! - `H` is deleted; `B` is the new header. Each φ of `H` becomes a φ of
//!   `B` (`G` ⇒ preheader input, `L` ⇒ latch input) for its uses dominated
//!   by `B`, and a φ of `X` (`G` ⇒ preheader input, `L` ⇒ latch input, a
//!   `break` predecessor ⇒ the `B` φ) for its uses dominated by `X`; a use
//!   dominated by neither reads a φ of its block merging its predecessors'
//!   values (found by walking back, as in Braun et al.'s `readVariable`).
//!   Only the φs something uses are made.
//!
//! The body of a rotated loop runs at least once whenever its preheader is
//! reached: LICM relies on that to hoist runtime checks and element loads
//! (see [`crate::opt::licm_checks`]).
//!
//! `H` qualifies when:
//! - it has a dedicated preheader `G` and exactly one latch `L` ending in
//!   `goto H` (loops with several latches first get a single one: a new
//!   block they all jump to, counter `rotate.latches_merged`); `X` lies
//!   outside the loop and all its predecessors inside
//!   (a dedicated exit; the `loops` pass makes these); `B` lies inside,
//!   has `H` as its only predecessor and no φ; `B`, `X`, `H` distinct;
//! - its statements are φs with exactly the edges `G` and `L`, then at most
//!   [`MAX_COPY`] unary/binary operations, string constants and loads. Loads
//!   may be copied: a copy runs exactly where `H` would have run (at the end
//!   of `G`, then at the end of `L`), with no statement in between, so it
//!   reads the same memory; and `H` being one block, every check guarding
//!   such a load already dominates `H`, hence `G` and `L`;
//! - none of its non-φ values is used outside `H` (its φs may be: a use
//!   dominated by neither `B` nor `X`, such as after a merge of the exit and
//!   a `break`, reads a φ made where the two meet);
//! - no φᶜ in `H`, `B` or `X`;
//! - `X` does not raise: a test whose false side raises is a runtime check
//!   (after a first round, one at the top of the body), not the loop's
//!   condition; copying it would only add φs to the cold block.
//!
//! Not rotated: headers with calls (even pure ones, since a call may throw
//! and a copy in the guard would then throw before the loop), `ϒ`s or π
//! nodes; handler blocks (`φᶜ`); loops without a
//! dedicated preheader (the entry block as header); loops whose body is an
//! empty block back to `H` (already rotated: the rotated form of an empty
//! loop is itself). Exceptions stay exact: the copied test cannot throw,
//! and every other statement keeps its place and its `ϒ`s.
//!
//! A round rotates all qualifying loops of the function at once (renaming is
//! one pass at the end, keyed by the original dominator tree, so nested and
//! sequential loops compose); then the `loops` canonicalisation runs again
//! (the guard makes `G` a branch and `X` a merge), so later passes see
//! dedicated preheaders and exits. Counter: `rotate.rotated`.
//!
//! A second round rotates the loops whose new header `B` qualifies in
//! turn: `B` starts with a second test of the loop's condition (`while a
//! && b`, or a `break` test at the top of the body) and the latch that the
//! first round gave the loop is an empty `goto B`. Rotating `B` copies its
//! test into that latch, so each iteration takes one branch fewer
//! (counter `rotate.rotated_again`). There are [`ROUNDS`] rounds, no
//! more: a loop made of tests alone would qualify again after every
//! round, each round copying one test further.

use crate::ir::FxMap;
use crate::ir::blocks::{BStmt, BlockIr, Label, Positions, Term};
use crate::ir::compact::compact_only;
use crate::ir::compacted::compact_if_needed;
use crate::ir::dom::DomTree;
use crate::ir::edit::{default_flags, for_each_operand, for_each_operand_mut};
use crate::ir::loops::LoopInfo;
use crate::ir::{BlockId, BlockList, Inst, IrCode, Operand, Type, Value};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};

/// Most statements of a header test copied into the preheader and latch.
pub const MAX_COPY: usize = 8;

/// How many rounds of rotation run (see the module doc).
pub const ROUNDS: usize = 2;

/// One loop to rotate (block numbers of the original IR = BlockIr labels).
struct Plan {
    h: u32,
    g: u32,
    b: u32,
    l: u32,
    x: u32,
    /// The loop goes on when the test is false: `B` is the branch target
    /// and `X` the fallthrough.
    inverted: bool,
    /// `H`'s φs: (value, preheader input, latch input, type).
    phis: Vec<(Value, Operand, Operand, Type)>,
    /// `H`'s non-φ statements before its terminator, in order.
    test: Vec<u32>,
    cond: Operand,
}

fn stmts_of(ir: &IrCode, b: u32) -> impl Iterator<Item = (u32, &Inst)> {
    ir.cfg.blocks[BlockId(b)]
        .stmts
        .clone()
        .filter_map(move |s| ir.stmts.inst.get(Value(s)).map(|i| (s, i)))
}

/// Whether block `b` raises (its first statement is a `Raise`): the exit
/// of a runtime check, not of the loop's condition.
fn raises(ir: &IrCode, b: u32) -> bool {
    stmts_of(ir, b)
        .find(|(_, i)| !matches!(i, Inst::Nothing))
        .is_some_and(|(_, i)| matches!(i, Inst::Raise { .. }))
}

/// The loops of `ir` that qualify (see the module doc), before the use scan.
fn candidates(ir: &IrCode) -> Vec<Plan> {
    let nest = ir.cfg.loop_nest();
    nest.loops
        .values()
        .filter_map(|l| candidate(ir, l))
        .collect()
}

/// The plan for loop `l`, if its shape qualifies.
fn candidate(ir: &IrCode, l: &LoopInfo) -> Option<Plan> {
    let g = l.preheader?.0;
    let h = l.header.0;
    let [latch] = l.latches.as_slice() else {
        return None;
    };
    let latch = latch.0;
    let Some((Value(last), Inst::GotoIfNot { cond, dest })) = ir.last_stmt(l.header) else {
        return None;
    };
    if h as usize + 1 >= ir.cfg.blocks.len() {
        return None;
    }
    let inverted = !l.contains(BlockId(h + 1)) && l.contains(*dest);
    let (b, x) = if inverted {
        (dest.0, h + 1)
    } else {
        (h + 1, dest.0)
    };
    if b == x || b == h || x == h || latch == h || (b as usize) >= ir.cfg.blocks.len() {
        return None;
    }
    if !l.contains(BlockId(b))
        || l.contains(BlockId(x))
        || ir.cfg.blocks[BlockId(b)].preds.as_slice() != [BlockId(h)]
    {
        return None;
    }
    if !ir.cfg.blocks[BlockId(x)]
        .preds
        .iter()
        .all(|&p| l.contains(p))
        || raises(ir, x)
    {
        return None;
    }
    // The latch ends in `goto H`, or falls through into it.
    let ok_latch = match ir.last_stmt(BlockId(latch)) {
        Some((_, Inst::Goto(t))) => t.0 == h,
        Some((_, i)) => !i.is_terminator() && latch + 1 == h,
        None => false,
    };
    if !ok_latch {
        return None;
    }
    // Already rotated: the body is an empty block back to `H`.
    if b == latch && stmts_of(ir, b).all(|(_, i)| matches!(i, Inst::Goto(_) | Inst::Nothing)) {
        return None;
    }
    let has_phic = |blk: u32| stmts_of(ir, blk).any(|(_, i)| matches!(i, Inst::PhiC { .. }));
    if has_phic(h)
        || has_phic(x)
        || stmts_of(ir, b).any(|(_, i)| matches!(i, Inst::Phi { .. } | Inst::PhiC { .. }))
    {
        return None;
    }
    let (phis, test) = header_parts(ir, h, last, g, latch)?;
    Some(Plan {
        h,
        g,
        b,
        l: latch,
        x,
        inverted,
        phis,
        test,
        cond: *cond,
    })
}

/// The header `h`'s φs (each with its operands from the guard `g` and the
/// latch, and its type) and its test statements before the branch `last`;
/// `None` when the header holds anything else.
type HeaderParts = (Vec<(Value, Operand, Operand, Type)>, Vec<u32>);
fn header_parts(ir: &IrCode, h: u32, last: u32, g: u32, latch: u32) -> Option<HeaderParts> {
    let mut phis = Vec::new();
    let mut test = Vec::new();
    for (s, inst) in stmts_of(ir, h) {
        if s == last {
            break;
        }
        match inst {
            Inst::Nothing => {}
            Inst::Phi { edges, values } => {
                if !test.is_empty() || edges.len() != 2 {
                    return None;
                }
                let find = |blk: u32| {
                    edges
                        .iter()
                        .position(|e| e.0 == blk)
                        .and_then(|i| values.get(i).copied())
                };
                let (pre, lat) = (find(g)?, find(latch)?);
                phis.push((Value(s), pre, lat, ir.stmts.ty[Value(s)].clone()));
            }
            Inst::Unary(..) | Inst::Binary(..) | Inst::StrConst(_) | Inst::Load { .. } => {
                test.push(s)
            }
            _ => return None,
        }
    }
    (test.len() <= MAX_COPY).then_some((phis, test))
}

/// What a value of a rotated header is: (plan index, φ index or `None`
/// for a test statement).
type Owner = FxMap<Value, (usize, Option<usize>)>;

fn owners(plans: &[Plan]) -> Owner {
    let mut own = FxMap::default();
    for (pi, p) in plans.iter().enumerate() {
        for (i, (v, ..)) in p.phis.iter().enumerate() {
            own.insert(*v, (pi, Some(i)));
        }
        for &s in &p.test {
            own.insert(Value(s), (pi, None));
        }
    }
    own
}

/// Drops the plans some use of whose header values the renaming could not
/// handle (see the module doc); returns the survivors.
fn check_uses(ir: &IrCode, dom: &DomTree, mut plans: Vec<Plan>) -> Vec<Plan> {
    while !plans.is_empty() {
        let own = owners(&plans);
        let mut bad = vec![false; plans.len()];
        for (blk, bb) in ir.cfg.blocks.iter() {
            let blk = blk.0;
            for s in bb.stmts.clone() {
                let Some(inst) = ir.stmts.inst.get(Value(s)) else {
                    continue;
                };
                let is_phi = matches!(inst, Inst::Phi { .. });
                // `edge`: the predecessor a φ operand flows in from.
                let mut visit = |v: Value, edge: Option<u32>| {
                    let Some(&(pi, phi)) = own.get(&v) else {
                        return;
                    };
                    let p = &plans[pi];
                    let ok = if blk == p.h {
                        // The test reads φs and earlier test values; H's own
                        // φs may read its φs on the latch edge.
                        !is_phi || (phi.is_some() && edge == Some(p.l))
                    } else if phi.is_none() {
                        false
                    } else if blk == p.x && edge == Some(p.h) {
                        true
                    } else {
                        dom.reachable(BlockId(edge.unwrap_or(blk)))
                    };
                    if !ok {
                        bad[pi] = true;
                    }
                };
                if let Inst::Phi { edges, values } = inst {
                    for (e, v) in edges.iter().zip(values) {
                        if let Operand::Value(v) = v {
                            visit(*v, Some(e.0));
                        }
                    }
                } else {
                    for_each_operand(inst, |op| {
                        if let Operand::Value(v) = op {
                            visit(*v, None);
                        }
                    });
                }
            }
        }
        if !bad.iter().any(|b| *b) {
            return plans;
        }
        let mut i = 0;
        plans.retain(|_| {
            i += 1;
            !bad[i - 1]
        });
    }
    plans
}

/// How far [`Renamer::read_at`] may walk back from a use (beyond it the
/// round is abandoned, so the walk cannot exhaust the stack).
const MAX_WALK: u32 = 10_000;

/// The renaming state of one round.
struct Renamer<'a> {
    ir: &'a IrCode,
    dom: &'a DomTree,
    plans: &'a [Plan],
    own: Owner,
    /// (plan, φ, in X?) → the new φ's value.
    made: FxMap<(usize, usize, bool), Value>,
    queue: Vec<(usize, usize, bool, Value)>,
    /// (plan, φ, block) → the φ's value at the end of a block dominated by
    /// neither `B` nor `X`.
    merged: FxMap<(usize, usize, u32), Operand>,
    /// New φs per block (label).
    new_phis: FxMap<Label, Vec<BStmt>>,
    /// The predecessors after rotation of the blocks that change them (each
    /// plan's `B` and `X`); other blocks keep theirs.
    new_preds: FxMap<u32, BlockList>,
    failed: bool,
}

impl Renamer<'_> {
    /// `op` as read at the end of (original) block `at`.
    fn rename(&mut self, bir: &mut BlockIr, op: Operand, at: Label) -> Operand {
        let Operand::Value(v) = op else { return op };
        let Some(&(pi, phi)) = self.own.get(&v) else {
            return op;
        };
        let Some(phi) = phi else {
            self.failed = true;
            return op;
        };
        self.read_at(bir, pi, phi, at.0, 0)
    }

    /// The new φ of `B` (or of `X`) standing for φ `phi` of plan `pi`.
    fn made_phi(&mut self, bir: &mut BlockIr, pi: usize, phi: usize, in_x: bool) -> Operand {
        if let Some(&nv) = self.made.get(&(pi, phi, in_x)) {
            return Operand::Value(nv);
        }
        let nv = bir.fresh_value();
        self.made.insert((pi, phi, in_x), nv);
        self.queue.push((pi, phi, in_x, nv));
        Operand::Value(nv)
    }

    /// The value of φ `phi` of plan `pi` at the end of block `y`: the `B`
    /// or `X` φ where one of them dominates `y`, else a φ of `y` merging its
    /// predecessors after rotation (every block the walk meets is dominated
    /// by `H`, whose only successors are `B` and `X`, so the walk ends there;
    /// it never meets a deleted header, since it takes the predecessors of
    /// every plan's `B` and `X` after rotation).
    fn read_at(&mut self, bir: &mut BlockIr, pi: usize, phi: usize, y: u32, depth: u32) -> Operand {
        let p = &self.plans[pi];
        let yb = BlockId(y);
        if self.dom.reachable(yb) && self.dom.dominates(BlockId(p.b), yb) {
            return self.made_phi(bir, pi, phi, false);
        }
        if self.dom.reachable(yb) && self.dom.dominates(BlockId(p.x), yb) {
            return self.made_phi(bir, pi, phi, true);
        }
        if let Some(&r) = self.merged.get(&(pi, phi, y)) {
            return r;
        }
        if depth > MAX_WALK || !self.dom.reachable(yb) || y == p.h {
            self.failed = true;
            return Operand::Value(p.phis[phi].0);
        }
        let preds: BlockList = self
            .new_preds
            .get(&y)
            .cloned()
            .unwrap_or_else(|| self.ir.cfg.blocks[BlockId(y)].preds.clone());
        if let [q] = preds.as_slice() {
            let r = self.read_at(bir, pi, phi, q.0, depth + 1);
            self.merged.insert((pi, phi, y), r);
            return r;
        }
        let id = bir.fresh_value();
        self.merged.insert((pi, phi, y), Operand::Value(id));
        let values: Vec<Operand> = preds
            .iter()
            .map(|q| self.read_at(bir, pi, phi, q.0, depth + 1))
            .collect();
        let (v, _, _, ty) = self.plans[pi].phis[phi].clone();
        let stmt = phi_standing_for(self.ir, v, id, preds.to_vec(), values, ty);
        self.new_phis.entry(BlockId(y)).or_default().push(stmt);
        Operand::Value(id)
    }
}

/// φ `id` (`edges` ↦ `values`, of type `ty`) that stands for `H`'s φ `v`
/// of `ir`: it takes `v`'s source position and name.
fn phi_standing_for(
    ir: &IrCode,
    v: Value,
    id: Value,
    edges: Vec<BlockId>,
    values: Vec<Operand>,
    ty: Type,
) -> BStmt {
    let inst = Inst::Phi { edges, values };
    BStmt {
        id,
        flags: default_flags(&inst),
        inst,
        ty,
        span: ir.stmts.span[v],
        name: ir.stmts.name[v],
    }
}

/// A copy of `H`'s test at the end of `into`, the φs read as `inputs`.
fn copy_test(
    bir: &mut BlockIr,
    ir: &IrCode,
    p: &Plan,
    pos: usize,
    inputs: &FxMap<Value, Operand>,
) -> Operand {
    let mut map = inputs.clone();
    let mut out = Vec::new();
    for &s in &p.test {
        let mut inst = ir.stmts.inst[Value(s)].clone();
        for_each_operand_mut(&mut inst, |op| {
            if let Operand::Value(v) = op
                && let Some(r) = map.get(v)
            {
                *op = *r;
            }
        });
        // The guard's copy often reads constants (`for i in 0..4` tests
        // `0 < 4`): it folds, and a guard on a constant goes with
        // compaction.
        if let Some(to) = crate::ir::fold::simplify(&inst, &ir.stmts.ty[Value(s)]) {
            map.insert(Value(s), to);
            continue;
        }
        let id = bir.fresh_value();
        map.insert(Value(s), Operand::Value(id));
        let flags = ir.stmts.flags[Value(s)];
        out.push(BStmt {
            id,
            inst,
            ty: ir.stmts.ty[Value(s)].clone(),
            span: ir.stmts.span[Value(s)],
            flags,
            name: ir.stmts.name[Value(s)],
        });
    }
    bir.blocks[pos].stmts.extend(out);
    match p.cond {
        Operand::Value(v) => map.get(&v).copied().unwrap_or(p.cond),
        other => other,
    }
}

/// Rotates `plans` in one block view; `None` if the renaming failed.
fn rotate_all(ir: &IrCode, dom: &DomTree, plans: &[Plan]) -> Option<IrCode> {
    let mut bir = BlockIr::from_ir(ir);
    let pos = bir.positions();
    for p in plans {
        rewire(&mut bir, ir, p, &pos)?;
    }
    let dead: crate::ir::FxSet<u32> = plans.iter().map(|p| p.h).collect();
    bir.blocks.retain(|b| !dead.contains(&b.label.0));
    let mut rn = Renamer::new(ir, dom, plans);
    rename_operands(&mut rn, &mut bir);
    make_requested_phis(&mut rn, &mut bir);
    if rn.failed {
        return None;
    }
    for blk in &mut bir.blocks {
        if let Some(mut list) = rn.new_phis.remove(&blk.label) {
            list.sort_by_key(|s| s.id);
            list.append(&mut blk.stmts);
            blk.stmts = list;
        }
    }
    let mut out = bir.lower();
    compact_if_needed(&mut out);
    Some(out)
}

/// Rotates the loop of `p` in the block view: the guard `G` and the latch
/// `L` each get a copy of the header's test and branch to the body or the
/// exit; the exit's φs take from `G` and `L` what they took from `H`.
fn rewire(bir: &mut BlockIr, ir: &IrCode, p: &Plan, pos: &Positions) -> Option<()> {
    let at = |l: u32| pos[BlockId(l)];
    let (gp, lp, xp) = (at(p.g)?, at(p.l)?, at(p.x)?);
    let pre: FxMap<Value, Operand> = p.phis.iter().map(|(v, pr, _, _)| (*v, *pr)).collect();
    let lat: FxMap<Value, Operand> = p.phis.iter().map(|(v, _, la, _)| (*v, *la)).collect();
    let c0 = copy_test(bir, ir, p, gp, &pre);
    let (then, els) = if p.inverted { (p.x, p.b) } else { (p.b, p.x) };
    bir.blocks[gp].term = Term::Branch {
        cond: c0,
        then: BlockId(then),
        els: BlockId(els),
    };
    let c1 = copy_test(bir, ir, p, lp, &lat);
    bir.blocks[lp].term = Term::Branch {
        cond: c1,
        then: BlockId(then),
        els: BlockId(els),
    };
    // X's φs: the edge from H becomes the edges from G and L.
    for s in bir.blocks[xp].stmts.iter_mut() {
        let Inst::Phi { edges, values } = &mut s.inst else {
            continue;
        };
        let Some(i) = edges.iter().position(|e| e.0 == p.h) else {
            continue;
        };
        let w = values[i];
        let (wg, wl) = match w {
            Operand::Value(v) if pre.contains_key(&v) => (pre[&v], lat[&v]),
            other => (other, other),
        };
        edges[i] = BlockId(p.g);
        values[i] = wg;
        edges.push(BlockId(p.l));
        values.push(wl);
    }
    Some(())
}

impl<'a> Renamer<'a> {
    fn new(ir: &'a IrCode, dom: &'a DomTree, plans: &'a [Plan]) -> Renamer<'a> {
        let mut rn = Renamer {
            ir,
            dom,
            plans,
            own: owners(plans),
            made: FxMap::default(),
            queue: Vec::new(),
            merged: FxMap::default(),
            new_phis: FxMap::default(),
            new_preds: FxMap::default(),
            failed: false,
        };
        for p in plans {
            let (g, l) = (BlockId(p.g), BlockId(p.l));
            rn.new_preds.insert(p.b, [g, l].into_iter().collect());
            let xp: BlockList = [g, l]
                .into_iter()
                .chain(
                    ir.cfg.blocks[BlockId(p.x)]
                        .preds
                        .iter()
                        .copied()
                        .filter(|q| q.0 != p.h),
                )
                .collect();
            rn.new_preds.insert(p.x, xp);
        }
        rn
    }
}

/// Renames every operand of the block view to the value that reaches it
/// after the rotation (φ operands at the end of their edge).
fn rename_operands(rn: &mut Renamer, bir: &mut BlockIr) {
    for bi in 0..bir.blocks.len() {
        let label = bir.blocks[bi].label;
        let mut stmts = std::mem::take(&mut bir.blocks[bi].stmts);
        for s in &mut stmts {
            if let Inst::Phi { edges, values } = &mut s.inst {
                for (e, v) in edges.iter().zip(values.iter_mut()) {
                    *v = rn.rename(bir, *v, *e);
                }
            } else {
                for_each_operand_mut(&mut s.inst, |op| *op = rn.rename(bir, *op, label));
            }
        }
        bir.blocks[bi].stmts = stmts;
        let mut term = bir.blocks[bi].term.clone();
        if let Some(o) = term.operand_mut() {
            *o = rn.rename(bir, *o, label);
        }
        bir.blocks[bi].term = term;
    }
}

/// Makes the φs the renaming asked for (their operands may ask for more),
/// into `rn.new_phis`.
fn make_requested_phis(rn: &mut Renamer, bir: &mut BlockIr) {
    let (ir, plans) = (rn.ir, rn.plans);
    while let Some((pi, phi, in_x, id)) = rn.queue.pop() {
        let p = &plans[pi];
        let (v, pre, lat, ty) = p.phis[phi].clone();
        let (mut edges, mut values) = (vec![BlockId(p.g), BlockId(p.l)], Vec::new());
        values.push(rn.rename(bir, pre, BlockId(p.g)));
        values.push(rn.rename(bir, lat, BlockId(p.l)));
        if in_x {
            for q in &ir.cfg.blocks[BlockId(p.x)].preds {
                if q.0 != p.h {
                    edges.push(*q);
                    values.push(rn.rename(bir, Operand::Value(v), *q));
                }
            }
        }
        rn.new_phis
            .entry(BlockId(if in_x { p.x } else { p.b }))
            .or_default()
            .push(phi_standing_for(ir, v, id, edges, values, ty));
    }
}

/// Gives every loop with several latches (`continue`, or an `if`/`else`
/// whose arms both jump back) a single one: a new block before the header
/// that the old latches jump to, merging their φ inputs (LLVM's
/// loop-simplify). Loops headed by the entry or a handler are left alone.
fn merge_latches(ir: &mut IrCode) -> u64 {
    let mut todo: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
    for l in ir.cfg.loop_nest().loops.values() {
        if l.preheader.is_none()
            || stmts_of(ir, l.header.0).any(|(_, i)| matches!(i, Inst::PhiC { .. }))
        {
            continue;
        }
        if l.latches.len() > 1 {
            todo.push((l.header, l.latches.clone()));
        }
    }
    if todo.is_empty() {
        return 0;
    }
    let mut bir = BlockIr::from_ir(ir);
    let mut before: FxMap<Label, Vec<crate::ir::blocks::BBlock>> = FxMap::default();
    // `split_edges` leaves the layout alone (new blocks are placed at the end).
    let pos = bir.positions();
    for (h, latches) in &todo {
        let (Some(hp), Some(from)) = (
            pos[*h],
            latches
                .iter()
                .map(|l| pos[*l])
                .collect::<Option<Vec<usize>>>(),
        ) else {
            continue;
        };
        let blk = crate::opt::loops::split_edges(&mut bir, &from, hp);
        before.entry(*h).or_default().push(blk);
    }
    bir.insert_before(before);
    *ir = bir.lower();
    compact_only(ir);
    todo.len() as u64
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    // Without an edge back to an earlier block there is no loop (and no
    // dominator tree or loop nest to build).
    if !crate::opt::loops::has_back_edge(ir) {
        return;
    }
    ctx.counters.add("rotate.latches_merged", merge_latches(ir));
    for round in 0..ROUNDS {
        let n = rotate_round(ir, ctx);
        if round > 0 {
            ctx.counters.add("rotate.rotated_again", n);
        }
        if n == 0 {
            break;
        }
    }
}

/// Rotates every loop that qualifies now; how many.
fn rotate_round(ir: &mut IrCode, ctx: &mut PassCtx) -> u64 {
    let dom = ir.cfg.dom_tree();
    let plans = check_uses(ir, &dom, candidates(ir));
    if plans.is_empty() {
        return 0;
    }
    let Some(out) = rotate_all(ir, &dom, &plans) else {
        return 0;
    };
    for p in &plans {
        let term = ir.cfg.blocks[BlockId(p.h)].stmts.end.saturating_sub(1);
        let span = ir.stmts.span.get(Value(term)).copied().unwrap_or(ir.span);
        ctx.remark(ir, RemarkKind::Passed, span, |d| {
            let c = d.operand(&p.cond);
            let c = if p.inverted { format!("!({c})") } else { c };
            Msg::new("rotated the loop at ")
                .at(span)
                .t(format!(" into `if {c} {{ do {{..}} while {c} }}`"))
        });
    }
    *ir = out;
    ctx.counters.add("rotate.rotated", plans.len() as u64);
    // Restores dedicated exits: a step reported as `rotate.loops.*`.
    ctx.run_step("rotate", "loops", ir, crate::opt::loops::run);
    plans.len() as u64
}
