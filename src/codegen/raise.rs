//! Runtime errors: a `raise` statement becomes a call of the runtime's
//! `toy_raise_*` function for its kind, with the statement's position.
//!
//! An index out of bounds passes its index and length in memory: it stores
//! them into a slot of the frame (one per function) and passes the slot's
//! address. As call arguments they would have to be in the argument
//! registers at the call, and the register allocator, which extends that
//! preference along the values' whole live ranges, would then shuffle a
//! loop's indices between registers on every iteration of the hot path
//! that merely branches to the error (fannkuch's flip loop had nine such
//! moves in 23 instructions).

use super::rtfn::{self, RtSig};
use super::translate::FnTrans;
use crate::ir::{Operand, RaiseKind, Value};
use cranelift_codegen::ir::{self as cl, InstBuilder, StackSlotData, StackSlotKind, types};

impl FnTrans<'_, '_, '_> {
    pub(super) fn raise(
        &mut self,
        s: Value,
        kind: RaiseKind,
        args: &[Operand],
    ) -> Result<(), String> {
        let mut vals = self.operands(args)?;
        let sig = raise_fn(kind, vals.len())?;
        if kind == RaiseKind::IndexOutOfBounds {
            vals = vec![self.in_raise_slot(&vals)];
        }
        let p = self.position_arg(s);
        vals.push(p);
        self.call_rt(sig, &vals)?;
        Ok(())
    }

    /// Stores the two words `vals` into the function's raise slot and
    /// returns its address.
    fn in_raise_slot(&mut self, vals: &[cl::Value]) -> cl::Value {
        let slot = *self.raise_slot.get_or_insert_with(|| {
            let data = StackSlotData::new(StackSlotKind::ExplicitSlot, 16, 3);
            self.b.create_sized_stack_slot(data)
        });
        for (i, &v) in vals.iter().enumerate() {
            self.b.ins().stack_store(types::I64, v, slot, 8 * i as i32);
        }
        self.b.ins().stack_addr(types::I64, slot, 0)
    }
}

/// The runtime function raising `kind` with `n` operands.
fn raise_fn(kind: RaiseKind, n: usize) -> Result<RtSig, String> {
    use rtfn::internal as rt;
    Ok(match (kind, n) {
        (RaiseKind::Throw, 1) => rt::RAISE_THROW,
        (RaiseKind::DivisionByZero, 0) => rt::RAISE_DIV_ZERO,
        (RaiseKind::IndexOutOfBounds, 2) => rt::RAISE_INDEX,
        (RaiseKind::NilDereference, 0) => rt::RAISE_NIL,
        (RaiseKind::NegativeArrayLength, 0) => rt::RAISE_NEGATIVE_LENGTH,
        (RaiseKind::PopFromEmpty, 0) => rt::RAISE_POP_EMPTY,
        (RaiseKind::AssertionFailed, 0) => rt::RAISE_ASSERT,
        (RaiseKind::AssertionFailed, 1) => rt::RAISE_ASSERT_MSG,
        (k, n) => return Err(format!("raise {k:?} with {n} arguments")),
    })
}
