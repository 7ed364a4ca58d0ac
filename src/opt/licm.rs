//! Loop-invariant code motion with MemorySSA (LLVM's LICM, hoisting part).
//!
//! Loops are visited innermost first; each needs a dedicated preheader
//! (the `loops` pass makes them). A statement of the loop moves to the end
//! of the preheader when every operand is defined outside the loop and:
//! - it is a pure operation that cannot trap (no φ, π — its fact holds only
//!   below its branch — or `no_exception`; division only by a constant
//!   other than 0 and -1). Integer comparisons are hoisted this way too
//!   (also counted in `licm.hoisted_cmps`): the condition of a check, whose
//!   branch [`crate::opt::licm_checks`] may then move.
//! - or it is a load whose clobber (the MemorySSA walker) lies outside the
//!   loop and which cannot fault at the preheader: array lengths and
//!   globals always; a field only when its base is known non-nil there (a
//!   fresh struct, a `π` non-nil, or a dominating `ine(base, nil)` check).
//!   Element loads move only with [`crate::opt::licm_checks`], which knows
//!   they run in the first iteration.
//!
//! Loops are visited innermost first, and what moved out of an inner loop
//! is considered again for the outer one, in the same run: a moved
//! statement is left as a copy of its new node, and the operands of a
//! statement are followed through such copies ([`through_copies`]) to the
//! node whose place decides invariance. Moved loads keep their MemorySSA
//! access (moved by the updater).
//! Then [`crate::opt::licm_checks`] moves invariant checks with their
//! branch and the element loads they guard; the two alternate for up to
//! [`ROUNDS`] rounds. Then scalar promotion ([`crate::opt::promote`]) runs
//! on the result.
//! Counters: `licm.hoisted`, `licm.hoisted_loads`, `licm.hoisted_cmps`, and
//! those of `licm_checks`.

use crate::ir::compact::compact;
use crate::ir::edit::{
    NewNodes, for_each_operand, for_each_operand_mut, replace_uses, speculatable,
};
use crate::ir::loops::LoopInfo;
use crate::ir::{BinaryOp, BlockId, Cmp, Fact, Inst, IrCode, Loc, Operand, RuntimeFn, Type, Value};
use crate::ir::{FxMap, FxSet};
use crate::memssa::alias::{Class, Effect, Summaries, inst_effect};
use crate::memssa::{AccessId, LIVE_ON_ENTRY, MemorySsa};
use crate::opt::PassCtx;
use crate::opt::remarks::{Describe, Msg, RemarkKind};
use crate::span::Span;
use cranelift_entity::{EntityRef, SecondaryMap};

/// The instruction of `v`, original or new.
fn inst_of<'a>(ir: &'a IrCode, new: &'a NewNodes, v: Value) -> Option<&'a Inst> {
    if (v.index()) < ir.stmts.len() {
        ir.stmts.get(v)
    } else {
        new.nodes.get((v.0 - new.base) as usize).map(|n| &n.inst)
    }
}

fn ty_of(ir: &IrCode, new: &NewNodes, v: Value) -> Type {
    if (v.index()) < ir.stmts.len() {
        ir.stmts.ty[v].clone()
    } else {
        new.nodes
            .get((v.0 - new.base) as usize)
            .map_or(Type::Void, |n| n.ty.clone())
    }
}

/// A reference operand that can be guarded (a value or an argument).
fn ref_key(op: &Operand) -> Option<Operand> {
    match op {
        Operand::Value(_) | Operand::Arg(_) => Some(*op),
        _ => None,
    }
}

/// Blocks `F` entered only from a check `goto … if not ine(x, nil)` that
/// falls through to `F`, or from `goto F if not ieq(x, nil)`, with the
/// checked operand `x`.
pub(crate) fn nonnil_guards(ir: &IrCode) -> Guards {
    let mut out = FxSet::default();
    for (b, cond, dest) in value_branches(ir) {
        let (x, f) = match cond {
            Inst::Binary(BinaryOp::ICmp(Cmp::Ne), x, Operand::Nil)
            | Inst::Binary(BinaryOp::ICmp(Cmp::Ne), Operand::Nil, x) => (*x, b.next()),
            Inst::Binary(BinaryOp::ICmp(Cmp::Eq), x, Operand::Nil)
            | Inst::Binary(BinaryOp::ICmp(Cmp::Eq), Operand::Nil, x) => (*x, dest),
            _ => continue,
        };
        if entered_only_from(ir, f, b)
            && let Some(k) = ref_key(&x)
        {
            out.insert((f, k));
        }
    }
    out
}

/// Every block `b` that ends in `goto dest if not c` with `c` a value,
/// as `(b, the instruction defining c, dest)`.
fn value_branches(ir: &IrCode) -> impl Iterator<Item = (BlockId, &Inst, BlockId)> {
    ir.cfg.blocks.keys().filter_map(|b| {
        let Some((
            _,
            Inst::GotoIfNot {
                cond: Operand::Value(c),
                dest,
            },
        )) = ir.last_stmt(b)
        else {
            return None;
        };
        Some((b, ir.stmts.get(*c)?, *dest))
    })
}

/// Whether block `f` exists and `b` is its only predecessor (so `f` is
/// entered only along `b`'s edge to it, or its edges when both go there).
fn entered_only_from(ir: &IrCode, f: BlockId, b: BlockId) -> bool {
    f.index() < ir.cfg.blocks.len() && ir.cfg.blocks[f].preds.iter().all(|&p| p == b)
}

/// Whether `base` is known non-nil at the end of block `at`.
/// A guard is searched up the dominator tree from `at`, at most this far.
const GUARD_SEARCH: usize = 256;

pub(crate) fn known_nonnil(
    ir: &IrCode,
    new: &NewNodes,
    m: &MemorySsa,
    guards: &Guards,
    base: &Operand,
    at: BlockId,
) -> bool {
    if let Operand::Value(v) = base {
        match inst_of(ir, new, *v) {
            Some(Inst::NewStruct { .. }) => return true,
            Some(Inst::Pi {
                fact: Fact::NonNil, ..
            }) => return true,
            _ => {}
        }
    }
    let Some(k) = ref_key(base) else { return false };
    let mut b = at;
    for _ in 0..GUARD_SEARCH {
        if guards.contains(&(b, k)) {
            return true;
        }
        match m.dom.idom(b) {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
    false
}

/// The blocks entered only when a reference is non-nil, with that reference.
pub(crate) type Guards = FxSet<(BlockId, Operand)>;

/// What [`known_inbounds`] reads: the bounds checks by the block their true
/// edge enters, and the element types whose array lengths may shrink
/// somewhere in the function (`None`: any).
pub(crate) struct BoundsFacts {
    /// Block `F` ↦ the `(i, n)` of every `goto … if not iult(i, n)` that
    /// falls through to `F`, `F`'s only predecessor (so `0 <= i < n` in `F`).
    guards: FxMap<BlockId, Vec<(Operand, Operand)>>,
    shrinking: Option<FxSet<Type>>,
}

pub(crate) fn bounds_facts(ir: &IrCode, sums: &Summaries) -> BoundsFacts {
    let mut guards: FxMap<BlockId, Vec<(Operand, Operand)>> = FxMap::default();
    let mut shrinking = Some(FxSet::default());
    for (b, cond, dest) in value_branches(ir) {
        let Inst::Binary(BinaryOp::ICmp(Cmp::Ult), i, n) = cond else {
            continue;
        };
        let f = b.next();
        if dest != f && entered_only_from(ir, f, b) {
            guards.entry(f).or_default().push((*i, *n));
        }
    }
    // Lengths change by `push` (grows: harmless), `pop`, stores to a length
    // and calls whose summary may write lengths.
    for (s, inst) in ir.stmts.inst.iter() {
        if matches!(
            inst,
            Inst::NewArray { .. }
                | Inst::Load { .. }
                | Inst::Runtime {
                    func: RuntimeFn::ArrayPush,
                    ..
                }
        ) {
            continue;
        }
        let Some(e) = inst_effect(ir, s, inst, sums) else {
            continue;
        };
        let Some(set) = shrinking.as_mut() else { break };
        match e.writes {
            Effect::None => {}
            Effect::Classes(cs) if cs.all => shrinking = None,
            Effect::Classes(cs) => set.extend(
                cs.set
                    .into_iter()
                    .filter_map(|c| if let Class::Len(k) = c { Some(k) } else { None }),
            ),
            Effect::Locs(ls) => set.extend(ls.into_iter().filter_map(|l| {
                if let Class::Len(k) = l.class {
                    Some(k)
                } else {
                    None
                }
            })),
        }
    }
    BoundsFacts { guards, shrinking }
}

/// Whether `n` is the length of array `base` (a `len` load of it, or the
/// length operand of its allocation).
fn is_len_of(ir: &IrCode, new: &NewNodes, n: &Operand, base: &Operand) -> bool {
    if let Operand::Value(v) = n
        && let Some(Inst::Load {
            loc: Loc::ArrayLen,
            base: Some(b),
            ..
        }) = inst_of(ir, new, *v)
    {
        return b == base;
    }
    matches!(base, Operand::Value(b) if matches!(inst_of(ir, new, *b), Some(Inst::NewArray { len, .. }) if len == n))
}

/// Whether the ints `a` and `b`, both available at one point, are equal
/// there: `r + c` for the same root `r` (or constant) and offset `c`.
fn same_int(ir: &IrCode, a: &Operand, b: &Operand) -> bool {
    a == b || crate::memssa::alias::decompose(ir, a) == crate::memssa::alias::decompose(ir, b)
}

/// Whether element `index` of the array `base` exists at the end of block
/// `at` (a load of it there cannot fault): the length of `base`'s arrays
/// never shrinks in the function, and `0 <= index < len(base)` is known
/// from a constant index below the constant length of a fresh allocation,
/// a π range fact on `index`, or a dominating bounds check
/// `goto … if not iult(index, len(base))` whose true edge enters a block
/// dominating `at`. Arrays are never nil (LANGUAGE.md), so a base that is
/// not the `nil` literal is dereferenceable.
pub(crate) fn known_inbounds(
    ir: &IrCode,
    new: &NewNodes,
    m: &MemorySsa,
    facts: &BoundsFacts,
    base: &Operand,
    index: &Operand,
    at: BlockId,
) -> bool {
    let Some(Type::Array(elem)) = ir.operand_type(base) else {
        return false;
    };
    if facts.shrinking.as_ref().is_none_or(|s| s.contains(&elem)) {
        return false;
    }
    if let (Operand::Int(c), Operand::Value(b)) = (index, base)
        && let Some(Inst::NewArray {
            len: Operand::Int(n),
            ..
        }) = inst_of(ir, new, *b)
    {
        return 0 <= *c && c < n;
    }
    // π facts on the index's chain: a lower bound >= 0 and an upper bound
    // that is the length.
    let (mut lo, mut hi, mut o) = (false, false, *index);
    for _ in 0..GUARD_SEARCH {
        let Operand::Value(v) = o else { break };
        let Some(Inst::Pi {
            value,
            fact: Fact::Range { lo: l, hi: h },
        }) = inst_of(ir, new, v)
        else {
            break;
        };
        lo |= matches!(l, Some(Operand::Int(c)) if *c >= 0);
        hi |= h.as_ref().is_some_and(|h| is_len_of(ir, new, h, base));
        o = *value;
    }
    if lo && hi {
        return true;
    }
    let mut b = at;
    for _ in 0..GUARD_SEARCH {
        if let Some(gs) = facts.guards.get(&b)
            && gs.iter().any(|(i, n)| {
                (i == index || i == &o || same_int(ir, i, index)) && is_len_of(ir, new, n, base)
            })
        {
            return true;
        }
        match m.dom.idom(b) {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
    false
}

struct State {
    new: NewNodes,
    /// The block of every statement, original or new.
    place: SecondaryMap<Value, Option<BlockId>>,
    /// New statements of each block.
    extra: SecondaryMap<BlockId, Vec<Value>>,
}

/// Rounds of (invariant hoisting, check hoisting): each check hoisting can
/// make more values invariant (the length of a hoisted `a[i]`), and those
/// more checks.
const ROUNDS: usize = 3;

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    // Every step works on loops: a function without one (no edge back to
    // an earlier block) is left as it is, without building its MemorySSA.
    if !crate::opt::loops::has_back_edge(ir) {
        return;
    }
    for _ in 0..ROUNDS {
        hoist_invariants(ir, ctx);
        if !crate::opt::licm_checks::run(ir, ctx) {
            break;
        }
    }
    crate::opt::promote::run(ir, ctx);
}

/// The MemorySSA part: pure operations and unclobbered loads.
fn hoist_invariants(ir: &mut IrCode, ctx: &mut PassCtx) {
    let mut m = crate::timing::time("memssa.build", || MemorySsa::build(ir, &ctx.summaries));
    let nest = ir.cfg.loop_nest();
    let loops = &nest.loops;
    if loops.is_empty() {
        return;
    }
    let guards = nonnil_guards(ir);
    let mut st = State {
        new: NewNodes::new(ir),
        place: ir.block_of(),
        extra: SecondaryMap::new(),
    };
    let mut changed = false;
    for l in loops.values() {
        changed |= hoist_loop(ir, &mut m, &mut st, l, &guards, ctx);
    }
    ctx.check_memssa(&m, ir);
    if changed {
        compact(ir, st.new);
    }
}

fn hoist_loop(
    ir: &mut IrCode,
    m: &mut MemorySsa,
    st: &mut State,
    l: &LoopInfo,
    guards: &Guards,
    ctx: &mut PassCtx,
) -> bool {
    let Some((ph, ph_term, after)) = preheader_insertion(ir, l) else {
        return false;
    };
    let mut any = false;
    for _round in 0..4 {
        let mut changed = false;
        for &b in &l.blocks {
            let mut stmts: Vec<Value> = ir.cfg.blocks[b].stmts.clone().map(Value).collect();
            stmts.extend(st.extra[b].iter().copied());
            for v in stmts {
                if try_hoist(ir, m, st, l, (ph, ph_term, after), guards, v, ctx) {
                    changed = true;
                }
            }
        }
        any |= changed;
        if !changed {
            break;
        }
    }
    any
}

#[allow(clippy::too_many_arguments)]
fn try_hoist(
    ir: &mut IrCode,
    m: &mut MemorySsa,
    st: &mut State,
    l: &LoopInfo,
    (ph, ph_term, after): (BlockId, Value, bool),
    guards: &Guards,
    v: Value,
    ctx: &mut PassCtx,
) -> bool {
    let Some(mut inst) = inst_of(ir, &st.new, v).cloned() else {
        return false;
    };
    if matches!(inst, Inst::Copy(_)) {
        // What an earlier hoist left behind; its uses follow it.
        return false;
    }
    for_each_operand_mut(&mut inst, |op| *op = through_copies(ir, &st.new, *op));
    let mut invariant = true;
    for_each_operand(&inst, |op| {
        if let Operand::Value(x) = op
            && st.place[*x].is_none_or(|b| l.contains(b))
        {
            invariant = false;
        }
    });
    if !invariant {
        return false;
    }
    let mut is_load = false;
    if let Inst::Load { loc, base, .. } = &inst {
        let safe = match loc {
            Loc::ArrayLen | Loc::Global(_) => true,
            Loc::Field { .. } => base
                .as_ref()
                .is_some_and(|b| known_nonnil(ir, &st.new, m, guards, b, ph)),
            Loc::ArrayElem(_) => false,
        };
        if !safe {
            if !matches!(loc, Loc::ArrayElem(_)) {
                missed_load(ir, st, v, &inst, ctx, |_| Msg::new(": its base may be nil"));
            }
            return false;
        }
        let Some(a) = m.access_for(v) else {
            return false;
        };
        let c = m.clobbering_access(ir, a);
        if c != LIVE_ON_ENTRY && l.contains(m.access(c).block) {
            if ctx.remarks_on() {
                let by = clobber_in_loop(ir, m, l, c, loc);
                missed_load(ir, st, v, &inst, ctx, |d| match by {
                    Some(w) => Msg::new(format!(": clobbered by {} at ", d.access_stmt(w)))
                        .at(ir.stmts.span[w]),
                    None => Msg::new(": clobbered in the loop"),
                });
            }
            return false;
        }
        is_load = true;
    } else if !speculatable(&inst) {
        return false;
    }
    let ty = ty_of(ir, &st.new, v);
    let feeds_check = matches!(inst, Inst::Binary(BinaryOp::ICmp(_), ..));
    if is_load && ctx.remarks_on() {
        let span = span_of(ir, st, v);
        ctx.remark(ir, RemarkKind::Passed, span, |d| {
            Msg::new(format!(
                "hoisted load {} out of the loop at ",
                load_place(d, &inst)
            ))
            .at(span)
        });
    }
    let nv = st.new.insert_node(ir, ph_term, inst, ty, after);
    if (v.index()) < ir.stmts.len() {
        st.new.set_name(nv, ir.stmts.name[v]);
        replace_uses(ir, v, Operand::Value(nv));
    } else if let Some(n) = st.new.nodes.get_mut((v.0 - st.new.base) as usize) {
        n.inst = Inst::Copy(Operand::Value(nv));
    }
    st.place[nv] = Some(ph);
    st.place[v] = Some(ph);
    st.extra[ph].push(nv);
    if is_load {
        if let Some(a) = m.access_for(v) {
            m.move_access(ir, a, nv, ph, usize::MAX);
        }
        ctx.counters.add("licm.hoisted_loads", 1);
    } else {
        ctx.counters.add("licm.hoisted", 1);
        if feeds_check {
            ctx.counters.add("licm.hoisted_cmps", 1);
        }
    }
    true
}

/// What `op` stands for: a hoisted statement is left as a copy of its
/// hoisted node (and a node hoisted again, as a copy of the next), so an
/// operand naming it is followed to the last node, which has the place
/// that decides invariance in outer loops.
fn through_copies(ir: &IrCode, new: &NewNodes, op: Operand) -> Operand {
    let mut op = op;
    while let Operand::Value(x) = op
        && let Some(Inst::Copy(next)) = inst_of(ir, new, x)
    {
        op = *next;
    }
    op
}

/// The span of statement `v`, original or new.
fn span_of(ir: &IrCode, st: &State, v: Value) -> Span {
    match ir.stmts.span.get(v) {
        Some(s) => *s,
        None => st
            .new
            .nodes
            .get((v.0 - st.new.base) as usize)
            .map_or(ir.span, |n| n.span),
    }
}

/// The source description of the place the load `inst` reads.
fn load_place(d: &Describe, inst: &Inst) -> String {
    match inst {
        Inst::Load { loc, base, index } => d.place(loc, base.as_ref(), index.as_ref(), 3),
        _ => "?".into(),
    }
}

/// Remarks that the invariant load `v` (`inst`) stays in its loop, `why`
/// following its position.
fn missed_load(
    ir: &IrCode,
    st: &State,
    v: Value,
    inst: &Inst,
    ctx: &mut PassCtx,
    why: impl FnOnce(&Describe) -> Msg,
) {
    let span = span_of(ir, st, v);
    ctx.remark(ir, RemarkKind::Missed, span, |d| {
        let mut msg =
            Msg::new(format!("could not hoist load {} at ", load_place(d, inst))).at(span);
        msg.0.extend(why(d).0);
        msg
    });
}

/// The statement of the loop `l` that clobbers a load of `loc` whose
/// clobbering access is `c`: `c`'s own statement, or for a memory φ the
/// first write in the loop to the same kind of location (or a call).
fn clobber_in_loop(
    ir: &IrCode,
    m: &MemorySsa,
    l: &LoopInfo,
    c: AccessId,
    loc: &Loc,
) -> Option<Value> {
    if let Some(w) = m.inst_of(c) {
        return Some(w);
    }
    l.blocks
        .iter()
        .flat_map(|b| m.block_accesses(*b))
        .find_map(|&a| {
            let w = m.inst_of(a)?;
            let writes = match ir.stmts.get(w)? {
                Inst::Store { loc: sl, .. } => sl == loc,
                Inst::Call { .. } | Inst::Runtime { .. } => {
                    matches!(m.access(a).kind, crate::memssa::AccessKind::Def { .. })
                }
                _ => false,
            };
            writes.then_some(w)
        })
}

/// Where code hoisted out of `l` goes: its preheader, the preheader's last
/// statement, and whether new nodes go after that statement (it is not a
/// `goto`: the preheader falls through into the header). `None` when `l`
/// has no preheader, its header holds a `φᶜ`, or the preheader ends in
/// another terminator.
pub(crate) fn preheader_insertion(ir: &IrCode, l: &LoopInfo) -> Option<(BlockId, Value, bool)> {
    let ph = l.preheader?;
    let header = &ir.cfg.blocks[l.header];
    if header
        .stmts
        .clone()
        .any(|s| matches!(ir.stmts.inst.get(Value(s)), Some(Inst::PhiC { .. })))
    {
        return None;
    }
    let (ph_term, term) = ir.last_stmt(ph)?;
    let after = !matches!(term, Inst::Goto(_));
    if after && term.is_terminator() {
        return None;
    }
    Some((ph, ph_term, after))
}
