//! Loads, stores and allocations (layouts in `runtime::object`).
//!
//! - `ArrayLen`: the word at offset 8 of the array object.
//! - `ArrayElem`: element `index` of the data buffer whose address is the
//!   word at offset 24 (an invariant load, `invariant.rs`, where the buffer
//!   cannot move, `fixed_data.rs`), read and written with the element's
//!   machine type; elements of `[bool]` are 1 byte, all others 8
//!   (`runtime::heap::elem_size`).
//! - `Field`: slot `field` after the header word of the struct object.
//! - `Global`: the global's own 8-byte data object.
//! - The runtime's array functions take and give elements as 8-byte slot
//!   images ([`FnTrans::slot_image`]).
//!
//! Bounds and nil checks are explicit in the IR; these accesses assume them.

use super::invariant::{Invariant, Root};
use super::rtfn::internal as rt;
use super::signature::cl_type;
use super::translate::FnTrans;
use crate::ir::{Inst, Loc, Operand, Type};
use crate::runtime::heap::{ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, BOOL_ELEM_SIZE, elem_size};
use cranelift_codegen::ir::{self as cl, InstBuilder, MemFlagsData, types};

impl FnTrans<'_, '_, '_> {
    /// The address of `loc` (the offset is folded into the access).
    fn address(
        &mut self,
        loc: &Loc,
        base: &Option<Operand>,
        index: &Option<Operand>,
    ) -> Result<(cl::Value, i32), String> {
        let base_v = |t: &mut Self| -> Result<cl::Value, String> {
            let b = base.as_ref().ok_or("memory access without base")?;
            t.operand(b)
        };
        Ok(match loc {
            Loc::ArrayLen => (base_v(self)?, ARRAY_LEN_OFFSET),
            Loc::ArrayElem(elem) => {
                let a = base_v(self)?;
                let root = base.as_ref().and_then(Root::of);
                let data = match root {
                    Some(root) if self.movable.is_fixed(elem) => {
                        let offset = ARRAY_DATA_OFFSET;
                        self.invariant(Invariant::Address { root, offset }, Some(a))?
                    }
                    _ => {
                        self.b
                            .ins()
                            .load(types::I64, MemFlagsData::trusted(), a, ARRAY_DATA_OFFSET)
                    }
                };
                let i = self.operand(index.as_ref().ok_or("array access without index")?)?;
                let off = match elem_size(*elem == Type::Bool) {
                    BOOL_ELEM_SIZE => i,
                    _ => self.b.ins().ishl_imm_u(i, 3),
                };
                (self.b.ins().iadd(data, off), 0)
            }
            Loc::Field { field, .. } => (base_v(self)?, 8 + 8 * (*field as i32)),
            Loc::Global(g) => {
                let id = *self.cx.globals.get(g.0 as usize).ok_or("unknown global")?;
                (self.data_addr(id)?, 0)
            }
        })
    }

    pub(super) fn heap_stmt(&mut self, s: crate::ir::Value) -> Result<(), String> {
        let code = self.code;
        match &code.stmts.inst[s] {
            Inst::Load { loc, base, index } => {
                let ty = cl_type(&code.stmts.ty[s]).ok_or("load of a void value")?;
                let (addr, off) = self.address(loc, base, index)?;
                let v = self.b.ins().load(ty, MemFlagsData::trusted(), addr, off);
                self.define(s, v);
            }
            Inst::Store {
                loc,
                base,
                index,
                value,
            } => {
                let v = self.operand(value)?;
                let (addr, off) = self.address(loc, base, index)?;
                self.b.ins().store(MemFlagsData::trusted(), v, addr, off);
            }
            Inst::NewArray { elem, len, fill } => {
                let tag = self.cx.type_tag(&Type::Array(Box::new(elem.clone())));
                let tagv = self.b.ins().iconst(types::I64, tag as i64);
                let lenv = self.operand(len)?;
                let f = self.operand(fill)?;
                let bits = self.slot_image(f);
                let size = self
                    .b
                    .ins()
                    .iconst(types::I64, elem_size(*elem == Type::Bool));
                let r = self
                    .call_rt(rt::ARRAY_NEW, &[tagv, lenv, bits, size])?
                    .ok_or("array_new without result")?;
                self.define(s, r);
            }
            Inst::NewStruct { strukt, fields } => {
                let tag = self.cx.type_tag(&Type::Struct(*strukt));
                let tagv = self.b.ins().iconst(types::I64, tag as i64);
                let size = self.b.ins().iconst(types::I64, 8 + 8 * fields.len() as i64);
                let p = self
                    .call_rt(rt::ALLOC, &[size, tagv])?
                    .ok_or("alloc without result")?;
                for (i, f) in fields.iter().enumerate() {
                    let v = self.operand(f)?;
                    self.b
                        .ins()
                        .store(MemFlagsData::trusted(), v, p, 8 + 8 * i as i32);
                }
                self.define(s, p);
            }
            other => return Err(format!("not a heap instruction: {other:?}")),
        }
        Ok(())
    }

    /// A value as its 8-byte slot image (how the runtime's array functions
    /// pass elements; a bool is the low byte).
    pub(super) fn slot_image(&mut self, v: cl::Value) -> cl::Value {
        let ty = self.b.func.dfg.value_type(v);
        if ty == types::F64 {
            self.b.ins().bitcast(types::I64, MemFlagsData::new(), v)
        } else if ty == types::I8 {
            self.b.ins().uextend(types::I64, v)
        } else {
            v
        }
    }

    /// The value of type `ty` held in an 8-byte slot image.
    pub(super) fn value_of_slot(&mut self, bits: cl::Value, ty: &Type) -> cl::Value {
        match cl_type(ty) {
            Some(t) if t == types::F64 => {
                self.b.ins().bitcast(types::F64, MemFlagsData::new(), bits)
            }
            Some(t) if t == types::I8 => self.b.ins().ireduce(types::I8, bits),
            _ => bits,
        }
    }
}
