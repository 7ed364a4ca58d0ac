//! Translation of `IrCode` to Cranelift IR and JIT compilation.
//!
//! - [`translate`]: one IR function → one Cranelift function.
//! - [`ops`]: the pure operations with Toy semantics.
//! - [`heap`]: loads, stores and allocations of arrays, structs, globals.
//! - [`rtfn`]: the table of runtime entry points.
//! - [`run`]: the program thread (large stack, stack limit) and exit codes.
//! - [`asm`]: listings of what the backend made: CLIF before and after
//!   Cranelift's optimizer, and disassembled machine code.
//!
//! The JIT targets the host ISA (cranelift-native), `is_pic=false`,
//! `opt_level=none` at every `-O` level: our passes have done the
//! mid-end's work, and the translation places the loads it introduces
//! that Cranelift's e-graph would hoist ([`invariant`]). Measured on a
//! generated program of 100,000 lines, the e-graph was 38% of Cranelift's
//! time (422 -> 261 ms), and no benchmark of `bench/` ran slower without
//! it; `TOYC_CRANELIFT_OPT=speed` turns it back on at `-O1` and up (for
//! measurements). All functions are declared before
//! any is defined, so calls may go in any direction. Runtime functions are
//! imported by symbol; string constants are read-only data objects in the
//! runtime's string layout; each global is an 8-byte writable data object.

pub mod asm;
pub mod block_order;
mod bril_mem;
mod compile;
mod const_div;
pub mod fixed_data;
pub mod gc;
pub mod heap;
mod invariant;
pub mod ops;
mod raise;
pub mod rtfn;
pub mod run;
mod schedule;
pub mod signature;
mod stack_maps;
#[cfg(test)]
mod tests;
pub mod translate;

use crate::ir;
use crate::span::{SourceMap, Span};
use crate::timing::record;
use crate::type_tags::TypeTags;
use compile::{CompiledFn, module_relocs};
use cranelift_codegen::ir::UserFuncName;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use cranelift_module::{DataDescription, DataId, FuncId as ClFuncId, Linkage, Module};
use std::collections::HashMap;
use std::time::Instant;

/// What the backend does; the driver sets every field from the command
/// line and the environment.
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// Optimize (`-O1` and up): the translation moves and shares
    /// [`invariant`] loads, and reads the call summaries of
    /// [`fixed_data`].
    pub optimize: bool,
    /// Cranelift `opt_level=speed` (its e-graph optimizer) instead of
    /// `none`, for functions below [`LARGE_FUNCTION_INSTS`]
    /// (`TOYC_CRANELIFT_OPT=speed` at `-O1` and up; for measurements).
    pub egraph: bool,
    /// Run Cranelift's IR verifier on the translation (the driver turns it
    /// on together with ours).
    pub verify: bool,
    /// Which register allocator compiles each function.
    pub regalloc: RegallocChoice,
    /// How the collector runs while the program does.
    pub gc: crate::runtime::gc::GcConfig,
    /// Tests only (`TOYC_TEST_CODEGEN_PANIC=NAME`): panic inside the
    /// `catch_unwind` around Cranelift's compilation of function `NAME`, to
    /// exercise the internal-error path (`tests/it/codegen/ice.rs`).
    pub panic_in: Option<String>,
    /// The threads Cranelift compiles functions on.
    pub pool: crate::par::Pool,
    /// Compile every collector trampoline with Cranelift, as on an
    /// architecture without a template (`TOYC_TRAMPOLINES=compiled`, for
    /// tests and measurements).
    pub compiled_trampolines: bool,
}

/// JIT-compiles `module`, runs `<init>` then `main` with `args`, and
/// returns the process exit code (0, `main`'s int, `exit(n)`, or 101 after
/// an uncaught runtime error or a stack overflow). An internal error of the
/// backend (which should not happen) is reported and gives exit code 70.
///
/// The program runs on the calling thread when its stack has room
/// ([`run::ProgramThread::CurrentIfRoom`]), so the runtime's thread-local
/// heaps outlive it: call this once per thread (the driver's `toyc run`).
pub fn run_module(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &CodegenOptions,
    args: &[String],
) -> i32 {
    let thread = run::ProgramThread::CurrentIfRoom;
    match run::run_on(module, sources, opts, args, false, thread) {
        Ok((code, _)) => code,
        Err(e) => {
            crate::runtime::output::flush();
            eprintln!("error: internal compiler error in the code generator: {e}");
            eprintln!("{}", crate::diag::ICE_HELP);
            70
        }
    }
}

/// What [`Compiler::compile`] is for.
#[derive(Clone, Copy, Debug)]
pub enum Emit<'n> {
    /// Compile the functions a run can execute ([`reachable_functions`])
    /// and finalize the module, to run it.
    Run,
    /// Compile every function and finalize the module.
    All,
    /// A listing of every function, or of the one named.
    Listing(asm::Listing, Option<&'n str>),
}

/// The functions a run can execute, in module order: `<init>`, `main` and
/// every function they reach through calls. A call names its callee
/// ([`ir::Inst::Call`]) and nothing else takes a function's address, so the
/// others can never run; after inlining that is often most of a small
/// program (Bril's `main` inlined into its argument-passing `<main>`), and
/// Cranelift's time is per function.
fn reachable_functions(ir: &ir::Module) -> Vec<usize> {
    let live = ir.reachable_from_entry();
    (0..live.len()).filter(|&f| live[f]).collect()
}

/// Module-wide state of one compilation.
pub(crate) struct Compiler<'a> {
    pub module: JITModule,
    pub ir: &'a ir::Module,
    sources: &'a SourceMap,
    /// The Cranelift id of each IR function (same index).
    pub funcs: Vec<ClFuncId>,
    runtime: HashMap<&'static str, ClFuncId>,
    strs: HashMap<Box<str>, DataId>,
    /// A read-only 8-byte data object per float constant used in a loop
    /// (keyed by its bits), for [`translate`]'s loop constants.
    float_consts: HashMap<u64, DataId>,
    /// One 8-byte data object per global (same index as `program.globals`).
    pub globals: Vec<DataId>,
    pub pending_data: DataId,
    /// `toy_stack_limit`: the lowest stack address the module's code may
    /// run at before it calls `toy_stack_overflow`; a word of the module
    /// itself, written by [`run`] before the program starts (0 until then:
    /// no limit).
    pub stack_limit_data: DataId,
    /// `toy_bril_heap`: the running Bril program's allocations
    /// (`runtime::bril::BRIL_HEAP`).
    pub bril_heap_data: DataId,
    /// `toy_gc_exit`, where trampolines record the calling frame.
    gc_exit_data: DataId,
    /// The trampoline of each runtime function that may collect.
    trampolines: HashMap<&'static str, ClFuncId>,
    /// The stack maps of each compiled function.
    stack_maps: Vec<gc::PendingMaps>,
    positions: Vec<String>,
    position_ids: HashMap<Span, u64>,
    pub types: TypeTags,
    /// The ISA of [`Compiler::module`].
    isa: cranelift_codegen::isa::OwnedTargetIsa,
    /// The ISA for functions over [`LARGE_FUNCTION_INSTS`] (single-pass
    /// register allocation, never the e-graph; built on first use).
    large_isa: Option<cranelift_codegen::isa::OwnedTargetIsa>,
    opts: CodegenOptions,
    /// How many functions were compiled with the large-function ISA.
    pub large_functions: usize,
    /// The module's call summaries when optimizing (`None` at `-O0`): what
    /// [`fixed_data::MovableData`] reads for calls.
    summaries: Option<crate::memssa::alias::Summaries>,
}

/// Functions with more Cranelift instructions than this are register-
/// allocated with Cranelift's single-pass allocator instead of the
/// backtracking one. The backtracking allocator (regalloc2 "ion") is
/// super-linear on one giant function — a value live across thousands of
/// blocks is split and re-split. Measured (`bench/scale_codegen.sh`, the
/// Cranelift phase at -O0): a function of 10,000 `if`s takes 8.4 s with
/// it against 0.05 s single-pass; one of 33,000 small loops 4.9 s against
/// 2.1 s. The single-pass allocator is linear in the number of blocks times
/// the values live across each block in Cranelift's block order, which
/// `FnTrans::goto_if_not` keeps close to ours (loop bodies next to their
/// headers). Such a function never gets Cranelift's e-graph optimizer, not
/// even with [`CodegenOptions::egraph`]: it is super-linear on it (a
/// function of 100,000 `if`s: 3.1 s at `speed`, 0.66 s at `none`, against
/// 94 / 60 ms for 10,000). As production JITs do for huge methods, we
/// bound compile time and accept slower code in such functions.
pub const LARGE_FUNCTION_INSTS: usize = 12_000;

/// Which register allocator compiles each function: by size (the
/// default), or one for all (`single_pass` or `backtracking`, for
/// measurements).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum RegallocChoice {
    #[default]
    BySize,
    SinglePass,
    Backtracking,
}

impl RegallocChoice {
    /// `single_pass` or `backtracking`; anything else chooses by size.
    pub fn parse(s: Option<&str>) -> RegallocChoice {
        match s {
            Some("single_pass") => RegallocChoice::SinglePass,
            Some("backtracking") => RegallocChoice::Backtracking,
            _ => RegallocChoice::BySize,
        }
    }
}

/// Address space reserved for the code and data of one compiled module.
/// One arena keeps all of them within the ±2 GiB reach of the 32-bit
/// PC-relative relocations Cranelift uses between them; it is only address
/// space (pages are committed as the JIT fills them).
const JIT_ARENA_BYTES: usize = 1 << 30;

fn isa_for(
    opts: &CodegenOptions,
    regalloc: &str,
) -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, k: &str, v: &str| {
        flags
            .set(k, v)
            .map_err(|e| format!("cranelift setting {k}={v}: {e}"))
    };
    set(
        &mut flags,
        "opt_level",
        if opts.egraph { "speed" } else { "none" },
    )?;
    set(&mut flags, "is_pic", "false")?;
    // The collector walks compiled frames by their frame pointers.
    set(&mut flags, "preserve_frame_pointers", "true")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "regalloc_algorithm", regalloc)?;
    set(
        &mut flags,
        "enable_verifier",
        if opts.verify { "true" } else { "false" },
    )?;
    let isa_builder =
        cranelift_native::builder().map_err(|e| format!("host machine not supported: {e}"))?;
    isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("cranelift ISA: {e}"))
}

/// The JIT module, and the ISA it compiles for (shared with the threads
/// that compile functions while the module is being declared into).
fn jit_module(
    opts: &CodegenOptions,
) -> Result<(JITModule, cranelift_codegen::isa::OwnedTargetIsa), String> {
    let isa = isa_for(opts, "backtracking")?;
    let mut jb = JITBuilder::with_isa(isa.clone(), cranelift_module::default_libcall_names());
    // Looked up by name when first referenced: a program uses a handful of
    // the runtime's symbols, and building a map of all of them costs more.
    let symbols: Vec<(&'static str, usize)> = crate::runtime::symbols()
        .into_iter()
        .map(|(name, ptr)| (name, ptr as usize))
        .collect();
    jb.symbol_lookup_fn(Box::new(move |name| {
        let hit = symbols.iter().find(|(n, _)| *n == name);
        hit.map(|&(_, addr)| addr as *const u8)
            .or_else(|| libcall_address(name))
    }));
    let arena = ArenaMemoryProvider::new_with_size(JIT_ARENA_BYTES)
        .map_err(|e| format!("cannot reserve JIT memory: {e}"))?;
    jb.memory_provider(Box::new(arena));
    Ok((JITModule::new(jb), isa))
}

/// The address of a libcall Cranelift may emit (the names of
/// `cranelift_module::default_libcall_names`): rounding and `fma` on a CPU
/// without SSE4.1 or FMA, and the memory functions. They are looked up
/// here, not with `dlsym`, which finds nothing in a statically linked
/// toyc (build.rs).
fn libcall_address(name: &str) -> Option<*const u8> {
    macro_rules! float_libcalls {
        ($($name:literal: fn($($x:ident),+) -> $t:ty { $body:expr })*) => {
            match name {
                $($name => {
                    extern "C" fn f($($x: $t),+) -> $t {
                        $body
                    }
                    return Some(f as *const u8);
                })*
                _ => {}
            }
        };
    }
    float_libcalls! {
        "ceil": fn(x) -> f64 { x.ceil() }
        "ceilf": fn(x) -> f32 { x.ceil() }
        "floor": fn(x) -> f64 { x.floor() }
        "floorf": fn(x) -> f32 { x.floor() }
        "trunc": fn(x) -> f64 { x.trunc() }
        "truncf": fn(x) -> f32 { x.trunc() }
        "nearbyint": fn(x) -> f64 { x.round_ties_even() }
        "nearbyintf": fn(x) -> f32 { x.round_ties_even() }
        "fma": fn(x, y, z) -> f64 { x.mul_add(y, z) }
        "fmaf": fn(x, y, z) -> f32 { x.mul_add(y, z) }
    }
    let addr = match name {
        "memcpy" => libc::memcpy as *const u8,
        "memset" => libc::memset as *const u8,
        "memmove" => libc::memmove as *const u8,
        "memcmp" => libc::memcmp as *const u8,
        _ => return None,
    };
    Some(addr)
}

impl<'a> Compiler<'a> {
    pub fn new(
        ir: &'a ir::Module,
        sources: &'a SourceMap,
        opts: &CodegenOptions,
    ) -> Result<Compiler<'a>, String> {
        let (mut module, isa) = jit_module(opts)?;
        let me = |e: cranelift_module::ModuleError| e.to_string();
        let pending_data = module
            .declare_data("toy_pending", Linkage::Import, true, false)
            .map_err(me)?;
        // The module's own word, so the prologue's check reads it
        // PC-relative (`lea`, then the load) instead of through a 64-bit
        // absolute address.
        let stack_limit_data = module
            .declare_data("toy_stack_limit", Linkage::Local, true, false)
            .map_err(me)?;
        let mut limit = DataDescription::new();
        limit.define_zeroinit(8);
        limit.set_align(8);
        module.define_data(stack_limit_data, &limit).map_err(me)?;
        let gc_exit_data = module
            .declare_data("toy_gc_exit", Linkage::Import, true, false)
            .map_err(me)?;
        let bril_heap_data = module
            .declare_data("toy_bril_heap", Linkage::Import, true, false)
            .map_err(me)?;
        let mut globals = Vec::new();
        for _ in &ir.program.globals {
            let id = module.declare_anonymous_data(true, false).map_err(me)?;
            let mut d = DataDescription::new();
            d.define_zeroinit(8);
            d.set_align(8);
            module.define_data(id, &d).map_err(me)?;
            globals.push(id);
        }
        let mut cx = Compiler {
            module,
            ir,
            sources,
            funcs: Vec::new(),
            runtime: HashMap::new(),
            strs: HashMap::new(),
            float_consts: HashMap::new(),
            globals,
            pending_data,
            stack_limit_data,
            bril_heap_data,
            gc_exit_data,
            trampolines: HashMap::new(),
            stack_maps: Vec::new(),
            positions: Vec::new(),
            position_ids: HashMap::new(),
            types: TypeTags::default(),
            isa,
            large_isa: None,
            opts: opts.clone(),
            large_functions: 0,
            summaries: opts
                .optimize
                .then(|| crate::memssa::alias::summaries_on(ir, &opts.pool)),
        };
        let call_conv = cx.module.isa().default_call_conv();
        for (i, code) in ir.funcs.iter().enumerate() {
            let sig = signature::toy_signature(code, call_conv);
            let id = cx
                .module
                .declare_function(&format!("toy_fn{i}"), Linkage::Local, &sig)
                .map_err(me)?;
            cx.funcs.push(id);
        }
        Ok(cx)
    }

    /// Translates the functions `emit` selects. [`Emit::Run`] and
    /// [`Emit::All`] define (compile) them and finalize the module, ready
    /// to run; a listing translates only the selected functions (and
    /// compiles them unless it is [`asm::Listing::Clif`]) and returns each
    /// one's `(name, text)`, in module order.
    ///
    /// Translation runs in module order on this thread (it declares runtime
    /// imports, string constants, positions and type tags on first use);
    /// Cranelift compiles the functions on [`CodegenOptions::pool`]'s
    /// threads, each with its own context (for a run, while the next ones
    /// are translated: [`Compiler::compile_overlapped`]); the machine code
    /// is defined in the module in module order, so the result is the same
    /// with any number of threads.
    pub fn compile(&mut self, emit: Emit) -> Result<Vec<(String, String)>, String> {
        let ir = self.ir;
        let selected: Vec<usize> = match emit {
            Emit::Run => reachable_functions(ir),
            _ => (0..ir.funcs.len())
                .filter(|&i| match emit {
                    Emit::Listing(_, Some(only)) => only == ir.funcs[i].name,
                    _ => true,
                })
                .collect(),
        };
        let Emit::Listing(listing, _) = emit else {
            self.compile_overlapped(&selected)?;
            let start = Instant::now();
            let finalized = self
                .module
                .finalize_definitions()
                .map_err(|e| e.to_string());
            record("jit", start.elapsed());
            finalized?;
            return Ok(Vec::new());
        };
        let start = Instant::now();
        let mut ctxs = Vec::with_capacity(selected.len());
        let mut roots = Vec::with_capacity(selected.len());
        let mut fbc = FunctionBuilderContext::new();
        for &i in &selected {
            let (ctx, r) = self.translate_function(i, &mut fbc)?;
            ctxs.push(ctx);
            roots.push(r);
        }
        record("clif", start.elapsed());
        let start = Instant::now();
        let compile = listing != asm::Listing::Clif;
        let compiled = self.compile_listed(&selected, &mut ctxs, &roots, compile);
        record("cranelift", start.elapsed());
        let mut texts = Vec::new();
        for ((&i, ctx), code) in selected.iter().zip(ctxs).zip(compiled?) {
            if let Some(mut code) = code {
                self.define_compiled(i, &mut code)?;
            }
            let name = ir.funcs[i].name.clone();
            if listing == asm::Listing::Asm {
                texts.push((name, asm::disassemble(self, &ctx, self.funcs[i])?));
            } else {
                let text = ctx.func.display().to_string();
                let legend = self.callee_legend(&text);
                texts.push((name, text + &legend));
            }
        }
        Ok(texts)
    }

    /// Function `i` translated to Cranelift IR in a context of its own,
    /// with what its stack maps need.
    fn translate_function(
        &mut self,
        i: usize,
        fbc: &mut FunctionBuilderContext,
    ) -> Result<(cranelift_codegen::Context, gc::FrameRoots), String> {
        let code = &self.ir.funcs[i];
        let mut ctx = self.module.make_context();
        ctx.func.signature = signature::toy_signature(code, self.module.isa().default_call_conv());
        ctx.func.name = UserFuncName::user(0, i as u32);
        let b = FunctionBuilder::new(&mut ctx.func, fbc);
        let roots =
            translate::translate(self, code, b).map_err(|e| format!("in `{}`: {e}", code.name))?;
        Ok((ctx, roots))
    }

    /// Defines function `i`, compiled as `code`, in the module, and keeps
    /// its stack maps.
    fn define_compiled(&mut self, i: usize, code: &mut CompiledFn) -> Result<(), String> {
        let name = &self.ir.funcs[i].name;
        let id = self.funcs[i];
        self.define_code(id, code)
            .map_err(|e| format!("compiling `{name}`: {e}"))?;
        self.keep_stack_maps(id, name, code);
        Ok(())
    }

    /// Defines `id` in the module as `code` (from [`compile::compile_function`]).
    fn define_code(&mut self, id: ClFuncId, code: &CompiledFn) -> Result<(), String> {
        self.module
            .define_function_bytes(id, code.align, &code.bytes, &code.relocs)
            .map_err(|e| e.to_string())
    }

    /// The ISA for functions over [`LARGE_FUNCTION_INSTS`] (or every
    /// function, with `TOYC_REGALLOC=single_pass`): single-pass register
    /// allocation, and Cranelift's e-graph off unless the allocator was
    /// forced. Built on first use.
    fn large_isa(&mut self) -> Result<cranelift_codegen::isa::OwnedTargetIsa, String> {
        if let Some(isa) = &self.large_isa {
            return Ok(isa.clone());
        }
        // Forced single-pass (`TOYC_REGALLOC`) keeps the e-graph setting;
        // chosen by size, the e-graph is skipped.
        let egraph = self.opts.egraph && self.opts.regalloc == RegallocChoice::SinglePass;
        let opts = CodegenOptions {
            egraph,
            ..self.opts.clone()
        };
        let isa = isa_for(&opts, "single_pass")?;
        self.large_isa = Some(isa.clone());
        Ok(isa)
    }

    /// The function compiled code calls for a runtime function: the
    /// import itself, or its trampoline when it may collect.
    pub fn runtime_func(&mut self, sig: rtfn::RtSig) -> Result<ClFuncId, String> {
        let id = self.runtime_import(sig.clone())?;
        if sig.collects {
            self.trampoline(sig, id)
        } else {
            Ok(id)
        }
    }

    /// The declared id of a runtime function (declared on first use).
    fn runtime_import(&mut self, sig: rtfn::RtSig) -> Result<ClFuncId, String> {
        if let Some(id) = self.runtime.get(sig.symbol) {
            return Ok(*id);
        }
        let s = signature::rt_signature(&sig, self.module.isa().default_call_conv());
        let id = self
            .module
            .declare_function(sig.symbol, Linkage::Import, &s)
            .map_err(|e| e.to_string())?;
        self.runtime.insert(sig.symbol, id);
        Ok(id)
    }

    /// One `; u0:N = NAME` line per function `text` (CLIF) refers to: the
    /// Toy function, runtime symbol or trampoline (`SYMBOL.gc`) behind
    /// each `u0:N`.
    fn callee_legend(&self, text: &str) -> String {
        let mut ids: Vec<u32> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("fn"))
            .filter_map(|l| l.split("u0:").nth(1))
            .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let mut out = String::new();
        for n in ids {
            let name = self.callee_name(ClFuncId::from_u32(n));
            out.push_str(&format!("; u0:{n} = {name}\n"));
        }
        out
    }

    /// The name of a declared function: the Toy function's name, or the
    /// runtime symbol, or a trampoline's `SYMBOL.gc`.
    fn callee_name(&self, id: ClFuncId) -> String {
        match self.funcs.iter().position(|f| *f == id) {
            Some(i) => self.ir.funcs[i].name.clone(),
            None => {
                let decl = self.module.declarations().get_function_decl(id);
                decl.linkage_name(id).to_string()
            }
        }
    }

    /// The read-only data object of a string constant (one per distinct text).
    pub fn str_const(&mut self, text: &str) -> Result<DataId, String> {
        if let Some(id) = self.strs.get(text) {
            return Ok(*id);
        }
        let id = self.read_only_data(|module, id| {
            let mut d = DataDescription::new();
            d.define(crate::runtime::object::str_const_image(text.as_bytes()).into_boxed_slice());
            // The object's data pointer points at its own bytes.
            let this = module.declare_data_in_data(id, &mut d);
            d.write_data_addr(
                crate::runtime::object::STR_CONST_DATA_RELOC,
                this,
                crate::runtime::object::STR_CONST_BYTES_OFFSET,
            );
            d
        })?;
        self.strs.insert(text.into(), id);
        Ok(id)
    }

    /// The read-only data object holding the float `bits` (8 bytes).
    pub fn float_const(&mut self, bits: u64) -> Result<DataId, String> {
        if let Some(id) = self.float_consts.get(&bits) {
            return Ok(*id);
        }
        let id = self.read_only_data(|_, _| {
            let mut d = DataDescription::new();
            d.define(Box::new(bits.to_le_bytes()));
            d
        })?;
        self.float_consts.insert(bits, id);
        Ok(id)
    }

    /// A new anonymous read-only data object, 8-aligned, with the contents
    /// `describe` gives (it gets the object's own id).
    fn read_only_data(
        &mut self,
        describe: impl FnOnce(&mut JITModule, DataId) -> DataDescription,
    ) -> Result<DataId, String> {
        let id = self
            .module
            .declare_anonymous_data(false, false)
            .map_err(|e| e.to_string())?;
        let mut d = describe(&mut self.module, id);
        d.set_align(8);
        self.module.define_data(id, &d).map_err(|e| e.to_string())?;
        Ok(id)
    }

    /// The runtime position id of a statement span (`FILE:LINE:COL`).
    pub fn position_id(&mut self, span: Span) -> u64 {
        if let Some(id) = self.position_ids.get(&span) {
            return *id;
        }
        let id = self.positions.len() as u64;
        self.positions.push(self.sources.position(span));
        self.position_ids.insert(span, id);
        id
    }

    /// The type-descriptor tag of a Toy type (assigned on first use).
    pub fn type_tag(&mut self, ty: &ir::Type) -> u64 {
        self.types.tag(&self.ir.program, ty)
    }
}
