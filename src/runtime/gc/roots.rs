//! Where the collector finds its roots.
//!
//! - **Compiled frames**, precisely, from Cranelift's stack maps. Every
//!   reference-typed value live across a call is spilled by the frontend to
//!   a stack slot, and the call's stack map lists those slots as offsets
//!   from the caller's stack pointer. Codegen installs a [`JitRoots`]: per
//!   compiled function, its address range and, per call site, the return
//!   address (as an offset), the frame size (FP minus SP while the frame is
//!   active) and the slot offsets.
//! - **The innermost compiled frame** is found through [`GC_EXIT`]: every
//!   runtime function that may collect is called through a small compiled
//!   trampoline that stores its caller's frame pointer and return address
//!   there. From that frame the walk follows the frame-pointer chain (every
//!   compiled function keeps one: `preserve_frame_pointers`): the saved FP
//!   is at `[fp]`, the return address at `[fp + 8]`. The walk ends at the
//!   first return address outside compiled code (the Rust frame that
//!   started `<init>` or `main`).
//! - **Globals** of reference type (their 8-byte data objects).
//! - **Interpreter frames**: the interpreter registers each active call's
//!   value array with the statements that hold references ([`ShadowFrame`]).
//! - The runtime's own: the pending exception's message, the arguments of
//!   the runtime function that is collecting, and pinned objects.
//!
//! No stack is scanned conservatively.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The stack map of one call site.
#[derive(Clone, Debug, PartialEq)]
pub struct SafepointMap {
    /// Offset of the return address from the function's start.
    pub ret: u32,
    /// FP minus SP while the frame is active.
    pub frame_size: u32,
    /// Offsets from SP of the slots that hold live references.
    pub slots: Box<[u32]>,
}

/// The stack maps of one compiled function.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncMaps {
    pub name: String,
    pub start: usize,
    pub len: usize,
    /// Sorted by `ret`.
    pub sites: Vec<SafepointMap>,
}

/// Everything codegen tells the collector about compiled code.
#[derive(Clone, Debug, Default)]
pub struct JitRoots {
    /// Sorted by `start`; the ranges do not overlap.
    pub funcs: Vec<FuncMaps>,
    /// Addresses of the 8-byte globals that hold references.
    pub globals: Vec<usize>,
}

impl JitRoots {
    /// The function whose code contains `pc`.
    pub fn func_at(&self, pc: usize) -> Option<&FuncMaps> {
        let i = self.funcs.partition_point(|f| f.start <= pc);
        let f = self.funcs.get(i.checked_sub(1)?)?;
        (pc < f.start + f.len).then_some(f)
    }
}

impl FuncMaps {
    /// The stack map of the call site whose return address is `pc`.
    pub fn site(&self, pc: usize) -> Option<&SafepointMap> {
        let off = u32::try_from(pc - self.start).ok()?;
        let i = self.sites.binary_search_by_key(&off, |s| s.ret).ok()?;
        self.sites.get(i)
    }
}

/// The innermost compiled frame when a runtime function that may collect
/// was called: `[fp, return address]`, written by the trampolines (symbol
/// `toy_gc_exit`).
#[repr(C)]
pub struct ExitFrame {
    pub fp: AtomicUsize,
    pub pc: AtomicUsize,
}

pub static GC_EXIT: ExitFrame = ExitFrame {
    fp: AtomicUsize::new(0),
    pc: AtomicUsize::new(0),
};

static JIT: Mutex<Option<Arc<JitRoots>>> = Mutex::new(None);

/// Installs the compiled program's roots for the next run (`None` for the
/// interpreter) and forgets the last exit frame.
pub fn install_jit(roots: Option<JitRoots>) {
    *JIT.lock().unwrap_or_else(|e| e.into_inner()) = roots.map(Arc::new);
    GC_EXIT.fp.store(0, Ordering::Relaxed);
    GC_EXIT.pc.store(0, Ordering::Relaxed);
}

pub(super) fn installed_jit() -> Option<Arc<JitRoots>> {
    JIT.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Calls `visit` with the address of every stack slot that holds a live
/// reference in the compiled frames, innermost first. `Err` when the exit
/// frame is not in compiled code (a runtime function that may collect was
/// called without its trampoline) or the frame chain is broken.
pub(super) fn walk_compiled_frames(
    roots: &JitRoots,
    mut visit: impl FnMut(usize),
) -> Result<(), String> {
    let mut fp = GC_EXIT.fp.load(Ordering::Relaxed);
    let mut pc = GC_EXIT.pc.load(Ordering::Relaxed);
    if fp == 0 {
        return Err("a collection outside any runtime call from compiled code".into());
    }
    let mut depth = 0usize;
    while let Some(f) = roots.func_at(pc) {
        if let Some(site) = f.site(pc) {
            let sp = fp - site.frame_size as usize;
            for &off in site.slots.iter() {
                visit(sp + off as usize);
            }
        }
        // SAFETY: `fp` is the frame pointer of a compiled function that is
        // active (it is in the chain from the exit frame), so `[fp]` holds
        // its caller's frame pointer and `[fp + 8]` its return address.
        let (next_fp, next_pc) = unsafe {
            (
                (fp as *const usize).read(),
                ((fp + 8) as *const usize).read(),
            )
        };
        // A caller in compiled code has its frame above this one; the
        // first caller outside it (Rust) ends the walk below.
        if next_fp <= fp && roots.func_at(next_pc).is_some() {
            return Err(format!("broken frame chain in `{}`", f.name));
        }
        fp = next_fp;
        pc = next_pc;
        depth += 1;
    }
    if depth == 0 {
        return Err(format!("exit frame {pc:#x} is not in compiled code"));
    }
    Ok(())
}

/// One interpreter frame: `slots[refs[i]]` hold references (or nil).
#[derive(Clone, Copy, Debug)]
pub struct ShadowFrame {
    pub slots: *const u64,
    pub refs: *const u32,
    pub nrefs: usize,
}
