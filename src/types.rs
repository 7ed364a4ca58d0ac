//! The types and ids every stage shares: the front end assigns them, the IR
//! and the back ends read them. A base module: it imports nothing of the
//! compiler.

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FuncId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A Toy type. `Void` is the "type" of a call to a function without `-> T`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Int,
    Float,
    Bool,
    Str,
    Array(Box<Type>),
    Struct(StructId),
}

impl Type {
    /// Struct and array values are references (pointers at run time).
    pub fn is_ref(&self) -> bool {
        matches!(self, Type::Array(_) | Type::Struct(_) | Type::Str)
    }
}
