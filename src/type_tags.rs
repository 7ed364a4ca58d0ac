//! The type-tag table of a program: the runtime's [`TypeDesc`] of every
//! Toy type that compiled code or the interpreter tags an object with (or
//! passes to a runtime function), numbered on first use. Codegen and the
//! interpreter both build theirs here and hand it to the runtime, which
//! reads an object's header tag to print, compare and trace it.

use crate::runtime::heap::TypeDesc;
use crate::sema::hir::Program;
use crate::types::Type;
use std::collections::HashMap;

/// The tags handed out so far; tag 0 is `str` (the header word of every
/// string).
pub struct TypeTags {
    /// The descriptor of each tag, indexed by tag.
    pub descs: Vec<TypeDesc>,
    ids: HashMap<Type, u64>,
}

impl Default for TypeTags {
    fn default() -> Self {
        TypeTags {
            descs: vec![TypeDesc::Str],
            ids: HashMap::from([(Type::Str, 0)]),
        }
    }
}

impl TypeTags {
    /// The tag of `ty` (struct names and fields from `program`), assigned
    /// with the tags of its element or field types on first use. A
    /// recursive struct gets its tag before its fields are described.
    pub fn tag(&mut self, program: &Program, ty: &Type) -> u64 {
        if let Some(t) = self.ids.get(ty) {
            return *t;
        }
        let tag = self.descs.len() as u64;
        self.ids.insert(ty.clone(), tag);
        self.descs.push(TypeDesc::Int);
        let desc = match ty {
            Type::Void | Type::Int => TypeDesc::Int,
            Type::Float => TypeDesc::Float,
            Type::Bool => TypeDesc::Bool,
            Type::Str => TypeDesc::Str,
            Type::Array(elem) => TypeDesc::Array(self.tag(program, elem)),
            Type::Struct(sid) => match program.structs.get(sid.0 as usize) {
                Some(def) => TypeDesc::Struct {
                    name: def.name.clone(),
                    fields: def
                        .fields
                        .iter()
                        .map(|f| (f.name.clone(), self.tag(program, &f.ty)))
                        .collect(),
                },
                None => TypeDesc::Struct {
                    name: format!("<struct {}>", sid.0),
                    fields: Vec::new(),
                },
            },
        };
        self.descs[tag as usize] = desc;
        tag
    }
}
