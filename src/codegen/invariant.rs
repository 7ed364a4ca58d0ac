//! Invariant loads, placed by the translation itself: out of the loops
//! they do not vary in, and once per site.
//!
//! Three loads read a word that cannot change while the function runs:
//! - the buffer address of an array whose buffer the function cannot move
//!   (the word at offset 24 of the array object, [`super::fixed_data`]);
//! - the data address of a string (the word at offset 16; it never changes);
//! - a nonzero float constant used on a cycle of the CFG, from its
//!   read-only data object ([`super::Compiler::float_const`]): a value kept
//!   in a register, where an `f64const` would be rematerialised at each use.
//!
//! The same placement serves one computation that is not a load: the
//! splat of a paired division's common numerator (`x / b` beside
//! `x / d`, [`super::ops::fdiv_pair`]), a float constant or a value, to
//! both lanes of an `f64x2`.
//!
//! Cranelift compiles at `opt_level=none` (its e-graph, which could hoist
//! them, costs a third of its compile time and finds little else after our
//! passes), so the translation places these loads where they belong:
//! - The *site* of a load used in IR block `u` is `u`, moved out of every
//!   natural loop that contains it but not the definition of the load's
//!   operand, to the immediate dominator of that loop's header (outside
//!   the loop, dominating all of it). Parameters and constants are defined
//!   in the entry block ([`Site::Entry`]).
//! - A load whose site is another block than its use is inserted before
//!   the last instruction (the branch) of that block's translation, which
//!   exists already: blocks are translated in a reverse postorder, so a
//!   block's dominators are translated before it.
//! - A use reuses the load of its site, or of one of that site's
//!   [`REUSE_DEPTH`] nearest dominators, when one was emitted.
//!
//! Invariants this rests on:
//! - the operand of an address load is always a live object of its type
//!   (arrays and strings are never nil, `Undef` is never one), so the load
//!   may run earlier than written, or on a path that does not use it;
//! - an address so loaded is a derived pointer: it is recorded with its
//!   object in [`FrameRoots::derived`](super::gc::FrameRoots), and the stack
//!   maps count each use of it as a use of the object, which therefore
//!   stays a root wherever its data is used;
//! - at `-O0` nothing is moved or shared: each use loads for itself.

use super::translate::FnTrans;
use crate::ir::dom::DomTree;
use crate::ir::loops::LoopNest;
use crate::ir::{BlockId, FxMap, IrCode, Operand, Value};
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData, types};
use cranelift_entity::SecondaryMap;
use std::sync::Arc;

/// How many dominators of a site are searched for a load to reuse.
const REUSE_DEPTH: usize = 4;

/// What an invariant load (or splat) reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Invariant {
    /// The word at `offset` of the object that `root` holds.
    Address { root: Root, offset: i32 },
    /// The float constant with these bits.
    Float(u64),
    /// The float `root` in both lanes of an `f64x2` (the numerators of a
    /// paired division, `ops::fdiv_pair`).
    Splat(Root),
    /// The float constant with these bits in both lanes of an `f64x2`: a
    /// splat of its [`Invariant::Float`] load.
    FloatSplat(u64),
}

/// An object's IR value: a statement or a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Root {
    Value(Value),
    Arg(u32),
}

impl Root {
    /// The root an operand names (`None` for a constant).
    pub(super) fn of(op: &Operand) -> Option<Root> {
        match op {
            Operand::Value(v) => Some(Root::Value(*v)),
            Operand::Arg(i) => Some(Root::Arg(*i)),
            _ => None,
        }
    }
}

/// Where a load is placed: the translation's entry block, or an IR block's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Site {
    Entry,
    Block(BlockId),
}

/// The placement state of one function's invariant loads.
pub(super) struct Invariants {
    /// The dominator tree and loops, when loads are moved and shared at
    /// all (`None` at `-O0`).
    graphs: Option<(Arc<DomTree>, Arc<LoopNest>)>,
    /// The block of each statement, when the function has loops.
    def_block: SecondaryMap<Value, Option<BlockId>>,
    /// The last instruction of each translated site.
    ends: FxMap<Site, cl::Inst>,
    /// The loads emitted so far, by what they read and their site.
    loads: FxMap<(Invariant, Site), cl::Value>,
}

impl Invariants {
    pub(super) fn new(code: &IrCode, on: bool) -> Invariants {
        let graphs = on.then(|| (code.cfg.dom_tree(), code.cfg.loop_nest()));
        let def_block = match &graphs {
            Some((_, nest)) if !nest.is_empty() => code.block_of(),
            _ => SecondaryMap::new(),
        };
        Invariants {
            graphs,
            def_block,
            ends: FxMap::default(),
            loads: FxMap::default(),
        }
    }

    /// Records that `site`'s translation ends with instruction `last`.
    pub(super) fn ended(&mut self, site: Site, last: Option<cl::Inst>) {
        if let Some(last) = last {
            self.ends.insert(site, last);
        }
    }

    /// Where `what`'s operand is defined: `Entry` for a parameter or a
    /// constant, `None` for a value in no block (it stays at its use).
    fn definition(&self, what: Invariant) -> Option<Site> {
        match what {
            Invariant::Address {
                root: Root::Value(v),
                ..
            }
            | Invariant::Splat(Root::Value(v)) => {
                self.def_block.get(v).copied().flatten().map(Site::Block)
            }
            _ => Some(Site::Entry),
        }
    }

    /// The site of a load of `what` used in `at` (see the module doc).
    fn site(&self, what: Invariant, at: Site, dom: &DomTree, nest: &LoopNest) -> Site {
        let Site::Block(mut b) = at else {
            return Site::Entry;
        };
        let Some(def) = self.definition(what) else {
            return at;
        };
        while let Some(l) = nest.loop_of(b) {
            if matches!(def, Site::Block(d) if l.contains(d)) {
                break;
            }
            match dom.idom(l.header) {
                Some(p) => b = p,
                None if def == Site::Entry => return Site::Entry,
                None => break,
            }
        }
        Site::Block(b)
    }

    /// A load of `what` already emitted at `site` or a near dominator.
    fn find(&self, what: Invariant, site: Site, dom: &DomTree) -> Option<cl::Value> {
        let mut at = site;
        for _ in 0..=REUSE_DEPTH {
            if let Some(v) = self.loads.get(&(what, at)) {
                return Some(*v);
            }
            at = match at {
                Site::Block(b) => dom.idom(b).map_or(Site::Entry, Site::Block),
                Site::Entry => return None,
            };
        }
        None
    }
}

impl FnTrans<'_, '_, '_> {
    /// The value of `what` for a use in the block being translated;
    /// `root` is the Cranelift value of an address load's object, or of
    /// a splat's float.
    pub(super) fn invariant(
        &mut self,
        what: Invariant,
        root: Option<cl::Value>,
    ) -> Result<cl::Value, String> {
        let here = self.site;
        let Some((dom, nest)) = &self.inv.graphs else {
            return self.emit_invariant(what, root, None);
        };
        let site = self.inv.site(what, here, dom, nest);
        if let Some(v) = self.inv.find(what, site, dom) {
            return Ok(v);
        }
        let (site, before) = match self.inv.ends.get(&site) {
            Some(&last) if site != here => (site, Some(last)),
            _ => (here, None),
        };
        let v = self.emit_invariant(what, root, before)?;
        self.inv.loads.insert((what, site), v);
        Ok(v)
    }

    /// Emits the load of `what`, before instruction `before` or else at
    /// the current position.
    fn emit_invariant(
        &mut self,
        what: Invariant,
        root: Option<cl::Value>,
        before: Option<cl::Inst>,
    ) -> Result<cl::Value, String> {
        let flags = MemFlagsData::trusted().with_readonly().with_can_move();
        match what {
            Invariant::Float(bits) => {
                let id = self.cx.float_const(bits)?;
                let gv = self.data_gv(id);
                let mut cur = self.cursor_before(before);
                let addr = cur.ins().symbol_value(types::I64, gv);
                Ok(cur.ins().load(types::F64, flags, addr, 0))
            }
            Invariant::Splat(_) => {
                let x = root.ok_or_else(|| format!("invariant {what:?} without its value"))?;
                Ok(self.cursor_before(before).ins().splat(types::F64X2, x))
            }
            Invariant::FloatSplat(bits) => {
                // Defined in the entry block like the load: its site is
                // this one's, so it lands before `before` too, or is one
                // that dominates it.
                let x = self.invariant(Invariant::Float(bits), None)?;
                Ok(self.cursor_before(before).ins().splat(types::F64X2, x))
            }
            Invariant::Address { offset, .. } => {
                let obj =
                    root.ok_or_else(|| format!("invariant load {what:?} without its object"))?;
                let v = self
                    .cursor_before(before)
                    .ins()
                    .load(types::I64, flags, obj, offset);
                self.roots.derived.push((v, obj));
                Ok(v)
            }
        }
    }

    /// A cursor inserting before `before`, or else at the current position.
    fn cursor_before(&mut self, before: Option<cl::Inst>) -> FuncCursor<'_> {
        match before {
            Some(inst) => FuncCursor::new(self.b.func).at_inst(inst),
            None => self.b.cursor(),
        }
    }
}
