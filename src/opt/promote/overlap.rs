//! Which statements of a loop may touch a promoted location, in any
//! iteration: the alias analysis in its cross-iteration mode for fields
//! and globals, and [`elem_overlaps`] for array elements.

use super::{Key, loc_of};
use crate::ir::FxSet;
use crate::ir::{Inst, IrCode, Operand, Type, Value};
use crate::memssa::MemorySsa;
use crate::memssa::alias::{AliasCtx, AliasResult, Class, Effect, InstEffect, MemLoc, decompose};

/// The loop's accesses of `key` and the promoted value's type, when every
/// access the loop makes that may touch `key` is a load or store of
/// exactly `key`.
pub(super) fn accesses_of(
    ir: &IrCode,
    m: &MemorySsa,
    effects: &[(Value, InstEffect)],
    key: &Key,
    outside: &dyn Fn(&Operand) -> bool,
) -> Option<(FxSet<Value>, Type)> {
    let class = crate::memssa::alias::class_of(ir, &key.loc, key.base.as_ref())?;
    let target = MemLoc {
        class,
        base: key.base,
        index: key.index,
    };
    let ctx = m.alias_ctx(ir);
    let overlaps = |e: &Effect, write: bool| match target.class {
        Class::Elem(_) => elem_overlaps(ir, outside, e, &target, write),
        _ => effect_overlaps(&ctx, e, &target),
    };
    let mut mine: FxSet<Value> = FxSet::default();
    let mut ty: Option<Type> = None;
    for &(v, ref e) in effects {
        let Some(inst) = ir.stmts.get(v) else {
            continue;
        };
        if !overlaps(&e.reads, false) && !overlaps(&e.writes, true) {
            continue;
        }
        match loc_of(inst) {
            Some(k2)
                if k2.loc == key.loc
                    && k2.base == key.base
                    && same_index(ir, outside, &k2.index, &key.index) =>
            {
                mine.insert(v);
                match inst {
                    Inst::Load { .. } => ty = Some(ir.stmts.ty[v].clone()),
                    Inst::Store { value, .. } if ty.is_none() => ty = ir.operand_type(value),
                    _ => {}
                }
            }
            _ => return None,
        }
    }
    if mine.is_empty() {
        return None;
    }
    Some((mine, ty?))
}

fn effect_overlaps(ctx: &AliasCtx, e: &Effect, target: &MemLoc) -> bool {
    match e {
        Effect::None => false,
        Effect::Locs(ls) => ls
            .iter()
            .any(|x| ctx.alias(x, target, true) != AliasResult::No),
        Effect::Classes(c) => c.contains(&target.class),
    }
}

/// Whether the effect `e` of a loop statement may touch element `index`
/// of `base` (`target`) in some iteration, when `base` and `index` are
/// defined outside the loop. `outside(o)`: `o` has the same value in every
/// iteration (so two such operands that differ as SSA values may still be
/// equal, and operands defined in the loop may take any value, including
/// the value another iteration's access used). A write (`write`) of the
/// length of a `[T]` array that may be `base` counts too: the exit stores
/// rely on `index` staying in bounds.
fn elem_overlaps(
    ir: &IrCode,
    outside: &dyn Fn(&Operand) -> bool,
    e: &Effect,
    target: &MemLoc,
    write: bool,
) -> bool {
    let Class::Elem(k) = &target.class else {
        return true;
    };
    let len = Class::Len(k.clone());
    match e {
        Effect::None => false,
        Effect::Classes(c) => c.contains(&target.class) || (write && c.contains(&len)),
        Effect::Locs(ls) => ls.iter().any(|x| {
            if x.class == len && write {
                return !distinct_objects(ir, outside, target.base.as_ref(), x.base.as_ref());
            }
            if x.class != target.class
                || distinct_objects(ir, outside, target.base.as_ref(), x.base.as_ref())
            {
                return false;
            }
            if x.base != target.base {
                return true;
            }
            // The same array object: indices `r + c` and `r + d` with the
            // same loop-invariant root `r` (or both constant) and `c != d`
            // never meet.
            let (Some(i), Some(j)) = (&target.index, &x.index) else {
                return true;
            };
            let ((ri, ci), (rj, cj)) = (decompose(ir, i), decompose(ir, j));
            let same_root = match (ri, rj) {
                (None, None) => true,
                (Some(a), Some(b)) => a == b && outside(&a),
                _ => false,
            };
            !(same_root && ci != cj)
        }),
    }
}

/// Whether two index operands of accesses in the loop have the same value
/// in every iteration: the same operand, or `r + c` for the same constant
/// `c` and the same root `r` defined outside the loop (or constant).
fn same_index(
    ir: &IrCode,
    outside: &dyn Fn(&Operand) -> bool,
    a: &Option<Operand>,
    b: &Option<Operand>,
) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) if x == y => true,
        (Some(x), Some(y)) => {
            let ((rx, cx), (ry, cy)) = (decompose(ir, x), decompose(ir, y));
            cx == cy && rx == ry && rx.as_ref().is_none_or(outside)
        }
        _ => false,
    }
}

/// Whether the array `a` (defined outside the loop) and the base `b` of an
/// access in the loop are different objects in every iteration: two
/// distinct allocation statements; an allocation in the loop (a new object
/// each time, so none that existed when the loop was entered); an
/// allocation against an argument.
fn distinct_objects(
    ir: &IrCode,
    outside: &dyn Fn(&Operand) -> bool,
    a: Option<&Operand>,
    b: Option<&Operand>,
) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    let alloc = |o: &Operand| match o {
        Operand::Value(v) => matches!(
            ir.stmts.get(*v),
            Some(Inst::NewArray { .. } | Inst::NewStruct { .. })
        ),
        _ => false,
    };
    match (alloc(a), alloc(b)) {
        (true, true) => a != b || !outside(b),
        (false, true) => !outside(b) || matches!(a, Operand::Arg(_)),
        (true, false) => matches!(b, Operand::Arg(_)),
        (false, false) => false,
    }
}
