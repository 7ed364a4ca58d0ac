//! What Bril programs need beyond Toy's runtime: Bril's memory extension
//! (a heap of typed slots addressed by pointer values), printing as
//! `brili` prints (floats in JavaScript's `toFixed(17)` form, chars as
//! characters) and the float/bit-pattern conversions.
//!
//! Invariants:
//! - A pointer is an `i64`: the allocation's id (from 1, never reused) in
//!   the high 32 bits, the offset in the low 32. `ptradd` is a plain
//!   wrapping add, so an offset that leaves `0..2^32` lands in another id's
//!   range, where the access is reported unless that id is live and the
//!   offset fits it (see docs/bril.md).
//! - Each program thread has its own heap (the JIT and the interpreter run
//!   every program on a fresh thread), so a run starts with it empty;
//!   [`begin_program`] empties the published view ([`BRIL_HEAP`]) too.
//! - Every access checks the allocation is live and the offset in bounds,
//!   and a load checks the slot was stored: an error sets the pending
//!   exception (the IR checks it after the call) and returns a zero.
//! - [`BRIL_HEAP`] always describes the running program's allocations
//!   (`views[id]`, `len` 0 once freed; `views[0]` is an empty placeholder,
//!   since ids start at 1), so compiled code can do an
//!   access itself when it is valid and call the runtime function only
//!   otherwise (`codegen/bril_mem.rs`).
use super::gc;
use std::cell::RefCell;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// One allocation as compiled code reads it: `len` slots at `data`, and
/// one byte per slot at `init`, non-zero once the slot was stored. `len`
/// is 0 once the allocation is freed (the pointers then dangle).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SlotsView {
    pub data: *mut u64,
    pub init: *mut u8,
    pub len: u64,
}

impl SlotsView {
    /// `views[0]`: no slots.
    const EMPTY: SlotsView = SlotsView {
        data: std::ptr::null_mut(),
        init: std::ptr::null_mut(),
        len: 0,
    };
}

/// Byte offsets of [`SlotsView`]'s fields and its size, for compiled code.
pub const VIEW_DATA: i32 = std::mem::offset_of!(SlotsView, data) as i32;
pub const VIEW_INIT: i32 = std::mem::offset_of!(SlotsView, init) as i32;
pub const VIEW_LEN: i32 = std::mem::offset_of!(SlotsView, len) as i32;
pub const VIEW_SIZE: i64 = std::mem::size_of::<SlotsView>() as i64;

/// The running program's allocations as compiled code reads them: a
/// table of [`SlotsView`]s (`views`) and how many there are (`count`).
#[repr(C)]
pub struct PublishedHeap {
    pub views: AtomicPtr<SlotsView>,
    pub count: AtomicU64,
}

/// Byte offsets of [`PublishedHeap`]'s fields.
pub const HEAP_VIEWS: i32 = std::mem::offset_of!(PublishedHeap, views) as i32;
pub const HEAP_COUNT: i32 = std::mem::offset_of!(PublishedHeap, count) as i32;

/// See [`PublishedHeap`]; one program runs at a time (`runtime::run_lock`).
pub static BRIL_HEAP: PublishedHeap = PublishedHeap {
    views: AtomicPtr::new(std::ptr::null_mut()),
    count: AtomicU64::new(0),
};

struct Alloc {
    data: Box<[u64]>,
    init: Box<[u8]>,
}

struct Heap {
    /// Index `id - 1`; `None` once freed.
    allocs: Vec<Option<Alloc>>,
    /// Index `id` (0: the placeholder): what [`BRIL_HEAP`] shows of
    /// `allocs`.
    views: Vec<SlotsView>,
    live: usize,
}

impl Heap {
    fn publish(&mut self) {
        BRIL_HEAP
            .views
            .store(self.views.as_mut_ptr(), Ordering::Relaxed);
        BRIL_HEAP
            .count
            .store(self.views.len() as u64, Ordering::Relaxed);
    }
}

thread_local! {
    static HEAP: RefCell<Heap> = const {
        RefCell::new(Heap {
            allocs: Vec::new(),
            views: Vec::new(),
            live: 0,
        })
    };
}

/// At the start of a program's thread: no allocation is visible.
pub fn begin_program() {
    HEAP.with_borrow_mut(|h| {
        h.allocs.clear();
        h.views.clear();
        h.views.push(SlotsView::EMPTY);
        h.live = 0;
        h.publish();
    });
}

/// Sets the pending error. Every caller is a function that may throw, so
/// it allocates (the message) and starts with a safepoint.
#[cold]
fn raise(msg: String, pos: u64) {
    super::raise_msg(&msg, pos);
}

fn split(p: i64) -> (i64, i64) {
    (p >> 32, p & 0xffff_ffff)
}

/// `alloc n`: a new allocation of `n` slots.
pub extern "C" fn toy_bril_alloc(n: i64, pos: u64) -> i64 {
    gc::safepoint(&[]);
    if n <= 0 || n > u32::MAX as i64 {
        raise(format!("cannot allocate {n} entries"), pos);
        return 0;
    }
    HEAP.with_borrow_mut(|h| {
        if h.views.is_empty() {
            h.views.push(SlotsView::EMPTY);
        }
        let mut a = Alloc {
            data: vec![0; n as usize].into_boxed_slice(),
            init: vec![0; n as usize].into_boxed_slice(),
        };
        h.views.push(SlotsView {
            data: a.data.as_mut_ptr(),
            init: a.init.as_mut_ptr(),
            len: n as u64,
        });
        h.allocs.push(Some(a));
        h.live += 1;
        h.publish();
        (h.allocs.len() as i64) << 32
    })
}

/// `free p`: `p` must be the start of a live allocation.
pub extern "C" fn toy_bril_free(p: i64, pos: u64) {
    gc::safepoint(&[]);
    let (id, off) = split(p);
    let ok = HEAP.with_borrow_mut(|h| {
        let i = (id - 1) as usize;
        match h.allocs.get_mut(i) {
            Some(a @ Some(_)) if off == 0 => {
                h.views[i + 1].len = 0;
                *a = None;
                h.live -= 1;
                true
            }
            _ => false,
        }
    });
    if !ok {
        let what = if off == 0 {
            "memory that is not allocated (double free or never allocated)"
        } else {
            "a pointer that is not the start of its allocation"
        };
        raise(format!("free of {what}"), pos);
    }
}

/// Slot `p` of the heap: its value and whether it was stored; an error
/// when there is none.
#[inline]
fn with_slot<R>(p: i64, pos: u64, f: impl FnOnce(&mut u64, &mut u8) -> R) -> Option<R> {
    let (id, off) = split(p);
    let r = HEAP.with_borrow_mut(|h| match h.allocs.get_mut((id - 1) as usize) {
        Some(Some(a)) => {
            let o = off as usize;
            match (a.data.get_mut(o), a.init.get_mut(o)) {
                (Some(d), Some(i)) => Ok(f(d, i)),
                _ => Err("out of bounds"),
            }
        }
        Some(None) => Err("after free"),
        None => Err("out of bounds"),
    });
    match r {
        Ok(v) => Some(v),
        Err(why) => {
            raise(format!("memory access {why}"), pos);
            None
        }
    }
}

#[inline]
fn load(p: i64, pos: u64) -> u64 {
    match with_slot(p, pos, |d, i| (*i != 0).then_some(*d)) {
        Some(Some(v)) => v,
        Some(None) => {
            raise("load of uninitialized memory".into(), pos);
            0
        }
        None => 0,
    }
}

#[inline]
fn store(p: i64, v: u64, pos: u64) {
    with_slot(p, pos, |d, i| {
        *d = v;
        *i = 1;
    });
}

pub extern "C" fn toy_bril_load_int(p: i64, pos: u64) -> i64 {
    gc::safepoint(&[]);
    load(p, pos) as i64
}
pub extern "C" fn toy_bril_load_float(p: i64, pos: u64) -> f64 {
    gc::safepoint(&[]);
    f64::from_bits(load(p, pos))
}
pub extern "C" fn toy_bril_load_bool(p: i64, pos: u64) -> u8 {
    gc::safepoint(&[]);
    (load(p, pos) != 0) as u8
}
pub extern "C" fn toy_bril_store_int(p: i64, v: i64, pos: u64) {
    gc::safepoint(&[]);
    store(p, v as u64, pos)
}
pub extern "C" fn toy_bril_store_float(p: i64, v: f64, pos: u64) {
    gc::safepoint(&[]);
    store(p, v.to_bits(), pos)
}
pub extern "C" fn toy_bril_store_bool(p: i64, v: u8, pos: u64) {
    gc::safepoint(&[]);
    store(p, (v != 0) as u64, pos)
}

/// At the end of `main`: memory still allocated is an error, as in `brili`.
pub extern "C" fn toy_bril_check_leaks(pos: u64) {
    gc::safepoint(&[]);
    if HEAP.with_borrow(|h| h.live) > 0 {
        raise(
            "Some memory locations have not been freed by end of execution.".into(),
            pos,
        );
    }
}

pub extern "C" fn toy_bril_print_float(x: f64) {
    super::output::emit_bytes(js_float(x).as_bytes());
}

/// A char (a Unicode scalar value; the IR checks `int2char`).
pub extern "C" fn toy_bril_print_char(c: i64) {
    let ch = char::from_u32(c as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut b = [0u8; 4];
    super::output::emit_bytes(ch.encode_utf8(&mut b).as_bytes());
}

pub extern "C" fn toy_bril_float_to_bits(x: f64) -> i64 {
    x.to_bits() as i64
}
pub extern "C" fn toy_bril_bits_to_float(x: i64) -> f64 {
    f64::from_bits(x as u64)
}

/// How `brili` prints a float: `toFixed(17)`, or `toExponential(17)` when
/// `|log10 |x|| >= 10`; `-0` keeps its sign. Both round a tie up in
/// magnitude, as JavaScript does (Rust's formatting breaks ties to even).
pub fn js_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x != 0.0 && x.abs().log10().abs() >= 10.0 {
        return format!("{sign}{}", exponential17(x.abs()));
    }
    format!("{sign}{}", fixed17(x.abs()))
}

/// Whether the exact decimal expansion `digits` (after the ones kept) is
/// exactly one half: a 5 followed by zeros only.
fn is_tie(rest: &str) -> bool {
    rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0')
}

/// Adds one to a string of decimal digits; `true` when it carried out of
/// the first digit (which then reads `1` followed by zeros, one longer).
fn increment(digits: &mut Vec<u8>) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    digits.insert(0, b'1');
    true
}

/// `x.toFixed(17)` for `0 <= x < 1e21`.
fn fixed17(x: f64) -> String {
    let s = format!("{x:.17}");
    if !format!("{x:.25}").ends_with("50000000") {
        return s;
    }
    // A possible tie: decide on the exact expansion.
    let exact = format!("{x:.1100}");
    let (int, frac) = exact.split_once('.').unwrap_or((&exact, ""));
    if !is_tie(&frac[17..]) {
        return s;
    }
    let mut digits: Vec<u8> = format!("{int}{}", &frac[..17]).into_bytes();
    increment(&mut digits);
    let n = digits.len() - 17;
    let text = String::from_utf8(digits).unwrap_or_default();
    format!("{}.{}", &text[..n], &text[n..])
}

/// `x.toExponential(17)` for finite `x > 0`: `d.ddddddddddddddddde±N`.
fn exponential17(x: f64) -> String {
    let js = |s: String| match s.split_once('e') {
        Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e}"),
        _ => s,
    };
    let s = format!("{x:.17e}");
    let probe = format!("{x:.25e}");
    if !probe
        .split_once('e')
        .is_some_and(|(m, _)| m.ends_with("50000000"))
    {
        return js(s);
    }
    let exact = format!("{x:.1100e}");
    let (mantissa, exp) = exact.split_once('e').unwrap_or((&exact, "0"));
    let (lead, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !is_tie(&frac[17..]) {
        return js(s);
    }
    let mut digits: Vec<u8> = format!("{lead}{}", &frac[..17]).into_bytes();
    let mut exp: i32 = exp.parse().unwrap_or(0);
    if increment(&mut digits) {
        digits.pop();
        exp += 1;
    }
    let text = String::from_utf8(digits).unwrap_or_default();
    js(format!("{}.{}e{exp}", &text[..1], &text[1..]))
}

pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("toy_bril_alloc", toy_bril_alloc as *const u8),
        ("toy_bril_free", toy_bril_free as *const u8),
        ("toy_bril_load_int", toy_bril_load_int as *const u8),
        ("toy_bril_load_float", toy_bril_load_float as *const u8),
        ("toy_bril_load_bool", toy_bril_load_bool as *const u8),
        ("toy_bril_store_int", toy_bril_store_int as *const u8),
        ("toy_bril_store_float", toy_bril_store_float as *const u8),
        ("toy_bril_store_bool", toy_bril_store_bool as *const u8),
        ("toy_bril_check_leaks", toy_bril_check_leaks as *const u8),
        ("toy_bril_print_float", toy_bril_print_float as *const u8),
        ("toy_bril_print_char", toy_bril_print_char as *const u8),
        (
            "toy_bril_float_to_bits",
            toy_bril_float_to_bits as *const u8,
        ),
        (
            "toy_bril_bits_to_float",
            toy_bril_bits_to_float as *const u8,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::js_float;

    #[test]
    fn floats_print_as_javascript() {
        assert_eq!(js_float(0.0), "0.00000000000000000");
        assert_eq!(js_float(-0.0), "-0.00000000000000000");
        assert_eq!(js_float(1.5), "1.50000000000000000");
        assert_eq!(js_float(0.1), "0.10000000000000001");
        assert_eq!(js_float(-2.0 / 3.0), "-0.66666666666666663");
        assert_eq!(js_float(1e10), "1.00000000000000000e+10");
        assert_eq!(js_float(1.5e-11), "1.49999999999999999e-11");
        assert_eq!(js_float(f64::INFINITY), "Infinity");
        assert_eq!(js_float(f64::NAN), "NaN");
        // 2^-18 = 0.000003814697265625: a tie at the 18th decimal, which
        // JavaScript rounds up.
        assert_eq!(js_float(2f64.powi(-18)), "0.00000381469726563");
        // 1000000000000000.125: a tie at the 19th significant digit.
        assert_eq!(
            js_float(8000000000000001.0 / 8.0),
            "1.00000000000000013e+15"
        );
        assert_eq!(
            js_float(-8000000000000001.0 / 8.0),
            "-1.00000000000000013e+15"
        );
        assert_eq!(
            js_float(8000000000000003.0 / 8.0),
            "1.00000000000000038e+15"
        );
    }
}
