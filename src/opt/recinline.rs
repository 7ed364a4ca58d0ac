//! Recursive inlining: a small recursive function's calls of itself are
//! replaced by copies of its own body, a few levels deep (gcc's recursive
//! inlining), so one real call does the work of several levels of the
//! recursion.
//!
//! The pass runs after `tailrec`, which has already turned tail calls and
//! accumulated calls into a loop: `fib`'s `return fib(n-1) + fib(n-2)` is
//! then a loop with one call left, and each level copies one body. For
//! a function `f` of at most [`MAX_BODY_STMTS`] statements whose body
//! inlines as `inline` would inline a callee (same shape rules:
//! [`super::inline::Shape`], checked calls of a function that unwinds):
//! - the body as it stands when the pass starts is the copy;
//! - each round replaces every call of `f` in the current code by a copy
//!   (the copies' own calls of `f` are the next round's sites), for at
//!   most [`MAX_DEPTH`] rounds, and only while the function stays within
//!   [`MAX_TOTAL_STMTS`] statements (a function with several calls of
//!   itself grows geometrically and stops early);
//! - the split blocks are merged by a `simplifycfg` step
//!   (`recinline.simplifycfg`).
//!
//! The innermost copies still call `f`, so unbounded recursion still makes
//! real calls, each with its stack-limit check, and still ends in a stack
//! overflow; a real call's frame covers the levels inlined into it, so its
//! size stays bounded. The splice keeps every statement's span, so runtime
//! errors report the same positions.
//!
//! Counters: `recinline.inlined` (calls replaced by a copy),
//! `recinline.rounds` (rounds run), `recinline.skipped_budget` (functions
//! that stopped before [`MAX_DEPTH`] rounds because the next round would
//! pass [`MAX_TOTAL_STMTS`]).

use super::PassCtx;
use super::inline::{Shape, Site, site, splice};
use super::remarks::{Msg, RemarkKind};
use crate::ir::{Inst, IrCode, Value};
use cranelift_entity::EntityRef;

/// The largest body copied, in IR statements (as `inline` counts them):
/// the same limit as `inline`'s callees. Inlining saves a call's fixed
/// cost (prologue, stack-limit check, saved registers), which only
/// matters next to a small body.
pub const MAX_BODY_STMTS: usize = super::inline::MAX_CALLEE_STMTS;

/// The most rounds: levels of the recursion one real call covers, besides
/// its own.
pub const MAX_DEPTH: usize = 3;

/// The largest the function may grow to by this pass, in statements.
pub const MAX_TOTAL_STMTS: usize = 4 * MAX_BODY_STMTS;

pub fn run(ir: &mut IrCode, ctx: &mut PassCtx) {
    let size = ir.stmts.len();
    if size > MAX_BODY_STMTS {
        return;
    }
    let shape = Shape::of(ir);
    // The copy: the body as it stands before the first round.
    let mut body: Option<IrCode> = None;
    for round in 1..=MAX_DEPTH {
        let Some(sites) = sites(ir, &shape) else {
            return;
        };
        if sites.is_empty() {
            return;
        }
        if ir.stmts.len() + sites.len() * size > MAX_TOTAL_STMTS {
            ctx.counters.add("recinline.skipped_budget", 1);
            return;
        }
        for site in &sites {
            let span = ir.stmts.span[site.call];
            ctx.remark(ir, RemarkKind::Passed, span, |_| {
                Msg::new(format!("inlined {} into itself at ", ir.name))
                    .at(span)
                    .t(format!(" (level {round})"))
            });
        }
        let body = &*body.get_or_insert_with(|| ir.clone());
        *ir = splice(ir, &sites, &|_| body);
        ctx.counters.add("recinline.inlined", sites.len() as u64);
        ctx.counters.add("recinline.rounds", 1);
        ctx.run_step("recinline", "simplifycfg", ir, super::cfg::run);
    }
}

/// Every call of `ir` of itself, as splice sites, in statement order; `None`
/// when one of them has a shape the splice does not handle (then none is
/// inlined: a round copies every call or none).
fn sites(ir: &IrCode, shape: &Shape) -> Option<Vec<Site>> {
    let mut sites = Vec::new();
    for (b, bb) in ir.cfg.blocks.iter() {
        for s in bb.stmts.clone() {
            if let Some(Inst::Call { func, .. }) = ir.stmts.inst.get(Value(s))
                && *func == ir.func
            {
                sites.push(site(ir, b, s, ir, ir.func.index(), shape)?);
            }
        }
    }
    Some(sites)
}
