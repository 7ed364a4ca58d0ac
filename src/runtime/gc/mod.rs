//! The garbage collector: precise, non-moving, stop-the-world mark-sweep
//! (design and pictures in `docs/gc.md`).
//!
//! - [`space`]: where blocks live (size-class chunks with mark bitmaps,
//!   large blocks) and the sweep.
//! - [`mark`]: marking from the roots through the type-tag layouts.
//! - [`roots`]: compiled frames through Cranelift stack maps, globals,
//!   interpreter frames.
//!
//! Invariants:
//! - A collection happens only in [`safepoint`], which a runtime function
//!   that allocates calls once, at its entry, with the references it was
//!   passed; it never collects afterwards, so the objects a runtime function
//!   makes and holds in Rust locals need no rooting. Every allocation made
//!   without a safepoint (an exception message, `TakeException`'s empty
//!   string) still counts towards the next collection.
//! - Compiled code calls every function that reaches [`safepoint`] through
//!   its trampoline (see [`roots::GC_EXIT`]); the interpreter registers its
//!   frames with [`push_frame`] before it calls any.
//! - Objects never move, so compiled code needs no read or write barrier:
//!   a store is a plain store.
//! - Collection is only enabled on a thread that called [`begin_program`]
//!   (the program thread of a run); elsewhere (unit tests of the runtime)
//!   memory is only allocated, and freed when the thread ends.
//!
//! Policy: a collection starts when the bytes in use reach three times what
//! the last collection kept (Go's `GOGC=200`), and never below
//! [`MIN_HEAP`]. With `GOGC=100`, binarytrees (a large long-lived tree
//! beside many short-lived ones) spent 42% of its time marking the
//! long-lived tree again and again and ran 16% slower than with no
//! collector at all; at 200 it runs 14% faster than that, in 2.2× the
//! memory of the C version at depth 20.

pub mod mark;
pub mod roots;
pub mod space;

use mark::{Layout, Marker};
use roots::{JitRoots, ShadowFrame};
use space::Space;
use std::cell::UnsafeCell;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The heap size below which no collection starts.
pub const MIN_HEAP: usize = 4 << 20;
/// A collection starts when the heap has grown by this percentage over
/// what the last one kept.
pub const GROWTH_PERCENT: usize = 200;

/// How the collector runs; the driver sets it from `TOYC_GC`,
/// `TOYC_GC_STRESS`, `TOYC_GC_STATS` and `--gc-stats`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GcConfig {
    /// Collect at all (`TOYC_GC=off` turns it off).
    pub collect: bool,
    /// Collect at every safepoint (`TOYC_GC_STRESS=1`).
    pub stress: bool,
    /// Print statistics to stderr when the program ends.
    pub stats: bool,
}

impl Default for GcConfig {
    fn default() -> Self {
        GcConfig {
            collect: true,
            stress: false,
            stats: false,
        }
    }
}

/// What the collector did during a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GcStats {
    pub collections: u64,
    /// Bytes requested from the allocator (rounded up to 8).
    pub allocated: u64,
    /// Bytes of blocks the sweeps freed (slot sizes).
    pub freed: u64,
    /// Most bytes in use at once (slot sizes), seen at each collection and
    /// at the end.
    pub peak: u64,
    pub pause_total: Duration,
    pub pause_max: Duration,
}

static CONFIG: Mutex<GcConfig> = Mutex::new(GcConfig {
    collect: true,
    stress: false,
    stats: false,
});
static LAYOUTS: Mutex<Option<Arc<Vec<Layout>>>> = Mutex::new(None);

/// Sets the configuration for the next run.
pub fn configure(config: GcConfig) {
    *CONFIG.lock().unwrap_or_else(|e| e.into_inner()) = config;
}

/// Installs the layouts of the next run's type tags.
pub(crate) fn install_layouts(layouts: Vec<Layout>) {
    *LAYOUTS.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(layouts));
}

#[derive(Default)]
struct Heap {
    space: Space,
    active: bool,
    config: GcConfig,
    /// Collect when `space.live_bytes` reaches this.
    next_gc: usize,
    stats: GcStats,
    jit: Option<Arc<JitRoots>>,
    layouts: Arc<Vec<Layout>>,
    shadow: Vec<ShadowFrame>,
    pinned: Vec<u64>,
    mark_stack: Vec<usize>,
}

thread_local! {
    static HEAP: UnsafeCell<Heap> = UnsafeCell::new(Heap::default());
}

/// Runs `f` on this thread's heap.
fn with_heap<R>(f: impl FnOnce(&mut Heap) -> R) -> R {
    HEAP.with(|h| {
        // SAFETY: the heap is only reached through this function, whose
        // callers never call it again inside `f`, so the reference is
        // unique while `f` runs.
        f(unsafe { &mut *h.get() })
    })
}

/// `size` zeroed bytes, 8-byte aligned. Never collects.
pub fn alloc(size: usize) -> *mut u8 {
    with_heap(|h| h.alloc(size))
}

/// A safepoint with no roots, then `size` zeroed bytes: [`safepoint`]
/// and [`alloc`] in one (the allocation of a struct).
pub fn safepoint_alloc(size: usize) -> *mut u8 {
    with_heap(|h| {
        if h.due() {
            h.collect(&[], None);
        }
        h.alloc(size)
    })
}

/// Bytes requested from the allocator on this thread so far.
pub fn allocated_bytes() -> u64 {
    with_heap(|h| h.stats.allocated)
}

/// Collects if it is time; `roots` are references the caller holds (0 is
/// nil). The only place a collection starts.
#[inline]
pub fn safepoint(roots: &[u64]) {
    with_heap(|h| {
        if h.due() {
            h.collect(roots, None);
        }
    })
}

/// [`safepoint`] for a runtime function that also holds `elem`, an
/// element (slot image) of an array whose type tag is `array_tag`: a root
/// only when such elements are references.
pub fn safepoint_with_elem(roots: &[u64], array_tag: u64, elem: u64) {
    with_heap(|h| {
        if h.due() {
            let elem_ref = matches!(
                h.layouts.get(array_tag as usize),
                Some(Layout::Array { elem_ref: true })
            );
            h.collect(roots, elem_ref.then_some(elem));
        }
    })
}

/// Starts collecting on this thread, with the installed configuration,
/// layouts and compiled-code roots.
pub fn begin_program() {
    let config = *CONFIG.lock().unwrap_or_else(|e| e.into_inner());
    let layouts = LAYOUTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_default();
    let jit = roots::installed_jit();
    with_heap(|h| {
        h.active = config.collect;
        h.config = config;
        h.layouts = layouts;
        h.jit = jit;
        h.next_gc = MIN_HEAP;
        h.stats = GcStats::default();
    });
}

/// Prints the statistics to stderr if the configuration asks for them
/// (the peak includes the heap now).
pub fn report_stats() {
    let (wanted, mut s, live) =
        with_heap(|h| (h.config.stats, h.stats.clone(), h.space.live_bytes as u64));
    if !wanted {
        return;
    }
    s.peak = s.peak.max(live);
    let mb = |b: u64| b as f64 / (1 << 20) as f64;
    eprintln!(
        "gc: {} collections, {:.1} MiB allocated, {:.1} MiB freed, peak heap {:.1} MiB, \
         pauses {:.3} ms total, {:.3} ms max",
        s.collections,
        mb(s.allocated),
        mb(s.freed),
        mb(s.peak),
        s.pause_total.as_secs_f64() * 1e3,
        s.pause_max.as_secs_f64() * 1e3
    );
}

/// Registers an interpreter frame (popped by [`pop_frame`]).
pub fn push_frame(frame: ShadowFrame) {
    with_heap(|h| h.shadow.push(frame));
}

pub fn pop_frame() {
    with_heap(|h| {
        h.shadow.pop();
    });
}

/// Keeps `obj` alive until the thread ends (the interpreter's string
/// constants).
pub fn pin(obj: u64) {
    with_heap(|h| h.pinned.push(obj));
}

impl Heap {
    /// Whether a safepoint collects now (the policy in the module docs).
    #[inline]
    fn due(&self) -> bool {
        self.active && (self.config.stress || self.space.live_bytes >= self.next_gc)
    }

    #[inline]
    fn alloc(&mut self, size: usize) -> *mut u8 {
        let size = match size.checked_add(7) {
            Some(s) => (s & !7).max(8),
            None => crate::runtime::object::out_of_memory(),
        };
        self.stats.allocated += size as u64;
        match self.space.alloc(size) {
            Some(p) => p,
            None => crate::runtime::object::out_of_memory(),
        }
    }

    fn collect(&mut self, roots: &[u64], extra: Option<u64>) {
        let start = Instant::now();
        self.stats.peak = self.stats.peak.max(self.space.live_bytes as u64);
        let mut stack = std::mem::take(&mut self.mark_stack);
        let layouts = self.layouts.clone();
        let mut m = Marker {
            space: &mut self.space,
            layouts: &layouts,
            stack: &mut stack,
            objects: 0,
        };
        for &r in roots.iter().chain(extra.iter()).chain(self.pinned.iter()) {
            m.object(r);
        }
        m.object(crate::runtime::pending_message_root());
        for f in &self.shadow {
            for i in 0..f.nrefs {
                // SAFETY: a registered frame's arrays stay valid until it is
                // popped, and `refs` indexes `slots`.
                m.object(unsafe { f.slots.add(f.refs.add(i).read() as usize).read() });
            }
        }
        if let Some(jit) = self.jit.clone() {
            for &g in &jit.globals {
                // SAFETY: a global's data object is 8 bytes, alive while the
                // program runs.
                m.object(unsafe { (g as *const u64).read() });
            }
            let walked = roots::walk_compiled_frames(&jit, |slot| {
                // SAFETY: the slot is in an active frame.
                m.object(unsafe { (slot as *const u64).read() })
            });
            if let Err(e) = walked {
                fatal(&e);
            }
        }
        m.drain();
        self.mark_stack = stack;
        let freed = self.space.sweep();
        self.stats.freed += freed as u64;
        self.stats.collections += 1;
        let grown = self.space.live_bytes / 100 * (100 + GROWTH_PERCENT);
        self.next_gc = grown.max(MIN_HEAP);
        self.space
            .trim_spares(self.next_gc.saturating_sub(self.space.live_bytes));
        let pause = start.elapsed();
        self.stats.pause_total += pause;
        self.stats.pause_max = self.stats.pause_max.max(pause);
    }
}

/// An internal error of the collector: the program cannot go on safely.
fn fatal(msg: &str) -> ! {
    crate::runtime::output::flush();
    eprintln!("error: internal compiler error in the garbage collector: {msg}");
    std::process::exit(70);
}
