//! What compiled code does for the collector (`runtime::gc`).
//!
//! - Every Cranelift value of a reference type (`str`, arrays, structs) and
//!   every call that may collect (a Toy call, a trampoline) is recorded in
//!   [`FrameRoots`]; after translation, `stack_maps::insert` spills the
//!   values live across each such call and lists their slots in its stack
//!   map (`toyc clif` prints them as `stack_map=[...]`).
//! - A `φᶜ` slot of a reference type holds a value for the handler: it is
//!   zeroed at entry and listed in the stack map of every call that may
//!   collect ([`FnTrans::safepoint_call`]).
//! - A runtime function that may collect (`RtSig::collects`) is called
//!   through a trampoline ([`Compiler::trampoline`]) that stores its
//!   caller's frame pointer and return address in `toy_gc_exit`, then
//!   transfers to the function: the collector's walk starts from there. On
//!   x86-64 the trampoline is a fixed template that jumps to the function
//!   (no Cranelift compilation); elsewhere Cranelift compiles one that
//!   calls it.
//! - After compilation, each function's stack maps are kept
//!   ([`Compiler::keep_stack_maps`]); after finalization they become the
//!   runtime's [`JitRoots`] with the functions' addresses and the globals
//!   that hold references ([`Compiler::jit_roots`]).

use super::rtfn::RtSig;
use super::signature::rt_signature;
use super::translate::FnTrans;
use super::{CompiledFn, Compiler};
use crate::ir::Type;
use crate::runtime::gc::roots::{FuncMaps, JitRoots, SafepointMap};
use cranelift_codegen::ir::{self as cl, InstBuilder, UserStackMapEntry, types};
use cranelift_module::{FuncId as ClFuncId, Linkage, Module, ModuleReloc};

/// What the translation of one function records for its stack maps.
#[derive(Default)]
pub(super) struct FrameRoots {
    /// The Cranelift values of reference type.
    pub refs: Vec<cl::Value>,
    /// The calls that may collect.
    pub safepoints: Vec<cl::Inst>,
    /// Addresses derived from a reference (an array's buffer, a string's
    /// data), each with its reference: a use of one is a use of the other.
    pub derived: Vec<(cl::Value, cl::Value)>,
}

/// One compiled function's stack maps, until its address is known.
pub(super) struct PendingMaps {
    pub id: ClFuncId,
    pub name: String,
    pub len: usize,
    pub sites: Vec<SafepointMap>,
}

/// The stack maps Cranelift recorded in `code`, one per safepoint.
pub(super) fn safepoint_maps(code: &cranelift_codegen::CompiledCode) -> Vec<SafepointMap> {
    code.buffer
        .user_stack_maps()
        .iter()
        .map(|(ret, frame_size, map)| SafepointMap {
            ret: *ret,
            frame_size: *frame_size,
            slots: map.entries().map(|(_, off)| off).collect(),
        })
        .collect()
}

/// An x86-64 trampoline: stores the caller's frame pointer (`rbp`, which
/// it leaves alone) and return address (`[rsp]`) in `toy_gc_exit`, then
/// jumps to the runtime function, which returns straight to the caller.
/// It touches only `r10` and `r11` (scratch registers that carry no
/// argument) and leaves the stack as it found it, so one template serves
/// every signature. The two `movabs` immediates are filled by relocation.
const X64_TRAMPOLINE: [u8; 34] = [
    0x49, 0xBB, 0, 0, 0, 0, 0, 0, 0, 0, // movabs r11, toy_gc_exit
    0x49, 0x89, 0x2B, // mov [r11], rbp
    0x4C, 0x8B, 0x14, 0x24, // mov r10, [rsp]
    0x4D, 0x89, 0x53, 0x08, // mov [r11 + 8], r10
    0x49, 0xBB, 0, 0, 0, 0, 0, 0, 0, 0, // movabs r11, <runtime function>
    0x41, 0xFF, 0xE3, // jmp r11
];

/// Where [`X64_TRAMPOLINE`]'s immediates are: `toy_gc_exit`'s address,
/// then the runtime function's.
const X64_TRAMPOLINE_IMMEDIATES: [u32; 2] = [2, 23];

impl Compiler<'_> {
    /// The trampoline of a runtime function that may collect (defined on
    /// first use): same signature; records the caller's frame in
    /// `toy_gc_exit`, then calls `real`.
    pub(super) fn trampoline(&mut self, sig: RtSig, real: ClFuncId) -> Result<ClFuncId, String> {
        if let Some(id) = self.trampolines.get(sig.symbol) {
            return Ok(*id);
        }
        let me = |e: cranelift_module::ModuleError| e.to_string();
        let s = rt_signature(&sig, self.module.isa().default_call_conv());
        let id = self
            .module
            .declare_function(&format!("{}.gc", sig.symbol), Linkage::Local, &s)
            .map_err(me)?;
        self.define_trampoline(id, s, real)
            .map_err(|e| format!("compiling the trampoline of `{}`: {e}", sig.symbol))?;
        self.trampolines.insert(sig.symbol, id);
        Ok(id)
    }

    /// Defines trampoline `id` (of signature `sig`) of `real`: on x86-64
    /// the template, elsewhere (or when
    /// [`super::CodegenOptions::compiled_trampolines`]) a compiled one.
    fn define_trampoline(
        &mut self,
        id: ClFuncId,
        sig: cl::Signature,
        real: ClFuncId,
    ) -> Result<(), String> {
        if cfg!(target_arch = "x86_64") && !self.opts.compiled_trampolines {
            self.define_x64_trampoline(id, real)
        } else {
            self.compile_trampoline(id, sig, real)
        }
    }

    /// Defines trampoline `id` of `real` as [`X64_TRAMPOLINE`], relocated.
    fn define_x64_trampoline(&mut self, id: ClFuncId, real: ClFuncId) -> Result<(), String> {
        let [exit_at, real_at] = X64_TRAMPOLINE_IMMEDIATES;
        let reloc = |offset, name| ModuleReloc {
            offset,
            kind: cranelift_codegen::binemit::Reloc::Abs8,
            name,
            addend: 0,
        };
        let relocs = [
            reloc(exit_at, self.gc_exit_data.into()),
            reloc(real_at, real.into()),
        ];
        self.module
            .define_function_bytes(id, 16, &X64_TRAMPOLINE, &relocs)
            .map_err(|e| e.to_string())
    }

    /// Defines trampoline `id` (of signature `sig`) of `real`, compiled by
    /// Cranelift (for any architecture): it calls `real` and returns its
    /// results.
    fn compile_trampoline(
        &mut self,
        id: ClFuncId,
        sig: cl::Signature,
        real: ClFuncId,
    ) -> Result<(), String> {
        use cranelift_codegen::ir::MemFlagsData;
        use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
        let mut ctx = self.module.make_context();
        ctx.func.signature = sig;
        let mut fbc = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fbc);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let params = b.block_params(entry).to_vec();
        let flags = MemFlagsData::trusted();
        let fp = b.ins().get_frame_pointer(types::I64);
        let caller_fp = b.ins().load(types::I64, flags, fp, 0);
        let ret = b.ins().get_return_address(types::I64);
        let gv = self.module.declare_data_in_func(self.gc_exit_data, b.func);
        let exit = b.ins().symbol_value(types::I64, gv);
        b.ins().store(flags, caller_fp, exit, 0);
        b.ins().store(flags, ret, exit, 8);
        let callee = self.module.declare_func_in_func(real, b.func);
        let call = b.ins().call(callee, &params);
        let results = b.inst_results(call).to_vec();
        b.ins().return_(&results);
        let config = self.module.isa().frontend_config();
        b.finalize(config);
        // Eight instructions with nothing to optimise or allocate: the ISA
        // of large functions (single-pass allocation, no optimiser)
        // compiles them in a fraction of the time.
        let isa = self.large_isa()?;
        super::compile::compile_function(&*isa, &mut ctx, id)
            .and_then(|code| self.define_code(id, &code))
    }

    /// Keeps the stack maps of the function just compiled as `id`.
    pub(super) fn keep_stack_maps(&mut self, id: ClFuncId, name: &str, code: &mut CompiledFn) {
        self.stack_maps.push(PendingMaps {
            id,
            name: name.to_string(),
            len: code.bytes.len(),
            sites: std::mem::take(&mut code.sites),
        });
    }

    /// The collector's view of the finalized module.
    pub(super) fn jit_roots(&self) -> JitRoots {
        let mut funcs: Vec<FuncMaps> = self
            .stack_maps
            .iter()
            .map(|p| FuncMaps {
                name: p.name.clone(),
                start: self.module.get_finalized_function(p.id) as usize,
                len: p.len,
                sites: p.sites.clone(),
            })
            .collect();
        funcs.sort_by_key(|f| f.start);
        let globals = self
            .ir
            .program
            .globals
            .iter()
            .zip(&self.globals)
            .filter(|(g, _)| g.ty.is_ref())
            .map(|(_, &id)| self.module.get_finalized_data(id).0 as usize)
            .collect();
        JitRoots { funcs, globals }
    }
}

impl FnTrans<'_, '_, '_> {
    /// Records `v` (of IR type `t`) for the stack maps if it is a
    /// reference.
    pub(super) fn track(&mut self, t: &Type, v: cl::Value) {
        if t.is_ref() {
            self.roots.refs.push(v);
        }
    }

    /// A call that may collect: adds the reference `φᶜ` slots to its stack
    /// map.
    pub(super) fn safepoint_call(&mut self, f: cl::FuncRef, args: &[cl::Value]) -> cl::Inst {
        let call = self.b.ins().call(f, args);
        self.roots.safepoints.push(call);
        for &slot in &self.ref_phic_slots {
            self.b.func.dfg.append_user_stack_map_entry(
                call,
                UserStackMapEntry {
                    ty: types::I64,
                    slot,
                    offset: 0,
                },
            );
        }
        call
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::{X64_TRAMPOLINE, X64_TRAMPOLINE_IMMEDIATES};

    #[test]
    fn the_x86_64_trampoline_records_the_frame_then_jumps() {
        let cs = crate::codegen::asm::host_disassembler().expect("capstone");
        let insns = cs.disasm_all(&X64_TRAMPOLINE, 0).expect("decodes");
        let text: Vec<String> = insns
            .iter()
            .map(|i| {
                format!(
                    "{} {}",
                    i.mnemonic().unwrap_or(""),
                    i.op_str().unwrap_or("")
                )
            })
            .collect();
        assert_eq!(
            text,
            [
                "movabs r11, 0",
                "mov qword ptr [r11], rbp",
                "mov r10, qword ptr [rsp]",
                "mov qword ptr [r11 + 8], r10",
                "movabs r11, 0",
                "jmp r11",
            ]
        );
        // Each relocated immediate is the 8 bytes after a `movabs`'s
        // two-byte opcode.
        let movabs: Vec<u64> = insns
            .iter()
            .filter(|i| i.mnemonic() == Some("movabs"))
            .map(|i| i.address() + 2)
            .collect();
        let at: Vec<u64> = X64_TRAMPOLINE_IMMEDIATES
            .iter()
            .map(|&o| o as u64)
            .collect();
        assert_eq!(movabs, at);
        assert_eq!(
            insns.iter().map(|i| i.bytes().len()).sum::<usize>(),
            X64_TRAMPOLINE.len()
        );
    }
}
