//! The rewrite of [`super::version`]'s plans in the block view: the guard
//! at the end of the preheader, the copy of the loop (its checks made
//! jumps) between two new preheaders, and the exits' φs.

use super::Plan;
use super::guard::Emit;
use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Positions, Term};
use crate::ir::edit::{default_flags, for_each_operand_mut};
use crate::ir::{BinaryOp, BlockId, Cmp, Flags, FxMap, FxSet, Inst, IrCode, Operand, Value};
use crate::span::Span;

/// Loops of at most this many iterations run the original loop without
/// evaluating the guard.
pub const MIN_TRIPS: i64 = 16;

/// Versions the loop of every plan; returns which plans were applied (a
/// plan whose guard can never hold is not) and the blocks of the lowered
/// IR that are the blocks `keep` and the headers of the two copies of
/// each applied loop. Leaves `ir` not compacted (see [`BlockIr::lower`]).
pub fn version(
    ir: &mut IrCode,
    plans: &[Plan],
    keep: &FxSet<BlockId>,
) -> (Vec<bool>, FxSet<BlockId>) {
    let mut bir = BlockIr::from_ir(ir);
    let pos = bir.positions();
    let mut before: FxMap<Label, Vec<BBlock>> = FxMap::default();
    let mut applied = Vec::new();
    let mut heads: Vec<BlockId> = keep.iter().copied().collect();
    let mut any = false;
    for p in plans {
        let done = version_one(&mut bir, &pos, ir, p);
        applied.push(done.is_some());
        if let Some(blocks) = done {
            any = true;
            heads.push(p.header);
            if let Term::Goto(copy) = blocks[1].term {
                heads.push(copy);
            }
            before.insert(p.header, blocks);
        }
    }
    if !any {
        return (applied, FxSet::default());
    }
    bir.insert_before(before);
    let (lowered, at) = bir.lower_with_positions();
    *ir = lowered;
    let heads = (heads.iter())
        .filter_map(|l| at[*l].map(|p| BlockId(p as u32)))
        .collect();
    (applied, heads)
}

/// The guard's statements and condition (see [`super::guard`]).
fn guard(bir: &mut BlockIr, p: &Plan, span: Span) -> Option<(Vec<BStmt>, Operand)> {
    let mut fresh = || bir.fresh_value();
    let mut e = Emit::new(span, &mut fresh);
    let first = p.first;
    let last = if p.inclusive {
        p.n
    } else {
        let s = super::guard::Sym::bin(
            BinaryOp::ISub,
            super::guard::Sym::Op(p.n),
            super::guard::Sym::Op(Operand::Int(1)),
        );
        e.sym(&s)
    };
    e.require_small(first);
    e.require_small(last);
    e.require(Cmp::Le, first, last);
    for c in &p.checks {
        e.require_in_bounds(&c.index, first, last, c.len);
    }
    e.finish()
}

/// Whether the loop runs more than [`MIN_TRIPS`] iterations: `first +
/// MIN_TRIPS < n` (a heuristic: wrapping only picks a copy), so that short
/// loops skip the guard, which costs more than their checks; `None` when
/// that is false for constants.
fn trip_test(bir: &mut BlockIr, p: &Plan, span: Span) -> Option<(Vec<BStmt>, Operand)> {
    let mut fresh = || bir.fresh_value();
    let mut e = Emit::new(span, &mut fresh);
    let first = super::guard::Sym::Op(p.first);
    let trips = super::guard::Sym::Op(Operand::Int(MIN_TRIPS));
    let at_least = e.sym(&super::guard::Sym::bin(BinaryOp::IAdd, first, trips));
    e.require(Cmp::Lt, at_least, p.n);
    e.finish()
}

/// Old → new labels and values of one copy.
struct Renaming {
    labels: FxMap<Label, Label>,
    values: FxMap<Value, Value>,
}

impl Renaming {
    fn op(&self, o: &mut Operand) {
        if let Operand::Value(v) = o
            && let Some(n) = self.values.get(v)
        {
            *v = *n;
        }
    }
    fn label(&self, l: Label) -> Label {
        self.labels.get(&l).copied().unwrap_or(l)
    }
}

/// The copy of block `b` (a check block of the plan's when `check`).
fn copy_block(b: &BBlock, r: &Renaming, check: bool) -> BBlock {
    let stmts = b
        .stmts
        .iter()
        .map(|s| {
            let mut inst = s.inst.clone();
            for_each_operand_mut(&mut inst, |o| r.op(o));
            if let Inst::Phi { edges, .. } = &mut inst {
                edges.iter_mut().for_each(|e| *e = r.label(*e));
            }
            BStmt {
                id: r.values[&s.id],
                inst,
                ..s.clone()
            }
        })
        .collect();
    let mut term = match &b.term {
        Term::Branch { then, .. } if check => Term::Goto(*then),
        t => t.clone(),
    };
    for s in term.succs() {
        term.retarget(s, r.label(s));
    }
    if let Some(o) = term.operand_mut() {
        r.op(o);
    }
    BBlock {
        label: r.label(b.label),
        stmts,
        term,
        term_span: b.term_span,
        term_flags: b.term_flags,
    }
}

/// Versions the loop of `p`: edits its preheader, header and exits and
/// the uses after it, and returns the blocks to place before its header.
fn version_one(bir: &mut BlockIr, pos: &Positions, ir: &IrCode, p: &Plan) -> Option<Vec<BBlock>> {
    let at = |b: Label| pos[b].expect("plan blocks are blocks of the view");
    let span = bir.blocks[at(p.header)].term_span;
    let (gstmts, g) = guard(bir, p, span)?;
    let (fast, slow) = (bir.fresh_label(), bir.fresh_label());
    let mut r = Renaming {
        labels: FxMap::from_iter([(p.preheader, fast)]),
        values: FxMap::default(),
    };
    for &b in &p.blocks {
        let l = bir.fresh_label();
        r.labels.insert(b, l);
        for i in 0..bir.blocks[at(b)].stmts.len() {
            let v = bir.fresh_value();
            r.values.insert(bir.blocks[at(b)].stmts[i].id, v);
        }
    }
    let copies: Vec<BBlock> = (p.blocks.iter())
        .map(|&b| {
            let check = p.checks.iter().any(|c| c.block == b);
            copy_block(&bir.blocks[at(b)], &r, check)
        })
        .collect();
    for &x in &p.exits {
        let preds: Vec<(Label, Label)> = (p.blocks.iter().zip(&copies))
            .filter(|(_, c)| c.term.succs().contains(&x))
            .map(|(b, c)| (*b, c.label))
            .collect();
        if !preds.is_empty() {
            add_exit_edges(bir, at(x), &preds, &r);
            exit_phis(bir, pos, ir, p, x, &preds, &r);
        }
    }
    // The preheader tests the trip count; the guard gets a block of its own.
    let guard_label = bir.fresh_label();
    let long = trip_test(bir, p, span)?;
    let ph = at(p.preheader);
    bir.blocks[ph].stmts.extend(long.0);
    bir.blocks[ph].term = Term::Branch {
        cond: long.1,
        then: guard_label,
        els: slow,
    };
    bir.blocks[at(p.header)].rename_phi_edge(p.preheader, slow);
    let jump = |label, to| BBlock {
        label,
        stmts: Vec::new(),
        term: Term::Goto(to),
        term_span: span,
        term_flags: Flags::default(),
    };
    let guard_block = BBlock {
        label: guard_label,
        stmts: gstmts,
        term: Term::Branch {
            cond: g,
            then: fast,
            els: slow,
        },
        term_span: span,
        term_flags: Flags::default(),
    };
    let mut out = vec![guard_block, jump(fast, r.label(p.header))];
    out.extend(copies);
    out.push(jump(slow, p.header));
    Some(out)
}

/// Gives each φ of exit block `xi` an edge from each copied predecessor
/// (`preds`: original, copy), reading the copy of the original's value.
fn add_exit_edges(bir: &mut BlockIr, xi: usize, preds: &[(Label, Label)], r: &Renaming) {
    for s in bir.blocks[xi].phis_mut() {
        let Inst::Phi { edges, values } = &mut s.inst else {
            continue;
        };
        for &(orig, copy) in preds {
            if let Some(i) = edges.iter().position(|e| *e == orig) {
                let mut v = values[i];
                r.op(&mut v);
                edges.push(copy);
                values.push(v);
            }
        }
    }
}

/// Makes exit `x`'s φ for each value the plan's uses after `x` read, and
/// points those uses at it.
fn exit_phis(
    bir: &mut BlockIr,
    pos: &Positions,
    ir: &IrCode,
    p: &Plan,
    x: Label,
    preds: &[(Label, Label)],
    r: &Renaming,
) {
    let xi = pos[x].expect("exits are blocks of the view");
    let mut made: FxMap<Value, Value> = FxMap::default();
    for u in p.uses.iter().filter(|u| u.exit == x) {
        let phi = match made.get(&u.v) {
            Some(phi) => *phi,
            None => {
                let orig = ir.cfg.blocks[x].preds.iter().copied();
                let mut edges: Vec<Label> = orig.collect();
                let mut values = vec![Operand::Value(u.v); edges.len()];
                for &(_, copy) in preds {
                    edges.push(copy);
                    values.push(Operand::Value(r.values[&u.v]));
                }
                let inst = Inst::Phi { edges, values };
                let id = bir.fresh_value();
                let stmt = BStmt {
                    id,
                    flags: default_flags(&inst),
                    inst,
                    ty: ir.stmts.ty[u.v].clone(),
                    span: ir.stmts.span[u.v],
                    name: ir.stmts.name[u.v],
                };
                let blk = &mut bir.blocks[xi];
                let k = blk.phis_mut().count();
                blk.stmts.insert(k, stmt);
                made.insert(u.v, id);
                id
            }
        };
        let ui = pos[u.block].expect("users are in blocks of the view");
        bir.blocks[ui].replace_use(
            Some(u.user),
            u.edge,
            Operand::Value(u.v),
            Operand::Value(phi),
        );
    }
}
