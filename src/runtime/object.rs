//! Heap objects and the one allocation entry point.
//!
//! Every heap object starts with a one-word header holding its type tag (an
//! index into the type-descriptor table; [`TAG_STR`] for strings), so that a
//! collector can later find the layout of any object from its first word.
//! Layouts (all fields 8 bytes, little-endian, 8-byte aligned):
//! - string: `[tag, len, data]` — `data` points to the string's `len` bytes
//!   (not NUL-terminated, any bytes: Toy strings are byte strings). The bytes
//!   are either *inline*, right after the object (`data == self + 24`), or
//!   in a *string buffer* `[cap, used, bytes...]` made by `+`, where `data`
//!   is the buffer's first byte, so its `cap` and `used` words sit at
//!   `data - 16` and `data - 8` ([`BUF_CAP_OFFSET`], [`BUF_USED_OFFSET`]).
//!   A buffer never starts at `self + 24` (it would overlap the object), so
//!   the two cases are told apart by `data` alone.
//! - array: `[tag, len, cap, data, elem_size]` — `data` points to `cap`
//!   elements of `elem_size` bytes: 1 for `[bool]`, else 8 (see
//!   [`super::heap`]).
//! - struct: `[tag, field0, field1, ...]` — one 8-byte slot per field.
//!
//! String invariants (strings are immutable values, yet `+` appends in place):
//! - A string object's `len` and `data` never change, nor do its bytes
//!   `data[0..len]`. Compiled code may therefore load them freely (and move
//!   those loads), and only ever reads `len` and `data[0..len]`.
//! - Every string sharing a buffer is a prefix of it: `data` is the buffer's
//!   start and `len <= used <= cap`. Bytes `used..cap` are unwritten room.
//! - `a + b` ([`super::strings::toy_str_concat`]) appends `b` *in place*
//!   when `a`'s bytes are in a buffer, `a` ends exactly at the buffer's used
//!   end (`a.len == used`) and the room suffices: it writes `b` at
//!   `data + used`, bumps `used`, and returns a new object `[tag, a.len +
//!   b.len, data]`; `a` still sees its own `len` bytes, which did not
//!   change. Otherwise it copies both into a fresh buffer with room for as
//!   much again (capacity doubles, as Go's `append`), so `n` appends to the
//!   newest string copy O(total length) bytes. A second `a + c` finds
//!   `used > a.len` and copies.
//! - Strings made by anything but `+` (constants, `str(x)`, `substr`, ...)
//!   have inline bytes, so the first append to them copies. String constants
//!   are emitted by codegen as read-only data with the same layout (`[tag,
//!   len, data, bytes...]`, `data` relocated to point at its own bytes, see
//!   [`str_const_image`]) and are never written.
//!
//! Memory comes from the collector ([`super::gc`]): every object and
//! buffer is a block of its heap. [`toy_alloc`] is a safepoint (compiled
//! code calls it through its trampoline); the other allocation functions
//! here never collect.

/// Type tag of strings.
pub const TAG_STR: u64 = 0;
/// Byte offset of a string's length, and of its data pointer.
pub const STR_LEN_OFFSET: i32 = 8;
pub const STR_DATA_OFFSET: i32 = 16;
/// Size of a string object.
pub const STR_OBJ_SIZE: usize = 24;
/// Offsets of a string buffer's capacity and used length from its first byte.
pub const BUF_CAP_OFFSET: isize = -16;
pub const BUF_USED_OFFSET: isize = -8;
/// Size of a string buffer's header (`cap`, `used`).
pub const BUF_HEADER_SIZE: usize = 16;

/// A string object (see the module docs for the invariants).
#[repr(C)]
pub struct StrObj {
    pub tag: u64,
    pub len: i64,
    pub data: *mut u8,
}

pub(crate) fn out_of_memory() -> ! {
    super::output::flush();
    eprintln!("error: out of memory");
    std::process::exit(101);
}

/// The allocation entry point of compiled code (a safepoint): `size`
/// zeroed bytes (at least the header), 8-byte aligned, with `tag` written
/// to the header word.
pub extern "C" fn toy_alloc(size: u64, tag: u64) -> *mut u8 {
    let p = super::gc::safepoint_alloc((size as usize).max(8));
    // SAFETY: p points to at least 8 writable, aligned bytes.
    unsafe { (p as *mut u64).write(tag) };
    p
}

/// As [`toy_alloc`], without a safepoint.
pub(crate) fn alloc_object(size: u64, tag: u64) -> *mut u8 {
    let p = super::gc::alloc((size as usize).max(8));
    // SAFETY: p points to at least 8 writable, aligned bytes.
    unsafe { (p as *mut u64).write(tag) };
    p
}

/// Bytes allocated so far on this thread (objects and buffers, rounded up
/// to 8); for tests and measurements of allocation behaviour.
pub fn allocated_bytes() -> u64 {
    super::gc::allocated_bytes()
}

/// A new string object `[tag, len, data]` with `data` pointing at the bytes.
///
/// # Safety
/// `data` must be the first byte of a string buffer holding at least `len`
/// written bytes (see the module docs).
pub(crate) unsafe fn new_str_obj(len: usize, data: *mut u8) -> *const StrObj {
    let p = alloc_object(STR_OBJ_SIZE as u64, TAG_STR) as *mut StrObj;
    // SAFETY: a fresh object of the string size.
    unsafe {
        (*p).len = len as i64;
        (*p).data = data;
    }
    p
}

/// A new empty string buffer with room for `cap` bytes (`used` is 0); returns
/// a pointer to its first byte.
pub(crate) fn new_buffer(cap: usize) -> *mut u8 {
    let size = match cap.checked_add(BUF_HEADER_SIZE) {
        Some(s) if s < isize::MAX as usize / 2 => s,
        _ => out_of_memory(),
    };
    let p = super::gc::alloc(size);
    // SAFETY: the block holds the header and `cap` bytes.
    unsafe {
        (p as *mut u64).write(cap as u64);
        (p as *mut u64).add(1).write(0);
        p.add(BUF_HEADER_SIZE)
    }
}

/// A string buffer's `(cap, used)`.
///
/// # Safety
/// `data` must be the first byte of a string buffer (not inline bytes).
pub(crate) unsafe fn buffer_state(data: *const u8) -> (usize, usize) {
    // SAFETY: the header words precede the first byte.
    unsafe {
        let cap = (data.offset(BUF_CAP_OFFSET) as *const u64).read();
        let used = (data.offset(BUF_USED_OFFSET) as *const u64).read();
        (cap as usize, used as usize)
    }
}

/// Sets a string buffer's `used`.
///
/// # Safety
/// `data` must be the first byte of a writable string buffer, and `used`
/// at most its capacity.
pub(crate) unsafe fn set_buffer_used(data: *mut u8, used: usize) {
    // SAFETY: by the caller's contract.
    unsafe { (data.offset(BUF_USED_OFFSET) as *mut u64).write(used as u64) };
}

/// A new string object holding `bytes` inline.
pub fn new_str(bytes: &[u8]) -> *const StrObj {
    let n = bytes.len();
    let size = match n.checked_add(STR_OBJ_SIZE) {
        Some(s) if s < isize::MAX as usize / 2 => s,
        _ => out_of_memory(),
    };
    let p = alloc_object(size as u64, TAG_STR);
    // SAFETY: the block holds the object and `n` bytes.
    unsafe {
        let data = p.add(STR_OBJ_SIZE);
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), data, n);
        let s = p as *mut StrObj;
        (*s).len = n as i64;
        (*s).data = data;
        s
    }
}

/// Whether a string's bytes are inline (then there is no buffer header).
///
/// # Safety
/// `s` must point to a live string object.
pub(crate) unsafe fn is_inline(s: *const StrObj) -> bool {
    // SAFETY: by the caller's contract.
    unsafe { (*s).data as usize == s as usize + STR_OBJ_SIZE }
}

/// The bytes of a string object.
///
/// # Safety
/// `s` must point to a live string object (runtime-made or a constant).
pub unsafe fn str_bytes<'a>(s: *const StrObj) -> &'a [u8] {
    // SAFETY: by the caller's contract `data` holds `len` bytes.
    unsafe {
        let len = (*s).len as usize;
        if len == 0 {
            return &[];
        }
        std::slice::from_raw_parts((*s).data, len)
    }
}

/// A string object's text, invalid UTF-8 replaced.
///
/// # Safety
/// As [`str_bytes`].
pub unsafe fn str_lossy(s: *const StrObj) -> String {
    if s.is_null() {
        return String::new();
    }
    // SAFETY: forwarded contract.
    String::from_utf8_lossy(unsafe { str_bytes(s) }).into_owned()
}

/// Byte offset, within a string constant's image, of the data pointer that
/// must be relocated to the image's address plus [`STR_CONST_BYTES_OFFSET`].
pub const STR_CONST_DATA_RELOC: u32 = STR_DATA_OFFSET as u32;
/// Byte offset of a string constant's bytes within its image.
pub const STR_CONST_BYTES_OFFSET: i64 = STR_OBJ_SIZE as i64;

/// The bytes of a string constant as codegen emits it: the object `[tag,
/// len, data]` followed by its inline bytes. The `data` word is left 0: the
/// emitter relocates it to the image's own address plus
/// [`STR_CONST_BYTES_OFFSET`] (at [`STR_CONST_DATA_RELOC`]).
pub fn str_const_image(bytes: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(STR_OBJ_SIZE + bytes.len());
    v.extend_from_slice(&TAG_STR.to_le_bytes());
    v.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    v.extend_from_slice(&0u64.to_le_bytes());
    v.extend_from_slice(bytes);
    v
}
