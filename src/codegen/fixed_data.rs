//! Array buffers a function cannot move. An array's elements live in a
//! buffer whose address is the word at offset 24 of the array object
//! (`runtime::heap::ARRAY_DATA_OFFSET`); only a runtime call that writes the
//! array's length (`push`, `pop`) replaces it, and the collector never
//! moves it. So in a function where no statement, and no callee by the
//! call summaries of `memssa::alias`, may write the length of an existing
//! array of element type `T`, every `[T]` keeps its buffer for the whole
//! call: the load of that address is an invariant load
//! ([`super::invariant`]), hoisted out of the loops the array is defined
//! outside of and shared by the accesses of one array (LLVM's
//! `invariant.load`), and flagged `readonly` and `can_move`. Otherwise each
//! element access reloads the address, since an element store or a call
//! might have replaced it.
//!
//! Invariants this rests on:
//! - an array value is always a live array object (arrays are never nil,
//!   `Undef` is never an array), so the load may run earlier than written;
//! - an allocation in the function writes only its own fresh array's
//!   header, before anything can load from that array (the load takes the
//!   allocation's result), so allocations do not count as writes here;
//! - the buffer address is a derived pointer: the stack maps count its
//!   uses as uses of the array, which so stays a root wherever its buffer
//!   is read or written.

use crate::ir::{Inst, IrCode, Loc, Type};
use crate::memssa::alias::{Class, ClassSet, Summaries, add_effect, inst_effect};

/// What a function, callees included, may write, as location classes: an
/// array of element type `T` may get a new buffer while it runs when
/// `Len(T)` is among them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MovableData {
    writes: ClassSet,
}

impl MovableData {
    /// Nothing is known: every buffer may move.
    pub fn anything() -> MovableData {
        MovableData {
            writes: ClassSet::everything(),
        }
    }

    /// Whether the buffer of every array of element type `elem` stays put.
    pub fn is_fixed(&self, elem: &Type) -> bool {
        !self.writes.contains(&Class::Len(elem.clone()))
    }

    /// What function `ir` may do to array buffers, given the summaries of
    /// the functions it calls.
    pub fn of_function(ir: &IrCode, sums: &Summaries) -> MovableData {
        let mut writes = ClassSet::default();
        for (s, inst) in ir.stmts.inst.iter() {
            match inst {
                Inst::NewArray { .. } => {}
                Inst::Store {
                    loc: Loc::ArrayLen, ..
                }
                | Inst::Call { .. }
                | Inst::Runtime { .. } => {
                    if let Some(effect) = inst_effect(ir, s, inst, sums) {
                        add_effect(&mut writes, &effect.writes);
                    }
                }
                _ => {}
            }
            if writes.all {
                break;
            }
        }
        MovableData { writes }
    }
}
