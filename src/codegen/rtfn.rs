//! The machine level of runtime calls: [`lowering`] derives each
//! `RuntimeFn`'s symbol and machine signature from its row of
//! `rtfns::RUNTIME` (IR arguments, then the type tag, then the position id
//! of a function that may throw; see `rtfns::RtRow`) and
//! `FnTrans::runtime_args` computes those arguments; [`internal`] lists
//! the entry points codegen calls on its own (raises, allocation).

use super::translate::FnTrans;
use crate::ir::{Operand, RuntimeFn};
use crate::rtfns::{TagArg, Ty};
use cranelift_codegen::ir::{self as cl, InstBuilder, types};
use std::borrow::Cow;

/// Machine-level type of a runtime function parameter or result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtTy {
    /// i64 (int, position id, type tag).
    I,
    /// f64.
    F,
    /// bool, i8 zero-extended at the ABI boundary.
    B,
    /// A reference (pointer-sized).
    P,
}

/// One runtime entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtSig {
    pub symbol: &'static str,
    pub params: Cow<'static, [RtTy]>,
    pub ret: Option<RtTy>,
    /// The function may collect: it allocates (the table's `allocates`), so
    /// it starts with a `gc::safepoint`. Compiled code calls it through its
    /// trampoline, which records the calling frame for the collector.
    pub collects: bool,
}

use RtTy::*;

const fn sig(symbol: &'static str, params: &'static [RtTy], ret: Option<RtTy>) -> RtSig {
    RtSig {
        symbol,
        params: Cow::Borrowed(params),
        ret,
        collects: false,
    }
}

/// A runtime entry point that may collect (see [`RtSig::collects`]).
const fn gc_sig(symbol: &'static str, params: &'static [RtTy], ret: Option<RtTy>) -> RtSig {
    RtSig {
        symbol,
        params: Cow::Borrowed(params),
        ret,
        collects: true,
    }
}

/// How `Inst::Runtime { func, .. }` is lowered.
#[derive(Clone, Debug)]
pub enum Lowering {
    /// A call of this runtime function with the IR arguments, then the type
    /// tag (`tag`) and the position id (`may_throw`) as `sig` says.
    Call { sig: RtSig },
    /// A Cranelift instruction or a short inline sequence (in `translate`).
    Inline,
}

/// The machine type of a table type: an `Elem` travels as its 8-byte slot
/// image (see `translate::slot_image`), whatever its size in the array
/// (runtime::heap); `Void` is no value.
pub fn machine_ty(t: Ty) -> Option<RtTy> {
    Some(match t {
        Ty::Void => return None,
        Ty::Int | Ty::Elem => I,
        Ty::Float => F,
        Ty::Bool => B,
        Ty::Str | Ty::StrArray | Ty::Ref | Ty::Array => P,
    })
}

/// Whether codegen lowers `f` inline instead of calling its symbol (a
/// function without a symbol must be here).
pub fn is_inline(f: RuntimeFn) -> bool {
    use RuntimeFn as R;
    matches!(
        f,
        R::Sqrt | R::Floor | R::Ceil | R::Fabs | R::StrLen | R::StrByte
    )
}

/// The lowering of each runtime function, from its row of `rtfns::RUNTIME`.
pub fn lowering(f: RuntimeFn) -> Lowering {
    let row = f.row();
    let symbol = match row.symbol {
        Some(s) if !is_inline(f) => s,
        _ => return Lowering::Inline,
    };
    let mut params: Vec<RtTy> = row.params.iter().filter_map(|t| machine_ty(*t)).collect();
    if row.tag.is_some() {
        params.push(I);
    }
    if row.may_throw {
        params.push(I);
    }
    Lowering::Call {
        sig: RtSig {
            symbol,
            params: Cow::Owned(params),
            ret: machine_ty(row.ret),
            collects: row.allocates,
        },
    }
}

impl FnTrans<'_, '_, '_> {
    /// The machine arguments of runtime call `s` (its row of
    /// `rtfns::RUNTIME`): the IR arguments (an `Elem` as its slot image),
    /// then the type tag, then the position id of a call that may throw.
    pub(super) fn runtime_args(
        &mut self,
        s: crate::ir::Value,
        func: RuntimeFn,
        args: &[Operand],
    ) -> Result<Vec<cl::Value>, String> {
        let row = func.row();
        let mut vals = Vec::with_capacity(args.len() + 2);
        for (a, t) in args.iter().zip(row.params) {
            let v = self.operand(a)?;
            vals.push(if *t == Ty::Elem {
                self.slot_image(v)
            } else {
                v
            });
        }
        if args.len() != row.params.len() {
            return Err(format!("runtime call {s} has {} operands", args.len()));
        }
        if let Some(tag) = row.tag {
            let ty = match tag {
                TagArg::OfArg => args.first().and_then(|a| self.code.operand_type(a)),
                TagArg::OfResult => Some(self.code.stmts.ty[s].clone()),
            };
            let tag = ty.map_or(0, |t| self.cx.type_tag(&t));
            vals.push(self.b.ins().iconst(types::I64, tag as i64));
        }
        if row.may_throw {
            vals.push(self.position_arg(s));
        }
        Ok(vals)
    }
}

/// Runtime entry points used by codegen itself (not named by the IR).
pub mod internal {
    use super::*;
    pub const RAISE_THROW: RtSig = sig("toy_raise_throw", &[P, I], None);
    pub const RAISE_DIV_ZERO: RtSig = gc_sig("toy_raise_div_zero", &[I], None);
    /// (address of the index and the length, position).
    pub const RAISE_INDEX: RtSig = gc_sig("toy_raise_index_at", &[P, I], None);
    pub const RAISE_NIL: RtSig = gc_sig("toy_raise_nil", &[I], None);
    pub const RAISE_NEGATIVE_LENGTH: RtSig = gc_sig("toy_raise_negative_length", &[I], None);
    pub const RAISE_POP_EMPTY: RtSig = gc_sig("toy_raise_pop_empty", &[I], None);
    pub const RAISE_ASSERT: RtSig = gc_sig("toy_raise_assert", &[I], None);
    pub const RAISE_ASSERT_MSG: RtSig = gc_sig("toy_raise_assert_msg", &[P, I], None);
    pub const TAKE_EXCEPTION: RtSig = sig("toy_take_exception", &[], Some(P));
    pub const STACK_OVERFLOW: RtSig = sig("toy_stack_overflow", &[], None);
    pub const ALLOC: RtSig = gc_sig("toy_alloc", &[I, I], Some(P));
    /// (tag, length, fill as a slot image, element size).
    pub const ARRAY_NEW: RtSig = gc_sig("toy_array_new", &[I, I, I, I], Some(P));
    /// Every entry point above (for the symbol check in `tests/it/rtfns.rs`).
    pub const ALL: [RtSig; 12] = [
        RAISE_THROW,
        RAISE_DIV_ZERO,
        RAISE_INDEX,
        RAISE_NIL,
        RAISE_NEGATIVE_LENGTH,
        RAISE_POP_EMPTY,
        RAISE_ASSERT,
        RAISE_ASSERT_MSG,
        TAKE_EXCEPTION,
        STACK_OVERFLOW,
        ALLOC,
        ARRAY_NEW,
    ];
}
