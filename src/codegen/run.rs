//! Running a compiled program: `<init>` then `main`, on a thread with a
//! large stack whose lower limit compiled code checks.

use super::{CodegenOptions, Compiler};
use crate::ir;
use crate::runtime;
use crate::span::SourceMap;
use std::sync::atomic::Ordering;

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
    let positions = cx.positions.clone();
    runtime::reset(positions, opts.gc);
    runtime::heap::install(cx.types.descs.clone(), args.to_vec());
    runtime::gc::roots::install_jit(Some(cx.jit_roots()));
    if capture {
        runtime::output::set_capture(true);
    }

    let main_returns_int = matches!(main_ret, ir::Type::Int);
    let start = std::time::Instant::now();
    let handle = std::thread::Builder::new()
        .name("toy-main".into())
        .stack_size(RUN_STACK)
        .spawn(move || program_thread(init_ptr, main_ptr, main_returns_int))
        .map_err(|e| format!("cannot start the program thread: {e}"))?;
    let code = handle
        .join()
        .map_err(|_| "the program thread panicked".to_string())?;
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

fn program_thread(init_ptr: usize, main_ptr: usize, main_returns_int: bool) -> i32 {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    runtime::STACK_LIMIT.store(
        here.saturating_sub(RUN_STACK) + STACK_MARGIN,
        Ordering::Relaxed,
    );

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
