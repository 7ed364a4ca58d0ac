//! The Bril program as both input formats (text and JSON) produce it.
//!
//! Invariants:
//! - Names are stored without their sigils: a function `@f` is `f`, a
//!   label `.l` is `l`.
//! - An instruction keeps Bril's three operand lists apart, as the JSON
//!   form does: `args` (variables), `funcs` (callees), `labels` (targets).
//! - Every span points into the file the program was read from (for JSON,
//!   the object that held the function or instruction).
use crate::span::Span;

/// A Bril type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BrilType {
    Int,
    Bool,
    Float,
    Char,
    Ptr(Box<BrilType>),
}

impl std::fmt::Display for BrilType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BrilType::Int => write!(f, "int"),
            BrilType::Bool => write!(f, "bool"),
            BrilType::Float => write!(f, "float"),
            BrilType::Char => write!(f, "char"),
            BrilType::Ptr(t) => write!(f, "ptr<{t}>"),
        }
    }
}

/// A literal of `const`; which Bril type it becomes is the destination's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Int(i64),
    Float(f64),
    Bool(bool),
    Char(char),
}

#[derive(Clone, Debug, Default)]
pub struct Program {
    pub functions: Vec<Function>,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: BrilType,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub ret: Option<BrilType>,
    pub items: Vec<Item>,
    /// The function's name (`@main`).
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Label { name: String, span: Span },
    Instr(Instr),
}

#[derive(Clone, Debug)]
pub struct Instr {
    pub op: String,
    pub dest: Option<String>,
    pub ty: Option<BrilType>,
    pub args: Vec<String>,
    pub funcs: Vec<String>,
    pub labels: Vec<String>,
    /// The literal of a `const`.
    pub value: Option<Literal>,
    /// The whole instruction.
    pub span: Span,
}
