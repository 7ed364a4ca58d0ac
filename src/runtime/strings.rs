//! String functions. Strings are immutable byte strings (see
//! [`super::object`] for the layout and the invariants that let `+` append
//! in place); every function here returns a new object (or, for `+` with
//! an empty operand, the other operand) or a scalar. The functions that may throw take the statement's position id as
//! their last argument and return a dummy value after raising.
//!
//! Messages of the throwing functions (LANGUAGE.md leaves them open):
//! `substr: range START..END out of bounds for length LEN`,
//! `chr: byte out of range: N`, `parse_int: invalid integer "S"`,
//! `parse_float: invalid float "S"` (`S` escaped as Rust `{:?}` escapes).
//!
//! # Safety
//!
//! Every `unsafe extern "C" fn` here requires each `*const StrObj` argument
//! to be a live string object made by this runtime (never nil: Toy strings
//! have no nil). Codegen guarantees it: the IR verifier's type check makes
//! every such operand a `str` value, and all `str` values come from
//! runtime-made objects or string constants laid out as `StrObj`.

use super::object::{self, StrObj};
use super::output::format_float;

/// # Safety
/// `s` must be a live string object (compiled code only passes those).
unsafe fn bytes<'a>(s: *const StrObj) -> &'a [u8] {
    // SAFETY: forwarded.
    unsafe { object::str_bytes(s) }
}

/// Smallest capacity of a buffer made by `+`.
const MIN_CAP: usize = 16;

/// `a + b`: appends `b` in place when `a`'s bytes are in a buffer, `a` ends
/// at the buffer's used end and the buffer has room, else copies both into a new buffer with room for as
/// much again (module docs of [`super::object`]).
///
/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_str_concat(a: *const StrObj, b: *const StrObj) -> *const StrObj {
    super::gc::safepoint(&[a as u64, b as u64]);
    // SAFETY: live strings from compiled code; their buffers follow the
    // invariants of `object`.
    unsafe {
        let (alen, blen) = ((*a).len as usize, (*b).len as usize);
        if blen == 0 {
            return a;
        }
        if alen == 0 {
            return b;
        }
        let total = match alen.checked_add(blen) {
            Some(t) if t < isize::MAX as usize / 4 => t,
            _ => object::out_of_memory(),
        };
        let data = (*a).data;
        let (cap, used) = if object::is_inline(a) {
            (alen, alen)
        } else {
            object::buffer_state(data)
        };
        if used == alen && cap - used >= blen {
            // `b` may share this buffer, but then it lies within `0..used`,
            // disjoint from the room written here.
            std::ptr::copy((*b).data, data.add(used), blen);
            object::set_buffer_used(data, total);
            note_copied(blen);
            return object::new_str_obj(total, data);
        }
        let fresh = object::new_buffer((total * 2).max(MIN_CAP));
        std::ptr::copy_nonoverlapping(data, fresh, alen);
        std::ptr::copy_nonoverlapping((*b).data, fresh.add(alen), blen);
        object::set_buffer_used(fresh, total);
        note_copied(total);
        object::new_str_obj(total, fresh)
    }
}

#[cfg(test)]
thread_local! {
    /// Bytes `toy_str_concat` copied on this thread (tests only).
    static COPIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn note_copied(n: usize) {
    COPIED.with(|c| c.set(c.get() + n as u64));
}

#[cfg(not(test))]
#[inline(always)]
fn note_copied(_: usize) {}

/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_str_eq(a: *const StrObj, b: *const StrObj) -> u8 {
    // SAFETY: live strings from compiled code.
    unsafe { (bytes(a) == bytes(b)) as u8 }
}
/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_str_cmp(a: *const StrObj, b: *const StrObj) -> i64 {
    // SAFETY: live strings from compiled code.
    match unsafe { bytes(a).cmp(bytes(b)) } {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    }
}
pub extern "C" fn toy_str_of_int(x: i64) -> *const StrObj {
    super::gc::safepoint(&[]);
    object::new_str(x.to_string().as_bytes())
}
pub extern "C" fn toy_str_of_float(x: f64) -> *const StrObj {
    super::gc::safepoint(&[]);
    object::new_str(format_float(x).as_bytes())
}
pub extern "C" fn toy_str_of_bool(x: u8) -> *const StrObj {
    super::gc::safepoint(&[]);
    object::new_str(if x != 0 { b"true" } else { b"false" })
}
/// `substr(s, start, end)`: bytes `start..end`.
///
/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_substr(
    s: *const StrObj,
    start: i64,
    end: i64,
    pos: u64,
) -> *const StrObj {
    super::gc::safepoint(&[s as u64]);
    // SAFETY: a live string from compiled code.
    let b = unsafe { bytes(s) };
    let len = b.len() as i64;
    if start < 0 || end > len || start > end {
        super::raise_msg(
            &format!("substr: range {start}..{end} out of bounds for length {len}"),
            pos,
        );
        return object::new_str(b"");
    }
    object::new_str(&b[start as usize..end as usize])
}
/// `chr(byte)`: a one-byte string.
pub extern "C" fn toy_chr(byte: i64, pos: u64) -> *const StrObj {
    super::gc::safepoint(&[]);
    if !(0..256).contains(&byte) {
        super::raise_msg(&format!("chr: byte out of range: {byte}"), pos);
        return object::new_str(b"");
    }
    object::new_str(&[byte as u8])
}
/// `fixed(x, digits)`: C's `%.*f` (a negative precision means 6, as in C),
/// except that NaN and the infinities read as `print` writes them: `NaN`
/// (whatever its sign bit), `inf`, `-inf`.
pub extern "C" fn toy_fixed(x: f64, digits: i64) -> *const StrObj {
    super::gc::safepoint(&[]);
    let d = if digits < 0 {
        6
    } else {
        digits.min(1100) as usize
    };
    let text = if x.is_nan() {
        "NaN".to_string()
    } else {
        format!("{x:.d$}")
    };
    object::new_str(text.as_bytes())
}
/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_parse_int(s: *const StrObj, pos: u64) -> i64 {
    super::gc::safepoint(&[s as u64]);
    // SAFETY: a live string from compiled code.
    let b = unsafe { bytes(s) };
    match std::str::from_utf8(b)
        .ok()
        .and_then(|t| t.parse::<i64>().ok())
    {
        Some(v) => v,
        None => {
            super::raise_msg(
                &format!(
                    "parse_int: invalid integer {:?}",
                    String::from_utf8_lossy(b)
                ),
                pos,
            );
            0
        }
    }
}
/// # Safety
/// Pointer arguments are live string objects (the module's contract).
pub unsafe extern "C" fn toy_parse_float(s: *const StrObj, pos: u64) -> f64 {
    super::gc::safepoint(&[s as u64]);
    // SAFETY: a live string from compiled code.
    let b = unsafe { bytes(s) };
    match std::str::from_utf8(b)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
    {
        Some(v) => v,
        None => {
            super::raise_msg(
                &format!(
                    "parse_float: invalid float {:?}",
                    String::from_utf8_lossy(b)
                ),
                pos,
            );
            0.0
        }
    }
}

pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("toy_str_concat", toy_str_concat as *const u8),
        ("toy_str_eq", toy_str_eq as *const u8),
        ("toy_str_cmp", toy_str_cmp as *const u8),
        ("toy_str_of_int", toy_str_of_int as *const u8),
        ("toy_str_of_float", toy_str_of_float as *const u8),
        ("toy_str_of_bool", toy_str_of_bool as *const u8),
        ("toy_substr", toy_substr as *const u8),
        ("toy_chr", toy_chr as *const u8),
        ("toy_fixed", toy_fixed as *const u8),
        ("toy_parse_int", toy_parse_int as *const u8),
        ("toy_parse_float", toy_parse_float as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: *const StrObj) -> String {
        // SAFETY: runtime-made string.
        unsafe { object::str_lossy(s) }
    }

    // Safe wrappers for tests whose every string is runtime-made.
    fn concat(a: *const StrObj, b: *const StrObj) -> *const StrObj {
        // SAFETY: runtime-made strings.
        unsafe { toy_str_concat(a, b) }
    }
    fn str_eq(a: *const StrObj, b: *const StrObj) -> u8 {
        // SAFETY: runtime-made strings.
        unsafe { toy_str_eq(a, b) }
    }
    fn str_cmp(a: *const StrObj, b: *const StrObj) -> i64 {
        // SAFETY: runtime-made strings.
        unsafe { toy_str_cmp(a, b) }
    }
    fn substr(s: *const StrObj, start: i64, end: i64, pos: u64) -> *const StrObj {
        // SAFETY: a runtime-made string.
        unsafe { toy_substr(s, start, end, pos) }
    }

    #[test]
    fn string_functions() {
        let a = object::new_str(b"foo");
        let b = object::new_str(b"bar");
        assert_eq!(text(concat(a, b)), "foobar");
        assert_eq!(str_eq(a, object::new_str(b"foo")), 1);
        assert_eq!(str_cmp(b, a), -1);
        assert_eq!(text(toy_str_of_float(1.0)), "1.0");
        assert_eq!(text(toy_fixed(1.23456, 2)), "1.23");
        assert_eq!(text(toy_fixed(2.5, 0)), "2");
        assert_eq!(text(substr(a, 1, 3, 0)), "oo");
    }

    fn copied() -> u64 {
        COPIED.with(|c| c.get())
    }

    /// `n` one-byte appends to the newest string copy O(n) bytes and allocate
    /// O(n) bytes in all (a 24-byte object per result plus buffers whose
    /// capacities double), where copying every intermediate string would
    /// copy and allocate about n²/2 bytes.
    #[test]
    fn appends_are_amortised() {
        let n: u64 = 100_000;
        let x = object::new_str(b"x");
        let (c0, a0) = (copied(), object::allocated_bytes());
        let mut s = object::new_str(b"");
        let mut buffers = std::collections::HashSet::new();
        for _ in 0..n {
            s = concat(s, x);
            // SAFETY: runtime-made string.
            buffers.insert(unsafe { (*s).data } as usize);
        }
        let (copied_bytes, allocated) = (copied() - c0, object::allocated_bytes() - a0);
        // SAFETY: runtime-made string.
        let b = unsafe { object::str_bytes(s) };
        assert_eq!(b.len() as u64, n);
        assert!(b.iter().all(|&c| c == b'x'));
        // Appended bytes (n) plus the copies made when a buffer is full
        // (16 + 32 + ... < 2n).
        assert!(
            copied_bytes <= 3 * n,
            "copied {copied_bytes} bytes for {n} appends"
        );
        // One string object per append plus buffers summing to < 4n + headers.
        assert!(
            allocated <= 24 * n + 4 * n + 4096,
            "allocated {allocated} bytes for {n} appends"
        );
        // Fresh buffers only when full, each twice as big as needed: 16, 34,
        // 68, ... up to >= n; plus the inline bytes of "x" ("" + x is x).
        let doublings = (n as f64 / 16.0).log2().ceil() as usize + 2;
        assert!(
            buffers.len() <= doublings,
            "{} buffers for {n} appends",
            buffers.len()
        );
    }

    /// Appending in place never changes what an older string sees.
    #[test]
    fn shared_buffer_keeps_each_strings_content() {
        // Inline bytes (constants, `str(x)`, ...) are never appended to in place.
        let c = object::new_str(b"ab");
        let r = concat(c, object::new_str(b"c"));
        // SAFETY: runtime-made strings.
        unsafe {
            assert!(object::is_inline(c) && !object::is_inline(r));
            assert_ne!((*r).data, (*c).data);
        }
        assert_eq!((text(c), text(r)), ("ab".into(), "abc".into()));
        let a = concat(object::new_str(b"ab"), object::new_str(b"c"));
        let s = concat(a, object::new_str(b"x"));
        let t = concat(a, object::new_str(b"y"));
        // `s` was appended in place (same buffer as `a`), `t` had to copy.
        // SAFETY: runtime-made strings.
        unsafe {
            assert_eq!((*s).data, (*a).data);
            assert_ne!((*t).data, (*a).data);
        }
        assert_eq!(
            (text(a), text(s), text(t)),
            ("abc".into(), "abcx".into(), "abcy".into())
        );
        // Extending `s` further leaves `a` and `s` as they were.
        let u = concat(s, object::new_str(b"zz"));
        assert_eq!(
            (text(a), text(s), text(u)),
            ("abc".into(), "abcx".into(), "abcxzz".into())
        );
        // A prefix of an extended buffer appends by copying.
        let v = concat(a, object::new_str(b"!"));
        assert_eq!((text(v), text(u)), ("abc!".into(), "abcxzz".into()));
        // A string appended to itself (source and destination share a buffer).
        let mut d = concat(object::new_str(b"ab"), object::new_str(b"cd"));
        for _ in 0..5 {
            d = concat(d, d);
        }
        assert_eq!(text(d), "abcd".repeat(32));
        // Empty operands return the other operand.
        let e = object::new_str(b"");
        assert_eq!(concat(e, u), u);
        assert_eq!(concat(u, e), u);
        assert_eq!(text(concat(e, e)), "");
        assert_eq!(str_eq(concat(a, object::new_str(b"x")), s), 1);
    }
}
