//! Inlining of small functions: a module pass ([`super::PassFn::Module`]).
//!
//! Functions are visited bottom-up over the call graph (callees before
//! callers, [`callgraph::sccs`]), so a callee is final — with its own small
//! callees already inlined — before any caller copies it. A call
//! `%r = invoke g(a, b)` is inlined when all of these hold:
//! - `g` is not recursive: its call-graph component has one member and no
//!   self call (else `inline.skipped_recursive`). Recursion is never
//!   inlined, so every recursive call stays a real call and the stack-limit
//!   check in its prologue still detects a stack overflow.
//! - `g` has at most [`MAX_CALLEE_STMTS`] IR statements, counted as they
//!   stand when the caller is visited (else `inline.skipped_too_big`).
//! - The caller's growth budget allows it: a caller may gain at most
//!   `max(its size, MIN_GROWTH)` statements in total (call sites are taken
//!   in statement order until the budget is spent; else
//!   `inline.skipped_budget`). So every function ends at most
//!   `2 × its size + MIN_GROWTH` statements, and the module and the work of
//!   this pass (which is linear in what it copies) stay linear in the size
//!   of the program.
//! - The shape is one the splice handles (else `inline.skipped_shape`): the
//!   argument count matches, `g` has a `return`, its entry block has no
//!   predecessor, and, if `g` contains an `unwind`, the call is a checked
//!   call: followed by `%ok = no_exception()` and `goto #H if not %ok`,
//!   which end its block (SSA construction emits every call of a function
//!   that may throw so).
//!
//! The splice (one rebuild of the caller through [`BlockIr`], then one
//! compaction, per caller with at least one inlined call):
//! - the call's block is split at the call: the statements before it jump
//!   to a copy of `g`'s blocks, the statements after it move to a new join
//!   block that also takes over the block's terminator (φ edges in its
//!   successors are renamed);
//! - `g`'s statements get fresh values and its blocks fresh labels; its
//!   arguments `_i` become the call's operands; every `return x` becomes
//!   `goto join`, and the join block starts with `φ` of the returned values,
//!   which keeps the call's value number, so the call's uses need no
//!   rewrite;
//! - exceptions: at a checked call, every `unwind` of `g` becomes `goto #H`
//!   — the caller's own exception target for that call (its `catch`
//!   handler, or its `unwind` block). A φ of `#H` gets, for each such new
//!   edge, the value it had on the old edge from the call's block. The
//!   handler's φᶜ are unchanged and stay exact: a `ϒ` is a store into the
//!   φᶜ's slot, the inlined code runs no `ϒ` of the caller's, so the slot
//!   holds on the new edges what it held at the call. The `no_exception()`
//!   becomes `true` and the branch a `goto` to the continuation: a call
//!   that returns normally never leaves an exception pending;
//! - every copied statement keeps its span (which names its file), so a
//!   runtime error raised in inlined code reports the callee's position.
//!
//! Each caller that received code is then cleaned with `sccp` and
//! `simplifycfg` ([`cleanup`]: constant arguments fold, the split blocks
//! merge) before it is measured as a callee itself. Only changed functions
//! pay for this, which a second pipeline row of those passes would not.
//!
//! In the default pipeline the pass runs after the first `sccp`, `dce` and
//! `simplifycfg` (callees are already small and clean when they are
//! measured and copied) and before `loops`, `checks`, `gvn_load`, `licm`
//! and `dse`, which then see the inlined code in its caller's loops.
//! MemorySSA and the alias summaries are rebuilt by the later passes as
//! usual.

use super::remarks::{Msg, RemarkKind};
use super::{PassCtx, callgraph};
use crate::ir::FxMap;
use crate::ir::blocks::{BBlock, BStmt, BlockIr, Label, Term};
use crate::ir::compact::compact_only;
use crate::ir::edit::for_each_operand_mut;
use crate::ir::{BlockId, Flags, Inst, IrCode, Module, Operand, Type, Value, VarName};
use cranelift_entity::EntityRef;

/// The largest callee inlined, in IR statements (every statement counts:
/// φs, checks and their cold `raise` blocks, terminators). 40 takes
/// accessors, small arithmetic helpers (`eval_a` of spectral-norm is 12)
/// and short loops, and keeps one inlined call far below a typical caller.
pub const MAX_CALLEE_STMTS: usize = 40;

/// A caller may grow by `max(its size, MIN_GROWTH)` statements.
pub const MIN_GROWTH: usize = 128;

const PURE: Flags = Flags(Flags::EFFECT_FREE.0 | Flags::NOTHROW.0);

/// A call chosen for inlining.
struct Site {
    /// The `invoke` statement; the join φ takes its value number.
    call: Value,
    callee: usize,
    /// For a checked call: its `no_exception()` and its exception target.
    check: Option<(Value, Label)>,
}

/// Runs the inliner over `module` (see the module doc). Callers are
/// handled bottom-up, by [`levels`]: the functions of one level call only
/// functions of lower levels (or their own recursive component, which is
/// never inlined), whose code is final, so a level's callers are rewritten
/// in parallel on [`PassCtx::pool`]'s threads. What each one counted and
/// remarked is merged in bottom-up component order, as one thread would
/// have recorded it.
pub fn run(module: &mut Module, ctx: &mut PassCtx) {
    let succ = callgraph::callees(module);
    let comps = callgraph::sccs(&succ);
    let recursive = callgraph::recursive(&succ, &comps);
    // An inner step's printout (`--print-after=inline.sccp`) comes in order.
    let pool = if ctx.print_step.is_some() {
        crate::par::Pool::default()
    } else {
        ctx.pool.clone()
    };
    let mut recorded: Vec<Option<PassCtx>> = (0..module.funcs.len()).map(|_| None).collect();
    for level in levels(&succ, &comps) {
        let work = level.iter().map(|&f| module.funcs[f].stmts.len()).sum();
        let (shared, base) = (&*module, &*ctx);
        let done = pool.map(level.len(), work, |k| {
            let f = level[k];
            let mut local = base.for_one_function();
            let code = if base.skips(f) {
                None
            } else {
                inline_into(shared, f, &recursive, &mut local)
            };
            (code, local)
        });
        for (&f, (code, local)) in level.iter().zip(done) {
            if let Some(code) = code {
                module.funcs[f] = code;
            }
            recorded[f] = Some(local);
        }
    }
    for &f in comps.iter().flatten() {
        if let Some(local) = recorded[f].take() {
            ctx.merge_function(&module.funcs[f].name, local);
        }
    }
}

/// Function `f` with the calls [`plan`] chooses inlined and cleaned up, or
/// `None` when it inlines nothing.
fn inline_into(module: &Module, f: usize, recursive: &[bool], ctx: &mut PassCtx) -> Option<IrCode> {
    let sites = plan(module, f, recursive, ctx);
    if sites.is_empty() {
        return None;
    }
    let names = argument_names(module, f, &sites);
    let mut code = splice_all(module, f, &sites, &names);
    ctx.counters.add("inline.inlined", sites.len() as u64);
    cleanup(&mut code, ctx);
    Some(code)
}

/// The functions of each level of the call graph's components (`comps`,
/// callees first): level 0 calls no other component, level `k + 1` calls
/// components of level `k` at most. Each level lists its functions in
/// component order.
fn levels(succ: &[Vec<usize>], comps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut comp_of = vec![0usize; succ.len()];
    for (c, comp) in comps.iter().enumerate() {
        for &f in comp {
            comp_of[f] = c;
        }
    }
    let mut level_of = vec![0usize; comps.len()];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for (c, comp) in comps.iter().enumerate() {
        let level = comp
            .iter()
            .flat_map(|&f| &succ[f])
            .map(|&g| comp_of[g])
            .filter(|&d| d != c)
            .map(|d| level_of[d] + 1)
            .max()
            .unwrap_or(0);
        level_of[c] = level;
        if levels.len() <= level {
            levels.resize(level + 1, Vec::new());
        }
        levels[level].extend(comp);
    }
    levels
}

/// The names to give the unnamed values the caller `f` passes to inlined
/// callees: the name of the parameter each becomes (`callee::param`), since
/// inlined, it is that variable's value. The first call naming a value
/// wins.
fn argument_names(module: &Module, f: usize, sites: &[Site]) -> FxMap<Value, VarName> {
    let caller = &module.funcs[f].stmts;
    let mut names: FxMap<Value, VarName> = FxMap::default();
    for site in sites {
        let Some(Inst::Call { args, .. }) = caller.get(site.call) else {
            continue;
        };
        let callee = &module.funcs[site.callee];
        for (arg, p) in args.iter().zip(&callee.param_names) {
            if let Operand::Value(x) = arg
                && let Some(None) = caller.name.get(*x)
            {
                names
                    .entry(*x)
                    .or_insert_with(|| qualified_name(&callee.name, p));
            }
        }
    }
    names
}

/// `sccp` then `simplifycfg` on a caller that received inlined code: they
/// fold constant arguments and merge the blocks split at the calls. Steps
/// of `inline`: counters under `inline.` (`inline.sccp.consts`, ...), the
/// IR verified after each when verifying.
fn cleanup(code: &mut IrCode, ctx: &mut PassCtx) {
    ctx.run_step("inline", "sccp", code, super::sccp::run);
    ctx.run_step("inline", "simplifycfg", code, super::cfg::run);
}

/// What the splice needs to know about a callee.
struct Shape {
    returns: bool,
    unwinds: bool,
    entry_has_preds: bool,
}

impl Shape {
    fn of(code: &IrCode) -> Shape {
        Shape {
            returns: code
                .stmts
                .inst
                .values()
                .any(|i| matches!(i, Inst::Return(_))),
            unwinds: code.stmts.inst.values().any(|i| matches!(i, Inst::Unwind)),
            entry_has_preds: code
                .cfg
                .blocks
                .get(BlockId(0))
                .is_none_or(|b| !b.preds.is_empty()),
        }
    }
}

/// For the call `s` in block `b`: its `no_exception()` and exception
/// target when it is a checked call (the block ends `s`, `%ok =
/// no_exception()`, `goto #H if not %ok`, with `#H` not the fallthrough).
fn checked_call(code: &IrCode, b: BlockId, s: u32) -> Option<(Value, Label)> {
    let end = code.cfg.blocks.get(b)?.stmts.end;
    if s + 3 != end || !matches!(code.stmts.inst.get(Value(s + 1)), Some(Inst::NoException)) {
        return None;
    }
    match code.stmts.inst.get(Value(s + 2)) {
        Some(Inst::GotoIfNot {
            cond: Operand::Value(ok),
            dest,
        }) if ok.0 == s + 1 && *dest != b.next() => Some((*ok, *dest)),
        _ => None,
    }
}

/// The calls of function `f` to inline, in statement order, counting (and
/// remarking) the ones left.
fn plan(module: &Module, f: usize, recursive: &[bool], ctx: &mut PassCtx) -> Vec<Site> {
    let caller = &module.funcs[f];
    let budget = caller.stmts.len().max(MIN_GROWTH);
    let mut used = 0usize;
    let mut sites = Vec::new();
    for (b, bb) in caller.cfg.blocks.iter() {
        for s in bb.stmts.clone() {
            let Some(Inst::Call { func, args }) = caller.stmts.inst.get(Value(s)) else {
                continue;
            };
            let g = func.index();
            let skip = |ctx: &mut PassCtx, counter: &str, why: String| {
                ctx.counters.add(counter, 1);
                let name = module.funcs.get(g).map_or("?", |c| c.name.as_str());
                let span = caller.stmts.span[Value(s)];
                ctx.remark(caller, RemarkKind::Missed, span, |_| {
                    Msg::new(format!("did not inline {name} into {} at ", caller.name))
                        .at(span)
                        .t(format!(": {why}"))
                });
            };
            let Some(callee) = module.funcs.get(g) else {
                skip(ctx, "inline.skipped_shape", "unknown callee".into());
                continue;
            };
            if recursive.get(g).copied().unwrap_or(true) {
                skip(ctx, "inline.skipped_recursive", "it is recursive".into());
                continue;
            }
            let size = callee.stmts.len();
            if size > MAX_CALLEE_STMTS {
                let why = format!("too big ({size} statements, limit {MAX_CALLEE_STMTS})");
                skip(ctx, "inline.skipped_too_big", why);
                continue;
            }
            let shape = Shape::of(callee);
            let check = checked_call(caller, b, s);
            let ret_ok =
                callee.ret == Type::Void || caller.stmts.ty.get(Value(s)) == Some(&callee.ret);
            if args.len() != callee.params.len()
                || !ret_ok
                || !shape.returns
                || shape.entry_has_preds
                || (shape.unwinds && check.is_none())
            {
                skip(
                    ctx,
                    "inline.skipped_shape",
                    "a call shape the inliner does not handle".into(),
                );
                continue;
            }
            if used + size > budget {
                let why = format!(
                    "{}'s growth budget of {budget} statements is spent",
                    caller.name
                );
                skip(ctx, "inline.skipped_budget", why);
                continue;
            }
            used += size;
            let span = caller.stmts.span[Value(s)];
            ctx.remark(caller, RemarkKind::Passed, span, |_| {
                Msg::new(format!("inlined {} into {} at ", callee.name, caller.name)).at(span)
            });
            sites.push(Site {
                call: Value(s),
                callee: g,
                check,
            });
        }
    }
    sites
}

/// The source name, in a caller, of the variable `name` of the inlined
/// function `callee`: `callee::name`.
pub fn qualified_name(callee: &str, name: &str) -> VarName {
    format!("{callee}::{name}").into()
}

/// `callee`'s blocks with fresh labels and values, ready to splice.
struct Copied {
    entry: Label,
    blocks: Vec<BBlock>,
    /// (block, returned value) of every `return`.
    rets: Vec<(Label, Option<Operand>)>,
    /// The blocks whose `unwind` became `goto` the exception target.
    unwinds: Vec<Label>,
}

/// Copies `callee` into `bir`'s label and value space: arguments become
/// `args`, `return` becomes `goto join`, `unwind` becomes `goto unwind_to`
/// (kept when `None`).
fn copy_callee(
    bir: &mut BlockIr,
    callee: &IrCode,
    args: &[Operand],
    join: Label,
    unwind_to: Option<Label>,
) -> Copied {
    let src = BlockIr::from_ir(callee);
    let lbase = bir.fresh_label();
    for _ in 1..src.blocks.len() {
        bir.fresh_label();
    }
    let vbase = bir.fresh_value().0;
    for _ in 1..callee.stmts.len() {
        bir.fresh_value();
    }
    let label = |l: Label| BlockId::new(lbase.index() + l.index());
    let value = |v: Value| Value(vbase + v.0);
    let operand = |op: Operand| match op {
        Operand::Value(v) => Operand::Value(value(v)),
        Operand::Arg(i) => args.get(i as usize).copied().unwrap_or(op),
        other => other,
    };
    let mut out = Copied {
        entry: lbase,
        blocks: Vec::with_capacity(src.blocks.len()),
        rets: Vec::new(),
        unwinds: Vec::new(),
    };
    for block in src.blocks {
        let l = label(block.label);
        let stmts = block
            .stmts
            .into_iter()
            .map(|s| {
                let mut inst = s.inst;
                for_each_operand_mut(&mut inst, |op| *op = operand(*op));
                match &mut inst {
                    Inst::Phi { edges, .. } => edges.iter_mut().for_each(|e| *e = label(*e)),
                    Inst::PhiC { upsilons } => upsilons.iter_mut().for_each(|u| *u = value(*u)),
                    _ => {}
                }
                BStmt {
                    id: value(s.id),
                    inst,
                    ty: s.ty,
                    span: s.span,
                    flags: s.flags,
                    name: s.name.map(|n| qualified_name(&callee.name, &n)),
                }
            })
            .collect();
        let term = match block.term {
            Term::Goto(t) => Term::Goto(label(t)),
            Term::Branch { cond, then, els } => Term::Branch {
                cond: operand(cond),
                then: label(then),
                els: label(els),
            },
            Term::Return(r) => {
                out.rets.push((l, r.map(operand)));
                Term::Goto(join)
            }
            Term::Unwind => match unwind_to {
                Some(h) => {
                    out.unwinds.push(l);
                    Term::Goto(h)
                }
                None => Term::Unwind,
            },
            Term::Unreachable => Term::Unreachable,
        };
        out.blocks.push(BBlock {
            label: l,
            stmts,
            term,
            term_span: block.term_span,
        });
    }
    out
}

/// The caller `f` with every call of `sites` inlined, compacted.
fn splice_all(
    module: &Module,
    f: usize,
    sites: &[Site],
    arg_names: &FxMap<Value, VarName>,
) -> IrCode {
    let caller = &module.funcs[f];
    let mut bir = BlockIr::from_ir(caller);
    for stmt in bir.blocks.iter_mut().flat_map(|b| &mut b.stmts) {
        if stmt.name.is_none()
            && let Some(name) = arg_names.get(&stmt.id)
        {
            stmt.name = Some(name.clone());
        }
    }
    let orig = std::mem::take(&mut bir.blocks);
    // owner[b]: the label of the block that ends with original block b's
    // terminator (the last join block when b was split).
    let mut owner: Vec<Label> = (0..orig.len()).map(BlockId::new).collect();
    // (exception target, old predecessor) -> the blocks that replace the
    // predecessor in the target's φs.
    let mut handler_edges: FxMap<(Label, Label), Vec<Label>> = FxMap::default();
    let mut out: Vec<BBlock> = Vec::with_capacity(orig.len());
    let mut next = 0usize;
    for block in orig {
        let has_site = sites
            .get(next)
            .is_some_and(|site| block.stmts.iter().any(|s| s.id == site.call));
        if !has_site {
            out.push(block);
            continue;
        }
        let BBlock {
            label: orig_label,
            stmts,
            mut term,
            term_span,
        } = block;
        let mut cur = BBlock {
            label: orig_label,
            stmts: Vec::new(),
            term: Term::Unreachable,
            term_span,
        };
        let mut check_stmt: Option<Value> = None;
        for st in stmts {
            let site = sites.get(next).filter(|site| site.call == st.id);
            match (site, &st.inst) {
                (Some(site), Inst::Call { args, .. }) => {
                    next += 1;
                    let callee = &module.funcs[site.callee];
                    let join = bir.fresh_label();
                    let copy = copy_callee(&mut bir, callee, args, join, site.check.map(|c| c.1));
                    cur.term = Term::Goto(copy.entry);
                    cur.term_span = st.span;
                    out.push(cur);
                    out.extend(copy.blocks);
                    cur = BBlock {
                        label: join,
                        stmts: Vec::new(),
                        term: Term::Unreachable,
                        term_span,
                    };
                    if callee.ret != Type::Void {
                        let (edges, values) = copy
                            .rets
                            .iter()
                            .map(|(l, v)| (*l, v.unwrap_or(Operand::Nil)))
                            .unzip();
                        let phi = Inst::Phi { edges, values };
                        cur.stmts.push(BStmt {
                            id: st.id,
                            inst: phi,
                            ty: st.ty,
                            span: st.span,
                            flags: PURE,
                            name: st.name,
                        });
                    }
                    if let Some((ok, target)) = site.check {
                        check_stmt = Some(ok);
                        handler_edges.insert((target, orig_label), copy.unwinds);
                        if let Term::Branch { then, .. } = term {
                            term = Term::Goto(then);
                        }
                    }
                }
                _ if check_stmt == Some(st.id) => {
                    let inst = Inst::Copy(Operand::Bool(true));
                    cur.stmts.push(BStmt {
                        id: st.id,
                        inst,
                        ty: st.ty,
                        span: st.span,
                        flags: PURE,
                        name: None,
                    });
                }
                _ => cur.stmts.push(st),
            }
        }
        cur.term = term;
        owner[orig_label.index()] = cur.label;
        out.push(cur);
    }
    rename_phi_edges(&mut out, &owner, &handler_edges);
    bir.blocks = out;
    let mut code = bir.lower();
    compact_only(&mut code);
    code
}

/// Renames the φ edges of `blocks` after splicing: an edge from an
/// original block comes from its `owner` (the block that now ends with its
/// terminator), and an edge from a block whose checked call was inlined
/// into an exception target becomes one edge per copied `unwind` block
/// (`handler_edges`).
fn rename_phi_edges(
    blocks: &mut [BBlock],
    owner: &[Label],
    handler_edges: &FxMap<(Label, Label), Vec<Label>>,
) {
    for block in blocks {
        let target = block.label;
        for s in block.phis_mut() {
            let Inst::Phi { edges, values } = &mut s.inst else {
                continue;
            };
            let mut new_edges = Vec::with_capacity(edges.len());
            let mut new_values = Vec::with_capacity(values.len());
            for (e, v) in edges.iter().zip(values.iter()) {
                match handler_edges.get(&(target, *e)) {
                    Some(unwinds) => {
                        for u in unwinds {
                            new_edges.push(*u);
                            new_values.push(*v);
                        }
                    }
                    None => {
                        new_edges.push(owner.get(e.index()).copied().unwrap_or(*e));
                        new_values.push(*v);
                    }
                }
            }
            *edges = new_edges;
            *values = new_values;
        }
    }
}
