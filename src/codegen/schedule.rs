//! The order in which a block's statements are translated.
//!
//! An out-of-order core issues the oldest ready instruction first, so the
//! order of independent dependency chains in the machine code decides
//! which one runs first when they compete: a loop body written as one
//! whole chain after the other (`zi = 2 * zr * zi + ci; zr = tr - ti +
//! cr`) makes the second chain wait behind the first. At `-O1` and up
//! ([`super::CodegenOptions::optimize`]) translation emits each run of
//! consecutive *schedulable* statements (pure arithmetic, [`schedulable`])
//! in order of earliest start: a statement starts when the latest of its
//! operands defined in the run has started and taken its [`latency`];
//! operands from outside the run are ready at once. Ties keep the IR's
//! order. Cranelift keeps that order (it runs at `opt_level=none`), so
//! independent chains interleave in the machine code as a list scheduler
//! would place them.
//!
//! A run longer than [`WINDOW`] statements is scheduled a window at a
//! time, which bounds how many more values are live at once than in the
//! IR's order.
//!
//! Invariants of [`block_order`]:
//! - it is a permutation of the block's statements;
//! - a statement that is not schedulable keeps its index, so the
//!   statements between two such statements stay between them; φs,
//!   memory accesses, calls, checks' branches and terminators keep their
//!   order and place;
//! - a schedulable statement stays within its window of [`WINDOW`]
//!   consecutive schedulable statements;
//! - within a run, every operand defined in the run comes before its use
//!   (latencies are at least 1, so an operand starts strictly earlier).
//!
//! Float division is not schedulable: [`super::ops::fdiv_pair_operands`]
//! pairs two adjacent divisions in the IR's order, which this keeps.
//! Integer division and remainder (their lowering may branch) and float
//! remainder (a call) are not either.

use crate::ir::{BinaryOp, BlockId, Inst, IrCode, Operand, RuntimeFn, UnaryOp, Value};

/// Whether `inst` may move within its run: pure arithmetic that lowers
/// to straight-line machine code without a call (the float functions
/// `sqrt`, `floor`, `ceil` and `abs` are one instruction or a short
/// sequence, [`super::rtfn::is_inline`]).
pub(super) fn schedulable(inst: &Inst) -> bool {
    match inst {
        Inst::Unary(..) => true,
        Inst::Runtime { func, .. } => matches!(
            func,
            RuntimeFn::Sqrt | RuntimeFn::Floor | RuntimeFn::Ceil | RuntimeFn::Fabs
        ),
        Inst::Binary(op, ..) => !matches!(
            op,
            BinaryOp::FDiv | BinaryOp::FRem | BinaryOp::IDiv | BinaryOp::IRem
        ),
        _ => false,
    }
}

/// The cycles from the start of a schedulable instruction until its
/// result can be used, as on current x86-64 and AArch64 cores: one for
/// integer and logical operations and `abs`, three for integer
/// multiplication and float arithmetic, more for conversions, rounding
/// and `sqrt`.
pub(super) fn latency(inst: &Inst) -> u32 {
    match inst {
        Inst::Unary(UnaryOp::IntToFloat, _) => 4,
        Inst::Unary(UnaryOp::FloatToInt, _) => 6,
        Inst::Unary(UnaryOp::INeg | UnaryOp::FNeg | UnaryOp::Not, _) => 1,
        Inst::Binary(
            BinaryOp::IMul | BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FCmp(_),
            ..,
        ) => 3,
        Inst::Runtime {
            func: RuntimeFn::Sqrt,
            ..
        } => 15,
        Inst::Runtime {
            func: RuntimeFn::Floor | RuntimeFn::Ceil,
            ..
        } => 8,
        _ => 1,
    }
}

/// The most statements reordered together: a longer run is scheduled in
/// consecutive windows of this many, so that moving every statement that
/// is ready at once to the front (a sum of many products) never makes
/// more values live at once than about a register file holds.
pub(super) const WINDOW: usize = 16;

/// The statements of block `bi` in translation order (see the module
/// doc), into `out` (cleared first); `starts` is scratch space.
pub(super) fn block_order(
    code: &IrCode,
    bi: BlockId,
    out: &mut Vec<Value>,
    starts: &mut Vec<(u32, Value)>,
) {
    out.clear();
    let inst = &code.stmts.inst;
    let mut run_start = None;
    for s in code.cfg.blocks[bi].values() {
        let movable = schedulable(&inst[s]);
        let window_full = run_start.is_some_and(|first| out.len() - first == WINDOW);
        if (!movable || window_full)
            && let Some(first) = run_start.take()
        {
            schedule_run(code, &mut out[first..], starts);
        }
        if movable {
            run_start.get_or_insert(out.len());
        }
        out.push(s);
    }
    if let Some(first) = run_start {
        schedule_run(code, &mut out[first..], starts);
    }
}

/// Reorders `run` (consecutive statements of one block, in IR order, all
/// schedulable) by earliest start, ties in IR order.
fn schedule_run(code: &IrCode, run: &mut [Value], starts: &mut Vec<(u32, Value)>) {
    if run.len() < 3 {
        // Two statements are either dependent or both start at once.
        return;
    }
    let (first, end) = (run[0].0, run[run.len() - 1].0 + 1);
    let inst = &code.stmts.inst;
    starts.clear();
    for &s in run.iter() {
        let mut start = 0;
        crate::ir::edit::for_each_operand(&inst[s], |op| {
            if let Operand::Value(v) = *op
                && (first..end).contains(&v.0)
            {
                let (t, _) = starts[(v.0 - first) as usize];
                start = start.max(t + latency(&inst[v]));
            }
        });
        starts.push((start, s));
    }
    if starts.is_sorted_by_key(|&(t, _)| t) {
        return;
    }
    // Stable: equal starts keep the IR's order.
    starts.sort_by_key(|&(t, _)| t);
    for (slot, &(_, s)) in run.iter_mut().zip(starts.iter()) {
        *slot = s;
    }
}

#[cfg(test)]
mod tests;
