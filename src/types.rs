//! The types and ids every stage shares: the front end assigns them, the IR
//! and the back ends read them. A base module: it imports nothing of the
//! compiler. The ids are `cranelift_entity::EntityRef`s, so per-id data can
//! live in a `PrimaryMap`/`SecondaryMap` indexed by the id itself.

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FuncId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);
cranelift_entity::entity_impl!(FuncId);
cranelift_entity::entity_impl!(GlobalId);
cranelift_entity::entity_impl!(StructId);

/// A Toy type. `Void` is the "type" of a call to a function without `-> T`.
/// Ordered (by variant, then contents) so sets of types can be sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// Strings, arrays and structs are references (pointers at run time,
    /// traced by the collector).
    pub fn is_ref(&self) -> bool {
        matches!(self, Type::Array(_) | Type::Struct(_) | Type::Str)
    }
}
