//! Cranelift's compilation of translated functions on the pool's threads.
//!
//! - A worker needs nothing of the [`Compiler`] being declared into: a
//!   [`Job`] holds the ISAs and options, so a run compiles each function
//!   while the compiling thread translates the next ones
//!   ([`Compiler::compile_overlapped`]). Translation is about four times
//!   as fast as compilation, so the translating thread stays at most a few
//!   functions ahead of the workers and compiles the function it just
//!   translated itself beyond that (`par::Pool::overlapped`): a large
//!   module's translated functions are never all in memory at once.
//! - What the module needs of a compiled function is copied out of its
//!   context ([`CompiledFn`]) on the worker, which then empties the
//!   context, unless a listing prints from it: the contexts of a large
//!   module would otherwise all live until the end.
//! - A run compiles each function in a context of the job's spares
//!   ([`Job::spare`]): Cranelift keeps its working memory (the register
//!   allocator's above all) in the context across `clear`, so a worker
//!   does not allocate it anew for every function. The code does not
//!   depend on which context compiled it.
//! - Functions are defined in the module in module order, whatever order
//!   they finished in, so the code is the same with any number of threads.
//! - A panic inside Cranelift becomes an internal error naming the
//!   function; nothing of the module is used after an `Err`.

use super::{CodegenOptions, Compiler, LARGE_FUNCTION_INSTS, RegallocChoice, gc, stack_maps};
use crate::timing::record;
use cranelift_codegen::Context;
use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{FuncId as ClFuncId, ModuleReloc};
use std::time::{Duration, Instant};

/// What the JIT module and the collector need of one compiled function.
pub(super) struct CompiledFn {
    pub bytes: Vec<u8>,
    pub align: u64,
    pub relocs: Vec<ModuleReloc>,
    pub sites: Vec<crate::runtime::gc::roots::SafepointMap>,
}

/// Everything a worker needs to compile a function.
struct Job {
    isa: OwnedTargetIsa,
    /// The ISA of large functions, when some function may need it.
    large_isa: Option<OwnedTargetIsa>,
    regalloc: RegallocChoice,
    panic_in: Option<String>,
    /// Emptied contexts to compile in: at most one per thread at a time
    /// is taken, so the lock is held only to push or pop.
    spare: std::sync::Mutex<Vec<Context>>,
}

impl Job {
    /// Inserts `roots`' stack maps into `ctx`'s function (`name`, Cranelift
    /// `id`) and compiles it; gives the code and whether the large-function
    /// ISA compiled it. `ctx` keeps the compiled code (for a listing).
    fn run(
        &self,
        ctx: &mut Context,
        roots: &gc::FrameRoots,
        id: ClFuncId,
        name: &str,
    ) -> Result<(CompiledFn, bool), String> {
        stack_maps::insert(&mut ctx.func, roots);
        let large = match self.regalloc {
            RegallocChoice::BySize => ctx.func.dfg.num_insts() > LARGE_FUNCTION_INSTS,
            RegallocChoice::SinglePass => true,
            RegallocChoice::Backtracking => false,
        };
        let isa: &dyn TargetIsa = match &self.large_isa {
            Some(l) if large => &**l,
            _ => &*self.isa,
        };
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if self.panic_in.as_deref() == Some(name) {
                panic!("TOYC_TEST_CODEGEN_PANIC: a deliberate panic (tests only)");
            }
            compile_function(isa, ctx, id)
        }))
        .map_err(|_| format!("Cranelift panicked while compiling `{name}`"))?
        .map_err(|detail| format!("compiling `{name}`: {detail}"))?;
        Ok((code, large))
    }

    /// [`Job::run`] of `translated`'s function in one of the spare
    /// contexts, which is emptied and returned to the spares afterwards.
    fn run_in_spare(
        &self,
        mut translated: Context,
        roots: &gc::FrameRoots,
        id: ClFuncId,
        name: &str,
    ) -> Result<(CompiledFn, bool), String> {
        let spare = self.spare.lock().ok().and_then(|mut s| s.pop());
        let mut ctx = spare.unwrap_or_else(Context::new);
        std::mem::swap(&mut ctx.func, &mut translated.func);
        let out = self.run(&mut ctx, roots, id, name)?;
        // A context a failed compilation (or a panic inside Cranelift)
        // left is not reused.
        ctx.clear();
        if let Ok(mut s) = self.spare.lock() {
            s.push(ctx);
        }
        Ok(out)
    }
}

impl Compiler<'_> {
    /// The [`Job`] of this compilation (builds the large-function ISA when
    /// the allocator choice may need it).
    fn job(&mut self) -> Result<Job, String> {
        let large_isa = if self.opts.regalloc != RegallocChoice::Backtracking {
            Some(self.large_isa()?)
        } else {
            None
        };
        let CodegenOptions {
            regalloc, panic_in, ..
        } = &self.opts;
        Ok(Job {
            isa: self.isa.clone(),
            large_isa,
            regalloc: *regalloc,
            panic_in: panic_in.clone(),
            spare: std::sync::Mutex::default(),
        })
    }

    /// Translates the functions `selected` (module order) and compiles
    /// each on the pool's threads as soon as it is translated, then
    /// defines them in the module in that order. Records `clif` (the
    /// translation, on this thread) and `cranelift` (the rest of the time
    /// until every function is compiled).
    pub(super) fn compile_overlapped(&mut self, selected: &[usize]) -> Result<(), String> {
        let job = self.job()?;
        let (ir, pool) = (self.ir, self.opts.pool.clone());
        let work = selected.iter().map(|&i| ir.funcs[i].stmts.len()).sum();
        let start = Instant::now();
        let mut translating = Duration::ZERO;
        let mut fbc = FunctionBuilderContext::new();
        let compiled = pool.overlapped(
            work,
            |sink| {
                for &i in selected {
                    let t = Instant::now();
                    let (ctx, roots) = self.translate_function(i, &mut fbc)?;
                    translating += t.elapsed();
                    sink((i, self.funcs[i], ctx, roots));
                }
                Ok::<(), String>(())
            },
            |_, (i, id, ctx, roots)| job.run_in_spare(ctx, &roots, id, &ir.funcs[i].name),
        );
        record("clif", translating);
        record("cranelift", start.elapsed().saturating_sub(translating));
        for (&i, result) in selected.iter().zip(compiled?) {
            let (mut code, large) = result?;
            self.large_functions += usize::from(large);
            self.define_compiled(i, &mut code)?;
        }
        Ok(())
    }

    /// For a listing: compiles (when `compile`) function `selected[k]`,
    /// translated in `ctxs[k]` with the stack maps `roots[k]`, for every
    /// `k`, on the pool's threads, largest first; the contexts stay for the
    /// listing. Gives each one's code (`None` when not compiled), or the
    /// error of the first function (in module order) that failed.
    pub(super) fn compile_listed(
        &mut self,
        selected: &[usize],
        ctxs: &mut [Context],
        roots: &[gc::FrameRoots],
        compile: bool,
    ) -> Result<Vec<Option<CompiledFn>>, String> {
        let job = self.job()?;
        let (funcs, ids) = (&self.ir.funcs, &self.funcs);
        let work = selected.iter().map(|&i| funcs[i].stmts.len()).sum();
        let size = |ctx: &Context| ctx.func.dfg.num_insts();
        let done = self
            .opts
            .pool
            .map_mut_largest_first(ctxs, work, size, |k, ctx| {
                if !compile {
                    stack_maps::insert(&mut ctx.func, &roots[k]);
                    return Ok((None, false));
                }
                let i = selected[k];
                job.run(ctx, &roots[k], ids[i], &funcs[i].name)
                    .map(|(code, large)| (Some(code), large))
            });
        let mut out = Vec::with_capacity(done.len());
        for result in done {
            let (code, large) = result?;
            self.large_functions += usize::from(large);
            out.push(code);
        }
        Ok(out)
    }
}

/// Compiles `ctx`'s function (Cranelift's `id`) with `isa`; gives its code,
/// relocations (as the JIT module links them) and stack maps.
pub(super) fn compile_function(
    isa: &dyn TargetIsa,
    ctx: &mut Context,
    id: ClFuncId,
) -> Result<CompiledFn, String> {
    let mut ctrl = cranelift_codegen::control::ControlPlane::default();
    ctx.compile(isa, &mut ctrl)
        .map_err(|e| format!("{:?}", e.inner))?;
    let code = ctx
        .compiled_code()
        .ok_or("no compiled code after compilation")?;
    Ok(CompiledFn {
        bytes: code.code_buffer().to_vec(),
        align: code.buffer.alignment as u64,
        relocs: module_relocs(code, &ctx.func, id),
        sites: gc::safepoint_maps(code),
    })
}

/// The relocations of `func`'s compiled `code` (function `id`), as the
/// JIT module links them.
pub(super) fn module_relocs(
    code: &cranelift_codegen::CompiledCode,
    func: &cranelift_codegen::ir::Function,
    id: ClFuncId,
) -> Vec<ModuleReloc> {
    code.buffer
        .relocs()
        .iter()
        .map(|r| ModuleReloc::from_mach_reloc(r, func, id))
        .collect()
}
