//! The printed names of operations, read back: each table lists every
//! variant once and takes its name from the printer, so the two cannot
//! disagree (a variant missing here fails the round-trip test of
//! `tests/it/ir/parse.rs` on the first program that prints it).

use crate::ir::print::{binary_name, raise_name, runtime_name, unary_name};
use crate::ir::{BinaryOp, Cmp, RaiseKind, RuntimeFn, UnaryOp};

const CMPS: [Cmp; 7] = [
    Cmp::Eq,
    Cmp::Ne,
    Cmp::Lt,
    Cmp::Le,
    Cmp::Gt,
    Cmp::Ge,
    Cmp::Ult,
];

pub fn unary(name: &str) -> Option<UnaryOp> {
    use UnaryOp::*;
    [INeg, FNeg, Not, IntToFloat, FloatToInt]
        .into_iter()
        .find(|&op| unary_name(op) == name)
}

pub fn binary(name: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    let plain = [
        IAdd, ISub, IMul, IDiv, IRem, IAnd, IOr, IXor, IShl, IShr, FAdd, FSub, FMul, FDiv, FRem,
    ];
    plain
        .into_iter()
        .chain(CMPS.iter().map(|&c| ICmp(c)))
        .chain(CMPS.iter().map(|&c| FCmp(c)))
        .find(|&op| binary_name(op) == name)
}

pub fn runtime(name: &str) -> Option<RuntimeFn> {
    crate::rtfns::RUNTIME
        .iter()
        .map(|row| row.func)
        .find(|&f| runtime_name(f) == name)
}

pub fn raise(name: &str) -> Option<RaiseKind> {
    use RaiseKind::*;
    [
        Throw,
        DivisionByZero,
        IndexOutOfBounds,
        NilDereference,
        NegativeArrayLength,
        PopFromEmpty,
        AssertionFailed,
    ]
    .into_iter()
    .find(|&k| raise_name(k) == name)
}
