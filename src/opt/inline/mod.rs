//! Inlining of small functions: a module pass ([`super::PassFn::Module`]).
//!
//! Functions are visited bottom-up over the call graph (callees before
//! callers, [`callgraph::sccs`]), so a callee is final — with its own small
//! callees already inlined — before any caller copies it. A call
//! `%r = invoke g(a, b)` is inlined when all of these hold:
//! - `g` is not recursive: its call-graph component has one member and no
//!   self call (else `inline.skipped_recursive`). A recursive call stays a
//!   real call, so the stack-limit check in its prologue still detects a
//!   stack overflow; `recinline` later copies a small function into its
//!   own calls a bounded number of times, keeping the innermost calls.
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

mod splice;

use super::remarks::{Msg, RemarkKind};
use super::{PassCtx, callgraph};
use crate::ir::{Inst, IrCode, Module, Value};
use cranelift_entity::EntityRef;
pub use splice::qualified_name;
pub(super) use splice::{Shape, Site, site, splice};

/// The largest callee inlined, in IR statements (every statement counts:
/// φs, checks and their cold `raise` blocks, terminators). 40 takes
/// accessors, small arithmetic helpers (`eval_a` of spectral-norm is 12)
/// and short loops, and keeps one inlined call far below a typical caller.
pub const MAX_CALLEE_STMTS: usize = 40;

/// A caller may grow by `max(its size, MIN_GROWTH)` statements.
pub const MIN_GROWTH: usize = 128;

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
            let mut local = base.for_one_function(f);
            let code = if base.skips(f) {
                None
            } else {
                inline_into(shared, f, &recursive, &mut local)
            };
            (code, local)
        });
        // The bodies replaced, freed on the workers (one thread freeing a
        // level's worth of IR left the other idle).
        let mut replaced = Vec::new();
        for (&f, (code, local)) in level.iter().zip(done) {
            if let Some(code) = code {
                replaced.push(std::mem::replace(&mut module.funcs[f], code));
            }
            recorded[f] = Some(local);
        }
        let freed = replaced.iter().map(|c| c.stmts.len()).sum();
        pool.drop_on(replaced, freed);
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
    let mut code = splice(&module.funcs[f], &sites, &|g| &module.funcs[g]);
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

/// `sccp` then `simplifycfg` on a caller that received inlined code: they
/// fold constant arguments and merge the blocks split at the calls. Steps
/// of `inline`: counters under `inline.` (`inline.sccp.consts`, ...), the
/// IR verified after each when verifying.
pub(super) fn cleanup(code: &mut IrCode, ctx: &mut PassCtx) {
    ctx.run_step("inline", "sccp", code, super::sccp::run);
    ctx.run_step("inline", "simplifycfg", code, super::cfg::run);
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
            let Some(Inst::Call { func, .. }) = caller.stmts.inst.get(Value(s)) else {
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
            let Some(site) = site(caller, b, s, callee, g, &Shape::of(callee)) else {
                skip(
                    ctx,
                    "inline.skipped_shape",
                    "a call shape the inliner does not handle".into(),
                );
                continue;
            };
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
            sites.push(site);
        }
    }
    sites
}
