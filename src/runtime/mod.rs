//! The runtime support library called from JIT-compiled code (`extern "C"`).
//!
//! Layout of the state the generated code touches directly:
//! - [`PENDING`]: one byte, non-zero while an exception is pending. Compiled
//!   code reads it for `NoException` (a load, not a call).
//! - `toy_bril_heap` ([`bril::BRIL_HEAP`]): the running Bril program's
//!   allocations, which compiled code reads for `load` and `store`.
//! - `toy_gc_exit` ([`gc::roots::GC_EXIT`]): the frame pointer and return
//!   address of the compiled code that called a runtime function that may
//!   collect, written by that function's trampoline.
//!
//! Memory is managed by the collector ([`gc`], docs/gc.md): a runtime
//! function that allocates starts with a `gc::safepoint` and is marked
//! `allocates` in `rtfns::RUNTIME`.
//!
//! The rest of the runtime state (output buffer, exception message, position
//! table) is only touched through the `extern "C"` functions. One program
//! runs at a time in a process: [`run_lock`] serialises runs (tests run
//! several in one process).
//!
//! Every path that ends the process flushes the output buffer first: normal
//! end (the driver's caller), `exit(n)`, an uncaught exception, a stack
//! overflow.

pub mod bril;
pub mod gc;
pub mod heap;
pub mod io;
pub mod math;
pub mod object;
pub mod output;
pub mod strings;

use object::StrObj;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};

/// Non-zero while an exception is pending.
pub static PENDING: AtomicU8 = AtomicU8::new(0);

/// The pending exception's message (a `StrObj` pointer) and position id.
static PENDING_MSG: AtomicUsize = AtomicUsize::new(0);
static PENDING_POS: AtomicU64 = AtomicU64::new(0);

/// `FILE:LINE:COL` of every position id, installed by codegen before a run.
static POSITIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

static RUN_LOCK: Mutex<()> = Mutex::new(());

/// Serialises program runs within one process (the runtime state is global).
pub fn run_lock() -> std::sync::MutexGuard<'static, ()> {
    RUN_LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Resets the runtime state for a new run, installs the position table and
/// the collector's configuration.
pub fn reset(positions: Vec<String>, gc_config: gc::GcConfig) {
    gc::configure(gc_config);
    PENDING.store(0, Ordering::Relaxed);
    PENDING_MSG.store(0, Ordering::Relaxed);
    PENDING_POS.store(0, Ordering::Relaxed);
    *POSITIONS.lock().unwrap_or_else(|e| e.into_inner()) = positions;
    output::reset();
    math::start_clock();
}

/// Compiled code passes position `i` as `POSITION_TAG | i`, a constant no
/// other code uses: Cranelift would otherwise share a cold call's `3` with
/// a hot `3` (a shift amount, say) and keep it in a register through the
/// hot path. The interpreter passes `i` itself.
pub const POSITION_TAG: u64 = 0x7f << 48;

fn position_text(id: u64) -> String {
    let table = POSITIONS.lock().unwrap_or_else(|e| e.into_inner());
    table
        .get((id & !POSITION_TAG) as usize)
        .cloned()
        .unwrap_or_else(|| "<unknown>".to_string())
}

/// The pending exception as (message, position), if any.
pub fn pending() -> Option<(String, String)> {
    if PENDING.load(Ordering::Relaxed) == 0 {
        return None;
    }
    let msg = PENDING_MSG.load(Ordering::Relaxed) as *const StrObj;
    // SAFETY: PENDING_MSG holds a live string object whenever PENDING is set.
    let text = unsafe { object::str_lossy(msg) };
    Some((text, position_text(PENDING_POS.load(Ordering::Relaxed))))
}

/// The pending exception's message (0 if none): a root of the collector.
pub(crate) fn pending_message_root() -> u64 {
    PENDING_MSG.load(Ordering::Relaxed) as u64
}

/// Ends the program's output: flushes stdout and prints the collector's
/// statistics when asked. Every way a program ends calls it on the program
/// thread.
pub fn end_of_program() {
    output::flush();
    gc::report_stats();
}

/// Flushes stdout, prints the uncaught exception to stderr; returns 101.
pub fn report_uncaught(msg: &str, pos: &str) -> i32 {
    output::flush();
    eprintln!("error: {msg}");
    eprintln!("  at {pos}");
    101
}

fn set_pending(msg: *const StrObj, pos: u64) {
    PENDING_MSG.store(msg as usize, Ordering::Relaxed);
    PENDING_POS.store(pos, Ordering::Relaxed);
    PENDING.store(1, Ordering::Relaxed);
}

fn raise_text(text: &str, pos: u64) {
    set_pending(object::new_str(text.as_bytes()), pos);
}

/// `throw msg`.
pub extern "C" fn toy_raise_throw(msg: *const StrObj, pos: u64) {
    set_pending(msg, pos);
}
pub extern "C" fn toy_raise_div_zero(pos: u64) {
    gc::safepoint(&[]);
    raise_text("division by zero", pos);
}
pub extern "C" fn toy_raise_index(index: i64, len: i64, pos: u64) {
    gc::safepoint(&[]);
    raise_text(&index_message(index, len), pos);
}
/// `toy_raise_index` with the index and the length in `operands[0]` and
/// `operands[1]`, where compiled code stored them: the hot path that
/// branched to the call then keeps the two values in whatever registers
/// suit it (call arguments would pull them into the argument registers
/// along the whole loop).
///
/// # Safety
/// `operands` points to two readable `i64`s.
pub unsafe extern "C" fn toy_raise_index_at(operands: *const i64, pos: u64) {
    gc::safepoint(&[]);
    // SAFETY: the caller's contract.
    let (index, len) = unsafe { (*operands, *operands.add(1)) };
    raise_text(&index_message(index, len), pos);
}

fn index_message(index: i64, len: i64) -> String {
    format!("index out of bounds: index {index}, length {len}")
}
pub extern "C" fn toy_raise_nil(pos: u64) {
    gc::safepoint(&[]);
    raise_text("nil dereference", pos);
}
pub extern "C" fn toy_raise_negative_length(pos: u64) {
    gc::safepoint(&[]);
    raise_text("negative array length", pos);
}
pub extern "C" fn toy_raise_pop_empty(pos: u64) {
    gc::safepoint(&[]);
    raise_text("pop from empty array", pos);
}
pub extern "C" fn toy_raise_assert(pos: u64) {
    gc::safepoint(&[]);
    raise_text("assertion failed", pos);
}
/// `assert(c, msg)` failed.
///
/// # Safety
/// `msg` must be a live string object (see [`strings`]'s contract).
pub unsafe extern "C" fn toy_raise_assert_msg(msg: *const StrObj, pos: u64) {
    gc::safepoint(&[msg as u64]);
    // SAFETY: compiled code passes a live string object.
    let m = unsafe { object::str_bytes(msg) };
    let mut text = b"assertion failed: ".to_vec();
    text.extend_from_slice(m);
    set_pending(object::new_str(&text), pos);
}

/// Raises an exception with a runtime-made message (used by the string
/// functions that may throw).
pub(crate) fn raise_msg(text: &str, pos: u64) {
    raise_text(text, pos);
}

/// `TakeException`: the pending message; clears the pending state.
pub extern "C" fn toy_take_exception() -> *const StrObj {
    PENDING.store(0, Ordering::Relaxed);
    let m = PENDING_MSG.swap(0, Ordering::Relaxed);
    if m == 0 {
        object::new_str(b"")
    } else {
        m as *const StrObj
    }
}

/// Called by compiled code when the stack pointer passes the module's
/// `toy_stack_limit` (`codegen::run`).
pub extern "C" fn toy_stack_overflow() -> ! {
    end_of_program();
    eprintln!("error: stack overflow");
    std::process::exit(101);
}

/// `exit(code)`: flushes output and ends the process.
pub extern "C" fn toy_exit(code: i64) -> ! {
    end_of_program();
    std::process::exit(code as i32);
}

/// Every runtime symbol compiled code may import, with its address.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut v: Vec<(&'static str, *const u8)> = vec![
        ("toy_pending", PENDING.as_ptr() as *const u8),
        (
            "toy_bril_heap",
            &bril::BRIL_HEAP as *const bril::PublishedHeap as *const u8,
        ),
        (
            "toy_gc_exit",
            &gc::roots::GC_EXIT as *const gc::roots::ExitFrame as *const u8,
        ),
        ("toy_raise_throw", toy_raise_throw as *const u8),
        ("toy_raise_div_zero", toy_raise_div_zero as *const u8),
        ("toy_raise_index_at", toy_raise_index_at as *const u8),
        ("toy_raise_nil", toy_raise_nil as *const u8),
        (
            "toy_raise_negative_length",
            toy_raise_negative_length as *const u8,
        ),
        ("toy_raise_pop_empty", toy_raise_pop_empty as *const u8),
        ("toy_raise_assert", toy_raise_assert as *const u8),
        ("toy_raise_assert_msg", toy_raise_assert_msg as *const u8),
        ("toy_take_exception", toy_take_exception as *const u8),
        ("toy_stack_overflow", toy_stack_overflow as *const u8),
        ("toy_exit", toy_exit as *const u8),
    ];
    v.extend(output::symbols());
    v.extend(math::symbols());
    v.extend(strings::symbols());
    v.extend(heap::symbols());
    v.extend(io::symbols());
    v.extend(bril::symbols());
    v
}
