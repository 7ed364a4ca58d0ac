//! The Cranelift side of Toy's types: the machine type of each Toy type,
//! and the signatures of Toy functions and of runtime functions.
//!
//! A Toy `bool` is an `i8`; every reference (`str`, arrays, structs) is an
//! `i64` pointer; a runtime function's `bool` parameter or result is
//! zero-extended at the call boundary.
use super::rtfn::{RtSig, RtTy};
use crate::ir::{IrCode, Type};
use cranelift_codegen::ir::{self as cl, AbiParam, Signature, types};

/// The Cranelift type of a Toy type (`None` for `Void`).
pub fn cl_type(t: &Type) -> Option<cl::Type> {
    match t {
        Type::Void => None,
        Type::Int => Some(types::I64),
        Type::Float => Some(types::F64),
        Type::Bool => Some(types::I8),
        Type::Str | Type::Array(_) | Type::Struct(_) => Some(types::I64),
    }
}

/// The signature of a Toy function.
pub fn toy_signature(code: &IrCode, call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    let mut sig = Signature::new(call_conv);
    for p in &code.params {
        if let Some(t) = cl_type(p) {
            sig.params.push(AbiParam::new(t));
        }
    }
    if let Some(t) = cl_type(&code.ret) {
        sig.returns.push(AbiParam::new(t));
    }
    sig
}

fn rt_abi(t: RtTy) -> AbiParam {
    match t {
        RtTy::I | RtTy::P => AbiParam::new(types::I64),
        RtTy::F => AbiParam::new(types::F64),
        RtTy::B => AbiParam::new(types::I8).uext(),
    }
}

/// The signature of a runtime function.
pub fn rt_signature(sig: &RtSig, call_conv: cranelift_codegen::isa::CallConv) -> Signature {
    let mut s = Signature::new(call_conv);
    s.params.extend(sig.params.iter().map(|t| rt_abi(*t)));
    s.returns.extend(sig.ret.map(rt_abi));
    s
}
