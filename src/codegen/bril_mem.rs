//! Bril's `load` and `store` calls in machine code: the access itself when
//! the pointer names a live slot in bounds (and, for a load, a stored
//! one), found through the published heap (`runtime::bril::BRIL_HEAP`);
//! otherwise a call of the runtime function, which reports the error.
//!
//! The fast path: `offset < views[id].len` (0 once freed, and for
//! `views[0]`, which an id of `count` or more reads instead), for a load
//! `init[offset] != 0`, then the slot `data[offset]`. A store also sets
//! `init[offset]`. Both paths leave the same slot contents and result as
//! the runtime function alone, so the interpreter (which always calls it)
//! and `-O0` agree with this.

use super::rtfn::{self, Lowering};
use super::signature::cl_type;
use super::translate::FnTrans;
use crate::ir::{Operand, RuntimeFn, Value};
use crate::rtfns::Effect;
use crate::runtime::bril::{HEAP_COUNT, HEAP_VIEWS, VIEW_DATA, VIEW_INIT, VIEW_LEN, VIEW_SIZE};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData, types};

impl FnTrans<'_, '_, '_> {
    /// Lowers `s`, a call of `func`, when `func` is Bril's `load` or
    /// `store`; `false` (nothing emitted) for any other function.
    pub(super) fn bril_access(
        &mut self,
        s: Value,
        func: RuntimeFn,
        args: &[Operand],
    ) -> Result<bool, String> {
        let store = match func.row().effect {
            Effect::ReadsBrilSlot => false,
            Effect::WritesBrilSlot => true,
            _ => return Ok(false),
        };
        let Lowering::Call { sig } = rtfn::lowering(func) else {
            return Err(format!("{func:?} has no runtime function"));
        };
        let ptr = self.operand(args.first().ok_or("Bril access without pointer")?)?;
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        let join = self.b.create_block();
        if let Some(t) = sig.ret.and_then(|_| cl_type(&self.code.stmts.ty[s])) {
            self.b.append_block_param(join, t);
        }
        let (slot, init) = self.slot_address(ptr, slow, !store)?;
        let flags = MemFlagsData::trusted();
        if store {
            let v = self.operand(args.get(1).ok_or("Bril store without value")?)?;
            let bits = self.bril_slot_image(func, v);
            self.b.ins().store(flags, bits, slot, 0);
            let one = self.b.ins().iconst(types::I8, 1);
            self.b.ins().store(flags, one, init, 0);
            self.b.ins().jump(join, &[]);
        } else {
            let bits = self.b.ins().load(types::I64, flags, slot, 0);
            let v = self.bril_value(func, bits);
            self.b.ins().jump(join, &[v.into()]);
        }
        self.b.switch_to_block(slow);
        let vals = self.runtime_args(s, func, args)?;
        let r = self.call_rt(sig, &vals)?;
        match r {
            Some(r) => self.b.ins().jump(join, &[r.into()]),
            None => self.b.ins().jump(join, &[]),
        };
        self.b.switch_to_block(join);
        if let Some(&r) = self.b.block_params(join).first() {
            self.define(s, r);
        }
        Ok(true)
    }

    /// The addresses of the slot `ptr` names and of its `init` byte, in a
    /// new current block; branches to `slow` when there is no such slot
    /// or (`loading`) it was never stored.
    fn slot_address(
        &mut self,
        ptr: cl::Value,
        slow: cl::Block,
        loading: bool,
    ) -> Result<(cl::Value, cl::Value), String> {
        let flags = MemFlagsData::trusted();
        let heap = self.data_addr(self.cx.bril_heap_data)?;
        // views[0] is always empty (len 0): an unknown id reads it.
        let id = self.b.ins().ushr_imm_u(ptr, 32);
        let count = self.b.ins().load(types::I64, flags, heap, HEAP_COUNT);
        let known = self.b.ins().icmp(IntCC::UnsignedLessThan, id, count);
        let zero = self.b.ins().iconst(types::I64, 0);
        let index = self.b.ins().select(known, id, zero);
        let views = self.b.ins().load(types::I64, flags, heap, HEAP_VIEWS);
        let at = self.b.ins().imul_imm_s(index, VIEW_SIZE);
        let view = self.b.ins().iadd(views, at);
        let low = self.b.ins().ireduce(types::I32, ptr);
        let offset = self.b.ins().uextend(types::I64, low);
        let len = self.b.ins().load(types::I64, flags, view, VIEW_LEN);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, offset, len);
        self.continue_if(inside, slow);
        let inits = self.b.ins().load(types::I64, flags, view, VIEW_INIT);
        let init = self.b.ins().iadd(inits, offset);
        if loading {
            let stored = self.b.ins().load(types::I8, flags, init, 0);
            self.continue_if(stored, slow);
        }
        let data = self.b.ins().load(types::I64, flags, view, VIEW_DATA);
        let bytes = self.b.ins().ishl_imm_u(offset, 3);
        Ok((self.b.ins().iadd(data, bytes), init))
    }

    /// Goes on in a new block when `cond` is non-zero, else to `slow`.
    fn continue_if(&mut self, cond: cl::Value, slow: cl::Block) {
        let next = self.b.create_block();
        self.b.ins().brif(cond, next, &[], slow, &[]);
        self.b.switch_to_block(next);
    }

    /// The value a load of `func` returns for slot contents `bits`
    /// (`toy_bril_load_*`: a bool is `bits != 0`).
    fn bril_value(&mut self, func: RuntimeFn, bits: cl::Value) -> cl::Value {
        match func {
            RuntimeFn::BrilLoadFloat => self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits),
            RuntimeFn::BrilLoadBool => self.b.ins().icmp_imm_s(IntCC::NotEqual, bits, 0),
            _ => bits,
        }
    }

    /// The slot contents a store of `func` writes for `v`
    /// (`toy_bril_store_*`: a bool is 1 or 0).
    fn bril_slot_image(&mut self, func: RuntimeFn, v: cl::Value) -> cl::Value {
        match func {
            RuntimeFn::BrilStoreFloat => self.b.ins().bitcast(types::I64, MemFlagsData::new(), v),
            RuntimeFn::BrilStoreBool => {
                let b = self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0);
                self.b.ins().uextend(types::I64, b)
            }
            _ => v,
        }
    }
}
