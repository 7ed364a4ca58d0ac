//! Lowering of the builder's CFG to the flat `IrCode`.
//!
//! Steps: seal leftovers, drop unreachable blocks (and their φ operands),
//! remove redundant φ-SCCs (where copies in loops or irreducible control
//! flow can make some: see `Builder::may_have_redundant_phis`), merge a
//! block into its only predecessor when that one jumps straight to it,
//! split edges so that every conditional branch's true successor has it as
//! only predecessor, keep only live φ/φᶜ/ϒ, lay blocks out in source order
//! with each true successor right after its branch and cold blocks last,
//! then number and emit.
//!
//! Alignment invariant kept by every step: a φ's `values[i]` flows in along
//! its block's `preds[i]`.
use super::builder::{Blk, BuildTerm, Builder, Node, resolve_in};
use super::scc::remove_redundant_phis;
use crate::ir::edit::for_each_operand_mut;
use crate::ir::{
    BasicBlock, BlockId, BlockList, Cfg, Flags, Inst, InstructionStream, IrCode, NameId, Operand,
    Type, Value, VarName,
};
use crate::sema::hir::{FuncId, LocalDef};
use crate::span::Span;

pub struct Header<'a> {
    pub name: String,
    pub func: FuncId,
    pub params: Vec<Type>,
    pub ret: Type,
    pub span: Span,
    /// The name of every local (builder variables below `named_vars`).
    pub var_names: VarNames<'a>,
    /// The parameters' names.
    pub param_names: Vec<VarName>,
}

/// The source names of builder variables, by variable.
pub enum VarNames<'a> {
    /// A Toy function's locals, borrowed (variable `k` is local `k`).
    Locals(&'a [LocalDef]),
    Listed(Vec<VarName>),
}

impl VarNames<'_> {
    fn get(&self, var: u32) -> Option<&VarName> {
        match self {
            VarNames::Locals(locals) => locals.get(var as usize).map(|l| &l.name),
            VarNames::Listed(names) => names.get(var as usize),
        }
    }
}

fn term_of(b: &Builder, blk: Blk) -> Option<&BuildTerm> {
    b.blocks[blk as usize].term.as_ref().map(|(t, _)| t)
}

/// Working storage of [`emit`], kept in the builder from function to
/// function so that emitting a function allocates only its output. Each
/// step sizes what it uses and writes it before reading it, except
/// `scc`, which [`remove_redundant_phis`] leaves as it needs it.
#[derive(Default)]
pub struct Scratch {
    live_blk: Vec<bool>,
    live_node: Vec<bool>,
    live_ups: Vec<bool>,
    work: Vec<u32>,
    keep: Vec<bool>,
    is_then: Vec<bool>,
    placed: Vec<bool>,
    starts: Vec<Blk>,
    order: Vec<Blk>,
    numbering: Numbering,
    final_blk: Vec<u32>,
    /// Per builder variable: its name's id in the function's table, once
    /// a statement has it.
    name_ids: Vec<Option<NameId>>,
    /// For [`remove_redundant_phis`].
    scc: super::scc::SccWork,
}

/// `v` as `n` copies of `x`, keeping its allocation.
fn refill<T: Clone>(v: &mut Vec<T>, n: usize, x: T) {
    v.clear();
    v.resize(n, x);
}

/// Marks in `seen` the blocks reachable from the entry; returns how many
/// there are.
fn reachable(b: &Builder, seen: &mut Vec<bool>, work: &mut Vec<u32>) -> usize {
    refill(seen, b.blocks.len(), false);
    work.clear();
    work.push(0);
    seen[0] = true;
    let mut count = 1;
    while let Some(x) = work.pop() {
        if let Some(t) = term_of(b, x) {
            for s in t.succs() {
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    count += 1;
                    work.push(s);
                }
            }
        }
    }
    count
}

/// Removes the operands at `drop` positions from every φ of `blk`.
fn drop_phi_edges(b: &mut Builder, blk: Blk, keep: &[bool]) {
    for &p in &b.blocks[blk as usize].phis.clone() {
        if let Inst::Phi { values, .. } = &mut b.nodes[p as usize].inst {
            let mut k = 0;
            values.retain(|_| {
                let r = keep.get(k).copied().unwrap_or(true);
                k += 1;
                r
            });
        }
    }
}

fn has_head_nodes(b: &Builder, blk: Blk) -> bool {
    let bb = &b.blocks[blk as usize];
    bb.phis.iter().any(|&p| b.forward[p as usize].is_none())
        || bb
            .stmts
            .iter()
            .any(|&s| matches!(b.nodes[s as usize].inst, Inst::PhiC { .. }))
}

/// Finishes `b`'s function into an `IrCode`, leaving `b` spent (to be
/// [`Builder::reset`]).
pub fn emit(b: &mut Builder, h: Header<'_>) -> IrCode {
    for blk in 0..b.blocks.len() as u32 {
        b.seal(blk);
        // Blocks without a terminator are dead leftovers or an unfinished
        // end.
        let bb = &mut b.blocks[blk as usize];
        if bb.term.is_none() {
            bb.term = Some((BuildTerm::Unreachable, h.span));
        }
    }
    let mut s = std::mem::take(&mut b.emit_scratch);
    if reachable(b, &mut s.live_blk, &mut s.work) < b.blocks.len() {
        drop_dead_edges(b, &mut s);
    }
    if b.may_have_redundant_phis {
        remove_redundant_phis(b, &mut s.scc);
    } else if cfg!(debug_assertions) {
        // The search finds nothing here (see `may_have_redundant_phis`):
        // check it.
        let replaced = |b: &Builder| b.forward.iter().filter(|f| f.is_some()).count();
        let before = replaced(b);
        remove_redundant_phis(b, &mut s.scc);
        debug_assert_eq!(replaced(b), before, "{}: a redundant φ-SCC", h.name);
    }
    merge_blocks(b, &mut s.live_blk);
    split_branch_edges(b, &mut s);
    live_nodes(b, &mut s);
    layout(b, &mut s);
    let code = lower(b, &mut s, h);
    b.emit_scratch = s;
    // Dropped now, while still in cache.
    b.nodes.clear();
    code
}

/// Removes the edges from unreachable blocks (`!s.live_blk`) into
/// reachable ones, with their φ operands.
fn drop_dead_edges(b: &mut Builder, s: &mut Scratch) {
    let live_blk = &s.live_blk;
    for blk in 0..b.blocks.len() as u32 {
        if !live_blk[blk as usize]
            || b.blocks[blk as usize]
                .preds
                .iter()
                .all(|p| live_blk[*p as usize])
        {
            continue;
        }
        s.keep.clear();
        s.keep.extend(
            b.blocks[blk as usize]
                .preds
                .iter()
                .map(|p| live_blk[*p as usize]),
        );
        drop_phi_edges(b, blk, &s.keep);
        b.blocks[blk as usize]
            .preds
            .retain(|p| live_blk[*p as usize]);
        for p in b.blocks[blk as usize].phis.clone() {
            b.try_remove_trivial_phi(p);
        }
    }
}

/// Merges `B` into `A` when `A` ends in `goto B` and `B` has no other
/// predecessor (and no φ/φᶜ, and the same temperature).
fn merge_blocks(b: &mut Builder, live: &mut [bool]) {
    for a in 0..b.blocks.len() as u32 {
        if !live[a as usize] {
            continue;
        }
        while let Some(BuildTerm::Goto(t)) = term_of(b, a).cloned() {
            let tb = &b.blocks[t as usize];
            if t == 0
                || t == a
                || tb.preds.len() != 1
                || tb.cold != b.blocks[a as usize].cold
                || has_head_nodes(b, t)
            {
                break;
            }
            let stmts = std::mem::take(&mut b.blocks[t as usize].stmts);
            for &s in &stmts {
                b.nodes[s as usize].block = a;
            }
            b.blocks[a as usize].stmts.extend(stmts);
            let term = b.blocks[t as usize].term.take();
            if let Some((tt, _)) = &term {
                for s in tt.succs() {
                    for p in b.blocks[s as usize].preds.iter_mut() {
                        if *p == t {
                            *p = a;
                        }
                    }
                }
            }
            b.blocks[a as usize].term = term;
            b.blocks[t as usize].preds.clear();
            live[t as usize] = false;
        }
    }
}

/// Gives every conditional branch a true successor of its own (inserting a
/// `goto` block on a shared edge), so that it can be the fallthrough.
fn split_branch_edges(b: &mut Builder, s: &mut Scratch) {
    let live = &mut s.live_blk;
    for a in 0..b.blocks.len() as u32 {
        if !live[a as usize] {
            continue;
        }
        let Some(BuildTerm::Branch { cond, then, els }) = term_of(b, a).cloned() else {
            continue;
        };
        if then == els {
            // Both edges reach one block: a plain jump; drop one edge.
            let pos = b.blocks[then as usize].preds.iter().position(|p| *p == a);
            if let Some(pos) = pos {
                s.keep.clear();
                s.keep
                    .extend((0..b.blocks[then as usize].preds.len()).map(|i| i != pos));
                drop_phi_edges(b, then, &s.keep);
                b.blocks[then as usize].preds.remove(pos);
            }
            let span = b.blocks[a as usize]
                .term
                .as_ref()
                .map(|(_, s)| *s)
                .unwrap_or_default();
            b.blocks[a as usize].term = Some((BuildTerm::Goto(then), span));
            continue;
        }
        if b.blocks[then as usize].preds.len() > 1 || then == 0 {
            let span = b.blocks[a as usize]
                .term
                .as_ref()
                .map(|(_, s)| *s)
                .unwrap_or_default();
            let n = b.new_block();
            live.push(true);
            let seq = b.blocks[a as usize].seq;
            let cold = b.blocks[a as usize].cold;
            let nb = &mut b.blocks[n as usize];
            nb.seq = seq;
            nb.sealed = true;
            nb.preds = vec![a];
            nb.term = Some((BuildTerm::Goto(then), span));
            nb.cold = cold;
            for p in b.blocks[then as usize].preds.iter_mut() {
                if *p == a {
                    *p = n;
                }
            }
            b.blocks[a as usize].term = Some((BuildTerm::Branch { cond, then: n, els }, span));
        }
    }
}

/// Live φ and φᶜ nodes (reached from a non-φ use) into `s.live_node`, and
/// live ϒ nodes (listed by a live φᶜ) into `s.live_ups`. The operands of
/// every live node are resolved in place (so that [`lower`] finds them
/// final).
fn live_nodes(b: &mut Builder, s: &mut Scratch) {
    let n = b.nodes.len();
    refill(&mut s.live_node, n, false);
    refill(&mut s.live_ups, n, false);
    let (live, ups, work, live_blk) = (&mut s.live_node, &mut s.live_ups, &mut s.work, &s.live_blk);
    let (nodes, forward) = (&mut b.nodes, &b.forward);
    work.clear();
    let mark = |op: &mut Operand, live: &mut Vec<bool>, work: &mut Vec<u32>| {
        *op = resolve_in(forward, *op);
        if let Operand::Value(Value(v)) = *op
            && !live[v as usize]
        {
            live[v as usize] = true;
            work.push(v);
        }
    };
    for (blk, bb) in b.blocks.iter_mut().enumerate() {
        if !live_blk[blk] {
            continue;
        }
        for &s in &bb.stmts {
            match &mut nodes[s as usize].inst {
                Inst::PhiC { .. } | Inst::Upsilon(_) => {}
                // The most common statement, without the general visitor.
                Inst::Binary(_, a, b) => {
                    live[s as usize] = true;
                    mark(a, live, work);
                    mark(b, live, work);
                }
                inst => {
                    live[s as usize] = true;
                    for_each_operand_mut(inst, |op| mark(op, live, work));
                }
            }
        }
        if let Some((t, _)) = &mut bb.term {
            match t {
                BuildTerm::Branch { cond, .. } => mark(cond, live, work),
                BuildTerm::Return(Some(v)) => mark(v, live, work),
                _ => {}
            }
        }
    }
    while let Some(v) = work.pop() {
        match &mut nodes[v as usize].inst {
            Inst::Phi { values, .. } => {
                for op in values {
                    mark(op, live, work);
                }
            }
            Inst::PhiC { upsilons } => {
                let upsilons = std::mem::take(upsilons);
                for &u in &upsilons {
                    let u = u.0 as usize;
                    if !live_blk[nodes[u].block as usize] {
                        continue;
                    }
                    ups[u] = true;
                    if let Inst::Upsilon(x) = &mut nodes[u].inst {
                        mark(x, live, work);
                    }
                }
                nodes[v as usize].inst = Inst::PhiC { upsilons };
            }
            _ => {}
        }
    }
}

/// Into `s.order`: source order, each branch's true successor right after
/// it, cold last.
fn layout(b: &Builder, s: &mut Scratch) {
    let nb = b.blocks.len();
    let live = &s.live_blk;
    refill(&mut s.is_then, nb, false);
    for (blk, &l) in live.iter().enumerate() {
        if l && let Some(BuildTerm::Branch { then, .. }) = term_of(b, blk as u32) {
            s.is_then[*then as usize] = true;
        }
    }
    s.starts.clear();
    let is_then = &s.is_then;
    s.starts
        .extend((0..nb as u32).filter(|&x| live[x as usize] && !is_then[x as usize]));
    s.starts.sort_by_key(|&x| {
        (
            x != 0,
            b.blocks[x as usize].cold,
            b.blocks[x as usize].seq,
            x,
        )
    });
    refill(&mut s.placed, nb, false);
    s.order.clear();
    for &start in &s.starts {
        let mut cur = start;
        while !s.placed[cur as usize] {
            s.placed[cur as usize] = true;
            s.order.push(cur);
            match term_of(b, cur) {
                Some(BuildTerm::Branch { then, .. }) => cur = *then,
                _ => break,
            }
        }
    }
}

/// Pass 1 of [`lower`]: the nodes each block emits, in layout order, and
/// their final numbers.
#[derive(Default)]
struct Numbering {
    /// The emitted nodes, block after block; the `i`-th block laid out has
    /// `contents[ends[i-1]..ends[i]]`.
    contents: Vec<u32>,
    ends: Vec<usize>,
    /// Whether the `i`-th block emits its terminator (it does unless it is a
    /// `goto` to the next block and the block has some node).
    emit_term: Vec<bool>,
    /// Each node's final number (`u32::MAX` when it is not emitted).
    map: Vec<u32>,
    /// The number of instructions emitted, terminators included.
    len: usize,
}

fn number(b: &Builder, s: &mut Scratch) {
    let (order, live_node, live_ups) = (&s.order, &s.live_node, &s.live_ups);
    let num = &mut s.numbering;
    refill(&mut num.map, b.nodes.len(), u32::MAX);
    num.contents.clear();
    num.ends.clear();
    num.emit_term.clear();
    let mut next = 0u32;
    for (i, &blk) in order.iter().enumerate() {
        let bb = &b.blocks[blk as usize];
        let first = num.contents.len();
        for &p in &bb.phis {
            if b.forward[p as usize].is_none() && live_node[p as usize] {
                num.contents.push(p);
            }
        }
        // Every other statement of a live block is live; a φᶜ is when
        // used, a ϒ when a live φᶜ lists it.
        for &s in &bb.stmts {
            if live_node[s as usize] || live_ups[s as usize] {
                num.contents.push(s);
            }
        }
        for &n in &num.contents[first..] {
            num.map[n as usize] = next;
            next += 1;
        }
        let fallthrough = match term_of(b, blk) {
            Some(BuildTerm::Goto(t)) => order.get(i + 1) == Some(t) && num.contents.len() > first,
            _ => false,
        };
        if !fallthrough {
            next += 1;
        }
        num.ends.push(num.contents.len());
        num.emit_term.push(!fallthrough);
    }
    num.len = next as usize;
}

/// The renaming from builder numbers to final ones: operands (resolved by
/// [`live_nodes`]) by the node numbering, blocks by their layout index.
struct Renumber<'l> {
    map: &'l [u32],
    final_blk: &'l [u32],
}

impl Renumber<'_> {
    /// A resolved operand, renumbered.
    fn op(&self, o: Operand) -> Operand {
        match o {
            Operand::Value(Value(v)) => Operand::Value(Value(self.map[v as usize])),
            x => x,
        }
    }

    fn blk(&self, x: Blk) -> BlockId {
        BlockId(self.final_blk[x as usize])
    }

    /// Renumbers a node's instruction in place; a φ gets its block's final
    /// predecessors as edges, a φᶜ keeps only its live ϒs.
    fn inst(&self, inst: &mut Inst, preds: &[Blk], live_ups: &[bool]) {
        match inst {
            Inst::Phi { values, edges } => {
                for v in values.iter_mut() {
                    *v = self.op(*v);
                }
                edges.clear();
                edges.extend(preds.iter().map(|p| self.blk(*p)));
            }
            Inst::PhiC { upsilons } => {
                upsilons.retain(|u| live_ups[u.0 as usize]);
                for u in upsilons.iter_mut() {
                    *u = Value(self.map[u.0 as usize]);
                }
            }
            Inst::Binary(_, a, b) => {
                *a = self.op(*a);
                *b = self.op(*b);
            }
            inst => for_each_operand_mut(inst, |o| *o = self.op(*o)),
        }
    }

    /// A block terminator as an instruction (a branch's true successor is
    /// the next block in layout, so only its false one is named).
    fn term(&self, term: BuildTerm) -> Inst {
        match term {
            BuildTerm::Goto(t) => Inst::Goto(self.blk(t)),
            BuildTerm::Branch { cond, els, .. } => Inst::GotoIfNot {
                cond: self.op(cond),
                dest: self.blk(els),
            },
            BuildTerm::Return(v) => Inst::Return(v.map(|v| self.op(v))),
            BuildTerm::Unwind => Inst::Unwind,
            BuildTerm::Unreachable => Inst::Unreachable,
        }
    }
}

/// Appends the nodes `ids` to `stmts` (flagged `cold` too), moving their
/// instructions and types out; a node's variable names it, by the id in
/// `name_ids` (the name added to the stream's table on first use).
///
/// Column by column, each an exact-size `extend`: a value goes from its
/// node straight into place (staging a whole statement on the stack and
/// copying it on stalls on store forwarding).
fn move_nodes(
    stmts: &mut InstructionStream,
    nodes: &mut [Node],
    ids: &[u32],
    cold: Flags,
    name_ids: &mut [Option<NameId>],
    var_names: &VarNames<'_>,
) {
    let take = |n: &u32| std::mem::replace(&mut nodes[*n as usize].inst, Inst::Nothing);
    stmts.inst.extend(ids.iter().map(take));
    let take = |n: &u32| std::mem::replace(&mut nodes[*n as usize].ty, Type::Void);
    stmts.ty.extend(ids.iter().map(take));
    stmts
        .span
        .extend(ids.iter().map(|&n| nodes[n as usize].span));
    let flags = |n: &u32| Flags(nodes[*n as usize].flags.0 | cold.0);
    stmts.flags.extend(ids.iter().map(flags));
    for &n in ids {
        let name = nodes[n as usize].var.and_then(|v| {
            let id = name_ids.get_mut(v as usize)?;
            if id.is_none() {
                *id = Some(stmts.add_name(var_names.get(v)?.clone()));
            }
            *id
        });
        stmts.name.push(name);
    }
}

/// Numbers and emits the blocks of `s.order` (pass 1: [`number`]; pass 2:
/// move each node's instruction and type out of `b`, renumbered).
fn lower(b: &mut Builder, s: &mut Scratch, h: Header<'_>) -> IrCode {
    refill(&mut s.final_blk, b.blocks.len(), u32::MAX);
    for (i, &blk) in s.order.iter().enumerate() {
        s.final_blk[blk as usize] = i as u32;
    }
    number(b, s);
    let Numbering {
        contents,
        ends,
        emit_term,
        map,
        len: n,
    } = &s.numbering;
    let live_ups = &s.live_ups;
    let rn = Renumber {
        map,
        final_blk: &s.final_blk,
    };
    let mut stmts = InstructionStream::with_capacity(*n);
    // At most one name per source variable: one allocation, not a growing
    // table.
    stmts.names.reserve_exact((b.named_vars as usize).min(*n));
    let name_ids = &mut s.name_ids;
    refill(name_ids, b.named_vars as usize, None);
    let mut blocks = cranelift_entity::PrimaryMap::with_capacity(s.order.len());
    for (i, &blk) in s.order.iter().enumerate() {
        let bb = &b.blocks[blk as usize];
        let start = stmts.len() as u32;
        let cold = if bb.cold {
            Flags::COLD
        } else {
            Flags::default()
        };
        let first = if i == 0 { 0 } else { ends[i - 1] };
        let ids = &contents[first..ends[i]];
        move_nodes(&mut stmts, &mut b.nodes, ids, cold, name_ids, &h.var_names);
        for v in start..stmts.len() as u32 {
            rn.inst(&mut stmts.inst[Value(v)], &bb.preds, live_ups);
        }
        let (term, span) = match &bb.term {
            Some((t, s)) => (t.clone(), *s),
            None => (BuildTerm::Unreachable, h.span),
        };
        let succs = term.succs();
        if emit_term[i] {
            stmts.push_with(|| rn.term(term), Type::Void, span, cold);
        }
        // The edge lists are filled where they stay (a list collected
        // apart and moved in is copied in parts, like a statement: see
        // `move_nodes`). Predecessors in layout order, as compaction lists
        // them (a φ names its edges).
        let k = blocks.push(BasicBlock {
            stmts: start..stmts.len() as u32,
            preds: BlockList::new(),
            succs: BlockList::new(),
        });
        let block = &mut blocks[k];
        for &p in &bb.preds {
            block.preds.push(rn.blk(p));
        }
        block.preds.sort_unstable();
        for x in succs {
            block.succs.push(rn.blk(x));
        }
    }
    IrCode {
        name: h.name,
        func: h.func,
        params: h.params,
        ret: h.ret,
        span: h.span,
        param_names: h.param_names,
        stmts,
        cfg: Cfg {
            blocks,
            ..Cfg::default()
        },
    }
}
