//! Toy-aware alias analysis. It reads only each instruction's [`Loc`] and
//! its base/index operands (plus the types of those operands), never
//! rediscovering locations.
//!
//! Facts used (each one sound for any two dynamic executions unless noted):
//! - locations of different classes never alias: `[int]` elements vs
//!   `[float]` elements, an array's length vs its elements, field `S.f` vs
//!   `S.g` or another struct's fields, distinct globals;
//! - two distinct allocation statements yield distinct objects; an
//!   allocation's object is distinct from every argument's;
//! - *within one iteration* (no loop back edge crossed by the walk): an
//!   allocation is distinct from every value that existed before it (whose
//!   definition strictly dominates it), the same SSA base is the same object,
//!   and `a[x+c]` vs `a[x+d]` differ when `c != d`.
//! - constant indices that differ name different elements of any arrays;
//! - Bril slots: a pointer value names exactly one slot, so pointers
//!   `x + c` and `x + d` of one SSA root `x` differ when `c != d` and are
//!   one slot when `c == d` (within one iteration, as above); pointers
//!   `a + c` and `b + d` into two distinct `alloc` statements differ when
//!   `0 <= c, d < 2^32` (the offset then stays in the allocation's own id
//!   range, and ids are never reused, even across iterations). Nothing
//!   else is known: an argument or a loaded pointer may point anywhere.
//!
//! Calls are summarised bottom-up over the call graph ([`Summaries`]): the
//! classes a function may read and may write, iterated to a fixpoint so that
//! recursion is handled. Every query that may meet a call takes the
//! module's summaries as an argument; a callee they do not cover may read and
//! write everything. Runtime functions have their effect in
//! `rtfns::RUNTIME` ([`runtime_effect`]).

use crate::ir::dom::DomTree;
use crate::ir::{BinaryOp, BlockId, Inst, IrCode, Loc, Module, Operand, RuntimeFn, Type, Value};
use crate::rtfns::Effect as RtEffect;
use crate::types::{FuncId, GlobalId, StructId};
use cranelift_entity::{EntityRef, SecondaryMap};
use std::collections::BTreeSet;

/// A location class: what a location is, ignoring which object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// The length of arrays of this element type.
    Len(Type),
    /// Elements of arrays of this element type.
    Elem(Type),
    /// Field `.1` of the struct type `.0`.
    Field(StructId, u32),
    Global(GlobalId),
    /// A slot of Bril's memory extension, addressed by a pointer value
    /// (`MemLoc::index`; no base). One class for every element type: a
    /// pointer is an integer (`runtime/bril.rs`), and a wrapping `ptradd`
    /// may reach a slot of any allocation, whatever its type.
    Bril,
}

/// One concrete location: a class, the object (`base`) and for elements
/// the index (`None`: any element).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemLoc {
    pub class: Class,
    pub base: Option<Operand>,
    pub index: Option<Operand>,
}

/// A set of classes (`all`: every location).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ClassSet {
    pub all: bool,
    pub set: BTreeSet<Class>,
}

impl ClassSet {
    pub fn everything() -> ClassSet {
        ClassSet {
            all: true,
            set: BTreeSet::new(),
        }
    }
    pub fn is_empty(&self) -> bool {
        !self.all && self.set.is_empty()
    }
    pub fn contains(&self, c: &Class) -> bool {
        self.all || self.set.contains(c)
    }
    pub fn intersects(&self, o: &ClassSet) -> bool {
        if self.is_empty() || o.is_empty() {
            return false;
        }
        self.all || o.all || self.set.iter().any(|c| o.set.contains(c))
    }
    /// Adds `o`; returns whether anything changed.
    pub fn union(&mut self, o: &ClassSet) -> bool {
        if self.all {
            return false;
        }
        if o.all {
            self.all = true;
            self.set.clear();
            return true;
        }
        let n = self.set.len();
        self.set.extend(o.set.iter().cloned());
        self.set.len() != n
    }
}

/// What an access reads (a use) or writes (a def).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    None,
    Locs(Vec<MemLoc>),
    Classes(ClassSet),
}

/// The memory behaviour of one instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct InstEffect {
    pub reads: Effect,
    pub writes: Effect,
}

/// Mod/ref summary of a function: the classes it (or its callees) may read
/// and may write.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub reads: ClassSet,
    pub writes: ClassSet,
}

/// Summaries of every function of a module, by `FuncId` (from
/// [`compute_summaries`]). `Summaries::default()` knows no function: every
/// call may read and write everything.
#[derive(Clone, Debug, Default)]
pub struct Summaries(pub Vec<Summary>);

impl Summaries {
    /// The summary of function `f`, if known.
    pub fn get(&self, f: FuncId) -> Option<&Summary> {
        self.0.get(f.index())
    }
}

fn elem_of(t: Option<Type>) -> Option<Type> {
    match t {
        Some(Type::Array(e)) => Some(*e),
        _ => None,
    }
}

/// The class of `loc` accessed through `base` (array classes need the
/// base's element type; `None` if it is unknown).
pub fn class_of(ir: &IrCode, loc: &Loc, base: Option<&Operand>) -> Option<Class> {
    Some(match loc {
        Loc::ArrayLen => Class::Len(elem_of(base.and_then(|b| ir.operand_type(b)))?),
        Loc::ArrayElem(t) => Class::Elem(t.clone()),
        Loc::Field { strukt, field } => Class::Field(*strukt, *field),
        Loc::Global(g) => Class::Global(*g),
    })
}

fn all() -> Effect {
    Effect::Classes(ClassSet::everything())
}

fn loc_effect(ir: &IrCode, loc: &Loc, base: &Option<Operand>, index: &Option<Operand>) -> Effect {
    match class_of(ir, loc, base.as_ref()) {
        Some(class) => Effect::Locs(vec![MemLoc {
            class,
            base: *base,
            index: *index,
        }]),
        None => all(),
    }
}

/// The mod/ref of a runtime call, from the `effect` of its row in
/// `rtfns::RUNTIME`: `Pure` and `Io` functions touch no Toy-visible memory
/// (strings are immutable); `ReadsReachable` (`PrintValue`) reads
/// everything; `UpdatesArray` (`ArrayPush`/`ArrayPop`) reads and writes
/// its array's length and elements.
pub fn runtime_effect(ir: &IrCode, f: RuntimeFn, args: &[Operand]) -> InstEffect {
    let none = InstEffect {
        reads: Effect::None,
        writes: Effect::None,
    };
    match f.row().effect {
        RtEffect::ReadsReachable => InstEffect {
            reads: all(),
            writes: Effect::None,
        },
        RtEffect::UpdatesArray => {
            let Some(arr) = args.first() else {
                return InstEffect {
                    reads: all(),
                    writes: all(),
                };
            };
            match elem_of(ir.operand_type(arr)) {
                Some(e) => {
                    let k = e;
                    let locs = Effect::Locs(vec![
                        MemLoc {
                            class: Class::Len(k.clone()),
                            base: Some(*arr),
                            index: None,
                        },
                        MemLoc {
                            class: Class::Elem(k),
                            base: Some(*arr),
                            index: None,
                        },
                    ]);
                    InstEffect {
                        reads: locs.clone(),
                        writes: locs,
                    }
                }
                None => InstEffect {
                    reads: all(),
                    writes: all(),
                },
            }
        }
        RtEffect::ReadsBrilSlot => InstEffect {
            reads: bril_slot(args),
            writes: Effect::None,
        },
        RtEffect::WritesBrilSlot => InstEffect {
            reads: Effect::None,
            writes: bril_slot(args),
        },
        RtEffect::UpdatesBrilHeap => InstEffect {
            reads: bril_heap(),
            writes: bril_heap(),
        },
        RtEffect::Pure | RtEffect::Io => none,
    }
}

/// The Bril slot a `load`/`store` call's pointer (its first argument)
/// names.
fn bril_slot(args: &[Operand]) -> Effect {
    match args.first() {
        Some(p) => Effect::Locs(vec![MemLoc {
            class: Class::Bril,
            base: None,
            index: Some(*p),
        }]),
        None => bril_heap(),
    }
}

/// Every Bril slot.
fn bril_heap() -> Effect {
    Effect::Classes(ClassSet {
        all: false,
        set: BTreeSet::from([Class::Bril]),
    })
}

fn classes_effect(s: &ClassSet) -> Effect {
    if s.is_empty() {
        Effect::None
    } else {
        Effect::Classes(s.clone())
    }
}

/// The memory effect of statement `inst` (`None` when it touches no memory);
/// a call's effect is its callee's summary in `sums`.
pub fn inst_effect(ir: &IrCode, v: Value, inst: &Inst, sums: &Summaries) -> Option<InstEffect> {
    let e = match inst {
        Inst::Load { loc, base, index } => InstEffect {
            reads: loc_effect(ir, loc, base, index),
            writes: Effect::None,
        },
        Inst::Store {
            loc, base, index, ..
        } => InstEffect {
            reads: Effect::None,
            writes: loc_effect(ir, loc, base, index),
        },
        Inst::NewArray { elem, .. } => {
            let k = elem.clone();
            let b = Some(Operand::Value(v));
            InstEffect {
                reads: Effect::None,
                writes: Effect::Locs(vec![
                    MemLoc {
                        class: Class::Len(k.clone()),
                        base: b,
                        index: None,
                    },
                    MemLoc {
                        class: Class::Elem(k),
                        base: b,
                        index: None,
                    },
                ]),
            }
        }
        Inst::NewStruct { strukt, fields } => InstEffect {
            reads: Effect::None,
            writes: Effect::Locs(
                (0..fields.len() as u32)
                    .map(|f| MemLoc {
                        class: Class::Field(*strukt, f),
                        base: Some(Operand::Value(v)),
                        index: None,
                    })
                    .collect(),
            ),
        },
        Inst::Call { func, .. } => match sums.get(*func) {
            Some(s) => InstEffect {
                reads: classes_effect(&s.reads),
                writes: classes_effect(&s.writes),
            },
            None => InstEffect {
                reads: all(),
                writes: all(),
            },
        },
        Inst::Runtime { func, args } => runtime_effect(ir, *func, args),
        _ => return None,
    };
    if e.reads == Effect::None && e.writes == Effect::None {
        return None;
    }
    Some(e)
}

/// Adds the classes effect `e` touches to `set`.
pub fn add_effect(set: &mut ClassSet, e: &Effect) {
    match e {
        Effect::None => {}
        Effect::Classes(c) => {
            set.union(c);
        }
        Effect::Locs(ls) => {
            for l in ls {
                if !set.all {
                    set.set.insert(l.class.clone());
                }
            }
        }
    }
}

/// Computes every function's summary (see [`summaries_from`]).
pub fn compute_summaries(module: &Module) -> Summaries {
    summaries_from(module.funcs.iter().map(local_effects).collect())
}

/// [`compute_summaries`] with each function's own effects found on `pool`.
pub fn summaries_on(module: &Module, pool: &crate::par::Pool) -> Summaries {
    let locals = pool.map(module.funcs.len(), module.stmt_count(), |i| {
        local_effects(&module.funcs[i])
    });
    summaries_from(locals)
}

/// What one function does itself: its own effects (calls excluded) and
/// the functions it calls.
pub struct LocalEffects {
    own: Summary,
    callees: BTreeSet<u32>,
}

/// The effects of `f`'s own statements and its callees; independent of
/// every other function, so the stages may compute them in parallel.
pub fn local_effects(f: &IrCode) -> LocalEffects {
    let mut local = LocalEffects {
        own: Summary::default(),
        callees: BTreeSet::new(),
    };
    for (s, inst) in f.stmts.inst.iter() {
        match inst {
            Inst::Call { func, .. } => {
                local.callees.insert(func.0);
            }
            Inst::NewArray { .. } | Inst::NewStruct { .. } => {}
            _ => {
                // Calls are matched above, so no summary is consulted.
                if let Some(e) = inst_effect(f, s, inst, &Summaries::default()) {
                    add_effect(&mut local.own.reads, &e.reads);
                    add_effect(&mut local.own.writes, &e.writes);
                }
            }
        }
    }
    local
}

/// Every function's summary from the local effects of each (`locals[i]`
/// of function `i`): the least solution of `sum(f) = own(f) ∪ ⋃ sum(g)`
/// over `f`'s callees `g` (recursive functions start empty and grow; a
/// callee outside the module reads and writes everything). Allocations
/// are not effects a caller can see. A worklist recomputes a function
/// only when a callee's summary grew, so the work is linear in the call
/// graph on a module without recursion.
pub fn summaries_from(locals: Vec<LocalEffects>) -> Summaries {
    let n = locals.len();
    let mut callers: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, l) in locals.iter().enumerate() {
        for &c in &l.callees {
            if let Some(cs) = callers.get_mut(c as usize) {
                cs.push(i as u32);
            }
        }
    }
    let mut sums = vec![Summary::default(); n];
    // Callees before callers (the components' reverse topological order),
    // so that each function is usually computed once its callees are final.
    let (order, _) =
        crate::ir::graph::sccs_flat(n, |i| locals[i].callees.iter().map(|&c| c as usize));
    let mut work: Vec<u32> = order.into_iter().rev().map(|i| i as u32).collect();
    let mut queued = vec![true; n];
    while let Some(i) = work.pop() {
        let i = i as usize;
        queued[i] = false;
        let mut s = locals[i].own.clone();
        for &c in &locals[i].callees {
            match sums.get(c as usize) {
                Some(cs) => {
                    s.reads.union(&cs.reads);
                    s.writes.union(&cs.writes);
                }
                None => {
                    s.reads = ClassSet::everything();
                    s.writes = ClassSet::everything();
                }
            }
        }
        if s != sums[i] {
            sums[i] = s;
            for &caller in &callers[i] {
                if !std::mem::replace(&mut queued[caller as usize], true) {
                    work.push(caller);
                }
            }
        }
    }
    Summaries(sums)
}

/// `(root, offset)` with `op == root + offset` in wrapping arithmetic
/// (`root` None: a constant), through at most 8 `iadd`/`isub` of constants
/// and `π`s (a `π` is its operand's value, so `a[π(i)]` and `a[i]` are
/// one location).
pub fn decompose(ir: &IrCode, op: &Operand) -> (Option<Operand>, i64) {
    let mut cur = *op;
    let mut off: i64 = 0;
    for _ in 0..8 {
        match cur {
            Operand::Int(c) => return (None, off.wrapping_add(c)),
            Operand::Value(v) => match ir.stmts.get(v) {
                Some(Inst::Binary(BinaryOp::IAdd, x, Operand::Int(c)))
                | Some(Inst::Binary(BinaryOp::IAdd, Operand::Int(c), x)) => {
                    off = off.wrapping_add(*c);
                    cur = *x;
                }
                Some(Inst::Binary(BinaryOp::ISub, x, Operand::Int(c))) => {
                    off = off.wrapping_sub(*c);
                    cur = *x;
                }
                Some(Inst::Pi { value, .. }) => cur = *value,
                _ => break,
            },
            _ => break,
        }
    }
    (Some(cur), off)
}

/// Alias answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AliasResult {
    No,
    May,
    Must,
}

/// What alias queries need to know about the function.
pub struct AliasCtx<'a> {
    pub ir: &'a IrCode,
    pub dom: &'a DomTree,
    pub block_of: &'a SecondaryMap<Value, Option<BlockId>>,
}

fn is_alloc(ir: &IrCode, op: &Operand) -> Option<Value> {
    defined_by(ir, op, |i| {
        matches!(i, Inst::NewArray { .. } | Inst::NewStruct { .. })
    })
}

/// The statement defining `op` when its instruction passes `what`.
fn defined_by(ir: &IrCode, op: &Operand, what: impl Fn(&Inst) -> bool) -> Option<Value> {
    match op {
        Operand::Value(v) => ir.stmts.get(*v).filter(|i| what(i)).map(|_| *v),
        _ => None,
    }
}

/// Whether `op` is the result of a Bril `alloc` call.
fn is_bril_alloc(ir: &IrCode, op: &Operand) -> bool {
    defined_by(ir, op, |i| {
        matches!(
            i,
            Inst::Runtime {
                func: RuntimeFn::BrilAlloc,
                ..
            }
        )
    })
    .is_some()
}

/// An operand with the same value in every execution of the function.
fn invariant(op: &Operand) -> bool {
    !matches!(op, Operand::Value(_))
}

impl AliasCtx<'_> {
    /// Whether the definition of `a` strictly dominates statement `b`.
    fn value_before(&self, a: &Operand, b: Value) -> bool {
        match a {
            Operand::Value(a) => {
                let (Some(ba), Some(bb)) = (self.block_of[*a], self.block_of[b]) else {
                    return false;
                };
                let n = self.ir.stmts.len() as u32;
                if a.0 >= n || b.0 >= n {
                    return false;
                }
                if ba == bb {
                    a.0 < b.0
                } else {
                    self.dom.dominates_reachable(ba, bb)
                }
            }
            Operand::Arg(_) => true,
            _ => false,
        }
    }

    fn bases(&self, a: &Operand, b: &Operand, imprecise: bool) -> AliasResult {
        if matches!(a, Operand::Nil) || matches!(b, Operand::Nil) {
            return AliasResult::No;
        }
        if a == b && (!imprecise || invariant(a)) {
            return AliasResult::Must;
        }
        match (is_alloc(self.ir, a), is_alloc(self.ir, b)) {
            (Some(x), Some(y)) if x != y => return AliasResult::No,
            (Some(_), None) if matches!(b, Operand::Arg(_)) => return AliasResult::No,
            (None, Some(_)) if matches!(a, Operand::Arg(_)) => return AliasResult::No,
            (Some(x), None) if !imprecise && self.value_before(b, x) => return AliasResult::No,
            (None, Some(y)) if !imprecise && self.value_before(a, y) => return AliasResult::No,
            _ => {}
        }
        AliasResult::May
    }

    fn decompose(&self, op: &Operand) -> (Option<Operand>, i64) {
        decompose(self.ir, op)
    }

    /// Whether `a` and `b` may name the same memory. `imprecise`: the two
    /// accesses may be in different iterations of a loop, so facts that
    /// compare SSA values of one execution are off.
    pub fn alias(&self, a: &MemLoc, b: &MemLoc, imprecise: bool) -> AliasResult {
        if a.class != b.class {
            return AliasResult::No;
        }
        match a.class {
            Class::Global(_) => return AliasResult::Must,
            Class::Bril => {
                return match (&a.index, &b.index) {
                    (Some(p), Some(q)) => self.bril_slots(p, q, imprecise),
                    _ => AliasResult::May,
                };
            }
            _ => {}
        }
        let base = match (&a.base, &b.base) {
            (Some(x), Some(y)) => self.bases(x, y, imprecise),
            _ => AliasResult::May,
        };
        if base == AliasResult::No {
            return AliasResult::No;
        }
        match a.class {
            Class::Elem(_) => match (&a.index, &b.index) {
                (Some(i), Some(j)) => {
                    let (ri, oi) = self.decompose(i);
                    let (rj, oj) = self.decompose(j);
                    let roots_same = match (ri, rj) {
                        (None, None) => true,
                        (Some(x), Some(y)) => x == y && (!imprecise || invariant(&x)),
                        _ => false,
                    };
                    if roots_same {
                        if oi != oj {
                            return AliasResult::No;
                        }
                        if base == AliasResult::Must {
                            return AliasResult::Must;
                        }
                    }
                    AliasResult::May
                }
                _ => AliasResult::May,
            },
            _ => base,
        }
    }

    /// Whether the Bril pointers `p` and `q` may name one slot (the facts
    /// are in the module doc).
    fn bril_slots(&self, p: &Operand, q: &Operand, imprecise: bool) -> AliasResult {
        let ((rp, op), (rq, oq)) = (self.decompose(p), self.decompose(q));
        let same_offset = if op == oq {
            AliasResult::Must
        } else {
            AliasResult::No
        };
        match (rp, rq) {
            (None, None) => same_offset,
            (Some(x), Some(y)) if x == y => {
                if !imprecise || invariant(&x) {
                    same_offset
                } else {
                    AliasResult::May
                }
            }
            (Some(x), Some(y)) => {
                let own_range = |o: i64| (0..1i64 << 32).contains(&o);
                let distinct = is_bril_alloc(self.ir, &x)
                    && is_bril_alloc(self.ir, &y)
                    && own_range(op)
                    && own_range(oq);
                if distinct {
                    AliasResult::No
                } else {
                    AliasResult::May
                }
            }
            _ => AliasResult::May,
        }
    }

    /// Whether a write `w` may overlap the locations `r`.
    pub fn overlaps(&self, w: &Effect, r: &Effect, imprecise: bool) -> bool {
        match (w, r) {
            (Effect::None, _) | (_, Effect::None) => false,
            (Effect::Locs(a), Effect::Locs(b)) => a.iter().any(|x| {
                b.iter()
                    .any(|y| self.alias(x, y, imprecise) != AliasResult::No)
            }),
            (Effect::Locs(a), Effect::Classes(c)) | (Effect::Classes(c), Effect::Locs(a)) => {
                a.iter().any(|x| c.contains(&x.class))
            }
            (Effect::Classes(a), Effect::Classes(b)) => a.intersects(b),
        }
    }
}
