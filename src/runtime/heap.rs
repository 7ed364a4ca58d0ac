//! Arrays, the type-descriptor table, composite printing and `args()`.
//!
//! Array object: `[tag, len, cap, data]` (offsets 0, 8, 16, 24); `data`
//! points to `cap` 8-byte slots, each holding one element's slot image (an
//! int, a float's bits, a bool in the low byte, or a reference). Growing
//! allocates a new buffer (twice the capacity) through the allocator.

use super::object::{self, StrObj};
use super::output::{emit_bytes, format_float};
use std::sync::Mutex;

pub const ARRAY_LEN_OFFSET: i32 = 8;
pub const ARRAY_CAP_OFFSET: i32 = 16;
pub const ARRAY_DATA_OFFSET: i32 = 24;

#[repr(C)]
pub struct ArrayObj {
    pub tag: u64,
    pub len: i64,
    pub cap: i64,
    pub data: *mut u64,
}

/// What a type tag stands for; codegen builds the table, tag 0 is `str`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDesc {
    Int,
    Float,
    Bool,
    Str,
    /// `[T]` with `T`'s tag.
    Array(u64),
    /// A struct: its name and (field name, field tag) in declaration order.
    Struct { name: String, fields: Vec<(String, u64)> },
}

static TYPES: Mutex<Vec<TypeDesc>> = Mutex::new(Vec::new());
static ARGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Installs the type table and the program's arguments for a run.
pub fn install(types: Vec<TypeDesc>, args: Vec<String>) {
    *TYPES.lock().unwrap_or_else(|e| e.into_inner()) = types;
    *ARGS.lock().unwrap_or_else(|e| e.into_inner()) = args;
}

fn slots(cap: usize) -> *mut u64 {
    if cap == 0 {
        return std::ptr::null_mut();
    }
    match cap.checked_mul(8) {
        Some(bytes) if bytes < isize::MAX as usize / 2 => object::alloc_bytes(bytes) as *mut u64,
        _ => object::out_of_memory(),
    }
}

/// `[fill; len]` (`len >= 0`, checked by the IR).
pub extern "C" fn toy_array_new(tag: u64, len: i64, fill: u64) -> *mut ArrayObj {
    let len = len.max(0);
    let a = object::toy_alloc(std::mem::size_of::<ArrayObj>() as u64, tag) as *mut ArrayObj;
    let data = slots(len as usize);
    // SAFETY: `a` is a fresh object of the array size; `data` has `len` slots.
    unsafe {
        (*a).len = len;
        (*a).cap = len;
        (*a).data = data;
        for i in 0..len as usize {
            data.add(i).write(fill);
        }
    }
    a
}

pub extern "C" fn toy_array_push(a: *mut ArrayObj, x: u64) {
    // SAFETY: compiled code passes a live, non-nil array.
    unsafe {
        let a = &mut *a;
        if a.len == a.cap {
            let cap = (a.cap as usize * 2).max(4);
            let data = slots(cap);
            if a.len > 0 {
                std::ptr::copy_nonoverlapping(a.data, data, a.len as usize);
            }
            a.data = data;
            a.cap = cap as i64;
        }
        a.data.add(a.len as usize).write(x);
        a.len += 1;
    }
}

/// Removes and returns the last element (non-empty, checked by the IR).
pub extern "C" fn toy_array_pop(a: *mut ArrayObj) -> u64 {
    // SAFETY: compiled code passes a live, non-nil, non-empty array.
    unsafe {
        let a = &mut *a;
        if a.len <= 0 {
            return 0;
        }
        a.len -= 1;
        a.data.add(a.len as usize).read()
    }
}

/// `args()`: the program's arguments as a new `[str]` with tag `tag`.
pub extern "C" fn toy_args(tag: u64) -> *mut ArrayObj {
    let args = ARGS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let a = toy_array_new(tag, 0, 0);
    for s in args {
        toy_array_push(a, object::new_str(s.as_bytes()) as u64);
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
                let x = unsafe { a.data.add(i).read() };
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

    #[test]
    fn composite_printing() {
        let types = vec![
            TypeDesc::Str,
            TypeDesc::Int,
            TypeDesc::Array(1),
            TypeDesc::Array(0),
            TypeDesc::Struct { name: "P".into(), fields: vec![("x".into(), 1), ("s".into(), 0)] },
        ];
        let a = toy_array_new(2, 0, 0);
        for i in 1..=3 {
            toy_array_push(a, i);
        }
        let mut out = Vec::new();
        write_value(&mut out, &types, 2, a as u64, 0);
        assert_eq!(String::from_utf8_lossy(&out), "[1, 2, 3]");
        let s = toy_array_new(3, 1, object::new_str(b"a\n") as u64);
        out.clear();
        write_value(&mut out, &types, 3, s as u64, 0);
        assert_eq!(String::from_utf8_lossy(&out), "[\"a\\n\"]");
        let p = object::toy_alloc(24, 4) as *mut u64;
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
        assert_eq!(toy_array_pop(a), 3);
    }
}
