//! Editing an [`IrCode`] the Julia way: nothing moves until [`compact`].
//!
//! - New statements go into a separate [`NewNodes`] buffer with
//!   [`NewNodes::insert_node`]; the returned value is numbered after the last
//!   statement of the stream (and after earlier new nodes) and may be used as
//!   an operand at once, anywhere the verifier would accept it after
//!   compaction.
//! - Replace-all-uses of `v` by `x`: [`replace_uses`] sets statement `v` to
//!   `Inst::Copy(x)`; compaction forwards every use.
//! - Delete: [`delete`] sets the statement to `Inst::Nothing`.
//!
//! Invariant of a buffer: every node's `pos` is a statement of the stream it
//! was made for (nodes inserted relative to a new node take that node's
//! position and affinity), so compaction places each node next to an
//! original statement, in insertion order among nodes at the same place.
//!
//! [`compact`]: crate::ir::compact::compact

use crate::ir::{Fact, Flags, Inst, IrCode, NameId, Operand, Type, Value};
use crate::span::Span;
use cranelift_entity::EntityRef;

/// One pending statement of a [`NewNodes`] buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct NewNode {
    /// The original statement it is attached to.
    pub pos: u32,
    /// Placed right after `pos` (true) or right before it (false).
    pub attach_after: bool,
    pub inst: Inst,
    pub ty: Type,
    pub span: Span,
    pub flags: Flags,
    /// The source name; `None` unless the pass knows the node computes
    /// that variable's value ([`NewNodes::set_name`]).
    pub name: Option<NameId>,
}

/// Statements waiting to be inserted by compaction. Node `i` defines the
/// value `Value(base + i)`, `base` being the stream length when the buffer
/// was made.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewNodes {
    pub base: u32,
    pub nodes: Vec<NewNode>,
}

impl NewNodes {
    /// An empty buffer for `ir` (values numbered from `ir`'s length).
    pub fn new(ir: &IrCode) -> NewNodes {
        NewNodes {
            base: ir.stmts.len() as u32,
            nodes: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Total number of values (original statements plus new nodes).
    pub fn value_count(&self) -> usize {
        self.base as usize + self.nodes.len()
    }

    /// Inserts `inst` (of type `ty`) before or after the statement `pos`
    /// (an original statement or an earlier new node) and returns its value.
    /// The span is `pos`'s, the flags [`default_flags`]. A node attached after
    /// a terminator is placed before it (a block must end in its terminator).
    pub fn insert_node(
        &mut self,
        ir: &IrCode,
        pos: Value,
        inst: Inst,
        ty: Type,
        attach_after: bool,
    ) -> Value {
        let (pos, after) = if pos.0 >= self.base {
            match self.nodes.get((pos.0 - self.base) as usize) {
                Some(n) => (n.pos, n.attach_after),
                None => (self.base.saturating_sub(1), true),
            }
        } else {
            (pos.0, attach_after)
        };
        let after = after
            && !ir
                .stmts
                .inst
                .get(Value(pos))
                .is_some_and(Inst::is_terminator);
        let span = ir.stmts.span.get(Value(pos)).copied().unwrap_or(ir.span);
        let flags = default_flags(&inst);
        self.nodes.push(NewNode {
            pos,
            attach_after: after,
            inst,
            ty,
            span,
            flags,
            name: None,
        });
        Value(self.base + self.nodes.len() as u32 - 1)
    }

    /// Gives the new node `v` the source name `name` (it must compute that
    /// variable's value, e.g. a hoisted copy of a named statement).
    pub fn set_name(&mut self, v: Value, name: Option<NameId>) {
        if let Some(n) =
            v.0.checked_sub(self.base)
                .and_then(|i| self.nodes.get_mut(i as usize))
        {
            n.name = name;
        }
    }

    /// The instruction defining `v`, original or new.
    pub fn inst<'a>(&'a self, ir: &'a IrCode, v: Value) -> Option<&'a Inst> {
        if v.0 < self.base {
            ir.stmts.get(v)
        } else {
            self.nodes.get((v.0 - self.base) as usize).map(|n| &n.inst)
        }
    }
}

/// Replace-all-uses: every use of `v` will read `with` after compaction.
pub fn replace_uses(ir: &mut IrCode, v: Value, with: Operand) {
    if let Some(slot) = ir.stmts.inst.get_mut(v) {
        *slot = Inst::Copy(with);
    }
}

/// Deletes statement `v` (it must be unused, or every use replaced first).
pub fn delete(ir: &mut IrCode, v: Value) {
    if let Some(slot) = ir.stmts.inst.get_mut(v) {
        *slot = Inst::Nothing;
    }
}

/// Whether `inst` has no side effect and cannot raise: removable when its
/// value is unused. Division is included: the IR's `IDiv`/`IRem` never see a
/// zero divisor (the check is an explicit branch before them).
pub fn is_pure(inst: &Inst) -> bool {
    match inst {
        Inst::Nothing
        | Inst::Copy(_)
        | Inst::Unary(..)
        | Inst::Binary(..)
        | Inst::Phi { .. }
        | Inst::PhiC { .. }
        | Inst::Pi { .. }
        | Inst::StrConst(_)
        | Inst::NoException
        | Inst::Undef => true,
        Inst::Upsilon(_)
        | Inst::Call { .. }
        | Inst::Runtime { .. }
        | Inst::Load { .. }
        | Inst::Store { .. }
        | Inst::NewArray { .. }
        | Inst::NewStruct { .. }
        | Inst::Raise { .. }
        | Inst::TakeException
        | Inst::Goto(_)
        | Inst::GotoIfNot { .. }
        | Inst::Return(_)
        | Inst::Unwind
        | Inst::Unreachable => false,
    }
}

/// Whether `inst` is pure and can run where the program would not have
/// run it (no trap): what `licm` hoists out of a conditional path and
/// `divpair` computes an iteration early.
pub fn speculatable(inst: &Inst) -> bool {
    match inst {
        Inst::Phi { .. }
        | Inst::PhiC { .. }
        | Inst::Pi { .. }
        | Inst::NoException
        | Inst::Nothing
        | Inst::Copy(_) => false,
        Inst::Binary(crate::ir::BinaryOp::IDiv | crate::ir::BinaryOp::IRem, _, d) => {
            matches!(d, Operand::Int(c) if *c != 0 && *c != -1)
        }
        other => is_pure(other),
    }
}

/// Flags a new statement gets: `EFFECT_FREE | NOTHROW` for [`is_pure`]
/// instructions, none otherwise.
pub fn default_flags(inst: &Inst) -> Flags {
    if is_pure(inst) {
        Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0)
    } else {
        Flags::default()
    }
}

/// Whether a statement may be removed when unused: its flags say
/// `EFFECT_FREE`, or the instruction is [`is_pure`], an allocation of a
/// struct (not observable), or a load (the IR checks nil and bounds with
/// explicit branches before it, so a load cannot trap).
pub fn removable(inst: &Inst, flags: Flags) -> bool {
    if inst.is_terminator() || matches!(inst, Inst::Upsilon(_)) {
        return false;
    }
    flags.contains(Flags::EFFECT_FREE)
        || is_pure(inst)
        || matches!(inst, Inst::NewStruct { .. } | Inst::Load { .. })
}

/// The one operand visitor, for `&Inst` (`iter`) and `&mut Inst`
/// (`iter_mut`); `$facts` says whether π fact bounds are visited.
macro_rules! visit_operands {
    ($inst:expr, $f:ident, $facts:expr, $iter:ident) => {
        match $inst {
            Inst::Nothing
            | Inst::StrConst(_)
            | Inst::NoException
            | Inst::TakeException
            | Inst::Undef => {}
            Inst::PhiC { .. } | Inst::Goto(_) | Inst::Unwind | Inst::Unreachable => {}
            Inst::Copy(a) | Inst::Unary(_, a) | Inst::Upsilon(a) => $f(a),
            Inst::Binary(_, a, b) => {
                $f(a);
                $f(b)
            }
            Inst::Phi { values, .. } => values.$iter().for_each(&mut $f),
            Inst::Pi { value, fact } => {
                $f(value);
                if $facts && let Fact::Range { lo, hi } = fact {
                    lo.$iter().chain(hi.$iter()).for_each(&mut $f);
                }
            }
            Inst::Call { args, .. }
            | Inst::Runtime { args, .. }
            | Inst::NewStruct { fields: args, .. }
            | Inst::Raise { args, .. } => args.$iter().for_each(&mut $f),
            Inst::Load { base, index, .. } => base.$iter().chain(index.$iter()).for_each(&mut $f),
            Inst::Store {
                base, index, value, ..
            } => {
                base.$iter().chain(index.$iter()).for_each(&mut $f);
                $f(value)
            }
            Inst::NewArray { len, fill, .. } => {
                $f(len);
                $f(fill)
            }
            Inst::GotoIfNot { cond, .. } => $f(cond),
            Inst::Return(r) => r.$iter().for_each(&mut $f),
        }
    };
}

/// Calls `f` on every operand of `inst`, in order: every use, π fact
/// bounds included (a bound must be available where the π stands, so the
/// verifier checks its dominance, DCE keeps it alive, and renaming rewrites
/// it). `PhiC` upsilons are not operands (see [`for_each_value_use`]).
pub fn for_each_operand(inst: &Inst, mut f: impl FnMut(&Operand)) {
    visit_operands!(inst, f, true, iter)
}

/// Like [`for_each_operand`], mutably (π fact bounds included).
pub fn for_each_operand_mut(inst: &mut Inst, mut f: impl FnMut(&mut Operand)) {
    visit_operands!(inst, f, true, iter_mut)
}

/// The operands `inst` reads when it executes: [`for_each_operand`] less
/// the π fact bounds, which are compile-time knowledge (at run time a π is
/// a copy of its value). Only for clients that reason about machine-level
/// data flow, like the backend's loop rotation; analyses and
/// transformations of the IR want [`for_each_operand`].
pub fn for_each_executed_operand(inst: &Inst, mut f: impl FnMut(&Operand)) {
    visit_operands!(inst, f, false, iter)
}

/// Calls `f` on every value `inst` uses: its `Operand::Value`s and, for a
/// `PhiC`, its upsilon statements.
pub fn for_each_value_use(inst: &Inst, mut f: impl FnMut(Value)) {
    if let Inst::PhiC { upsilons } = inst {
        upsilons.iter().copied().for_each(f);
        return;
    }
    for_each_operand(inst, |op| {
        if let Operand::Value(v) = op {
            f(*v)
        }
    });
}

/// Use counts of every value of `ir` (and of `new`'s nodes, if given),
/// counting each operand occurrence. Linear.
pub fn use_counts(ir: &IrCode, new: Option<&NewNodes>) -> Vec<u32> {
    let n = new.map_or(ir.stmts.len(), NewNodes::value_count);
    let mut counts = vec![0u32; n];
    let mut bump = |v: Value| {
        if let Some(c) = counts.get_mut(v.index()) {
            *c += 1;
        }
    };
    for inst in ir.stmts.inst.values() {
        for_each_value_use(inst, &mut bump);
    }
    if let Some(new) = new {
        for node in &new.nodes {
            for_each_value_use(&node.inst, &mut bump);
        }
    }
    counts
}

/// A hashable operand identity (floats by their bits): the key of value
/// numbering (the SSA builder's local one, `opt/cse`'s dominator-scoped one).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKey {
    Value(u32),
    Arg(u32),
    Int(i64),
    Float(u64),
    Bool(bool),
    Nil,
}

pub fn op_key(op: Operand) -> OpKey {
    match op {
        Operand::Value(v) => OpKey::Value(v.0),
        Operand::Arg(a) => OpKey::Arg(a),
        Operand::Int(i) => OpKey::Int(i),
        Operand::Float(f) => OpKey::Float(f.to_bits()),
        Operand::Bool(b) => OpKey::Bool(b),
        Operand::Nil => OpKey::Nil,
    }
}
