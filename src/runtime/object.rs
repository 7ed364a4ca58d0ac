//! Heap objects and the one allocation entry point.
//!
//! Every heap object starts with a one-word header holding its type tag (an
//! index into the type-descriptor table; [`TAG_STR`] for strings), so that a
//! collector can later find the layout of any object from its first word.
//! Layouts (all fields 8 bytes, little-endian, 8-byte aligned):
//! - string: `[tag, len, bytes...]` — `len` bytes, immutable, not
//!   NUL-terminated, any bytes (Toy strings are byte strings).
//! - array: `[tag, len, cap, data]` — `data` points to `cap` 8-byte slots
//!   (see [`super::heap`]).
//! - struct: `[tag, field0, field1, ...]` — one 8-byte slot per field.
//!
//! String constants are emitted by codegen as read-only data with the same
//! layout. There is no collector yet: memory comes from a per-thread bump
//! arena of large chunks, and all of a thread's chunks are freed together
//! when the thread ends (a run's program thread ends with the run, and no
//! object outlives it), so a process can run many programs.

use std::cell::Cell;

/// Type tag of strings.
pub const TAG_STR: u64 = 0;
/// Byte offset of a string's length, and of its first byte.
pub const STR_LEN_OFFSET: i32 = 8;
pub const STR_DATA_OFFSET: i32 = 16;

/// A string object's fixed part; `len` bytes follow it.
#[repr(C)]
pub struct StrObj {
    pub tag: u64,
    pub len: i64,
}

const CHUNK: usize = 1 << 20;

thread_local! {
    static ARENA: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    static CHUNKS: std::cell::RefCell<Chunks> = const { std::cell::RefCell::new(Chunks(Vec::new())) };
}

/// Every block `big_alloc` made on this thread, freed when the thread ends.
struct Chunks(Vec<(*mut u8, std::alloc::Layout)>);

impl Drop for Chunks {
    fn drop(&mut self) {
        for (p, layout) in self.0.drain(..) {
            // SAFETY: `p` was allocated with `layout` and is freed once; the
            // thread that used it is ending.
            unsafe { std::alloc::dealloc(p, layout) };
        }
    }
}

fn alloc_raw(size: usize) -> *mut u8 {
    let size = (size + 7) & !7;
    if size > CHUNK / 4 {
        return big_alloc(size);
    }
    ARENA.with(|a| {
        let (mut next, mut end) = a.get();
        if next == 0 || end - next < size {
            next = big_alloc(CHUNK) as usize;
            end = next + CHUNK;
        }
        a.set((next + size, end));
        next as *mut u8
    })
}

fn big_alloc(size: usize) -> *mut u8 {
    let layout = match std::alloc::Layout::from_size_align(size.max(8), 8) {
        Ok(l) => l,
        Err(_) => out_of_memory(),
    };
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        out_of_memory();
    }
    // If the thread is already tearing its locals down, the block leaks.
    let _ = CHUNKS.try_with(|c| c.borrow_mut().0.push((p, layout)));
    p
}

pub(crate) fn out_of_memory() -> ! {
    super::output::flush();
    eprintln!("error: out of memory");
    std::process::exit(101);
}

/// The allocation entry point: `size` zeroed bytes (at least the header),
/// 8-byte aligned, with `tag` written to the header word.
pub extern "C" fn toy_alloc(size: u64, tag: u64) -> *mut u8 {
    let p = alloc_raw((size as usize).max(8));
    // SAFETY: p points to at least 8 writable, aligned bytes.
    unsafe { (p as *mut u64).write(tag) };
    p
}

/// `size` zeroed bytes without a header (array data buffers).
pub(crate) fn alloc_bytes(size: usize) -> *mut u8 {
    alloc_raw(size)
}

/// A new string object holding `bytes`.
pub fn new_str(bytes: &[u8]) -> *const StrObj {
    let p = toy_alloc((STR_DATA_OFFSET as usize + bytes.len()) as u64, TAG_STR);
    // SAFETY: the object has room for the header, the length and the bytes.
    unsafe {
        (*(p as *mut StrObj)).len = bytes.len() as i64;
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(STR_DATA_OFFSET as usize), bytes.len());
    }
    p as *const StrObj
}

/// The bytes of a string object.
///
/// # Safety
/// `s` must point to a live string object (runtime-made or a constant).
pub unsafe fn str_bytes<'a>(s: *const StrObj) -> &'a [u8] {
    // SAFETY: by the caller's contract the object holds `len` bytes after
    // its fixed part.
    unsafe { std::slice::from_raw_parts((s as *const u8).add(STR_DATA_OFFSET as usize), (*s).len as usize) }
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

/// The bytes of a string constant as codegen emits it (header, length, bytes).
pub fn str_const_image(bytes: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(STR_DATA_OFFSET as usize + bytes.len());
    v.extend_from_slice(&TAG_STR.to_le_bytes());
    v.extend_from_slice(&(bytes.len() as i64).to_le_bytes());
    v.extend_from_slice(bytes);
    v
}
