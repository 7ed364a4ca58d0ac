//! A block-level view of an [`IrCode`] for CFG surgery (like Mooncake's
//! `BBCode`): blocks carry stable labels and explicit
//! terminators, so blocks can be added, removed, split and reordered freely;
//! [`BlockIr::lower`] turns the result back into a coherent IrCode.
//! (SSA construction has its own, different block IR,
//! `ssa::builder::{BuildBlock, BuildTerm}`: see `BuildBlock` for why.)
//!
//! Invariants of a `BlockIr`:
//! - `blocks[0]` is the entry; labels are unique; every terminator target
//!   and φ edge is a label of `blocks`.
//! - Statement ids are unique values (the original statement numbers, then
//!   fresh ones from [`BlockIr::fresh_value`]); operands refer to ids.
//! - A block's statements contain no terminator; control leaves by `term`.
//!
//! Lowering lays blocks out in `blocks` order. A `Branch` becomes
//! `GotoIfNot(cond, els)`, whose true path must fall through: when `then`
//! is not the next block, a trampoline block `goto then` is inserted after
//! it (and `then`'s φ edges renamed to the trampoline). A `Goto` to the next
//! block is left implicit when the block has other statements.

use crate::ir::FxMap;
use crate::ir::edges::{Succs, cfg_from_ranges};
use crate::ir::edit::for_each_operand_mut;
use crate::ir::{
    BlockId, Flags, Inst, InstructionStream, IrCode, NameId, Operand, Type, Value, VarName,
};
use crate::span::Span;
use cranelift_entity::{EntityRef, SecondaryMap};

/// A label: a block's name that survives reordering: the [`BlockId`] it
/// had in the IrCode the view was made from, or a fresh one
/// ([`BlockIr::fresh_label`]). Not a position in [`BlockIr::blocks`]
/// (see [`BlockIr::positions`]); φ edges in a view are labels too.
pub type Label = BlockId;

/// The position in [`BlockIr::blocks`] of each label (`None`: no block).
pub type Positions = SecondaryMap<Label, Option<usize>>;

#[derive(Clone, Debug, PartialEq)]
pub struct BStmt {
    pub id: Value,
    pub inst: Inst,
    pub ty: Type,
    pub span: Span,
    pub flags: Flags,
    /// The source name, in the function's table (see
    /// [`InstructionStream`]): keep it only when the statement still
    /// computes that variable's value.
    pub name: Option<NameId>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Goto(Label),
    /// To `then` when `cond` is true, else `els`.
    Branch {
        cond: Operand,
        then: Label,
        els: Label,
    },
    Return(Option<Operand>),
    Unwind,
    Unreachable,
}

impl Term {
    pub fn succs(&self) -> Succs {
        match self {
            Term::Goto(l) => Succs::one(*l),
            Term::Branch { then, els, .. } if then == els => Succs::one(*then),
            Term::Branch { then, els, .. } => {
                let mut s = Succs::one(*then);
                s.push(*els);
                s
            }
            _ => Succs::default(),
        }
    }
    /// The terminator's operand: a branch's condition or the value
    /// returned.
    pub fn operand(&self) -> Option<&Operand> {
        match self {
            Term::Branch { cond, .. } => Some(cond),
            Term::Return(Some(o)) => Some(o),
            _ => None,
        }
    }
    pub fn operand_mut(&mut self) -> Option<&mut Operand> {
        match self {
            Term::Branch { cond, .. } => Some(cond),
            Term::Return(Some(o)) => Some(o),
            _ => None,
        }
    }
    /// Replaces every target `from` by `to`.
    pub fn retarget(&mut self, from: Label, to: Label) {
        match self {
            Term::Goto(l) if *l == from => *l = to,
            Term::Branch { then, els, .. } => {
                if *then == from {
                    *then = to;
                }
                if *els == from {
                    *els = to;
                }
            }
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BBlock {
    pub label: Label,
    pub stmts: Vec<BStmt>,
    pub term: Term,
    pub term_span: Span,
    /// The terminator statement's flags: [`Flags::COLD`] on a block of an
    /// error path, which may hold no other statement to say so. Kept
    /// through [`BlockIr::from_ir`] and [`BlockIr::lower`]; a pass that
    /// rewrites `term` keeps them, and a block made on an edge takes those
    /// of one of the edge's ends (a block entered only from an error path,
    /// or leading only into one, is on it).
    pub term_flags: Flags,
}

impl BBlock {
    /// The φ statements at the head of the block.
    pub fn phis_mut(&mut self) -> impl Iterator<Item = &mut BStmt> {
        self.stmts
            .iter_mut()
            .take_while(|s| matches!(s.inst, Inst::Phi { .. } | Inst::Nothing))
    }

    /// Replaces the operand `from` by `to` where statement `user` of the
    /// block reads it (in a φ, only on the edge from `edge`); in the
    /// terminator when `user` is `None` or no statement of the block.
    pub fn replace_use(
        &mut self,
        user: Option<Value>,
        edge: Option<Label>,
        from: Operand,
        to: Operand,
    ) {
        let swap = |o: &mut Operand| {
            if *o == from {
                *o = to;
            }
        };
        let Some(st) = user.and_then(|u| self.stmts.iter_mut().find(|s| s.id == u)) else {
            if let Some(o) = self.term.operand_mut() {
                swap(o);
            }
            return;
        };
        match (&mut st.inst, edge) {
            (Inst::Phi { edges, values }, Some(e)) => {
                for (ed, val) in edges.iter().zip(values.iter_mut()) {
                    if *ed == e {
                        swap(val);
                    }
                }
            }
            (inst, _) => for_each_operand_mut(inst, swap),
        }
    }

    /// Renames φ edges `from` to `to`.
    pub fn rename_phi_edge(&mut self, from: Label, to: Label) {
        for s in self.phis_mut() {
            if let Inst::Phi { edges, .. } = &mut s.inst {
                for e in edges.iter_mut() {
                    if *e == from {
                        *e = to;
                    }
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct BlockIr {
    pub blocks: Vec<BBlock>,
    next_value: u32,
    next_label: Label,
    /// The header fields of the IrCode (name, params, ...), stmts/cfg empty.
    shell: IrCode,
}

impl BlockIr {
    /// The function's names table, which the statements' names index.
    pub fn names(&self) -> &[VarName] {
        &self.shell.stmts.names
    }

    /// The names table, to add names to.
    pub fn names_mut(&mut self) -> &mut Vec<VarName> {
        &mut self.shell.stmts.names
    }

    /// The id of `name` in the names table, added if new (a linear search).
    pub fn intern_name(&mut self, name: &str) -> NameId {
        self.shell.stmts.intern(name)
    }

    /// The block view of `ir` (labels = old block numbers, φ edges in
    /// labels). Fallthrough becomes an explicit `Goto`.
    pub fn from_ir(ir: &IrCode) -> BlockIr {
        let nb = ir.cfg.blocks.len();
        let mut blocks = Vec::with_capacity(nb);
        for (b, bb) in ir.cfg.blocks.iter() {
            let next = b.next();
            let mut stmts = Vec::with_capacity(bb.stmts.len());
            let mut term = None;
            let mut term_span = ir.span;
            let mut term_flags = Flags::default();
            for i in bb.values() {
                let Some(inst) = ir.stmts.inst.get(i) else {
                    break;
                };
                term_span = ir.stmts.span[i];
                let t = match inst {
                    Inst::Goto(d) => Some(Term::Goto(*d)),
                    Inst::GotoIfNot { cond, dest } => Some(Term::Branch {
                        cond: *cond,
                        then: next,
                        els: *dest,
                    }),
                    Inst::Return(r) => Some(Term::Return(*r)),
                    Inst::Unwind => Some(Term::Unwind),
                    Inst::Unreachable => Some(Term::Unreachable),
                    _ => None,
                };
                match t {
                    Some(t) => {
                        term = Some(t);
                        term_flags = ir.stmts.flags[i];
                    }
                    None => stmts.push(BStmt {
                        id: i,
                        inst: inst.clone(),
                        ty: ir.stmts.ty[i].clone(),
                        span: ir.stmts.span[i],
                        flags: ir.stmts.flags[i],
                        name: ir.stmts.name[i],
                    }),
                }
            }
            let term = term.unwrap_or(if next.index() < nb {
                Term::Goto(next)
            } else {
                Term::Unreachable
            });
            blocks.push(BBlock {
                label: b,
                stmts,
                term,
                term_span,
                term_flags,
            });
        }
        let shell = IrCode {
            name: ir.name.clone(),
            func: ir.func,
            params: ir.params.clone(),
            ret: ir.ret.clone(),
            span: ir.span,
            param_names: ir.param_names.clone(),
            // The names table, which the statements' names index.
            stmts: InstructionStream {
                names: ir.stmts.names.clone(),
                ..Default::default()
            },
            cfg: Default::default(),
        };
        BlockIr {
            blocks,
            next_value: ir.stmts.len() as u32,
            next_label: BlockId::new(nb),
            shell,
        }
    }

    pub fn fresh_value(&mut self) -> Value {
        self.next_value += 1;
        Value(self.next_value - 1)
    }

    pub fn fresh_label(&mut self) -> Label {
        let l = self.next_label;
        self.next_label = BlockId::new(l.index() + 1);
        l
    }

    /// The position in `blocks` of each label (`None` for labels of no
    /// block).
    pub fn positions(&self) -> Positions {
        let mut pos = crate::ir::sized_map(self.next_label.index());
        for (i, b) in self.blocks.iter().enumerate() {
            pos[b.label] = Some(i);
        }
        pos
    }

    /// Places each list of `new` blocks right before the block with its
    /// key label, in list order, in one linear rebuild of the layout. (Keys
    /// must be labels of blocks; a list under any other key is dropped.)
    pub fn insert_before(&mut self, mut new: FxMap<Label, Vec<BBlock>>) {
        if new.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.blocks);
        self.blocks
            .reserve(old.len() + new.values().map(Vec::len).sum::<usize>());
        for blk in old {
            if let Some(list) = new.remove(&blk.label) {
                self.blocks.extend(list);
            }
            self.blocks.push(blk);
        }
    }

    /// Predecessor labels of every label, in block order (no duplicates).
    pub fn preds(&self) -> SecondaryMap<Label, Vec<Label>> {
        let mut preds: SecondaryMap<Label, Vec<Label>> =
            crate::ir::sized_map(self.next_label.index());
        for b in &self.blocks {
            for s in b.term.succs() {
                // A block's own edges are pushed one after another, so a
                // duplicate can only be the list's last entry (a linear
                // search would be quadratic in a block's predecessors: the
                // shared `unwind` block of a function with many calls).
                let list = &mut preds[s];
                if list.last() != Some(&b.label) {
                    list.push(b.label);
                }
            }
        }
        preds
    }

    /// The IrCode of this block view (see the module doc). Not compacted:
    /// run compaction afterwards to drop unreachable blocks.
    pub fn lower(self) -> IrCode {
        self.lower_with_positions().0
    }

    /// [`BlockIr::lower`], and the block of the result each label became
    /// (its position after the trampolines are added).
    pub fn lower_with_positions(mut self) -> (IrCode, Positions) {
        self.add_trampolines();
        let pos = self.positions();
        let to_block = |l: Label| BlockId(pos[l].map_or(u32::MAX - 1, |p| p as u32));
        let mut renumber = vec![None; self.next_value as usize];
        let stmts: usize = self.blocks.iter().map(|b| b.stmts.len() + 1).sum();
        let mut out = InstructionStream::with_capacity(stmts);
        out.names = std::mem::take(&mut self.shell.stmts.names);
        let mut ranges = Vec::with_capacity(self.blocks.len());
        let nblocks = self.blocks.len();
        for (bi, block) in self.blocks.iter_mut().enumerate() {
            let start = out.len() as u32;
            for s in block.stmts.iter_mut() {
                if let Some(r) = renumber.get_mut(s.id.index()) {
                    *r = Some(out.len() as u32);
                }
                let ty = std::mem::replace(&mut s.ty, Type::Void);
                let v = out.push_named(Inst::Nothing, ty, s.span, s.flags, s.name.take());
                out.take_inst(v, &mut s.inst);
                if let Inst::Phi { edges, .. } = &mut out.inst[v] {
                    edges.iter_mut().for_each(|e| *e = to_block(*e));
                }
            }
            block.stmts.clear();
            let next = bi + 1;
            // A jump to the next block is left implicit when the block has
            // statements.
            let falls_to = |l: Label| {
                to_block(l).index() == next && out.len() as u32 > start && next < nblocks
            };
            let term = match &block.term {
                Term::Goto(l) if falls_to(*l) => None,
                Term::Goto(l) => Some(Inst::Goto(to_block(*l))),
                Term::Branch { then, els, .. } if then == els => {
                    if to_block(*then).index() == next && out.len() as u32 > start {
                        None
                    } else {
                        Some(Inst::Goto(to_block(*then)))
                    }
                }
                Term::Branch { cond, els, .. } => Some(Inst::GotoIfNot {
                    cond: *cond,
                    dest: to_block(*els),
                }),
                Term::Return(r) => Some(Inst::Return(*r)),
                Term::Unwind => Some(Inst::Unwind),
                Term::Unreachable => Some(Inst::Unreachable),
            };
            if let Some(t) = term {
                out.push(t, Type::Void, block.term_span, block.term_flags);
            }
            ranges.push(start..out.len() as u32);
        }
        renumber_operands(&mut out, &renumber);
        let mut ir = self.shell;
        ir.cfg = cfg_from_ranges(&out.inst, ranges);
        ir.stmts = out;
        (ir, pos)
    }

    /// Gives every branch whose true path is not the next block a
    /// trampoline block `goto then` right after it (one linear rebuild of
    /// the layout), renaming `then`'s φ edges to the trampoline.
    fn add_trampolines(&mut self) {
        let old = std::mem::take(&mut self.blocks);
        let labels: Vec<Label> = old.iter().map(|b| b.label).collect();
        let mut renames: Vec<(Label, Label, Label)> = Vec::new();
        self.blocks.reserve(old.len());
        for (i, mut blk) in old.into_iter().enumerate() {
            let next = labels.get(i + 1).copied();
            let mut tramp_block = None;
            if let Term::Branch { then, els, .. } = &mut blk.term
                && Some(*then) != next
                && *then != *els
            {
                let target = *then;
                let tramp = self.fresh_label();
                *then = tramp;
                renames.push((target, blk.label, tramp));
                tramp_block = Some(BBlock {
                    label: tramp,
                    stmts: Vec::new(),
                    term: Term::Goto(target),
                    term_span: blk.term_span,
                    term_flags: blk.term_flags,
                });
            }
            self.blocks.push(blk);
            self.blocks.extend(tramp_block);
        }
        if !renames.is_empty() {
            let pos = self.positions();
            for (target, from, tramp) in renames {
                if let Some(p) = pos[target] {
                    self.blocks[p].rename_phi_edge(from, tramp);
                }
            }
        }
    }
}

/// Rewrites every value operand (and `φᶜ` upsilon) of `out` from statement
/// ids to the new statement numbers `renumber` gives them.
fn renumber_operands(out: &mut InstructionStream, renumber: &[Option<u32>]) {
    let map = |v: Value| {
        renumber
            .get(v.index())
            .copied()
            .flatten()
            .map_or(Value(u32::MAX - 1), Value)
    };
    for inst in out.inst.values_mut() {
        if let Inst::PhiC { upsilons } = inst {
            upsilons.iter_mut().for_each(|u| *u = map(*u));
        }
        for_each_operand_mut(inst, |op| {
            if let Operand::Value(v) = op {
                *v = map(*v);
            }
        });
    }
}
