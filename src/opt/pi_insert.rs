//! π insertion (Julia's `PiNode`): after a conditional branch on an integer
//! or reference comparison, the successor where the comparison's outcome is
//! known gets a `π (x, fact)` for the compared value, and every use of `x`
//! dominated by that successor reads the π instead. [`place_pis`] leaves
//! the πs beside the stream ([`PlacedPis`]): [`crate::opt::checks`] reads
//! the facts off the operands it sees and withdraws them; the `pi` pass
//! puts them in the stream.
//!
//! Invariants of the result:
//! - A π is placed at the head of a successor `S` (after its φs) only when
//!   `S` has the branching block as its single predecessor and is not the
//!   other successor too, so the fact holds on every path into `S`.
//! - Uses are renamed only in statements of blocks dominated by `S` (and φ
//!   operands whose incoming edge starts in such a block), so every renamed
//!   use is dominated by its π.
//! - Blocks are visited in reverse postorder, so an outer π is in place
//!   before an inner branch is looked at: inner πs refine outer ones
//!   (`π (π (x, f1), f2)`), and a fact holds for the whole chain.
//!
//! Facts made (`true`/`false` edge):
//! `x < y`: `x ∈ [-, y)` / `x ∈ [y, -)`; `x >= y` the converse;
//! `x > y`: `y ∈ [-, x)` / `y ∈ [x, -)`; `x <= y` the converse;
//! `x <ᵤ y`: `x ∈ [0, y)` on the true edge; `x != nil`: `x` non-nil on the
//! true edge, `x == nil` on the false edge.

use crate::ir::compact::compact;
use crate::ir::dom::DomTree;
use crate::ir::edit::{NewNodes, for_each_operand, for_each_operand_mut};
use crate::ir::{BinaryOp, BlockId, Cmp, Fact, Inst, IrCode, Operand, Type, Value};
use crate::ir::{FxMap, FxSet};
use crate::opt::PassCtx;
use cranelift_entity::SecondaryMap;

/// Facts about operands: (value, fact) pairs.
type Facts = Vec<(Operand, Fact)>;

/// The type of `o`, also when it is a π inserted earlier (in `new`).
fn type_of(ir: &IrCode, new: &NewNodes, o: &Operand) -> Option<Type> {
    crate::ir::operand_type_with(o, &ir.params, |v| match v.0.checked_sub(new.base) {
        Some(k) => new.nodes.get(k as usize).map(|n| n.ty.clone()),
        None => ir.stmts.ty.get(v).cloned(),
    })
}

/// The facts a branch on `cond` gives its (true, false) successors.
fn branch_facts(ir: &IrCode, new: &NewNodes, cond: &Operand) -> (Facts, Facts) {
    let mut t = Vec::new();
    let mut f = Vec::new();
    let Operand::Value(c) = cond else {
        return (t, f);
    };
    let Some(Inst::Binary(BinaryOp::ICmp(cmp), x, y)) = ir.stmts.get(*c) else {
        return (t, f);
    };
    let cmp = *cmp;
    let (x, y) = (*x, *y);
    let is_int = |o: &Operand| type_of(ir, new, o) == Some(Type::Int);
    let hi = |v: Operand, h: Operand| {
        (
            v,
            Fact::Range {
                lo: None,
                hi: Some(h),
            },
        )
    };
    let lo = |v: Operand, l: Operand| {
        (
            v,
            Fact::Range {
                lo: Some(l),
                hi: None,
            },
        )
    };
    let var = |o: &Operand| matches!(o, Operand::Value(_) | Operand::Arg(_));
    match cmp {
        Cmp::Ne | Cmp::Eq => {
            let p = if y == Operand::Nil && var(&x) {
                Some(x)
            } else if x == Operand::Nil && var(&y) {
                Some(y)
            } else {
                None
            };
            if let Some(p) = p {
                if cmp == Cmp::Ne {
                    t.push((p, Fact::NonNil))
                } else {
                    f.push((p, Fact::NonNil))
                }
            }
            return (t, f);
        }
        _ => {}
    }
    if !is_int(&x) || !is_int(&y) {
        return (t, f);
    }
    match cmp {
        Cmp::Lt | Cmp::Ge => {
            let (yes, no) = if cmp == Cmp::Lt {
                (&mut t, &mut f)
            } else {
                (&mut f, &mut t)
            };
            if var(&x) {
                yes.push(hi(x, y));
                no.push(lo(x, y));
            }
        }
        Cmp::Gt | Cmp::Le => {
            let (yes, no) = if cmp == Cmp::Gt {
                (&mut t, &mut f)
            } else {
                (&mut f, &mut t)
            };
            if var(&y) {
                yes.push(hi(y, x));
                no.push(lo(y, x));
            }
        }
        Cmp::Ult => {
            if var(&x) {
                t.push((
                    x,
                    Fact::Range {
                        lo: Some(Operand::Int(0)),
                        hi: Some(y),
                    },
                ));
            }
        }
        Cmp::Eq | Cmp::Ne => {}
    }
    (t, f)
}

/// The first statement of block `b` that is not a φ (where πs go, before
/// it), or `None` if the block holds only φs (never: it has a terminator or
/// falls through to a statement).
fn first_non_phi(ir: &IrCode, b: BlockId) -> Option<Value> {
    let r = ir.cfg.blocks.get(b)?.stmts.clone();
    r.into_iter()
        .find(|&s| {
            !matches!(
                ir.stmts.inst[Value(s)],
                Inst::Phi { .. } | Inst::PhiC { .. }
            )
        })
        .map(Value)
}

/// πs placed after every comparison branch but not yet in the stream:
/// each is a node of `new` (values from `new.base` up), and the uses it
/// dominates already read it. [`PlacedPis::insert`] puts them in the
/// stream (one compaction); [`PlacedPis::withdraw`] takes them back
/// without one, for a pass that only reads the facts (`checks`).
///
/// Invariant: every statement with an operand naming a π is in `renamed`.
pub struct PlacedPis {
    new: NewNodes,
    renamed: Vec<Value>,
}

impl PlacedPis {
    /// How many πs were placed.
    pub fn count(&self) -> u64 {
        self.new.nodes.len() as u64
    }

    /// The instruction defining `v`: a statement, or a placed π.
    pub fn inst<'a>(&'a self, ir: &'a IrCode, v: Value) -> Option<&'a Inst> {
        self.new.inst(ir, v)
    }

    /// `o` with the placed πs looked through: what it reads once they are
    /// withdrawn.
    pub fn root(&self, o: Operand) -> Operand {
        let mut o = o;
        while let Operand::Value(v) = o
            && let Some(k) = v.0.checked_sub(self.new.base)
            && let Some(Inst::Pi { value, .. }) = self.new.nodes.get(k as usize).map(|n| &n.inst)
        {
            o = *value;
        }
        o
    }

    /// Puts the πs in the stream (a compaction); returns how many.
    pub fn insert(self, ir: &mut IrCode) -> u64 {
        let count = self.count();
        if count > 0 {
            compact(ir, self.new);
        }
        count
    }

    /// Takes the πs back: every use renamed to a π reads the value it
    /// refined again, and the stream is as before [`place_pis`].
    pub fn withdraw(self, ir: &mut IrCode) {
        for &st in &self.renamed {
            for_each_operand_mut(&mut ir.stmts.inst[st], |o| *o = self.root(*o));
        }
    }
}

/// Places πs after every comparison branch (see [`PlacedPis`]).
pub fn place_pis(ir: &mut IrCode) -> PlacedPis {
    let mut placed = PlacedPis {
        new: NewNodes::new(ir),
        renamed: Vec::new(),
    };
    let compared = compared_operands(ir);
    if compared.is_empty() {
        return placed;
    }
    let dom = ir.cfg.dom_tree();
    let order = ir.cfg.rpo();
    let mut uses = Uses::new(ir, &compared);
    let new = &mut placed.new;
    for &b in &order {
        let Some((_, &Inst::GotoIfNot { cond, dest })) = ir.last_stmt(b) else {
            continue;
        };
        let fall = b.next();
        if dest == fall {
            continue;
        }
        let (tf, ff) = branch_facts(ir, new, &cond);
        for (succ, facts) in [(fall, tf), (dest, ff)] {
            if facts.is_empty() {
                continue;
            }
            let Some(sb) = ir.cfg.blocks.get(succ) else {
                continue;
            };
            if succ == b {
                continue;
            }
            if sb.preds.len() != 1 || sb.preds[0] != b {
                continue;
            }
            let Some(at) = first_non_phi(ir, succ) else {
                continue;
            };
            for (x, fact) in facts {
                let Some(ty) = type_of(ir, new, &x) else {
                    continue;
                };
                let p = new.insert_node(ir, at, Inst::Pi { value: x, fact }, ty, false);
                let renamed = &mut placed.renamed;
                rename_dominated(ir, &dom, &mut uses, renamed, succ, x, Operand::Value(p));
            }
        }
    }
    placed
}

/// The values and arguments a conditional branch compares (the operands
/// of an `icmp` that is some `GotoIfNot`'s condition): the only operands
/// [`place_pis`] gives a π before any π exists. Later πs refine πs.
fn compared_operands(ir: &IrCode) -> FxSet<Operand> {
    let mut out = FxSet::default();
    for b in ir.cfg.blocks.keys() {
        let Some((
            _,
            Inst::GotoIfNot {
                cond: Operand::Value(c),
                ..
            },
        )) = ir.last_stmt(b)
        else {
            continue;
        };
        if let Some(Inst::Binary(BinaryOp::ICmp(_), x, y)) = ir.stmts.get(*c) {
            out.extend([x, y].into_iter().filter_map(use_key));
        }
    }
    out
}

/// The statements (of the blocks) that use each compared value and
/// argument, and each π, kept up to date as uses are renamed, so that
/// renaming one value costs its uses, not the function.
///
/// Invariant: every operand [`rename_dominated`] renames is a key: it is
/// a compared operand ([`compared_operands`]) or a π made by this pass
/// (whose uses are exactly the ones renamed to it, recorded as they are).
struct Uses {
    /// The block of each statement.
    block_of: SecondaryMap<Value, Option<BlockId>>,
    /// The statements using each key (values and arguments only).
    of: FxMap<Operand, Vec<Value>>,
}

/// `o` if it is a value or an argument.
fn use_key(o: &Operand) -> Option<Operand> {
    matches!(o, Operand::Value(_) | Operand::Arg(_)).then_some(*o)
}

impl Uses {
    /// The uses of the operands in `keys`.
    fn new(ir: &IrCode, keys: &FxSet<Operand>) -> Uses {
        let mut block_of = crate::ir::sized_map(ir.stmts.len());
        let mut of: FxMap<Operand, Vec<Value>> = FxMap::default();
        for (b, blk) in ir.cfg.blocks.iter() {
            for st in blk.stmts.clone().map(Value) {
                block_of[st] = Some(b);
                for_each_operand(&ir.stmts.inst[st], |o| {
                    if let Some(k) = use_key(o).filter(|k| keys.contains(k)) {
                        let list = of.entry(k).or_default();
                        if list.last() != Some(&st) {
                            list.push(st);
                        }
                    }
                });
            }
        }
        Uses { block_of, of }
    }
}

/// Replaces `x` by `p` in every statement of a block dominated by `s`, and
/// in φ operands whose edge leaves such a block; lists the statements
/// changed in `renamed_stmts`.
fn rename_dominated(
    ir: &mut IrCode,
    dom: &DomTree,
    uses: &mut Uses,
    renamed_stmts: &mut Vec<Value>,
    s: BlockId,
    x: Operand,
    p: Operand,
) {
    let (Some(xk), Some(pk)) = (use_key(&x), use_key(&p)) else {
        return;
    };
    let list = uses.of.get(&xk).cloned().unwrap_or_default();
    for st in list {
        let Some(b) = uses.block_of[st] else {
            continue;
        };
        let mut renamed = false;
        let inst = &mut ir.stmts.inst[st];
        if let Inst::Phi { edges, values } = inst {
            for (e, v) in edges.iter().zip(values.iter_mut()) {
                if *v == x && dom.reachable(*e) && dom.dominates(s, *e) {
                    *v = p;
                    renamed = true;
                }
            }
        } else if dom.reachable(b) && dom.dominates(s, b) {
            for_each_operand_mut(inst, |o| {
                if *o == x {
                    *o = p;
                    renamed = true;
                }
            });
        }
        if renamed {
            uses.of.entry(pk).or_default().push(st);
            renamed_stmts.push(st);
        }
    }
}

/// Replaces every π by a copy of its value, for the caller's compaction
/// to forward; returns how many there were.
pub fn strip_pis(ir: &mut IrCode) -> u64 {
    let mut n = 0;
    for inst in ir.stmts.inst.values_mut() {
        if let Inst::Pi { value, .. } = inst {
            *inst = Inst::Copy(*value);
            n += 1;
        }
    }
    n
}

/// The `pi` pass: inserts π facts into the stream (`checks` strips them).
pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let counters = &mut ctx.counters;
    let n = place_pis(ir).insert(ir);
    counters.add("pi.inserted", n);
}
