//! `IrCode`: the flat, Julia-style SSA IR every pass and the backend see.
//! [`print`] writes its text form and [`parse`] reads that text back
//! (docs/ir.md has the grammar).
//!
//! Layout (after Julia's `IRCode`):
//! - One [`InstructionStream`] of parallel `PrimaryMap<Value, _>`s: `inst`,
//!   `ty`, `span`, `flags`, `name` (source names). Statement `n` defines the
//!   value `Value(n)`, printed `%{n+1}` (values and blocks are stored 0-based and
//!   printed 1-based, as Julia prints them). Function arguments are
//!   [`Operand::Arg`], printed `_{n+1}`.
//! - The CFG is stored beside the statements, a `PrimaryMap<BlockId, _>`:
//!   block `b` owns the statement range `cfg.blocks[b].stmts` (its values
//!   are [`BasicBlock::values`]), and lists its `preds` and `succs`.
//!
//! Invariants (checked by the verifier):
//! - The five vectors of the stream have equal length; `param_names` is
//!   empty or names every parameter. Block ranges are
//!   non-empty, contiguous, in order, and together cover every statement.
//! - Control leaves a block by its last statement: `Goto`, `GotoIfNot`,
//!   `Return`, `Unwind` or `Unreachable`; a block whose last statement is
//!   none of these falls through to the next block (as in Julia). The
//!   `GotoIfNot` condition true path falls through to the next block, so the
//!   last block cannot end in `GotoIfNot` or fall through. Terminators appear
//!   nowhere else and their values are never used.
//! - `succs` is exactly what the terminator says; `preds` is its inverse.
//! - `Phi`s (and `PhiC`s) stand only at the head of a block. A `Phi` has
//!   one operand per predecessor edge, its `edges` equal to the block's
//!   `preds` as a set. No `Phi` is operandless.
//! - Every `Operand::Value` refers to a statement that defines a value and
//!   dominates the use (a `Phi` operand: dominates the end of its edge's
//!   block). The operands of an instruction are what
//!   [`edit::for_each_operand`] visits: the bounds of a `Pi`'s fact are
//!   operands too. `PhiC` operands are `Upsilon` statements and are exempt from
//!   dominance: an upsilon is a store into the φᶜ's implicit slot.
//! - Types are consistent: see [`Inst`] for each instruction's rule.

pub use crate::rtfns::RuntimeFn;
use crate::span::Span;
pub use crate::types::Type;
use crate::types::{FuncId, GlobalId, StructId};
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use fxhash::{FxMap, FxSet};
use std::fmt;
use std::ops::Range;

pub mod blocks;
pub mod budget;
pub mod cfg_cache;
pub mod compact;
pub mod compacted;
pub mod dom;
pub mod dot;
pub mod edges;
pub mod edit;
pub mod fold;
pub mod fxhash;
pub mod graph;
pub mod handbuild;
pub mod loops;
pub mod parse;
pub mod print;
pub mod verify;

/// An SSA value: the result of statement `self.0`. Printed `%{n+1}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A basic block index. Printed `#{n+1}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);
cranelift_entity::entity_impl!(Value);
cranelift_entity::entity_impl!(BlockId);

impl BlockId {
    /// The block after this one in layout order: where a block without a
    /// terminator, or a `GotoIfNot` whose condition holds, continues.
    pub fn next(self) -> BlockId {
        BlockId(self.0 + 1)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0 + 1)
    }
}
impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0 + 1)
    }
}

/// An instruction operand: an SSA value, an argument, or a constant
/// (constants are inline, as in Julia, so folding needs no new statements).
///
/// Equality (and hashing) compare float constants by their bit pattern:
/// `NaN == NaN` and `0.0 != -0.0`, so a fixpoint over operands always
/// sees an unchanged constant as unchanged, and folding never merges two
/// constants that print or divide differently.
#[derive(Copy, Clone, Debug)]
pub enum Operand {
    Value(Value),
    /// The function's `n`-th parameter, printed `_{n+1}`.
    Arg(u32),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// The null reference: `nil`, a value of the struct types only.
    Nil,
}

impl PartialEq for Operand {
    fn eq(&self, other: &Operand) -> bool {
        match (self, other) {
            (Operand::Value(a), Operand::Value(b)) => a == b,
            (Operand::Arg(a), Operand::Arg(b)) => a == b,
            (Operand::Int(a), Operand::Int(b)) => a == b,
            (Operand::Float(a), Operand::Float(b)) => a.to_bits() == b.to_bits(),
            (Operand::Bool(a), Operand::Bool(b)) => a == b,
            (Operand::Nil, Operand::Nil) => true,
            _ => false,
        }
    }
}

impl Eq for Operand {}

impl std::hash::Hash for Operand {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Operand::Value(v) => v.hash(state),
            Operand::Arg(a) => a.hash(state),
            Operand::Int(i) => i.hash(state),
            Operand::Float(f) => f.to_bits().hash(state),
            Operand::Bool(b) => b.hash(state),
            Operand::Nil => {}
        }
    }
}

/// Integer / float comparison condition. `Ult` is unsigned less-than on
/// ints (one compare for `0 <= i < n`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Ult,
}

/// Pure one-operand operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// int → int, wrapping.
    INeg,
    /// float → float.
    FNeg,
    /// bool → bool.
    Not,
    /// int → float.
    IntToFloat,
    /// float → int: truncates toward zero, saturates, NaN gives 0.
    FloatToInt,
}

/// Pure two-operand operations. Int ops wrap; `IDiv`/`IRem` assume a
/// non-zero divisor (the check is a separate branch) and give `MIN / -1 ==
/// MIN`, `MIN % -1 == 0`; shift counts are taken mod 64, `IShr` is
/// arithmetic. `ICmp` compares two ints, two bools, or two references by
/// identity (`Eq`/`Ne` only for those); `FCmp` is IEEE (`Ne` is true on NaN).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    IAdd,
    ISub,
    IMul,
    IDiv,
    IRem,
    IAnd,
    IOr,
    IXor,
    IShl,
    IShr,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
    ICmp(Cmp),
    FCmp(Cmp),
}

impl BinaryOp {
    /// `a op b == b op a` to the bit: the operations whose operands value
    /// numbering (SSA construction's and `opt/cse`'s) puts in a canonical
    /// order. No float operation: of two NaN operands, the hardware returns
    /// the first one's payload.
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinaryOp::IAdd
                | BinaryOp::IMul
                | BinaryOp::IAnd
                | BinaryOp::IOr
                | BinaryOp::IXor
                | BinaryOp::ICmp(Cmp::Eq)
                | BinaryOp::ICmp(Cmp::Ne)
        )
    }
}

/// A fact proven on the path to a `Pi`.
#[derive(Clone, Debug, PartialEq)]
pub enum Fact {
    /// `lo <= value < hi`, either bound optional.
    Range {
        lo: Option<Operand>,
        hi: Option<Operand>,
    },
    NonNil,
}

/// A memory location kind. The alias analysis reads only this and the
/// access's `base`/`index` operands; it never rediscovers it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    /// The length of the array `base`.
    ArrayLen,
    /// Element `index` of the array `base`, whose elements have this type.
    ArrayElem(Type),
    /// Field `field` of the struct `base` of type `strukt`.
    Field { strukt: StructId, field: u32 },
    /// A global variable (no base).
    Global(GlobalId),
}

/// The runtime error a `Raise` produces. The message text is LANGUAGE.md's.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RaiseKind {
    /// `throw e`: args `[message: str]`.
    Throw,
    /// "division by zero"
    DivisionByZero,
    /// "index out of bounds: index I, length N": args `[index, length]`.
    IndexOutOfBounds,
    /// "nil dereference"
    NilDereference,
    /// "negative array length"
    NegativeArrayLength,
    /// "pop from empty array"
    PopFromEmpty,
    /// "assertion failed" / "assertion failed: MSG": args `[]` or `[msg]`.
    AssertionFailed,
}

/// An instruction. The type rule of each is in its doc; `Void` means the
/// statement defines no usable value.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// A deleted statement (Julia's `nothing`). Void.
    Nothing,
    /// A copy, or "replace all uses of this statement by the operand":
    /// compaction forwards every use to the operand. Type of the operand.
    Copy(Operand),
    Unary(UnaryOp, Operand),
    Binary(BinaryOp, Operand, Operand),
    /// `φ (#2 => %5, #1 => %1)`: `values[i]` flows in along `edges[i]`.
    Phi {
        edges: Vec<BlockId>,
        values: Vec<Operand>,
    },
    /// `φᶜ (%3, %6)`: the value at a catch handler's entry, one of the
    /// values stored by the listed `Upsilon` statements.
    PhiC {
        upsilons: Vec<Value>,
    },
    /// `ϒ (x)`: stores `x` into the implicit slot of the φᶜ nodes that list
    /// it. Void.
    Upsilon(Operand),
    /// `π (value, fact)`: `value` itself, with `fact` known to hold here.
    Pi {
        value: Operand,
        fact: Fact,
    },
    /// A string constant. `str`.
    StrConst(Box<str>),
    /// A call of a Toy function. Type: the callee's return type.
    Call {
        func: FuncId,
        args: Vec<Operand>,
    },
    /// A call of the runtime. Operand and result types, may-throw and
    /// memory effect are the function's row of `rtfns::RUNTIME` (a generic
    /// `Elem` result is the array operand's element type).
    Runtime {
        func: RuntimeFn,
        args: Vec<Operand>,
    },
    /// Reads `loc`. `base` is the array/struct for array and field
    /// locations, `index` the element index for `ArrayElem`.
    Load {
        loc: Loc,
        base: Option<Operand>,
        index: Option<Operand>,
    },
    /// Writes `value` to `loc`. Void.
    Store {
        loc: Loc,
        base: Option<Operand>,
        index: Option<Operand>,
        value: Operand,
    },
    /// A new array of `len` elements, each `fill`. `[elem]`.
    NewArray {
        elem: Type,
        len: Operand,
        fill: Operand,
    },
    /// A new struct; `fields` in declaration order. `Struct(strukt)`.
    NewStruct {
        strukt: StructId,
        fields: Vec<Operand>,
    },
    /// Sets the pending exception (message per `kind`, position from this
    /// statement's span). Void. Control then goes to the innermost handler
    /// or to an `Unwind`.
    Raise {
        kind: RaiseKind,
        args: Vec<Operand>,
    },
    /// `true` when no exception is pending (checked after a call that may
    /// throw). `bool`.
    NoException,
    /// Takes the pending exception's message and clears it. `str`.
    TakeException,
    /// A value no definition reaches (a Bril read of a variable unassigned
    /// on some path): any value of the statement's type, which is
    /// `int`, `float` or `bool`. Pure; the machine code and the interpreter use zero.
    Undef,
    /// Terminator: `goto #b`.
    Goto(BlockId),
    /// Terminator: `goto #b if not %c`; falls through when `c` is true.
    GotoIfNot {
        cond: Operand,
        dest: BlockId,
    },
    /// Terminator: `return x` (or `return` in a void function).
    Return(Option<Operand>),
    /// Terminator: return to the caller with an exception pending.
    Unwind,
    /// Terminator: control cannot reach here.
    Unreachable,
}

impl Inst {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            Inst::Goto(_)
                | Inst::GotoIfNot { .. }
                | Inst::Return(_)
                | Inst::Unwind
                | Inst::Unreachable
        )
    }
}

/// Per-statement flags (Julia's `IR_FLAG_*`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u8);

impl Flags {
    /// No side effect: removable when unused.
    pub const EFFECT_FREE: Flags = Flags(1);
    /// Cannot raise an exception.
    pub const NOTHROW: Flags = Flags(2);
    /// Placed on a cold (error) path.
    pub const COLD: Flags = Flags(4);

    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn insert(&mut self, other: Flags) {
        self.0 |= other.0;
    }
}

/// The source-level name of a value: the local variable SSA construction
/// wrote it to (or the variable a φ merges), `callee::x` for a variable of
/// an inlined callee. Printed as a `# x` comment after the statement.
pub type VarName = std::sync::Arc<str>;

/// A source name of one function: an index into its stream's
/// [`InstructionStream::names`]. Stored as the index plus one, so that an
/// `Option<NameId>` (one per statement) takes four bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameId(std::num::NonZeroU32);

impl NameId {
    pub fn new(index: usize) -> NameId {
        NameId(std::num::NonZeroU32::MIN.saturating_add(index as u32))
    }

    pub fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The ids of a names table, by name: for adding many names to a table
/// without searching it for each.
#[derive(Default)]
pub struct NameIndex(FxMap<VarName, NameId>);

impl NameIndex {
    /// The index of the table `names`.
    pub fn of(names: &[VarName]) -> NameIndex {
        let ids = names.iter().enumerate();
        NameIndex(ids.map(|(i, n)| (n.clone(), NameId::new(i))).collect())
    }

    /// The id of `name` in `names` (the table this index is of), added
    /// if new.
    pub fn id(&mut self, names: &mut Vec<VarName>, name: VarName) -> NameId {
        *self.0.entry(name).or_insert_with_key(|n| {
            names.push(n.clone());
            NameId::new(names.len() - 1)
        })
    }
}

/// The statements of one function, as parallel vectors indexed by
/// statement number.
///
/// `name` is the source-name side table: `name[v]` is the variable whose
/// value `v` is (at some point of the source program), or `None` when
/// unknown. A pass that moves or copies a statement may carry its name or
/// drop it, but never gives a statement a name that is not one of its
/// variables.
///
/// Invariant: every `Some(id)` in `name` indexes `names`, which holds each
/// name once (statements share an entry, so copying a statement's name is
/// copying a number). A name no statement has any more may stay in
/// `names`. Two streams are equal when their statements are, names
/// compared as text (whatever the ids and the tables' order).
#[derive(Clone, Debug, Default)]
pub struct InstructionStream {
    pub inst: PrimaryMap<Value, Inst>,
    pub ty: PrimaryMap<Value, Type>,
    pub span: PrimaryMap<Value, Span>,
    pub flags: PrimaryMap<Value, Flags>,
    pub name: PrimaryMap<Value, Option<NameId>>,
    pub names: Vec<VarName>,
}

impl PartialEq for InstructionStream {
    fn eq(&self, other: &InstructionStream) -> bool {
        self.inst == other.inst
            && self.ty == other.ty
            && self.span == other.span
            && self.flags == other.flags
            && self.name.len() == other.name.len()
            && self
                .name
                .keys()
                .all(|v| self.name_of(v) == other.name_of(v))
    }
}

impl InstructionStream {
    /// An empty stream with room for `n` statements.
    pub fn with_capacity(n: usize) -> InstructionStream {
        InstructionStream {
            inst: PrimaryMap::with_capacity(n),
            ty: PrimaryMap::with_capacity(n),
            span: PrimaryMap::with_capacity(n),
            flags: PrimaryMap::with_capacity(n),
            name: PrimaryMap::with_capacity(n),
            names: Vec::new(),
        }
    }
    pub fn len(&self) -> usize {
        self.inst.len()
    }
    pub fn is_empty(&self) -> bool {
        self.inst.is_empty()
    }
    /// Appends an unnamed statement.
    #[inline]
    pub fn push(&mut self, inst: Inst, ty: Type, span: Span, flags: Flags) -> Value {
        self.push_named(inst, ty, span, flags, None)
    }
    /// Appends an unnamed statement whose instruction `make` builds in its
    /// slot (see [`push_in_place`]): for an instruction just assembled
    /// from parts, which [`InstructionStream::push`] would copy on from
    /// the stack.
    #[inline(always)]
    pub fn push_with(
        &mut self,
        make: impl FnOnce() -> Inst,
        ty: Type,
        span: Span,
        flags: Flags,
    ) -> Value {
        let v = self.inst.next_key();
        push_in_place(&mut self.inst, make);
        push_in_place(&mut self.ty, || ty);
        self.span.push(span);
        self.flags.push(flags);
        self.name.push(None);
        v
    }
    /// Appends a statement with its source name. Always inlined: a
    /// compaction calls it for every statement, and whether the optimiser
    /// inlines it on its own varies from build to build.
    #[inline(always)]
    pub fn push_named(
        &mut self,
        inst: Inst,
        ty: Type,
        span: Span,
        flags: Flags,
        name: Option<NameId>,
    ) -> Value {
        self.ty.push(ty);
        self.span.push(span);
        self.flags.push(flags);
        self.name.push(name);
        self.inst.push(inst)
    }
    /// Moves `src` into statement `v` (leaving `Inst::Nothing` in `src`),
    /// for a statement pushed with `Inst::Nothing` while it is built.
    ///
    /// A swap between the two places: moving an instruction by value
    /// through `push` lets the compiler stage it on the stack in parts and
    /// read it back whole, which stalls (store forwarding fails) on every
    /// statement of a whole-function rebuild.
    #[inline]
    pub fn take_inst(&mut self, v: Value, src: &mut Inst) {
        std::mem::swap(&mut self.inst[v], src);
    }
    /// The source name of `v`, if known.
    pub fn name_of(&self, v: Value) -> Option<&str> {
        self.name
            .get(v)
            .copied()
            .flatten()
            .and_then(|n| self.names.get(n.index()))
            .map(|n| &**n)
    }
    /// The id of `name` in this stream's table, adding it if new (a linear
    /// search: callers that name many statements keep their own map).
    pub fn intern(&mut self, name: &str) -> NameId {
        match self.names.iter().position(|n| &**n == name) {
            Some(i) => NameId::new(i),
            None => self.add_name(name.into()),
        }
    }
    /// Adds `name` to the table without looking for it (the caller knows it
    /// is not there).
    pub fn add_name(&mut self, name: VarName) -> NameId {
        self.names.push(name);
        NameId::new(self.names.len() - 1)
    }
    /// The instruction of statement `v`, if `v` is in the stream.
    pub fn get(&self, v: Value) -> Option<&Inst> {
        self.inst.get(v)
    }
}

/// Appends `f()` to `c`, written straight into its slot: an exact-size
/// `extend` stores the value where it goes, where `push` may stage it on
/// the stack and copy it on in 16-byte parts, which stalls (store
/// forwarding fails) when the value was just written in smaller parts.
#[inline(always)]
pub fn push_in_place<T, C: Extend<T>>(c: &mut C, f: impl FnOnce() -> T) {
    c.extend(std::iter::once_with(f));
}

/// `stmts[v]`: the instruction of statement `v` (which must exist).
impl std::ops::Index<Value> for InstructionStream {
    type Output = Inst;
    fn index(&self, v: Value) -> &Inst {
        &self.inst[v]
    }
}

impl std::ops::IndexMut<Value> for InstructionStream {
    fn index_mut(&mut self, v: Value) -> &mut Inst {
        &mut self.inst[v]
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BasicBlock {
    /// Statement numbers of this block (half-open).
    pub stmts: Range<u32>,
    pub preds: BlockList,
    pub succs: BlockList,
}

/// A block's predecessors or successors: at most two successors, and
/// mostly one or two predecessors, kept without allocating.
pub type BlockList = smallvec::SmallVec<[BlockId; 2]>;

impl BasicBlock {
    /// The values this block's statements define, in order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator + use<> {
        self.stmts.clone().map(Value)
    }
    /// The block's last statement (its terminator, if it has one).
    pub fn last(&self) -> Option<Value> {
        self.values().next_back()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cfg {
    pub blocks: PrimaryMap<BlockId, BasicBlock>,
    /// The dominator tree and loop nest of `blocks`' edges, while they stay
    /// as they were ([`Cfg::dom_tree`], [`Cfg::loop_nest`]); not part of
    /// the CFG's value.
    pub cache: cfg_cache::CfgCache,
}

impl Cfg {
    /// The blocks reachable from the entry, in the reverse postorder of a
    /// depth-first search entering `succs` in order (fallthrough first):
    /// the order the dominator tree is computed in ([`graph::reverse_postorder`]).
    pub fn rpo(&self) -> Vec<BlockId> {
        graph::reverse_postorder(self.blocks.len(), |b: BlockId| {
            self.blocks[b].succs.iter().copied()
        })
    }
}

/// One function in SSA form.
#[derive(Clone, Debug, PartialEq)]
pub struct IrCode {
    pub name: String,
    pub func: FuncId,
    /// Parameter types; `Operand::Arg(i)` has type `params[i]`.
    pub params: Vec<Type>,
    pub ret: Type,
    /// The function's source span (for the printer's header).
    pub span: Span,
    /// The parameters' source names: empty (unknown) or one per parameter.
    pub param_names: Vec<VarName>,
    pub stmts: InstructionStream,
    pub cfg: Cfg,
}

/// The type of `op`, where a value's type is `value_ty(v)` and the
/// parameters' types are `params`: the one place that knows a constant's
/// type. `None` for `nil` (it has no type of its own: it fits any
/// reference), an argument beyond `params`, or a value `value_ty` does not
/// know. [`IrCode::operand_type`] for an IrCode; SSA construction calls it
/// with its builder nodes.
pub fn operand_type_with(
    op: &Operand,
    params: &[Type],
    value_ty: impl FnOnce(Value) -> Option<Type>,
) -> Option<Type> {
    match op {
        Operand::Value(v) => value_ty(*v),
        Operand::Arg(a) => params.get(*a as usize).cloned(),
        Operand::Int(_) => Some(Type::Int),
        Operand::Float(_) => Some(Type::Float),
        Operand::Bool(_) => Some(Type::Bool),
        Operand::Nil => None,
    }
}

impl IrCode {
    /// The static type of `op` ([`operand_type_with`]): a value's
    /// statement type, an argument's parameter type, a constant's own;
    /// `None` for `nil` or an out-of-range value or argument.
    pub fn operand_type(&self, op: &Operand) -> Option<Type> {
        operand_type_with(op, &self.params, |v| self.stmts.ty.get(v).cloned())
    }

    /// The last statement of block `b` and its instruction: the block's
    /// terminator, or a statement it falls through after. `None` for a
    /// block that does not exist or is empty.
    pub fn last_stmt(&self, b: BlockId) -> Option<(Value, &Inst)> {
        let v = self.cfg.blocks.get(b)?.last()?;
        Some((v, self.stmts.inst.get(v)?))
    }

    /// The block of every statement.
    pub fn block_of(&self) -> SecondaryMap<Value, Option<BlockId>> {
        let mut block_of = sized_map(self.stmts.len());
        for (b, blk) in self.cfg.blocks.iter() {
            for v in blk.values() {
                block_of[v] = Some(b);
            }
        }
        block_of
    }

    /// The source name of `op`: a named value's variable or a parameter's
    /// name; `None` for constants and unnamed values.
    pub fn source_name(&self, op: &Operand) -> Option<&str> {
        match op {
            Operand::Value(v) => self.stmts.name_of(*v),
            Operand::Arg(a) => self.param_names.get(*a as usize).map(|n| &**n),
            _ => None,
        }
    }
}

/// The whole program in IR: one `IrCode` per `hir::Function`, same index.
#[derive(Clone, Debug)]
pub struct Module {
    pub funcs: Vec<IrCode>,
    /// Struct layouts, globals, and which functions are `main`/`<init>`.
    pub program: std::sync::Arc<crate::sema::hir::Program>,
}

impl Module {
    /// How many statements its functions have together: the size of the
    /// work a stage does over the module (`par::Pool`'s `work`).
    pub fn stmt_count(&self) -> usize {
        self.funcs.iter().map(|f| f.stmts.len()).sum()
    }

    /// `reachable[f]`: function `f` can run, being `<init>` or `main` or
    /// reached from them through calls. A call names its callee
    /// ([`Inst::Call`]) and nothing else takes a function's address, so no
    /// other function ever runs. Passes only remove calls or copy those of
    /// a reachable callee (inlining), so a function unreachable here stays
    /// unreachable.
    pub fn reachable_from_entry(&self) -> Vec<bool> {
        let n = self.funcs.len();
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = [self.program.init.0, self.program.main.0]
            .into_iter()
            .map(|f| f as usize)
            .filter(|&f| f < n)
            .collect();
        while let Some(f) = stack.pop() {
            if std::mem::replace(&mut seen[f], true) {
                continue;
            }
            for inst in self.funcs[f].stmts.inst.values() {
                if let Inst::Call { func, .. } = inst
                    && (func.0 as usize) < n
                    && !seen[func.0 as usize]
                {
                    stack.push(func.0 as usize);
                }
            }
        }
        seen
    }
}

/// A `SecondaryMap` with an entry (the default) for each of the first `n`
/// keys, allocated once: one made empty and written in index order grows
/// by one entry on every write, through an out-of-line resize.
pub fn sized_map<K: EntityRef, V: Clone + Default>(n: usize) -> SecondaryMap<K, V> {
    let mut map = SecondaryMap::with_capacity(n);
    map.resize(n);
    map
}
