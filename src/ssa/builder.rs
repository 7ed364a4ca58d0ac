//! The builder-local CFG and Braun et al.'s variable reads and writes.
//!
//! Invariants:
//! - Every statement (φ or not) is a [`Node`]; `Operand::Value(n)` inside a
//!   node's instruction refers to node `n` (not to a final statement).
//! - A node whose `forward` is set has been replaced (a trivial φ): every
//!   use reads `resolve(Value(n))` instead. Only φs are ever forwarded.
//! - A φ's `values[i]` flows in along `blocks[b].preds[i]`; `edges` stays
//!   empty until emission. An incomplete φ (in an unsealed block) has no
//!   values until its block is sealed.
//! - `env[b]` is what a read of each variable finds at the end of `b`
//!   without creating a φ: its own definitions (writes, and the results of
//!   earlier reads), over — once `b` is sealed with a single predecessor or
//!   as a structured region's join — the map of that predecessor or of the
//!   region's head, with `Stop(b)` for the variables the region assigns.
//!   A variable it lacks has, along that chain, no definition up to
//!   `root[b]`, the first block whose lookup is not a plain hop (unsealed,
//!   several predecessors, none). Entries added to an ancestor after `b`
//!   took its map agree with what the walk would find, so maps never need
//!   updating: a missing entry only sends the read on to `root[b]`.
//! - `phi_users[n]` lists the φs that have (had) `n` as an operand; it may
//!   hold stale entries, which re-checks tolerate.
//! - A variable vouched to have one definition
//!   ([`Builder::single_definition`]) has no map entries, no φ and no
//!   entry in the log of assignments: `sole` holds what its definition
//!   wrote, and a second definition is an internal error.
//! - A block whose `term` is `None` is still being filled; `cur` is always a
//!   block without a terminator. A sealed block without predecessors (other
//!   than the entry) is dead: nothing placed in it is emitted.
pub use super::block::{Blocks, BuildBlock, BuildTerm};
use super::env::{Entry, Env, EnvArena};
use super::users::PhiUsers;
use crate::ir::{Flags, Inst, Operand, Type, Value, push_in_place};
use crate::span::Span;

pub use crate::ir::fxhash::{FxMap, FxSet};
use vars::{Frame, Sole};

mod vars;

/// A builder block index.
pub type Blk = u32;
/// An SSA variable: a local (`LocalId.0`) or a hidden temporary above them.
pub type Var = u32;

#[derive(Clone, Debug)]
pub struct Node {
    pub inst: Inst,
    pub ty: Type,
    pub span: Span,
    pub flags: Flags,
    pub block: Blk,
    /// The source variable whose value this node is: the first variable it
    /// was written to, or the variable a φ was made for (only variables
    /// below [`Builder::named_vars`], not hidden temporaries).
    pub var: Option<Var>,
    /// Some variable has been given this node's value.
    pub assigned: bool,
}

/// The variables a structured region assigns (see
/// [`Builder::written_since`]): a bit set, `words` words of the builder's
/// `written` list from `start` (variable `v` is bit `v % 64` of word
/// `v / 64`; the words end at the highest variable assigned).
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    start: u32,
    words: u32,
}

impl Written {
    pub fn contains(self, all: &[u64], var: Var) -> bool {
        let w = (var / 64) as usize;
        w < self.words as usize && (all[self.start as usize + w] >> (var % 64)) & 1 == 1
    }

    /// The variables, in increasing order.
    fn vars(self, all: &[u64]) -> impl Iterator<Item = Var> + '_ {
        let words = &all[self.start as usize..(self.start + self.words) as usize];
        words.iter().enumerate().flat_map(|(i, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    i as Var * 64 + b
                })
            })
        })
    }
}

/// Follows replaced φs (`forward`, one entry per node) to the value that
/// stands for `op`.
pub fn resolve_in(forward: &[Option<Operand>], op: Operand) -> Operand {
    let mut op = op;
    let mut steps = 0usize;
    while let Operand::Value(v) = op {
        match forward[v.0 as usize] {
            Some(next) if steps <= forward.len() => {
                op = next;
                steps += 1;
            }
            _ => break,
        }
    }
    op
}

/// How many of a block's pure operations value numbering finds by a
/// linear search (cheaper than hashing for the few most blocks have).
const LVN_SCAN: usize = 16;

pub use crate::ir::edit::{OpKey, op_key};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LvnKey {
    Unary(crate::ir::UnaryOp, OpKey),
    Binary(crate::ir::BinaryOp, OpKey, OpKey),
    Str(Box<str>),
    Undef(Type),
}

pub struct Builder {
    pub nodes: Vec<Node>,
    pub forward: Vec<Option<Operand>>,
    pub phi_users: PhiUsers,
    /// Scratch space for a snapshot of one node's users.
    user_buf: Vec<u32>,
    pub blocks: Blocks,
    pub cur: Blk,
    env: Vec<Env>,
    arena: EnvArena,
    root: Vec<Blk>,
    /// Blocks visited by variable lookups (for tests bounding the work).
    pub steps: u64,
    /// Every assignment of the program, in order (for `written_since`).
    log: Vec<Var>,
    /// The bit sets of every [`Written`] of the function, one after
    /// another.
    written: Vec<u64>,
    /// Per block: the structured region it joins (see [`Builder::set_skip`]).
    skip: Vec<Option<(Blk, Written)>>,
    /// Per loop header, until sealed: see [`Builder::set_loop`].
    loops: Vec<Option<(Blk, Written)>>,
    pub var_ty: Vec<Type>,
    /// Variables below this are the function's locals (they have source
    /// names); [`Builder::new_var`] makes hidden ones above.
    pub named_vars: Var,
    /// Local value numbering of the pure operations of block `lvn_block`
    /// (blocks are filled one after the other: a block is not filled again
    /// once another block's operations are numbered): its first
    /// [`LVN_SCAN`] operations in `lvn_few`, searched in order, the others
    /// in `lvn`. The values are nodes (a pure operation is never replaced),
    /// kept as their numbers.
    lvn_few: Vec<(LvnKey, u32)>,
    lvn: FxMap<LvnKey, u32>,
    lvn_block: Blk,
    /// Value numbering in the entry block, which also holds the `undef`
    /// and empty-string placeholders made while other blocks are filled.
    pub(super) entry_lvn: FxMap<LvnKey, u32>,
    next_seq: u32,
    /// Scratch space, kept to reuse its allocation.
    read_stack: Vec<Frame>,
    pub(super) work: Vec<u32>,
    entries: Vec<(Var, Entry)>,
    /// [`super::emit::emit`]'s working storage.
    pub(super) emit_scratch: super::emit::Scratch,
    /// Per variable: a block and the value a read of the variable there
    /// finds (the last one written to or found in some block's map; maps
    /// never drop an entry, so it stays true).
    last_read: Vec<(Blk, Operand)>,
    /// The block [`Builder::dead_block`] made last.
    last_dead: Option<Blk>,
    /// Per variable (none above the ones [`Builder::single_definition`]
    /// was told of): what its one definition wrote.
    sole: Vec<Sole>,
    /// A read that reaches no definition gives an explicit `undef`
    /// statement (Bril, where that is allowed) instead of a zero constant
    /// (Toy, where sema rules it out outside dead code).
    pub explicit_undef: bool,
    /// How many loops enclose what is being built (the front end counts
    /// them, header and latch included).
    pub loop_depth: u32,
    /// Per variable: the loop depth of its first assignment (its
    /// declaration), `u32::MAX` before.
    pub(super) decl_depth: Vec<u32>,
    /// Whether a redundant φ-SCC can exist, so that emission must search
    /// for them. Once no φ is trivial, only irreducible control flow or
    /// copies can make a set of φs redundant (Braun et al. 2013, §3.2: a
    /// redundant set merges one value around a loop that the variable's
    /// assignments in it all copy). So it starts true, the Toy front end
    /// (whose loops are the only cycles, each entered through its header)
    /// sets it false, and [`Builder::note_copy`] sets it back when a
    /// variable is assigned, inside a loop nested in the one it is
    /// declared in (or inside any loop, for a variable declared outside
    /// all), a value that is not new: a constant, a parameter, a φ, or a
    /// node some variable already has.
    pub may_have_redundant_phis: bool,
}

impl Builder {
    /// A builder with the entry block (0) current and sealed.
    pub fn new(var_ty: Vec<Type>) -> Builder {
        let mut b = Builder {
            nodes: Vec::new(),
            forward: Vec::new(),
            phi_users: PhiUsers::default(),
            user_buf: Vec::new(),
            blocks: Blocks::default(),
            cur: 0,
            env: Vec::new(),
            arena: EnvArena::default(),
            root: Vec::new(),
            steps: 0,
            log: Vec::new(),
            written: Vec::new(),
            skip: Vec::new(),
            loops: Vec::new(),
            named_vars: var_ty.len() as Var,
            var_ty,
            lvn_few: Vec::new(),
            lvn: FxMap::default(),
            lvn_block: 0,
            entry_lvn: FxMap::default(),
            next_seq: 0,
            read_stack: Vec::new(),
            work: Vec::new(),
            entries: Vec::new(),
            emit_scratch: Default::default(),
            last_read: Vec::new(),
            last_dead: None,
            sole: Vec::new(),
            explicit_undef: false,
            loop_depth: 0,
            decl_depth: Vec::new(),
            may_have_redundant_phis: true,
        };
        let entry = b.new_block();
        b.seal(entry);
        b.switch_to(entry);
        b
    }

    /// Makes this builder what [`Builder::new`] would, keeping its
    /// allocations (a builder reused from function to function allocates
    /// little once it has seen a function as large as the next one).
    pub fn reset(&mut self, var_ty: impl IntoIterator<Item = Type>) {
        self.nodes.clear();
        self.forward.clear();
        self.phi_users.clear();
        self.blocks.clear();
        self.cur = 0;
        self.env.clear();
        self.arena.clear();
        self.root.clear();
        self.steps = 0;
        self.log.clear();
        self.written.clear();
        self.skip.clear();
        self.loops.clear();
        self.var_ty.clear();
        self.var_ty.extend(var_ty);
        self.named_vars = self.var_ty.len() as Var;
        self.lvn_few.clear();
        self.lvn.clear();
        self.lvn_block = 0;
        self.entry_lvn.clear();
        self.next_seq = 0;
        self.last_read.clear();
        self.last_dead = None;
        self.sole.clear();
        self.explicit_undef = false;
        self.loop_depth = 0;
        self.decl_depth.clear();
        self.may_have_redundant_phis = true;
        let entry = self.new_block();
        self.seal(entry);
        self.switch_to(entry);
    }

    pub fn new_block(&mut self) -> Blk {
        let b = self.blocks.push_empty();
        self.env.push(Env::default());
        self.root.push(b);
        self.skip.push(None);
        self.loops.push(None);
        b
    }

    pub fn new_cold_block(&mut self) -> Blk {
        let b = self.new_block();
        self.blocks[b as usize].cold = true;
        b
    }

    /// A fresh hidden variable of type `ty`.
    pub fn new_var(&mut self, ty: Type) -> Var {
        self.var_ty.push(ty);
        self.var_ty.len() as Var - 1
    }

    /// Whether `b` can never execute (sealed, no predecessors, not entry).
    pub fn is_dead(&self, b: Blk) -> bool {
        let blk = &self.blocks[b as usize];
        b != 0 && blk.sealed && blk.preds.is_empty()
    }

    pub fn cur_dead(&self) -> bool {
        self.is_dead(self.cur)
    }

    /// Makes `b` current. `b` must not have a terminator yet.
    pub fn switch_to(&mut self, b: Blk) {
        if self.blocks[b as usize].seq == u32::MAX {
            self.blocks[b as usize].seq = self.next_seq;
            self.next_seq += 1;
        }
        self.cur = b;
    }

    pub(super) fn add_node(
        &mut self,
        inst: Inst,
        ty: Type,
        span: Span,
        flags: Flags,
        block: Blk,
    ) -> u32 {
        self.add_node_with(|| inst, ty, span, flags, block)
    }

    /// [`Builder::add_node`] of the instruction `make` builds, built in
    /// its place.
    #[inline(always)]
    fn add_node_with(
        &mut self,
        make: impl FnOnce() -> Inst,
        ty: Type,
        span: Span,
        flags: Flags,
        block: Blk,
    ) -> u32 {
        push_in_place(&mut self.nodes, || Node {
            inst: make(),
            ty,
            span,
            flags,
            block,
            var: None,
            assigned: false,
        });
        self.forward.push(None);
        self.phi_users.push_node();
        self.nodes.len() as u32 - 1
    }

    /// Appends a statement to the current block.
    pub fn push(&mut self, inst: Inst, ty: Type, span: Span, flags: Flags) -> Operand {
        let cur = self.cur;
        self.push_at(cur, inst, ty, span, flags)
    }

    /// Appends a statement to block `b` (which stays not current).
    pub fn push_at(&mut self, b: Blk, inst: Inst, ty: Type, span: Span, flags: Flags) -> Operand {
        Operand::Value(Value(self.push_at_with(b, || inst, ty, span, flags)))
    }

    /// [`Builder::push_at`] of the instruction `make` builds, built in its
    /// place; returns the new node.
    #[inline(always)]
    pub(super) fn push_at_with(
        &mut self,
        b: Blk,
        make: impl FnOnce() -> Inst,
        ty: Type,
        span: Span,
        flags: Flags,
    ) -> u32 {
        let n = self.add_node_with(make, ty, span, flags, b);
        self.blocks[b as usize].stmts.push(n);
        n
    }

    /// Appends a pure operation, reusing an identical one of this block.
    /// The instruction is `make()`, built only when no identical one is
    /// found.
    pub fn push_pure(
        &mut self,
        key: LvnKey,
        make: impl FnOnce() -> Inst,
        ty: Type,
        span: Span,
    ) -> Operand {
        if self.cur != 0 && self.cur != self.lvn_block {
            self.lvn_few.clear();
            self.lvn.clear();
            self.lvn_block = self.cur;
        }
        let found = if self.cur == 0 {
            self.entry_lvn.get(&key)
        } else {
            match self.lvn_few.iter().find(|(k, _)| *k == key) {
                Some((_, v)) => Some(v),
                None => self.lvn.get(&key),
            }
        };
        if let Some(&n) = found {
            return Operand::Value(Value(n));
        }
        let flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);
        let n = self.push_at_with(self.cur, make, ty, span, flags);
        if self.cur == 0 {
            self.entry_lvn.insert(key, n);
        } else if self.lvn_few.len() < LVN_SCAN {
            self.lvn_few.push((key, n));
        } else {
            self.lvn.insert(key, n);
        }
        Operand::Value(Value(n))
    }

    /// Ends the current block with `term` and wires the CFG edges. Control
    /// continues in a fresh dead block until the caller switches.
    pub fn terminate(&mut self, term: BuildTerm, span: Span) {
        let cur = self.cur;
        if self.blocks[cur as usize].term.is_some() {
            return;
        }
        if self.is_dead(cur) {
            // Dead code adds no edges: its jumps never happen.
            self.blocks[cur as usize].term = Some((BuildTerm::Unreachable, span));
        } else {
            for s in term.succs() {
                self.blocks[s as usize].preds.push(cur);
            }
            self.blocks[cur as usize].term = Some((term, span));
        }
        self.cur = self.dead_block();
    }

    /// A sealed block without predecessors, for control after a
    /// terminator: the one the previous terminator made when nothing has
    /// touched it since (it is then the same as a new one), else a new one.
    fn dead_block(&mut self) -> Blk {
        if let Some(d) = self.last_dead {
            let blk = &self.blocks[d as usize];
            if blk.stmts.is_empty()
                && blk.phis.is_empty()
                && blk.term.is_none()
                && blk.preds.is_empty()
                && blk.seq == u32::MAX
                && self.env[d as usize] == Env::default()
                && self.skip[d as usize].is_none()
                && self.loops[d as usize].is_none()
            {
                return d;
            }
        }
        let d = self.new_block();
        self.seal(d);
        self.last_dead = Some(d);
        d
    }

    /// `goto target`; control continues in a dead block until the caller
    /// switches (the target's layout position is set when it is filled).
    pub fn jump(&mut self, target: Blk, span: Span) {
        self.terminate(BuildTerm::Goto(target), span);
    }

    /// `goto target`, then continue filling `target`.
    pub fn goto_and_switch(&mut self, target: Blk, span: Span) {
        self.terminate(BuildTerm::Goto(target), span);
        self.switch_to(target);
    }

    /// A conditional branch; a constant condition becomes a `goto`.
    pub fn branch(&mut self, cond: Operand, then: Blk, els: Blk, span: Span) {
        match self.resolve(cond) {
            Operand::Bool(true) => self.terminate(BuildTerm::Goto(then), span),
            Operand::Bool(false) => self.terminate(BuildTerm::Goto(els), span),
            c => self.terminate(BuildTerm::Branch { cond: c, then, els }, span),
        }
    }

    /// Ends the current block in a branch on `ok`: to a new block (returned)
    /// when true, else to a new cold block, made current. Both are sealed.
    pub fn branch_else_cold(&mut self, ok: Operand, span: Span) -> Blk {
        let (cont, err) = (self.new_block(), self.new_cold_block());
        self.branch(ok, cont, err, span);
        self.seal(cont);
        self.seal(err);
        self.switch_to(err);
        cont
    }

    /// Follows replaced φs to the value that stands for `op`.
    pub fn resolve(&self, op: Operand) -> Operand {
        resolve_in(&self.forward, op)
    }

    /// Once `b` is sealed: when its lookups hop to one block (its single
    /// predecessor, or the head of the region it joins), `b`'s map becomes
    /// that block's, with `b`'s own entries on top.
    fn link(&mut self, b: Blk) {
        let (up, written) = match self.skip[b as usize] {
            Some((head, written)) => (head, Some(written)),
            None if self.blocks[b as usize].preds.len() == 1 => {
                (self.blocks[b as usize].preds[0], None)
            }
            None => return,
        };
        if up == b {
            return;
        }
        self.arena.freeze();
        let mut env = self.env[up as usize];
        if let Some(w) = written {
            for v in w.vars(&self.written) {
                self.arena.insert(&mut env, v, Entry::Stop(b));
            }
        }
        let mut own = std::mem::take(&mut self.entries);
        own.clear();
        self.arena.entries(self.env[b as usize], &mut own);
        for &(v, e) in &own {
            self.arena.insert(&mut env, v, e);
        }
        self.entries = own;
        self.env[b as usize] = env;
        self.root[b as usize] = self.root[up as usize];
    }

    /// A position in the log of assignments.
    pub fn mark(&self) -> usize {
        self.log.len()
    }

    /// The variables assigned since `mark`.
    pub fn written_since(&mut self, mark: usize) -> Written {
        let log = self.log.get(mark..).unwrap_or(&[]);
        let start = self.written.len();
        let words = log.iter().max().map_or(0, |&v| v as usize / 64 + 1);
        self.written.resize(start + words, 0);
        for &v in log {
            self.written[start + v as usize / 64] |= 1 << (v % 64);
        }
        Written {
            start: start as u32,
            words: words as u32,
        }
    }

    /// `join` ends a structured region entered from `head` that assigns only
    /// `written`: a read of any other variable at `join` skips the region.
    pub fn set_skip(&mut self, join: Blk, head: Blk, written: Written) {
        self.skip[join as usize] = Some((head, written));
    }

    /// `header` heads a loop entered from `pre` whose body assigns only
    /// `written`: its incomplete φs of other variables are the value at
    /// `pre`, found without walking the back edges.
    pub fn set_loop(&mut self, header: Blk, pre: Blk, written: Written) {
        self.loops[header as usize] = Some((pre, written));
    }

    /// Marks `b` sealed (all predecessors known) and completes its
    /// incomplete φs.
    pub fn seal(&mut self, b: Blk) {
        if self.blocks[b as usize].sealed {
            return;
        }
        let incomplete = std::mem::take(&mut self.blocks[b as usize].incomplete);
        self.blocks[b as usize].sealed = true;
        self.link(b);
        let invariant = self.loops[b as usize].take();
        for (var, phi) in incomplete {
            if let Some((pre, written)) = invariant
                && !written.contains(&self.written, var)
            {
                let v = self.read_var(var, pre);
                self.replace_phi(phi, v);
                let mut users = std::mem::take(&mut self.user_buf);
                users.clear();
                users.extend(self.phi_users.of(phi));
                for &u in &users {
                    if u != phi {
                        self.try_remove_trivial_phi(u);
                    }
                }
                self.user_buf = users;
                continue;
            }
            for i in 0..self.blocks[b as usize].preds.len() {
                let p = self.blocks[b as usize].preds[i];
                let v = self.read_var(var, p);
                self.add_phi_operand(phi, v);
            }
            self.try_remove_trivial_phi(phi);
        }
    }
}
