//! Buffered standard output and the print functions.
//!
//! One process-wide buffer; it is written out when it grows past
//! [`FLUSH_AT`] bytes and by [`flush`], which every exit path calls. In
//! capture mode (tests) flushed bytes are kept in memory instead.

use super::object::{self, StrObj};
use std::io::Write;
use std::sync::Mutex;

const FLUSH_AT: usize = 1 << 16;

struct Out {
    buf: Vec<u8>,
    capture: Option<Vec<u8>>,
}

static OUT: Mutex<Out> = Mutex::new(Out {
    buf: Vec::new(),
    capture: None,
});

fn with_out<R>(f: impl FnOnce(&mut Out) -> R) -> R {
    let mut g = OUT.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

fn write_out(out: &mut Out) {
    if out.buf.is_empty() {
        return;
    }
    match &mut out.capture {
        Some(c) => c.extend_from_slice(&out.buf),
        None => {
            let mut so = std::io::stdout().lock();
            // A closed stdout (e.g. a pipe to `head`) is not an error of the program.
            let _ = so.write_all(&out.buf);
            let _ = so.flush();
        }
    }
    out.buf.clear();
}

fn emit(bytes: &[u8]) {
    with_out(|o| {
        o.buf.extend_from_slice(bytes);
        if o.buf.len() >= FLUSH_AT {
            write_out(o);
        }
    });
}

/// Writes the buffered output.
pub fn flush() {
    with_out(write_out);
}

/// Drops unwritten output (a new run starts with an empty buffer).
pub(super) fn reset() {
    with_out(|o| o.buf.clear());
}

/// Starts (true) or stops (false) capturing; stopping returns what was
/// captured since the start.
pub fn set_capture(on: bool) -> Vec<u8> {
    with_out(|o| {
        write_out(o);
        let old = o.capture.take().unwrap_or_default();
        if on {
            o.capture = Some(Vec::new());
        }
        old
    })
}

/// A float as Toy prints it: Rust's `{:?}` for f64 (`1.0`, `0.1`, `1e100`,
/// `-0.0`, `NaN`, `inf`).
pub fn format_float(x: f64) -> String {
    format!("{x:?}")
}

pub extern "C" fn toy_print_int(x: i64) {
    let mut b = [0u8; 24];
    let mut cur = std::io::Cursor::new(&mut b[..]);
    let _ = write!(cur, "{x}");
    let n = cur.position() as usize;
    emit(&b[..n]);
}
pub extern "C" fn toy_print_float(x: f64) {
    emit(format_float(x).as_bytes());
}
pub extern "C" fn toy_print_bool(x: u8) {
    emit(if x != 0 { b"true" } else { b"false" });
}
/// # Safety
/// `s` must be a live string object (see [`super::strings`]'s contract).
pub unsafe extern "C" fn toy_print_str(s: *const StrObj) {
    // SAFETY: compiled code passes live string objects.
    emit(unsafe { object::str_bytes(s) });
}
pub extern "C" fn toy_print_space() {
    emit(b" ");
}
pub extern "C" fn toy_print_newline() {
    emit(b"\n");
}

/// Appends raw bytes to the output (composite printing).
pub(super) fn emit_bytes(bytes: &[u8]) {
    emit(bytes);
}

pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("toy_print_int", toy_print_int as *const u8),
        ("toy_print_float", toy_print_float as *const u8),
        ("toy_print_bool", toy_print_bool as *const u8),
        ("toy_print_str", toy_print_str as *const u8),
        ("toy_print_space", toy_print_space as *const u8),
        ("toy_print_newline", toy_print_newline as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    fn float_formatting_table() {
        let table: [(f64, &str); 13] = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e100, "1e100"),
            (1e-7, "1e-7"),
            (-0.0, "-0.0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (1e16, "1e16"),
            (123456789.0, "123456789.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.5e-5, "1.5e-5"),
            (-2.5, "-2.5"),
        ];
        for (x, want) in table {
            assert_eq!(format_float(x), want, "formatting {x:e}");
        }
    }
}
