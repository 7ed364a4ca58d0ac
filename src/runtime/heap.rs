//! Arrays, the type-descriptor table, composite printing and `args()`.
//!
//! Array object: `[tag, len, cap, data, elem_size]` (offsets 0, 8, 16, 24,
//! 32); `data` points to `cap` elements of `elem_size` bytes each, fixed when
//! the array is made: 1 for `[bool]` (the bool's byte, 0 or 1), 8 for every
//! other element type (an int, a float's bits, or a reference). The runtime
//! functions pass an element as its 8-byte slot image (a bool in the low
//! byte) whatever its size in the array. Growing allocates a new buffer
//! (twice the capacity) through the allocator.

use super::object::{self, StrObj};
use super::output::{emit_bytes, format_float};
use std::sync::Mutex;

pub const ARRAY_LEN_OFFSET: i32 = 8;
pub const ARRAY_CAP_OFFSET: i32 = 16;
pub const ARRAY_DATA_OFFSET: i32 = 24;
/// Element sizes: of `[bool]`, and of every other array.
pub const BOOL_ELEM_SIZE: i64 = 1;
pub const SLOT_ELEM_SIZE: i64 = 8;

/// The element size of an array whose elements are bools or not
/// (codegen and the interpreter pass it to [`toy_array_new`]).
pub fn elem_size(bool_elements: bool) -> i64 {
    if bool_elements {
        BOOL_ELEM_SIZE
    } else {
        SLOT_ELEM_SIZE
    }
}

#[repr(C)]
pub struct ArrayObj {
    pub tag: u64,
    pub len: i64,
    pub cap: i64,
    pub data: *mut u8,
    pub elem_size: i64,
}

impl ArrayObj {
    /// Element `i`'s slot image.
    ///
    /// # Safety
    /// `i < cap`, and `data` holds `cap` elements of `elem_size` bytes.
    pub unsafe fn get(&self, i: usize) -> u64 {
        // SAFETY: by the caller's contract.
        unsafe {
            if self.elem_size == BOOL_ELEM_SIZE {
                self.data.add(i).read() as u64
            } else {
                (self.data as *const u64).add(i).read()
            }
        }
    }

    /// Sets element `i` from its slot image.
    ///
    /// # Safety
    /// As [`ArrayObj::get`].
    pub unsafe fn set(&mut self, i: usize, x: u64) {
        // SAFETY: by the caller's contract.
        unsafe {
            if self.elem_size == BOOL_ELEM_SIZE {
                self.data.add(i).write((x & 0xff != 0) as u8)
            } else {
                (self.data as *mut u64).add(i).write(x)
            }
        }
    }
}

/// What a type tag stands for; the compiler builds the table (codegen or the
/// interpreter), tag 0 is `str`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDesc {
    Int,
    Float,
    Bool,
    Str,
    /// `[T]` with `T`'s tag.
    Array(u64),
    /// A struct: its name and (field name, field tag) in declaration order.
    Struct {
        name: String,
        fields: Vec<(String, u64)>,
    },
}

static TYPES: Mutex<Vec<TypeDesc>> = Mutex::new(Vec::new());
static ARGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Installs the type table and the program's arguments for a run.
pub fn install(types: Vec<TypeDesc>, args: Vec<String>) {
    super::gc::install_layouts(super::gc::mark::layouts(&types));
    *TYPES.lock().unwrap_or_else(|e| e.into_inner()) = types;
    *ARGS.lock().unwrap_or_else(|e| e.into_inner()) = args;
}

fn elements(cap: usize, elem_size: i64) -> *mut u8 {
    if cap == 0 {
        return std::ptr::null_mut();
    }
    match cap.checked_mul(elem_size as usize) {
        Some(bytes) if bytes < isize::MAX as usize / 2 => super::gc::alloc(bytes),
        _ => object::out_of_memory(),
    }
}

/// `[fill; len]` (`len >= 0`, checked by the IR) with elements of
/// `elem_size` bytes ([`BOOL_ELEM_SIZE`] or [`SLOT_ELEM_SIZE`]). A
/// safepoint.
pub extern "C" fn toy_array_new(tag: u64, len: i64, fill: u64, elem_size: i64) -> *mut ArrayObj {
    super::gc::safepoint_with_elem(&[], tag, fill);
    array_new(tag, len, fill, elem_size)
}

/// As [`toy_array_new`], without a safepoint.
fn array_new(tag: u64, len: i64, fill: u64, elem_size: i64) -> *mut ArrayObj {
    let len = len.max(0);
    let elem_size = if elem_size == BOOL_ELEM_SIZE {
        BOOL_ELEM_SIZE
    } else {
        SLOT_ELEM_SIZE
    };
    let a = object::alloc_object(std::mem::size_of::<ArrayObj>() as u64, tag) as *mut ArrayObj;
    let data = elements(len as usize, elem_size);
    // SAFETY: `a` is a fresh object of the array size; `data` has `len`
    // elements, already zero.
    unsafe {
        (*a).len = len;
        (*a).cap = len;
        (*a).data = data;
        (*a).elem_size = elem_size;
        if elem_size == BOOL_ELEM_SIZE {
            if fill & 0xff != 0 {
                std::ptr::write_bytes(data, 1, len as usize);
            }
        } else if fill != 0 {
            for i in 0..len as usize {
                (*a).set(i, fill);
            }
        }
    }
    a
}

/// Appends `x` (an element's slot image), growing the buffer when full.
/// A safepoint.
///
/// # Safety
/// `a` must be a live array object made by [`toy_array_new`] or
/// [`toy_args`] (Toy arrays are never nil); codegen passes only values of
/// array type, which the IR verifier checks.
pub unsafe extern "C" fn toy_array_push(a: *mut ArrayObj, x: u64) {
    // SAFETY: compiled code passes a live, non-nil array.
    let tag = unsafe { (*a).tag };
    super::gc::safepoint_with_elem(&[a as u64], tag, x);
    // SAFETY: as above.
    unsafe { array_push(a, x) }
}

/// As [`toy_array_push`], without a safepoint.
///
/// # Safety
/// As [`toy_array_push`].
unsafe fn array_push(a: *mut ArrayObj, x: u64) {
    // SAFETY: by the caller's contract.
    unsafe {
        let a = &mut *a;
        if a.len == a.cap {
            let cap = (a.cap as usize * 2).max(4);
            let data = elements(cap, a.elem_size);
            if a.len > 0 {
                std::ptr::copy_nonoverlapping(a.data, data, a.len as usize * a.elem_size as usize);
            }
            a.data = data;
            a.cap = cap as i64;
        }
        a.set(a.len as usize, x);
        a.len += 1;
    }
}

/// Removes and returns the last element (non-empty, checked by the IR).
///
/// # Safety
/// As for [`toy_array_push`]; an empty array returns 0.
pub unsafe extern "C" fn toy_array_pop(a: *mut ArrayObj) -> u64 {
    // SAFETY: compiled code passes a live, non-nil, non-empty array.
    unsafe {
        let a = &mut *a;
        if a.len <= 0 {
            return 0;
        }
        a.len -= 1;
        a.get(a.len as usize)
    }
}

/// `args()`: the program's arguments as a new `[str]` with tag `tag`.
pub extern "C" fn toy_args(tag: u64) -> *mut ArrayObj {
    super::gc::safepoint(&[]);
    let args = ARGS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let a = array_new(tag, 0, 0, SLOT_ELEM_SIZE);
    for s in args {
        // SAFETY: `a` is the live array just made.
        unsafe { array_push(a, object::new_str(s.as_bytes()) as u64) };
    }
    a
}

const MAX_DEPTH: usize = 200;

fn write_value(out: &mut Vec<u8>, types: &[TypeDesc], tag: u64, bits: u64, depth: usize) {
    let desc = types.get(tag as usize).cloned().unwrap_or(TypeDesc::Int);
    match desc {
        TypeDesc::Int => out.extend_from_slice((bits as i64).to_string().as_bytes()),
        TypeDesc::Float => out.extend_from_slice(format_float(f64::from_bits(bits)).as_bytes()),
        TypeDesc::Bool => out.extend_from_slice(if bits & 0xff != 0 { b"true" } else { b"false" }),
        TypeDesc::Str if bits == 0 => out.extend_from_slice(b"nil"),
        TypeDesc::Str => {
            // SAFETY: a non-null str slot holds a live string object.
            let b = unsafe { object::str_bytes(bits as *const StrObj) };
            out.extend_from_slice(format!("{:?}", String::from_utf8_lossy(b)).as_bytes());
        }
        _ if bits == 0 => out.extend_from_slice(b"nil"),
        _ if depth >= MAX_DEPTH => out.extend_from_slice(b"..."),
        TypeDesc::Array(elem) => {
            // SAFETY: a non-nil array slot holds a live array object.
            let a = unsafe { &*(bits as *const ArrayObj) };
            out.push(b'[');
            for i in 0..a.len.max(0) as usize {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                // SAFETY: i < len <= cap.
                let x = unsafe { a.get(i) };
                write_value(out, types, elem, x, depth + 1);
            }
            out.push(b']');
        }
        TypeDesc::Struct { name, fields } => {
            out.extend_from_slice(name.as_bytes());
            if fields.is_empty() {
                out.extend_from_slice(b" {}");
                return;
            }
            out.extend_from_slice(b" { ");
            for (i, (fname, ftag)) in fields.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                out.extend_from_slice(fname.as_bytes());
                out.extend_from_slice(b": ");
                // SAFETY: a struct object has one slot per field after its header.
                let x = unsafe { (bits as *const u64).add(1 + i).read() };
                write_value(out, types, *ftag, x, depth + 1);
            }
            out.extend_from_slice(b" }");
        }
    }
}

/// Prints an array or struct (`tag` is its static type's tag); strings
/// nested inside are quoted.
pub extern "C" fn toy_print_value(r: u64, tag: u64) {
    let types = TYPES.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut out = Vec::new();
    write_value(&mut out, &types, tag, r, 0);
    emit_bytes(&out);
}

pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("toy_alloc", object::toy_alloc as *const u8),
        ("toy_array_new", toy_array_new as *const u8),
        ("toy_array_push", toy_array_push as *const u8),
        ("toy_array_pop", toy_array_pop as *const u8),
        ("toy_args", toy_args as *const u8),
        ("toy_print_value", toy_print_value as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Safe wrappers for tests whose every array is runtime-made.
    fn push(a: *mut ArrayObj, x: u64) {
        // SAFETY: a live array from `toy_array_new`.
        unsafe { toy_array_push(a, x) }
    }
    fn pop(a: *mut ArrayObj) -> u64 {
        // SAFETY: a live array from `toy_array_new`.
        unsafe { toy_array_pop(a) }
    }

    #[test]
    fn composite_printing() {
        let types = vec![
            TypeDesc::Str,
            TypeDesc::Int,
            TypeDesc::Array(1),
            TypeDesc::Array(0),
            TypeDesc::Struct {
                name: "P".into(),
                fields: vec![("x".into(), 1), ("s".into(), 0)],
            },
        ];
        let a = toy_array_new(2, 0, 0, SLOT_ELEM_SIZE);
        for i in 1..=3 {
            push(a, i);
        }
        let mut out = Vec::new();
        write_value(&mut out, &types, 2, a as u64, 0);
        assert_eq!(String::from_utf8_lossy(&out), "[1, 2, 3]");
        let s = toy_array_new(3, 1, object::new_str(b"a\n") as u64, SLOT_ELEM_SIZE);
        out.clear();
        write_value(&mut out, &types, 3, s as u64, 0);
        assert_eq!(String::from_utf8_lossy(&out), "[\"a\\n\"]");
        let p = object::alloc_object(24, 4) as *mut u64;
        // SAFETY: a 3-slot object.
        unsafe {
            p.add(1).write(7);
            p.add(2).write(object::new_str(b"hi") as u64);
        }
        out.clear();
        write_value(&mut out, &types, 4, p as u64, 0);
        assert_eq!(String::from_utf8_lossy(&out), "P { x: 7, s: \"hi\" }");
        out.clear();
        write_value(&mut out, &types, 4, 0, 0);
        assert_eq!(String::from_utf8_lossy(&out), "nil");
        assert_eq!(pop(a), 3);
    }

    /// `[bool]` elements are single bytes: `n` elements take `n` bytes of
    /// buffer, survive growth, and writes leave neighbours alone.
    #[test]
    fn bool_arrays_use_one_byte_per_element() {
        let types = vec![TypeDesc::Str, TypeDesc::Bool, TypeDesc::Array(1)];
        let before = object::allocated_bytes();
        let a = toy_array_new(2, 1000, 1, elem_size(true));
        let used = object::allocated_bytes() - before;
        assert_eq!(used, std::mem::size_of::<ArrayObj>() as u64 + 1000);
        // SAFETY: a live array of 1000 elements.
        unsafe {
            (*a).set(1, 0);
            assert_eq!(((*a).get(0), (*a).get(1), (*a).get(2)), (1, 0, 1));
            let data = std::slice::from_raw_parts((*a).data, 4);
            assert_eq!(data, &[1, 0, 1, 1]);
        }
        let b = toy_array_new(2, 0, 0, BOOL_ELEM_SIZE);
        for i in 0..9u64 {
            push(b, (i % 2 == 0) as u64);
        }
        assert_eq!(pop(b), 1);
        let mut out = Vec::new();
        write_value(&mut out, &types, 2, b as u64, 0);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "[true, false, true, false, true, false, true, false]"
        );
    }
}
