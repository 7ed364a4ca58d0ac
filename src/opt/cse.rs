//! Dominator-scoped common-subexpression elimination of pure operations,
//! and folding of branches on a condition a dominating branch decided
//! (LLVM's EarlyCSE, the scalar part; loads are `gvn_load`'s job).
//!
//! The dominator tree is walked in preorder with a scoped table: a pure
//! `Unary`/`Binary` statement whose key (operation, operands with earlier
//! duplicates already replaced) is in the table is replaced by the value
//! there, which is defined in a dominating block or earlier in the same
//! block, so it dominates every use. Commutative integer operations and
//! `ieq`/`ine` order their operands first. Float operations are keyed by
//! the operands' bits (`Operand`'s equality): `0.0` and `-0.0` never merge.
//! String constants are never merged: strings are references, and `ieq`
//! on references compares identity.
//!
//! Simplification (EarlyCSE's `simplifyInstruction`): a pure operation
//! whose operands, read through the replacements so far, fold to a constant
//! or by an identity to one of them (`ilt(0, 4)`, `iadd(x, 0)`, `x ^ x`;
//! [`crate::ir::fold::simplify_binary`]) is replaced by that. Inlining,
//! `gvn_load` (a load replaced by the stored constant) and `licm` leave
//! such operations behind; a branch on a folded condition becomes a branch
//! on a constant, which compaction removes. A fresh allocation compared
//! with `nil` folds too: it is never `nil`.
//!
//! Known conditions: when block `B` has a single predecessor `D` that ends
//! in `goto X if not c` (`c` a value), `c` is true in `B`'s dominator
//! subtree if `B` is `D`'s fallthrough, false if `B` is `X` (and not both).
//! A `goto .. if not c` inside that subtree gets the constant as condition;
//! `simplifycfg` then removes the dead edge. This is what removes a runtime
//! check duplicated by LICM or by the source (`c[i][j] = c[i][j] + ..`
//! checks `i < len(c)` twice).
//!
//! The walk is iterative (an explicit stack), and the table is undone on the
//! way up through a log, so the pass is linear in the function's size.
//! Counters: `cse.replaced`, `cse.folded`, `cse.branches`.

use crate::ir::FxMap;
use crate::ir::compact::compact_only;
use crate::ir::edit::{OpKey, for_each_operand_mut, op_key, replace_uses};
use crate::ir::{BinaryOp, BlockId, Cmp, Inst, IrCode, Operand, Value};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};

#[derive(Copy, Clone, PartialEq, Eq, Hash)]
enum ExprKey {
    Unary(crate::ir::UnaryOp, OpKey),
    Binary(BinaryOp, OpKey, OpKey),
}

fn expr_key(inst: &Inst) -> Option<ExprKey> {
    match inst {
        Inst::Unary(op, a) => Some(ExprKey::Unary(*op, op_key(*a))),
        Inst::Binary(op, a, b) => {
            let (mut x, mut y) = (op_key(*a), op_key(*b));
            if op.is_commutative() && y < x {
                std::mem::swap(&mut x, &mut y);
            }
            Some(ExprKey::Binary(*op, x, y))
        }
        _ => None,
    }
}

/// What undoing one table entry means on the way up the dominator tree.
enum Undo {
    Expr(ExprKey, Option<Value>),
    Cond(Value, Option<bool>),
}

/// The scoped tables of the walk.
#[derive(Default)]
struct Scope {
    exprs: FxMap<ExprKey, Value>,
    /// Branch conditions known in this scope (few: a sparse map).
    conds: FxMap<Value, bool>,
    log: Vec<Undo>,
    replaced: u64,
    folded: u64,
    branches: u64,
    /// Whether constants of additions move outward ([`reassociate`]).
    reassociate: bool,
    reassociated: u64,
    /// When remarks are wanted: what the walk did ([`Said`]).
    said: Option<Said>,
}

/// What the walk did, for remarks: merged (statement, earlier twin) pairs,
/// decided (branch, condition, value) triples and simplified (statement,
/// its operation, what it is) triples.
type Said = (
    Vec<(Value, Value)>,
    Vec<(Value, Value, bool)>,
    Vec<(Value, Inst, Operand)>,
);

/// What pure statement `v` is, its operands being what they are
/// ([`crate::ir::fold::simplify`]); a fresh allocation compared with `nil`
/// is never `nil` (`gvn_load` leaves such checks behind when it forwards
/// a stored allocation to a load).
fn simplified(ir: &IrCode, v: Value) -> Option<Operand> {
    let inst = &ir.stmts.inst[v];
    if let Some(to) = crate::ir::fold::simplify(inst, &ir.stmts.ty[v]) {
        return Some(to);
    }
    let Inst::Binary(BinaryOp::ICmp(c @ (Cmp::Eq | Cmp::Ne)), a, b) = *inst else {
        return None;
    };
    let ((Operand::Value(x), Operand::Nil) | (Operand::Nil, Operand::Value(x))) = (a, b) else {
        return None;
    };
    matches!(
        ir.stmts.get(x),
        Some(Inst::NewStruct { .. } | Inst::NewArray { .. })
    )
    .then_some(Operand::Bool(c == Cmp::Ne))
}

/// `x + c` as `(x, c)`: an integer addition of a constant to a value,
/// or a subtraction of one (`x - c` is `x + -c`: arithmetic wraps).
fn offset(inst: &Inst) -> Option<(Operand, i64)> {
    match *inst {
        Inst::Binary(BinaryOp::IAdd, x, Operand::Int(c))
        | Inst::Binary(BinaryOp::IAdd, Operand::Int(c), x) => Some((x, c)),
        Inst::Binary(BinaryOp::ISub, x, Operand::Int(c)) => Some((x, c.wrapping_neg())),
        _ => None,
    }
    .filter(|(x, _)| !matches!(x, Operand::Int(_)))
}

/// Moves the constants of statement `v`'s integer additions outward,
/// where that makes no new statement (integer arithmetic wraps, so both
/// are exact):
/// - `(x + c1) + c2` becomes `x + (c1 + c2)` (written `x - c` when the
///   sum is a negative `-c`);
/// - `a + (y + c)` becomes `u + c` when `u = a + y` is in the table (a
///   loop unrolled by `divpair` reads `i + (j + 1)` where the iteration
///   before computed `i + j`), so that `u + c` can meet its twin.
///
/// Operands were read through copies, and the statements they name were
/// visited already (they dominate `v`), so their constants are outermost.
fn reassociate(ir: &mut IrCode, exprs: &FxMap<ExprKey, Value>, v: Value) -> bool {
    let inst = &ir.stmts.inst[v];
    let offset_of = |op: Operand| match op {
        Operand::Value(x) => ir.stmts.get(x).and_then(offset),
        _ => None,
    };
    let new = if let Some((x, c2)) = offset(inst) {
        let Some((y, c1)) = offset_of(x) else {
            return false;
        };
        match c1.wrapping_add(c2) {
            c if c < 0 && c != i64::MIN => Inst::Binary(BinaryOp::ISub, y, Operand::Int(-c)),
            c => Inst::Binary(BinaryOp::IAdd, y, Operand::Int(c)),
        }
    } else if let Inst::Binary(BinaryOp::IAdd, a, b) = *inst {
        let found = [(a, b), (b, a)].into_iter().find_map(|(p, q)| {
            let (y, c) = offset_of(q)?;
            let key = expr_key(&Inst::Binary(BinaryOp::IAdd, p, y))?;
            Some((*exprs.get(&key)?, c))
        });
        let Some((u, c)) = found else { return false };
        Inst::Binary(BinaryOp::IAdd, Operand::Value(u), Operand::Int(c))
    } else {
        return false;
    };
    ir.stmts.inst[v] = new;
    true
}

impl Scope {
    /// Visits block `b` (its dominators are visited and still in scope).
    fn enter(&mut self, ir: &mut IrCode, b: BlockId) {
        // A condition decided by the single predecessor's branch.
        if let [p] = ir.cfg.blocks[b].preds[..]
            && let Some((
                _,
                &Inst::GotoIfNot {
                    cond: Operand::Value(c),
                    dest,
                },
            )) = ir.last_stmt(p)
        {
            let falls = p.next() == b;
            let jumps = dest == b;
            if falls != jumps {
                let old = self.conds.insert(c, falls);
                self.log.push(Undo::Cond(c, old));
            }
        }
        let range = ir.cfg.blocks[b].stmts.clone();
        for s in range {
            // A merged duplicate became a `Copy` of its earlier twin; read
            // through copies (a `Copy` stands for its operand) so later keys
            // see the canonical value.
            let mut inst = std::mem::replace(&mut ir.stmts.inst[Value(s)], Inst::Nothing);
            for_each_operand_mut(&mut inst, |op| {
                if let Operand::Value(v) = op
                    && let Some(Inst::Copy(r)) = ir.stmts.get(*v)
                {
                    *op = *r;
                }
            });
            ir.stmts.inst[Value(s)] = inst;
            let inst = &mut ir.stmts.inst[Value(s)];
            if let Inst::GotoIfNot { cond, .. } = inst {
                if let Operand::Value(c) = cond
                    && let Some(&known) = self.conds.get(c)
                {
                    if let Some((_, branches, _)) = &mut self.said {
                        branches.push((Value(s), *c, known));
                    }
                    *cond = Operand::Bool(known);
                    self.branches += 1;
                }
                continue;
            }
            if self.reassociate && reassociate(ir, &self.exprs, Value(s)) {
                self.reassociated += 1;
            }
            if let Some(to) = simplified(ir, Value(s)) {
                if let Some((_, _, folded)) = &mut self.said {
                    folded.push((Value(s), ir.stmts.inst[Value(s)].clone(), to));
                }
                replace_uses(ir, Value(s), to);
                self.folded += 1;
                continue;
            }
            let Some(k) = expr_key(&ir.stmts.inst[Value(s)]) else {
                continue;
            };
            match self.exprs.get(&k) {
                Some(&earlier) => {
                    replace_uses(ir, Value(s), Operand::Value(earlier));
                    if let Some((merged, _, _)) = &mut self.said {
                        merged.push((Value(s), earlier));
                    }
                    self.replaced += 1;
                }
                None => {
                    let old = self.exprs.insert(k, Value(s));
                    self.log.push(Undo::Expr(k, old));
                }
            }
        }
    }

    /// Undoes the table entries made after `mark`.
    fn leave(&mut self, mark: usize) {
        while self.log.len() > mark {
            match self.log.pop() {
                Some(Undo::Expr(k, Some(v))) => {
                    self.exprs.insert(k, v);
                }
                Some(Undo::Expr(k, None)) => {
                    self.exprs.remove(&k);
                }
                Some(Undo::Cond(c, Some(v))) => {
                    self.conds.insert(c, v);
                }
                Some(Undo::Cond(c, None)) => {
                    self.conds.remove(&c);
                }
                None => break,
            }
        }
    }
}

/// The remarks on what the walk merged, simplified and decided (made
/// before compaction: a merged or simplified statement is a copy).
fn remark(ir: &mut IrCode, ctx: &mut PassCtx, (merged, decided, folded): &Said) {
    for &(s, earlier) in merged {
        let (at, first) = (ir.stmts.span[s], ir.stmts.span[earlier]);
        ctx.remark(ir, RemarkKind::Passed, at, |d| {
            Msg::new(format!("{} at ", d.operand(&Operand::Value(earlier))))
                .at(at)
                .t(" is computed already at ")
                .at(first)
        });
    }
    for (s, inst, to) in folded {
        let (s, at) = (*s, ir.stmts.span[*s]);
        // Described as it was (it is a copy of `to` now).
        let copy = std::mem::replace(&mut ir.stmts.inst[s], inst.clone());
        ctx.remark(ir, RemarkKind::Passed, at, |d| {
            Msg::new(format!("{} at ", d.operand(&Operand::Value(s))))
                .at(at)
                .t(format!(" is {}", d.operand(to)))
        });
        ir.stmts.inst[s] = copy;
    }
    for &(s, c, known) in decided {
        let at = ir.stmts.span[s];
        ctx.remark(ir, RemarkKind::Passed, at, |d| {
            Msg::new("the branch at ").at(at).t(format!(
                " is decided: {} is {known} here",
                d.operand(&Operand::Value(c))
            ))
        });
    }
}

/// The `cse` and `cse.late` rows: constants of additions stay where they
/// are. `checks` matches the sums it reads as written (`x <= m` before
/// `a[x]` of `[_; m + 1]`, with `m = k - 1`: reassociated, the length
/// would be `k` and the check would stay).
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    run_with(ir, ctx, false);
}

/// The step `divpair.cse`: `cse` with [`reassociate`], on a function
/// `divpair` unrolled (after `checks` and `version`).
pub fn run_reassociating(ir: &mut IrCode, ctx: &mut PassCtx) {
    run_with(ir, ctx, true);
}

fn run_with(ir: &mut IrCode, ctx: &mut PassCtx, reassociate: bool) {
    if ir.cfg.blocks.is_empty() {
        return;
    }
    let dom = ir.cfg.dom_tree();
    let mut scope = Scope {
        said: ctx.remarks_on().then(Default::default),
        reassociate,
        // Sized for every statement: no rehash while the walk fills it.
        exprs: FxMap::with_capacity_and_hasher(ir.stmts.len(), Default::default()),
        ..Scope::default()
    };
    // (block, next child index, log length before the block was entered)
    let mut stack: Vec<(BlockId, usize, usize)> = vec![(BlockId(0), 0, 0)];
    scope.enter(ir, BlockId(0));
    while let Some(top) = stack.last_mut() {
        let (b, i, mark) = *top;
        if let Some(&c) = dom.children(b).get(i) {
            top.1 += 1;
            stack.push((c, 0, scope.log.len()));
            scope.enter(ir, c);
            continue;
        }
        stack.pop();
        scope.leave(mark);
    }
    if let Some(said) = scope.said.take() {
        remark(ir, ctx, &said);
    }
    if scope.replaced + scope.folded + scope.branches > 0 {
        compact_only(ir);
    }
    ctx.counters.add("cse.replaced", scope.replaced);
    ctx.counters.add("cse.folded", scope.folded);
    ctx.counters.add("cse.branches", scope.branches);
    ctx.counters.add("cse.reassociated", scope.reassociated);
}
