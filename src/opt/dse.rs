//! Dead-store elimination with MemorySSA (after LLVM's `DSEState`).
//!
//! A store `S` of location `L` (one [`MemLoc`]: a class, a base operand and
//! for elements an index operand) is dead when nothing can observe the value
//! it writes. Two ways to prove it:
//!
//! - **Overwritten** (`dse.overwritten`): on every path from `S`, `L` is
//!   completely overwritten before any access that may read it, and no path
//!   leaves the function (`return`, or `unwind`: a raise or a call that threw,
//!   with no handler here) before that overwrite.
//! - **Unread allocation** (`dse.unread_alloc`): `L` belongs to an
//!   allocation that never escapes and no access after `S` may read it.
//!   Nothing outside the function can reach the object, so leaving the
//!   function observes nothing.
//!
//! Exceptional control flow is explicit in IrCode (a check branches to a
//! cold block that raises and then goes to the handler or unwinds; a call
//! that may throw is followed by its `NoException` branch), so a raise
//! reaching a handler that reads `L` is a path to that read, and a raise
//! leaving the function is a path to an `unwind` exit. Every statement of a
//! block executes once the block is entered.
//!
//! **The forward scan** ([`scan`]) walks MemorySSA's def-use chains from
//! `S`'s `MemoryDef`: the users of each def or φ reached, through φs and
//! through defs that do not completely overwrite `L`. A `MemoryUse` that may
//! read `L`, or a def (a call, `push`/`pop`) that may read it, keeps `S`. A
//! store that must-aliases `L` (same class, same base operand, same index
//! up to the alias analysis' `x + c` decomposition) is a *killing store*:
//! the scan does not go past it. The scan visits at most
//! [`MemorySsa::walk_limit`] accesses (100, like LLVM's
//! `memssa-check-limit`) and queues at most twice that; past either `S`
//! stays. So the pass is linear in the function's size.
//!
//! **Loops.** Facts about SSA values (same base means same object, `a[i]`
//! vs `a[i+1]`, an allocation differs from older values) hold only while
//! the operands of `L` keep the values they had at `S`. In a reducible CFG
//! a path from `S` that re-executes the definition `D` of an operand of `L`
//! crosses a back edge `p → h` with `h` dominating `D`, and `h` then has a
//! MemoryPhi the scan crosses. Crossing such an edge makes the scan
//! *imprecise* (the alias analysis' imprecise mode, where only invariant
//! operands compare) and *varied*: a killing store found on one path may
//! then write another object on a path that went around the loop, so a
//! varied scan cannot prove `S` overwritten (it can still prove an unread
//! allocation). In an irreducible CFG every φ crossing counts as such an
//! edge.
//!
//! **Exits.** Every path from `S` to an exit block (one ending in `return`
//! or `unwind`) must pass a killing store. A kill after `S` in its block
//! settles it. Otherwise, as in LLVM, if the kill blocks' nearest common
//! post-dominator is itself a kill block and post-dominates `S`'s block,
//! done; else a forward CFG search from the end of `S`'s block, not
//! entering kill blocks (every statement of a block entered runs, its kill
//! too), must not reach an exit block within [`PATH_LIMIT`] blocks. (LLVM
//! searches backward from the exits; a Toy function has an `unwind` block
//! per check, so the forward search stays local.) A block from which no
//! exit is reachable (an infinite loop, `exit()`) has no exit path.
//!
//! **Non-escaping allocations** ([`local_allocs`]): an allocation whose
//! value is used only as the base of loads and stores, as the array of
//! `push`/`pop`, and in comparisons. Every reference to its object is then
//! the allocation's own SSA value, so only a load, store, `push` or `pop`
//! through that value can touch it: calls and accesses through other bases
//! cannot. When all stores into such an allocation are gone and no load,
//! `push` or `pop` remains, its comparisons with `nil` fold (an allocation
//! is never nil) and the allocation itself is deleted
//! (`dse.removed_alloc`). Allocations raise nothing themselves (a negative
//! array length is checked by an explicit branch before `new`, which stays).
//!
//! Stores are judged on the MemorySSA of the unmodified function, then all
//! the dead ones are removed together. That is sound: for any read or exit
//! observing `L`, the last store to `L` before it on that path cannot be
//! dead (its killing store would come later on the path). Removed accesses
//! go through the MemorySSA updater, MemorySSA is verified, then the
//! function is compacted.

use crate::ir::FxSet;
use crate::ir::compact::compact;
use crate::ir::dom::{DomTree, PostDomTree};
use crate::ir::edit::{NewNodes, delete, for_each_operand, replace_uses};
use crate::ir::{BinaryOp, BlockId, Cmp, Inst, IrCode, Operand, RuntimeFn, Value};
use crate::memssa::alias::{AliasResult, Effect, MemLoc, Summaries, inst_effect};
use crate::memssa::{AccessId, AccessKind, MemorySsa};
use crate::opt::remarks::{Msg, RemarkKind};
use crate::opt::{Counters, PassCtx};
use cranelift_entity::{EntityRef, SecondaryMap};

/// Blocks the forward path check may visit (LLVM's
/// `dse-memoryssa-path-check-limit` bounds its backward one).
pub const PATH_LIMIT: usize = 50;

/// For each statement: whether it is an allocation whose object never
/// escapes (see the module doc).
fn local_allocs(ir: &IrCode) -> SecondaryMap<Value, bool> {
    let mut ok: SecondaryMap<Value, bool> = crate::ir::sized_map(ir.stmts.len());
    for (i, inst) in ir.stmts.inst.iter() {
        ok[i] = matches!(inst, Inst::NewArray { .. } | Inst::NewStruct { .. });
    }
    let mut escape = |op: &Operand| {
        if let Operand::Value(v) = op
            && ok[*v]
        {
            ok[*v] = false;
        }
    };
    for inst in ir.stmts.inst.values() {
        match inst {
            Inst::Store { index, value, .. } => {
                index.iter().for_each(&mut escape);
                escape(value);
            }
            Inst::Load { index, .. } => index.iter().for_each(&mut escape),
            Inst::Binary(BinaryOp::ICmp(_), _, _) => {}
            Inst::Runtime {
                func: RuntimeFn::ArrayPush | RuntimeFn::ArrayPop,
                args,
            } => args.iter().skip(1).for_each(&mut escape),
            other => for_each_operand(other, &mut escape),
        }
    }
    ok
}

/// Whether the CFG is reducible: every edge to a block still on the DFS
/// stack goes to a block that dominates its source.
fn reducible(ir: &IrCode, dom: &DomTree) -> bool {
    let n = ir.cfg.blocks.len();
    if n == 0 {
        return true;
    }
    let mut state: SecondaryMap<BlockId, u8> = SecondaryMap::with_capacity(n); // 0 new, 1 on stack, 2 done
    let mut stack: Vec<(BlockId, usize)> = vec![(BlockId(0), 0)];
    state[BlockId(0)] = 1;
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succs = &ir.cfg.blocks[b].succs;
        if *i < succs.len() {
            let s = succs[*i];
            *i += 1;
            match state[s] {
                _ if s.index() >= n => {}
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 if !dom.dominates(s, b) => return false,
                _ => {}
            }
        } else {
            state[b] = 2;
            stack.pop();
        }
    }
    true
}

/// What each `MemoryDef` reads (a call, `push`, `pop`), by access id.
fn def_reads(
    m: &MemorySsa,
    ir: &IrCode,
    sums: &Summaries,
) -> SecondaryMap<AccessId, Option<Effect>> {
    m.accesses
        .iter()
        .map(|(a, acc)| match acc.kind {
            AccessKind::Def { inst } if !acc.removed => {
                let reads = inst_effect(ir, inst, &ir.stmts.inst[inst], sums)
                    .map(|e| e.reads)
                    .filter(|r| *r != Effect::None);
                (a, reads)
            }
            _ => (a, None),
        })
        .collect()
}

/// What the forward scan from a store found.
#[derive(Debug, Default)]
struct Scan {
    /// An access that may read the location.
    read: bool,
    /// The budget ran out.
    exhausted: bool,
    /// A back edge re-executing an operand's definition was crossed.
    varied: bool,
    /// Killing stores (found while precise).
    kills: Vec<Value>,
}

/// The function-wide facts every store's judgement uses.
struct Ctx<'a> {
    m: &'a MemorySsa,
    ir: &'a IrCode,
    sums: &'a Summaries,
    pdt: PostDomTree,
    reducible: bool,
    local: SecondaryMap<Value, bool>,
    /// Blocks ending in `return` or `unwind`.
    is_exit: SecondaryMap<BlockId, bool>,
    /// What each def reads (`None` for the rest).
    def_reads: SecondaryMap<AccessId, Option<Effect>>,
}

impl Ctx<'_> {
    /// The non-escaping allocation `loc` belongs to, if any.
    fn local_base(&self, loc: &MemLoc) -> Option<Value> {
        match loc.base {
            Some(Operand::Value(a)) if self.local[a] => Some(a),
            _ => None,
        }
    }

    /// Whether reading `reads` may observe `loc` (of the local allocation
    /// `local`, if any).
    fn may_read(
        &self,
        reads: &Effect,
        loc: &MemLoc,
        local: Option<Value>,
        imprecise: bool,
    ) -> bool {
        let ctx = self.m.alias_ctx(self.ir);
        match (local, reads) {
            (_, Effect::None) => false,
            // Only accesses through the allocation's own value reach it.
            (Some(a), Effect::Locs(ls)) => ls.iter().any(|l| {
                l.base == Some(Operand::Value(a)) && ctx.alias(l, loc, imprecise) != AliasResult::No
            }),
            (Some(_), Effect::Classes(_)) => false,
            (None, Effect::Locs(ls)) => ls
                .iter()
                .any(|l| ctx.alias(l, loc, imprecise) != AliasResult::No),
            (None, Effect::Classes(c)) => c.contains(&loc.class),
        }
    }

    /// Whether def `d` (statement `k`) is a store that completely
    /// overwrites `loc`.
    fn kills(&self, d: AccessId, k: Value, loc: &MemLoc, imprecise: bool) -> bool {
        let Inst::Store { .. } = &self.ir.stmts[k] else {
            return false;
        };
        let Effect::Locs(ls) = &self.m.access(d).effect else {
            return false;
        };
        let [l] = ls.as_slice() else { return false };
        l.index.is_some() == loc.index.is_some()
            && self.m.alias_ctx(self.ir).alias(l, loc, imprecise) == AliasResult::Must
    }

    /// Whether going from version `from` into φ `phi` re-executes the
    /// definition of an operand of `loc` (see the module doc).
    fn varies(&self, from: AccessId, phi: AccessId, loc: &MemLoc) -> bool {
        let AccessKind::Phi { incoming } = &self.m.access(phi).kind else {
            return false;
        };
        let h = self.m.access(phi).block;
        let dom = &self.m.dom;
        let back = incoming
            .iter()
            .any(|&(p, x)| x == from && dom.reachable(p) && dom.dominates(h, p));
        if !back {
            return !self.reducible;
        }
        [loc.base, loc.index].iter().flatten().any(|op| match op {
            Operand::Value(v) => match self.m.block_of(*v) {
                Some(d) => !self.reducible || dom.dominates(h, d),
                None => true,
            },
            _ => false,
        })
    }

    /// The forward scan from store `s` (access `acc`) of `loc`.
    fn scan(&self, acc: AccessId, loc: &MemLoc, local: Option<Value>) -> Scan {
        let m = self.m;
        let mut out = Scan::default();
        let mut seen: FxSet<(AccessId, bool)> = FxSet::default();
        if m.users[acc].len() > 2 * m.walk_limit as usize {
            out.exhausted = true;
            return out;
        }
        let mut work: Vec<(AccessId, AccessId, bool)> =
            m.users(acc).into_iter().map(|u| (acc, u, false)).collect();
        let mut steps = 0u32;
        while let Some((from, a, mut imprecise)) = work.pop() {
            if matches!(m.access(a).kind, AccessKind::Phi { .. })
                && !imprecise
                && self.varies(from, a, loc)
            {
                imprecise = true;
                out.varied = true;
            }
            if !seen.insert((a, imprecise)) {
                continue;
            }
            steps += 1;
            if steps > m.walk_limit {
                out.exhausted = true;
                return out;
            }
            let acc_a = m.access(a);
            let follow = match &acc_a.kind {
                AccessKind::LiveOnEntry => false,
                AccessKind::Use { .. } => {
                    if self.may_read(&acc_a.effect, loc, local, imprecise) {
                        out.read = true;
                        return out;
                    }
                    false
                }
                AccessKind::Def { inst } => {
                    let i = *inst;
                    let reads = self.def_reads[a].as_ref();
                    if reads.is_some_and(|r| self.may_read(r, loc, local, imprecise)) {
                        out.read = true;
                        return out;
                    }
                    if self.kills(a, i, loc, imprecise) {
                        if !imprecise {
                            out.kills.push(i);
                        }
                        false
                    } else {
                        true
                    }
                }
                AccessKind::Phi { .. } => true,
            };
            if follow {
                // Each pending access costs a step later: a fan-out past
                // the budget gives up now rather than queue it.
                if steps as usize + work.len() + m.users[a].len() > 2 * m.walk_limit as usize {
                    out.exhausted = true;
                    return out;
                }
                work.extend(m.users(a).into_iter().map(|u| (a, u, imprecise)));
            }
        }
        out
    }

    /// Whether every path from store `s` to an exit passes a kill.
    fn exits_covered(&self, s: Value, kills: &[Value]) -> bool {
        let Some(sb) = self.m.block_of(s) else {
            return false;
        };
        if !self.pdt.reaches_exit(sb) {
            return true;
        }
        // Blocks whose kill runs on every path from `s` entering them (from
        // their start), and whether `s`'s own block kills after `s`.
        let mut kill_blocks: Vec<BlockId> = Vec::new();
        let mut kills_after_s = false;
        for &k in kills {
            let Some(kb) = self.m.block_of(k) else {
                return false;
            };
            kills_after_s |= kb == sb && k.0 > s.0;
            if !kill_blocks.contains(&kb) {
                kill_blocks.push(kb);
            }
        }
        if kills_after_s {
            return true;
        }
        // LLVM's fast path: the kill blocks' nearest common post-dominator
        // is one of them and post-dominates `s`.
        let others: Vec<BlockId> = kill_blocks.iter().copied().filter(|&b| b != sb).collect();
        if let Some((&first, rest)) = others.split_first() {
            let mut common = Some(first);
            for &b in rest {
                common = common.and_then(|c| self.pdt.nearest_common(c, b));
            }
            if let Some(c) = common
                && others.contains(&c)
                && self.pdt.post_dominates(c, sb)
            {
                return true;
            }
        }
        // Otherwise a forward search from the end of `s`'s block: it may not
        // reach an exit block without entering a kill block first.
        let mut visited: FxSet<BlockId> = FxSet::default();
        let mut work: Vec<BlockId> = Vec::new();
        for &succ in &self.ir.cfg.blocks[sb].succs {
            if visited.insert(succ) {
                work.push(succ);
            }
        }
        while let Some(cur) = work.pop() {
            if kill_blocks.contains(&cur) || !self.pdt.reaches_exit(cur) {
                continue;
            }
            if self.is_exit[cur] {
                return false;
            }
            for &succ in &self.ir.cfg.blocks[cur].succs {
                if visited.insert(succ) {
                    work.push(succ);
                }
            }
            if visited.len() > PATH_LIMIT {
                return false;
            }
        }
        true
    }
}

/// Why a store is dead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dead {
    Overwritten,
    UnreadAlloc,
}

impl Dead {
    fn counter(self) -> &'static str {
        match self {
            Dead::Overwritten => "dse.overwritten",
            Dead::UnreadAlloc => "dse.unread_alloc",
        }
    }
}

/// Judges store `s` (see the module doc).
fn judge(cx: &Ctx, s: Value, counters: &mut Counters) -> Option<Dead> {
    let inst = &cx.ir.stmts[s];
    let Some(Effect::Locs(ls)) = inst_effect(cx.ir, s, inst, cx.sums).map(|e| e.writes) else {
        return None;
    };
    let [loc] = ls.as_slice() else { return None };
    let acc = cx.m.access_for(s)?;
    let local = cx.local_base(loc);
    let scan = cx.scan(acc, loc, local);
    if scan.exhausted {
        counters.add("dse.budget_exhausted", 1);
        return None;
    }
    if scan.read {
        return None;
    }
    if !scan.varied && !scan.kills.is_empty() && cx.exits_covered(s, &scan.kills) {
        return Some(Dead::Overwritten);
    }
    local.map(|_| Dead::UnreadAlloc)
}

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    // Only stores and allocations can go (and without them there is no
    // MemorySSA to build).
    let candidate = |i: &Inst| {
        matches!(
            i,
            Inst::Store { .. } | Inst::NewArray { .. } | Inst::NewStruct { .. }
        )
    };
    if !ir.stmts.inst.values().any(candidate) {
        return;
    }
    let mut m = crate::timing::time("memssa.build", || MemorySsa::build(ir, &ctx.summaries));
    let scan_start = std::time::Instant::now();
    let exit_block =
        |b: BlockId| matches!(ir.last_stmt(b), Some((_, Inst::Return(_) | Inst::Unwind)));
    let is_exit: SecondaryMap<BlockId, bool> = (0..ir.cfg.blocks.len())
        .map(BlockId::new)
        .map(|b| (b, exit_block(b)))
        .collect();
    let cx = Ctx {
        m: &m,
        ir,
        sums: &ctx.summaries,
        pdt: PostDomTree::new(&ir.cfg, exit_block),
        reducible: reducible(ir, &m.dom),
        local: local_allocs(ir),
        is_exit,
        def_reads: def_reads(&m, ir, &ctx.summaries),
    };
    let mut dead: Vec<(Value, Dead)> = Vec::new();
    for s in 0..ir.stmts.len() as u32 {
        let v = Value(s);
        if !matches!(ir.stmts.inst[Value(s)], Inst::Store { .. }) {
            continue;
        }
        if !m.block_of(v).is_some_and(|b| m.dom.reachable(b)) {
            continue;
        }
        if let Some(d) = judge(&cx, v, &mut ctx.counters) {
            dead.push((v, d));
        }
    }
    crate::timing::record("dse.scan", scan_start.elapsed());
    let local = cx.local;
    for &(v, why) in &dead {
        let span = ir.stmts.span[v];
        ctx.remark(ir, RemarkKind::Passed, span, |d| {
            let why = match why {
                Dead::Overwritten => "it is overwritten on every path before any read",
                Dead::UnreadAlloc => "its object is never read and does not escape",
            };
            Msg::new(format!("removed store {} at ", d.place_of(v)))
                .at(span)
                .t(format!(": {why}"))
        });
        if let Some(a) = m.access_for(v) {
            m.remove_access(a);
        }
        delete(ir, v);
        ctx.counters.add(why.counter(), 1);
    }
    let removed_allocs = remove_allocs(ir, &mut m, &local);
    ctx.counters.add("dse.removed_alloc", removed_allocs);
    ctx.check_memssa(&m, ir);
    if !dead.is_empty() || removed_allocs > 0 {
        compact(ir, NewNodes::new(ir));
    }
}

/// Deletes non-escaping allocations left with no load, store, `push` or
/// `pop`: their comparisons with `nil` become constants. Returns how many.
fn remove_allocs(ir: &mut IrCode, m: &mut MemorySsa, local: &SecondaryMap<Value, bool>) -> u64 {
    let n = ir.stmts.len();
    // For each local allocation: still accessed, or compared to something
    // other than nil.
    let mut keep: SecondaryMap<Value, bool> = crate::ir::sized_map(n);
    let mut nil_cmps: Vec<(Value, Value, bool)> = Vec::new();
    let is_local = |op: &Operand| match op {
        Operand::Value(v) if local[*v] => Some(*v),
        _ => None,
    };
    for (s, inst) in ir.stmts.inst.iter() {
        match inst {
            Inst::Binary(BinaryOp::ICmp(c), x, y) => {
                let eq = match c {
                    Cmp::Eq => Some(true),
                    Cmp::Ne => Some(false),
                    _ => None,
                };
                match (is_local(x), is_local(y), eq) {
                    (Some(a), None, Some(eq)) if *y == Operand::Nil => nil_cmps.push((s, a, eq)),
                    (None, Some(a), Some(eq)) if *x == Operand::Nil => nil_cmps.push((s, a, eq)),
                    (a, b, _) => {
                        for v in [a, b].into_iter().flatten() {
                            keep[v] = true;
                        }
                    }
                }
            }
            Inst::Nothing | Inst::NewArray { .. } | Inst::NewStruct { .. } => {}
            other => for_each_operand(other, |op| {
                if let Some(v) = is_local(op) {
                    keep[v] = true;
                }
            }),
        }
    }
    // An allocation used as another allocation's field or fill escapes, so
    // `local` already excludes it; only the allocations' own operands were
    // skipped above.
    let mut removed = 0;
    for av in (0..n).map(Value::new) {
        if !local[av] || keep[av] {
            continue;
        }
        for &(c, x, eq) in &nil_cmps {
            if x == av {
                // `a == nil` is false, `a != nil` is true.
                replace_uses(ir, c, Operand::Bool(!eq));
            }
        }
        if let Some(acc) = m.access_for(av) {
            m.remove_access(acc);
        }
        delete(ir, av);
        removed += 1;
    }
    removed
}
