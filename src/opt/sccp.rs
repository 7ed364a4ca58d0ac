//! Sparse conditional constant propagation (Wegman & Zadeck 1991).
//!
//! Lattice per value: `Top` (no executable definition seen yet) above
//! `Const(c)` above `Bottom` (varies). Two worklists: CFG edges that became
//! executable, and values whose lattice value dropped. A block's statements
//! are evaluated when it first becomes executable; a φ meets only operands
//! of executable edges; a `GotoIfNot` on a constant marks one edge.
//!
//! The rewrite runs inside one [`IncrementalCompact`] sweep: every pure
//! statement with a constant value becomes `Copy(c)` (all uses forwarded),
//! every constant branch condition is replaced by the constant, and the
//! compaction then kills the dead edges and blocks, prunes φs and removes
//! the now-dead statements. Division by a constant zero is never folded:
//! the IR raises before it, and that raise stays.
//!
//! Counters: `sccp.consts` (values replaced by constants), `sccp.branches`
//! (conditions decided), plus the compaction's `sccp.dead`, `sccp.blocks`.

use crate::ir::FxSet;
use crate::ir::budget::Budget;
use crate::ir::compact::IncrementalCompact;
use crate::ir::edges::{Succs, block_succs};
use crate::ir::edit::{NewNodes, for_each_value_use, is_pure};
use crate::ir::fold;
use crate::ir::graph::{Grouped, group_by_key};
use crate::ir::{BlockId, Inst, IrCode, Operand, Value};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};
use cranelift_entity::{EntityRef, SecondaryMap};

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Lattice {
    Top,
    Const(Operand),
    Bottom,
}

fn meet(a: Lattice, b: Lattice) -> Lattice {
    match (a, b) {
        (Lattice::Top, x) | (x, Lattice::Top) => x,
        (Lattice::Const(x), Lattice::Const(y)) if x == y => Lattice::Const(x),
        _ => Lattice::Bottom,
    }
}

/// The solver's result: lattice value per statement (`Bottom` beyond the
/// statements), executable blocks.
pub struct Solution {
    pub values: SecondaryMap<Value, Lattice>,
    pub executable: SecondaryMap<BlockId, bool>,
}

struct Solver<'a> {
    ir: &'a IrCode,
    values: SecondaryMap<Value, Lattice>,
    block_of: SecondaryMap<Value, BlockId>,
    exec_block: SecondaryMap<BlockId, bool>,
    exec_edges: FxSet<(BlockId, BlockId)>,
    /// Each statement's users, keyed by value index, in statement order
    /// (a statement that uses `v` twice listed twice).
    users: Grouped<Value>,
    flow: Vec<(BlockId, BlockId)>,
    ssa: Vec<Value>,
}

impl Solver<'_> {
    fn lat(&self, op: &Operand) -> Lattice {
        match op {
            Operand::Value(v) => self.values[*v],
            Operand::Arg(_) => Lattice::Bottom,
            c => Lattice::Const(*c),
        }
    }

    fn eval(&self, s: Value) -> Lattice {
        // One or two operands (unary and binary operations).
        let all = |ops: &[&Operand], f: &dyn Fn(&[Operand]) -> Option<Operand>| {
            let mut consts = [Operand::Nil; 2];
            for (k, op) in ops.iter().enumerate() {
                match self.lat(op) {
                    Lattice::Bottom => return Lattice::Bottom,
                    Lattice::Top => return Lattice::Top,
                    Lattice::Const(c) => consts[k] = c,
                }
            }
            f(&consts[..ops.len()]).map_or(Lattice::Bottom, Lattice::Const)
        };
        match &self.ir.stmts.inst[s] {
            Inst::Copy(a) | Inst::Pi { value: a, .. } => self.lat(a),
            Inst::Unary(op, a) => all(&[a], &|c| fold::unary(*op, c[0])),
            Inst::Binary(op, a, b) => all(&[a, b], &|c| fold::binary(*op, c[0], c[1])),
            Inst::Phi { edges, values } => {
                let b = self.block_of[s];
                let mut acc = Lattice::Top;
                for (e, v) in edges.iter().zip(values) {
                    if self.exec_edges.contains(&(*e, b)) {
                        acc = meet(acc, self.lat(v));
                    }
                }
                acc
            }
            _ => Lattice::Bottom,
        }
    }

    fn set(&mut self, s: Value, new: Lattice) {
        let old = self.values[s];
        let merged = match (old, new) {
            (Lattice::Bottom, _) => Lattice::Bottom,
            (Lattice::Const(a), Lattice::Const(b)) if a != b => Lattice::Bottom,
            (Lattice::Const(_), Lattice::Top) => old,
            _ => new,
        };
        if merged != old {
            self.values[s] = merged;
            self.ssa.push(s);
        }
    }

    fn visit_stmt(&mut self, s: Value) {
        let inst = &self.ir.stmts.inst[s];
        let b = self.block_of[s];
        let bb = &self.ir.cfg.blocks[b];
        if s.0 + 1 == bb.stmts.end {
            self.visit_terminator(b);
        }
        if !inst.is_terminator() {
            let l = self.eval(s);
            self.set(s, l);
        }
    }

    fn visit_terminator(&mut self, b: BlockId) {
        let nb = self.ir.cfg.blocks.len() as u32;
        let last = self.ir.last_stmt(b).map(|(_, i)| i);
        let targets = match last {
            Some(Inst::GotoIfNot { cond, dest }) => match self.lat(cond) {
                Lattice::Top => Succs::default(),
                Lattice::Const(Operand::Bool(true)) => block_succs(None, b.0, nb),
                Lattice::Const(Operand::Bool(false)) => Succs::one(*dest),
                _ => block_succs(last, b.0, nb),
            },
            _ => block_succs(last, b.0, nb),
        };
        for t in targets {
            if t.0 < nb && self.exec_edges.insert((b, t)) {
                self.flow.push((b, t));
            }
        }
    }

    fn solve(&mut self) {
        if self.ir.cfg.blocks.is_empty() {
            return;
        }
        self.exec_block[BlockId(0)] = true;
        for s in self.ir.cfg.blocks[BlockId(0)].stmts.clone() {
            self.visit_stmt(Value(s));
        }
        // Each edge is queued once (when it first becomes executable) and
        // each value at most twice (Top → Const → Bottom).
        let edges: usize = self.ir.cfg.blocks.values().map(|b| b.succs.len()).sum();
        let mut budget = Budget::new(
            "sccp's worklist",
            2 * (edges as u64 + 2 * self.ir.stmts.len() as u64) + 64,
        );
        loop {
            budget.step();
            if let Some((_, to)) = self.flow.pop() {
                let range = self.ir.cfg.blocks[to].stmts.clone().map(Value);
                if self.exec_block[to] {
                    // Only the φs see the new edge.
                    for s in range {
                        if matches!(self.ir.stmts.inst[s], Inst::Phi { .. }) {
                            self.visit_stmt(s);
                        }
                    }
                } else {
                    self.exec_block[to] = true;
                    for s in range {
                        self.visit_stmt(s);
                    }
                }
            } else if let Some(v) = self.ssa.pop() {
                for i in self.users.range(v.index()) {
                    let u = self.users.items[i];
                    if self.exec_block[self.block_of[u]] {
                        self.visit_stmt(u);
                    }
                }
            } else {
                break;
            }
        }
    }
}

/// Each statement's users ([`Solver::users`]).
fn users_of(ir: &IrCode) -> Grouped<Value> {
    let n = ir.stmts.len();
    group_by_key(n, Value(0), |f| {
        for (s, inst) in ir.stmts.inst.iter() {
            for_each_value_use(inst, |v| {
                if v.index() < n {
                    f(v.index(), s);
                }
            });
        }
    })
}

/// Solves the lattice for `ir` (no rewriting).
pub fn solve(ir: &IrCode) -> Solution {
    let n = ir.stmts.len();
    let mut block_of = SecondaryMap::with_default(BlockId(0));
    block_of.resize(n);
    for (b, bb) in ir.cfg.blocks.iter() {
        for s in bb.stmts.clone() {
            block_of[Value(s)] = b;
        }
    }
    let mut values = SecondaryMap::with_default(Lattice::Bottom);
    values.resize(n);
    for s in ir.stmts.inst.keys() {
        values[s] = Lattice::Top;
    }
    let mut solver = Solver {
        ir,
        values,
        block_of,
        exec_block: SecondaryMap::with_capacity(ir.cfg.blocks.len()),
        // Sized for every edge: no rehash while the solver marks them.
        exec_edges: FxSet::with_capacity_and_hasher(2 * ir.cfg.blocks.len(), Default::default()),
        users: users_of(ir),
        flow: Vec::new(),
        ssa: Vec::new(),
    };
    solver.solve();
    Solution {
        values: solver.values,
        executable: solver.exec_block,
    }
}

/// The pass: solve, then rewrite and compact in one sweep.
/// Remarks on the branches whose condition `sol` found constant.
fn remark_folded_branches(ir: &IrCode, sol: &Solution, ctx: &mut PassCtx) {
    for (s, inst) in ir.stmts.inst.iter() {
        if let Inst::GotoIfNot {
            cond: Operand::Value(c),
            ..
        } = inst
            && let Some(Lattice::Const(Operand::Bool(k))) = sol.values.get(*c)
        {
            let span = ir.stmts.span[s];
            ctx.remark(ir, RemarkKind::Passed, span, |d| {
                Msg::new("folded the branch at ").at(span).t(format!(
                    ": {} is always {k}",
                    d.operand(&Operand::Value(*c))
                ))
            });
        }
    }
}

/// Whether the rewrite of [`run`] would change a statement of `ir`: a pure
/// statement `sol` found constant (other than a copy), a branch on a
/// constant, or a copy left for compaction to forward.
fn rewrites_anything(ir: &IrCode, sol: &Solution) -> bool {
    let constant = |v: Value| matches!(sol.values.get(v), Some(Lattice::Const(_)));
    ir.stmts.inst.iter().any(|(v, inst)| match inst {
        Inst::GotoIfNot { cond, .. } => match cond {
            Operand::Value(c) => {
                matches!(sol.values.get(*c), Some(Lattice::Const(Operand::Bool(_))))
            }
            Operand::Arg(_) => false,
            _ => true,
        },
        Inst::Copy(_) => true,
        Inst::Nothing => false,
        _ => is_pure(inst) && constant(v),
    })
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let sol = solve(ir);
    if ctx.remarks_on() {
        remark_folded_branches(ir, &sol, ctx);
    }
    if !rewrites_anything(ir, &sol) {
        let stats = ctx.compact_unchanged(ir);
        let counters = &mut ctx.counters;
        counters.add("sccp.dead", stats.dead_removed as u64);
        counters.add("sccp.blocks", stats.blocks_removed as u64);
        return;
    }
    let mut consts = 0;
    let mut branches = 0;
    let new = NewNodes::new(ir);
    let mut ic = IncrementalCompact::new(ir, new);
    while let Some(v) = ic.next_value() {
        let Some(&lat) = sol.values.get(v) else {
            continue;
        };
        let Some(inst) = ic.inst_mut(v) else { continue };
        match inst {
            Inst::GotoIfNot { cond, .. } => {
                if let Operand::Value(c) = cond
                    && let Some(Lattice::Const(k @ Operand::Bool(_))) = sol.values.get(*c)
                {
                    *cond = *k;
                }
                if matches!(cond, Operand::Bool(_)) {
                    branches += 1;
                }
            }
            Inst::Copy(_) => {}
            _ if is_pure(inst) && !matches!(inst, Inst::Nothing) => {
                if let Lattice::Const(c) = lat {
                    *inst = Inst::Copy(c);
                    consts += 1;
                }
            }
            _ => {}
        }
    }
    let stats = ic.finish();
    let counters = &mut ctx.counters;
    counters.add("sccp.consts", consts);
    counters.add("sccp.branches", branches);
    counters.add("sccp.dead", stats.dead_removed as u64);
    counters.add("sccp.blocks", stats.blocks_removed as u64);
}
