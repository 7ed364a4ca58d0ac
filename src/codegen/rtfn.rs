//! The runtime functions compiled code calls: symbol, signature, and
//! whether they may throw (those get the statement's position id as an
//! extra last argument, per RUNTIME_ABI.md).

use crate::ir::RuntimeFn;

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
#[derive(Copy, Clone, Debug)]
pub struct RtSig {
    pub symbol: &'static str,
    pub params: &'static [RtTy],
    pub ret: Option<RtTy>,
}

use RtTy::*;

const fn sig(symbol: &'static str, params: &'static [RtTy], ret: Option<RtTy>) -> RtSig {
    RtSig {
        symbol,
        params,
        ret,
    }
}

/// How `Inst::Runtime { func, .. }` is lowered.
#[derive(Copy, Clone, Debug)]
pub enum Lowering {
    /// A call of this runtime function; `may_throw` adds the position id.
    Call { sig: RtSig, may_throw: bool },
    /// A Cranelift instruction or a short inline sequence (in `translate`).
    Inline,
}

/// The lowering of each runtime function (the args are the IR's; a
/// `may_throw` call gets one more, the position id).
pub fn lowering(f: RuntimeFn) -> Lowering {
    use RuntimeFn as R;
    let call = |sig: RtSig| Lowering::Call {
        sig,
        may_throw: false,
    };
    let throwing = |sig: RtSig| Lowering::Call {
        sig,
        may_throw: true,
    };
    match f {
        R::PrintInt => call(sig("toy_print_int", &[I], None)),
        R::PrintFloat => call(sig("toy_print_float", &[F], None)),
        R::PrintBool => call(sig("toy_print_bool", &[B], None)),
        R::PrintStr => call(sig("toy_print_str", &[P], None)),
        R::PrintValue => call(sig("toy_print_value", &[P, I], None)),
        R::PrintSpace => call(sig("toy_print_space", &[], None)),
        R::PrintNewline => call(sig("toy_print_newline", &[], None)),
        R::Clock => call(sig("toy_clock", &[], Some(F))),
        R::Exit => call(sig("toy_exit", &[I], None)),
        R::Sqrt | R::Floor | R::Ceil | R::Fabs => Lowering::Inline,
        R::Sin => call(sig("toy_sin", &[F], Some(F))),
        R::Cos => call(sig("toy_cos", &[F], Some(F))),
        R::Tan => call(sig("toy_tan", &[F], Some(F))),
        R::Atan => call(sig("toy_atan", &[F], Some(F))),
        R::Exp => call(sig("toy_exp", &[F], Some(F))),
        R::Ln => call(sig("toy_ln", &[F], Some(F))),
        R::Atan2 => call(sig("toy_atan2", &[F, F], Some(F))),
        R::Pow => call(sig("toy_pow", &[F, F], Some(F))),
        R::FMod => call(sig("toy_fmod", &[F, F], Some(F))),
        R::StrConcat => call(sig("toy_str_concat", &[P, P], Some(P))),
        R::StrEq => call(sig("toy_str_eq", &[P, P], Some(B))),
        R::StrCmp => call(sig("toy_str_cmp", &[P, P], Some(I))),
        R::StrLen | R::StrByte => Lowering::Inline,
        R::StrOfInt => call(sig("toy_str_of_int", &[I], Some(P))),
        R::StrOfFloat => call(sig("toy_str_of_float", &[F], Some(P))),
        R::StrOfBool => call(sig("toy_str_of_bool", &[B], Some(P))),
        R::Substr => throwing(sig("toy_substr", &[P, I, I, I], Some(P))),
        R::Chr => throwing(sig("toy_chr", &[I, I], Some(P))),
        R::Fixed => call(sig("toy_fixed", &[F, I], Some(P))),
        R::ParseInt => throwing(sig("toy_parse_int", &[P, I], Some(I))),
        R::ParseFloat => throwing(sig("toy_parse_float", &[P, I], Some(F))),
        // The element travels as its 8-byte slot image (see `translate::slot_image`),
        // whatever its size in the array (runtime::heap).
        R::ArrayPush => call(sig("toy_array_push", &[P, I], None)),
        R::ArrayPop => call(sig("toy_array_pop", &[P], Some(I))),
        // The argument is the type tag of `[str]` (for the array header).
        R::Args => call(sig("toy_args", &[I], Some(P))),
    }
}

/// Runtime entry points used by codegen itself (not named by the IR).
pub mod internal {
    use super::*;
    pub const RAISE_THROW: RtSig = sig("toy_raise_throw", &[P, I], None);
    pub const RAISE_DIV_ZERO: RtSig = sig("toy_raise_div_zero", &[I], None);
    pub const RAISE_INDEX: RtSig = sig("toy_raise_index", &[I, I, I], None);
    pub const RAISE_NIL: RtSig = sig("toy_raise_nil", &[I], None);
    pub const RAISE_NEGATIVE_LENGTH: RtSig = sig("toy_raise_negative_length", &[I], None);
    pub const RAISE_POP_EMPTY: RtSig = sig("toy_raise_pop_empty", &[I], None);
    pub const RAISE_ASSERT: RtSig = sig("toy_raise_assert", &[I], None);
    pub const RAISE_ASSERT_MSG: RtSig = sig("toy_raise_assert_msg", &[P, I], None);
    pub const TAKE_EXCEPTION: RtSig = sig("toy_take_exception", &[], Some(P));
    pub const STACK_OVERFLOW: RtSig = sig("toy_stack_overflow", &[], None);
    pub const ALLOC: RtSig = sig("toy_alloc", &[I, I], Some(P));
    /// (tag, length, fill as a slot image, element size).
    pub const ARRAY_NEW: RtSig = sig("toy_array_new", &[I, I, I, I], Some(P));
}
