//! Running a compiled program: `<init>` then `main`, on a thread with a
//! large stack whose lower limit compiled code checks.

use super::{CodegenOptions, Compiler};
use crate::ir;
use crate::runtime;
use crate::span::SourceMap;

/// Stack size of the program thread. A small recursive function gets far
/// more than the 100,000 frames LANGUAGE.md promises; the memory is only
/// touched as deep as the program recurses.
pub const RUN_STACK: usize = 128 << 20;

/// Room kept below the stack limit: one frame of the function that detects
/// the overflow plus the runtime's own calls (printing, formatting) made
/// from a frame just above the limit.
pub const STACK_MARGIN: usize = 1 << 20;

/// Compiles and runs `module`; returns the exit code and, when `capture`,
/// the program's output (otherwise it goes to stdout). `Err` is an
/// internal error of the backend.
pub fn run(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &CodegenOptions,
    args: &[String],
    capture: bool,
) -> Result<(i32, Vec<u8>), String> {
    run_on(module, sources, opts, args, capture, ProgramThread::New)
}

/// Where the program runs. Either way its stack limit is [`RUN_STACK`]
/// below its first frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramThread {
    /// A new thread with a [`RUN_STACK`] stack, whose thread-local heaps
    /// start empty and are freed when it ends.
    New,
    /// The calling thread, when at least [`RUN_STACK`] of its stack is left
    /// below the caller ([`stack_room`]); otherwise a new one. Saves a
    /// thread's start-up for a process that runs one program and exits.
    CurrentIfRoom,
}

/// Bytes of the calling thread's stack below this function's frame, when
/// the system says where the stack ends.
pub fn stack_room() -> Option<usize> {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    // SAFETY: `attr` is initialised by `pthread_getattr_np` before it is
    // read and destroyed once; `lowest` and `size` are plain outputs.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut lowest: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let got = libc::pthread_attr_getstack(&attr, &mut lowest, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (got == 0).then(|| here.saturating_sub(lowest as usize))
    }
}

/// [`run`], with the choice of thread.
pub fn run_on(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &CodegenOptions,
    args: &[String],
    capture: bool,
    thread: ProgramThread,
) -> Result<(i32, Vec<u8>), String> {
    let program = module.program.clone();
    let (init_i, main_i) = (program.init.0 as usize, program.main.0 as usize);
    let main_ret = module
        .funcs
        .get(main_i)
        .ok_or("no `main` function")?
        .ret
        .clone();
    if module.funcs.get(init_i).is_none() {
        return Err("no `<init>` function".into());
    }

    let _guard = runtime::run_lock();
    let mut cx = Compiler::new(module, sources, opts)?;
    cx.compile(super::Emit::Run)?;
    let init_ptr = cx.module.get_finalized_function(cx.funcs[init_i]) as usize;
    let main_ptr = cx.module.get_finalized_function(cx.funcs[main_i]) as usize;
    let (limit_word, _) = cx.module.get_finalized_data(cx.stack_limit_data);
    let limit_word = limit_word as usize;
    let positions = cx.positions.clone();
    runtime::reset(positions, opts.gc);
    runtime::heap::install(cx.types.descs.clone(), args.to_vec());
    runtime::gc::roots::install_jit(Some(cx.jit_roots()));
    if capture {
        runtime::output::set_capture(true);
    }

    let main_returns_int = matches!(main_ret, ir::Type::Int);
    let start = std::time::Instant::now();
    let here = thread == ProgramThread::CurrentIfRoom
        && stack_room().is_some_and(|room| room >= RUN_STACK + STACK_MARGIN);
    let code = if here {
        program_thread(init_ptr, main_ptr, main_returns_int, limit_word)
    } else {
        let handle = std::thread::Builder::new()
            .name("toy-main".into())
            .stack_size(RUN_STACK)
            .spawn(move || program_thread(init_ptr, main_ptr, main_returns_int, limit_word))
            .map_err(|e| format!("cannot start the program thread: {e}"))?;
        handle
            .join()
            .map_err(|_| "the program thread panicked".to_string())?
    };
    runtime::output::flush();
    crate::timing::record("run", start.elapsed());
    let out = if capture {
        runtime::output::set_capture(false)
    } else {
        Vec::new()
    };
    // SAFETY: the program thread has ended, so no compiled code runs any
    // more, and the runtime keeps no pointer into the module's data (its
    // per-run state is replaced by the next `reset`/`install`).
    unsafe { cx.module.free_memory() };
    Ok((code, out))
}

/// Runs the program on this thread. `limit_word` is the module's
/// `toy_stack_limit` (8 bytes, aligned, writable), which gets the lowest
/// address the program's frames may reach: [`RUN_STACK`] below this frame.
fn program_thread(
    init_ptr: usize,
    main_ptr: usize,
    main_returns_int: bool,
    limit_word: usize,
) -> i32 {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    // SAFETY: `limit_word` is the finalized `toy_stack_limit` data object
    // of the module whose code runs next (8 bytes, 8-aligned, writable),
    // and no compiled code runs yet.
    unsafe {
        (limit_word as *mut usize).write(here.saturating_sub(RUN_STACK) + STACK_MARGIN);
    }

    runtime::gc::begin_program();
    runtime::bril::begin_program();
    let code = run_init_and_main(init_ptr, main_ptr, main_returns_int);
    runtime::end_of_program();
    code
}

fn run_init_and_main(init_ptr: usize, main_ptr: usize, main_returns_int: bool) -> i32 {
    // SAFETY: the pointers are finalized JIT functions with these signatures
    // (`<init>`: no params, no result; `main`: no params, int or no result),
    // compiled for the host's C calling convention.
    unsafe {
        let init: extern "C" fn() = std::mem::transmute::<usize, extern "C" fn()>(init_ptr);
        init();
        if let Some((msg, pos)) = runtime::pending() {
            return runtime::report_uncaught(&msg, &pos);
        }
        let code = if main_returns_int {
            let main: extern "C" fn() -> i64 =
                std::mem::transmute::<usize, extern "C" fn() -> i64>(main_ptr);
            main()
        } else {
            let main: extern "C" fn() = std::mem::transmute::<usize, extern "C" fn()>(main_ptr);
            main();
            0
        };
        if let Some((msg, pos)) = runtime::pending() {
            return runtime::report_uncaught(&msg, &pos);
        }
        code as i32
    }
}
