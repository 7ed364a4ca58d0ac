//! Marking: from the roots, through every reference a live object holds.
//!
//! The layout of an object comes from its header's type tag ([`Layout`],
//! derived from the run's type-descriptor table):
//! - a string holds its bytes inline or in a shared buffer whose first byte
//!   its `data` points at (the buffer block starts 16 bytes before: `cap`,
//!   `used`); the buffer is marked, never scanned;
//! - an array holds its element buffer (marked) and, when its elements are
//!   references, elements `0..len` (scanned; slots past `len` are dead);
//! - a struct holds one slot per field; the reference fields are scanned.
//!
//! Marking is iterative (an explicit stack), so a list of a million nodes
//! needs no deep recursion.

use super::space::{Marked, Space};
use crate::runtime::heap::{ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, TypeDesc};
use crate::runtime::object::{BUF_HEADER_SIZE, STR_DATA_OFFSET, STR_OBJ_SIZE};

/// What the collector needs to know of one type tag.
#[derive(Clone, Debug, PartialEq)]
pub enum Layout {
    /// No heap object has this tag (int, float, bool).
    Scalar,
    Str,
    Array {
        elem_ref: bool,
    },
    /// The indices of the fields that hold references.
    Struct {
        ref_fields: Box<[u32]>,
    },
}

fn is_ref(desc: Option<&TypeDesc>) -> bool {
    matches!(
        desc,
        Some(TypeDesc::Str | TypeDesc::Array(_) | TypeDesc::Struct { .. })
    )
}

/// The layout of every tag of `types`.
pub fn layouts(types: &[TypeDesc]) -> Vec<Layout> {
    types
        .iter()
        .map(|d| match d {
            TypeDesc::Int | TypeDesc::Float | TypeDesc::Bool => Layout::Scalar,
            TypeDesc::Str => Layout::Str,
            TypeDesc::Array(elem) => Layout::Array {
                elem_ref: is_ref(types.get(*elem as usize)),
            },
            TypeDesc::Struct { fields, .. } => Layout::Struct {
                ref_fields: fields
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, t))| is_ref(types.get(*t as usize)))
                    .map(|(i, _)| i as u32)
                    .collect(),
            },
        })
        .collect()
}

/// The marker's state for one collection.
pub struct Marker<'a> {
    pub space: &'a mut Space,
    pub layouts: &'a [Layout],
    pub stack: &'a mut Vec<usize>,
    /// Objects marked so far.
    pub objects: usize,
}

impl Marker<'_> {
    /// Marks the object at `p` (a reference value: 0 is nil) and queues it
    /// for scanning if it was not marked yet.
    pub fn object(&mut self, p: u64) {
        if p != 0 && self.space.mark(p as usize) == Marked::New {
            self.objects += 1;
            self.stack.push(p as usize);
        }
    }

    /// Scans queued objects until none is left.
    pub fn drain(&mut self) {
        while let Some(p) = self.stack.pop() {
            // SAFETY: only marked heap objects are queued; each starts with
            // its tag word and has the layout of its tag.
            unsafe { self.scan(p) };
        }
    }

    /// # Safety
    /// `p` must be a live heap object.
    unsafe fn scan(&mut self, p: usize) {
        let word = |off: i32| {
            // SAFETY: by the caller's contract the object has this word.
            unsafe { ((p + off as usize) as *const u64).read() }
        };
        let tag = word(0) as usize;
        let layouts = self.layouts;
        match layouts.get(tag) {
            Some(Layout::Str) => {
                let data = word(STR_DATA_OFFSET) as usize;
                if data != 0 && data != p + STR_OBJ_SIZE {
                    self.space.mark(data - BUF_HEADER_SIZE);
                }
            }
            Some(Layout::Array { elem_ref }) => {
                let data = word(ARRAY_DATA_OFFSET) as usize;
                if data == 0 {
                    return;
                }
                self.space.mark(data);
                if *elem_ref {
                    let len = word(ARRAY_LEN_OFFSET) as usize;
                    for i in 0..len {
                        // SAFETY: `data` holds `cap >= len` 8-byte slots.
                        let x = unsafe { (data as *const u64).add(i).read() };
                        self.object(x);
                    }
                }
            }
            Some(Layout::Struct { ref_fields }) => {
                for &f in ref_fields.iter() {
                    self.object(word(8 + 8 * f as i32));
                }
            }
            Some(Layout::Scalar) | None => {}
        }
    }
}
