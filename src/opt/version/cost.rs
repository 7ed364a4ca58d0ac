//! The cost model of [`super`]: which loops with removable checks are not
//! worth a copy. The copy and its guard cost compile time (our passes and
//! Cranelift on up to twice the code, about a million instructions per
//! versioned loop in `bench/toy/spectral.toy`) and, on every entry, a trip
//! test and the registers the guard's values hold; the gain is a check per
//! iteration. Two kinds of loop do not repay it (measurements in
//! docs/passes.md, "Loop versioning"):
//!
//! - **A loop around a versioned loop.** The inner loop's checks, the hot
//!   ones, are already gone from its fast copy; versioning the outer loop
//!   copies both versions of the inner one (four copies in all) for checks
//!   that run once per run of the inner loop.
//! - **A loop whose trip count is unknown from one entry to the next.** In
//!   a loop `P`, a nested loop whose `first` and `n` are each neither
//!   defined outside `P`, nor the length of an array (a loop over a whole
//!   row), nor affine in `P`'s induction variable (a triangular
//!   `for j in 0..i` is) runs a count the pass cannot relate to anything
//!   long: a value `P` updates irregularly, an element load, a call. Such
//!   loops are typically short (a shift of a prefix, a row of a sparse
//!   matrix), so the trip test and the guard's live values are paid per
//!   entry for few iterations.

use super::guard::{self, LoopView};
use super::{Ctx, Plan};
use crate::ir::loops::{LoopInfo, LoopNest};
use crate::ir::{BlockId, FxSet, Inst, IrCode, Loc, Operand};
use crate::opt::PassCtx;
use crate::opt::remarks::{Msg, RemarkKind};
use crate::span::Span;

/// Why a loop with removable checks is not versioned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decline {
    /// The loop contains a loop this pass versions (in this round or an
    /// earlier one).
    ContainsVersioned,
    /// The loop's bounds vary per entry in a way the pass cannot estimate.
    UnknownTrips,
}

impl Decline {
    pub fn counter(self) -> &'static str {
        match self {
            Decline::ContainsVersioned => "version.skipped_outer",
            Decline::UnknownTrips => "version.skipped_trips",
        }
    }

    /// Counts the decline and remarks on the loop at `span`.
    pub fn report(self, ctx: &mut PassCtx, ir: &IrCode, span: Span) {
        ctx.counters.add(self.counter(), 1);
        ctx.remark(ir, RemarkKind::Missed, span, |_| {
            Msg::new("did not version the loop at ")
                .at(span)
                .t(format!(": {}", self.why()))
        });
    }

    pub fn why(self) -> &'static str {
        match self {
            Decline::ContainsVersioned => "it contains a versioned loop",
            Decline::UnknownTrips => {
                "its bounds change in the enclosing loop and are not affine in its counter"
            }
        }
    }
}

/// Why loop `l`, planned as `p`, is not worth versioning, if it is not;
/// `versioned`: the headers of the loops (both copies) earlier rounds
/// versioned; `planned`: the loops this round versions (inner loops come
/// first).
pub(super) fn decline(
    c: &Ctx,
    nest: &LoopNest,
    l: &LoopInfo,
    p: &Plan,
    versioned: &FxSet<BlockId>,
    planned: &[Plan],
) -> Option<Decline> {
    if l.blocks.iter().any(|b| versioned.contains(b))
        || planned.iter().any(|q| l.contains(q.header))
    {
        return Some(Decline::ContainsVersioned);
    }
    let parent = &nest.loops[l.parent?];
    let bounds = [p.first, p.n];
    let known = |o: &Operand| c.outside(parent, o) || array_len(c, o);
    if bounds.iter().all(known) {
        return None;
    }
    let counted = parent.preheader.and_then(|ph| c.induction(parent, ph));
    let Some((iv, ..)) = counted else {
        return Some(Decline::UnknownTrips);
    };
    let invariant = |o: &Operand| c.outside(parent, o);
    let view = LoopView {
        ir: c.ir,
        iv,
        invariant: &invariant,
    };
    let affine = (bounds.iter()).all(|o| known(o) || guard::affine(&view, *o, 0).is_some());
    (!affine).then_some(Decline::UnknownTrips)
}

/// Whether `o` is the length of an array (`for j in 0..len(row)`: the
/// loop runs over a whole array, as long as the data, like a loop whose
/// bound is defined outside the nest).
fn array_len(c: &Ctx, o: &Operand) -> bool {
    matches!(
        c.inst(o),
        Some(Inst::Load {
            loc: Loc::ArrayLen,
            ..
        })
    )
}
