//! Listings of what the backend makes of each function: the CLIF toyc
//! generates, the CLIF after Cranelift's own optimizer (e-graph rewrites,
//! legalization), and the machine code, disassembled with Capstone.
//!
//! The machine code is the bytes Cranelift emitted for the function before
//! the JIT links it, so addresses start at 0 in every function and the
//! operands that the linker fills in (a call's target, a runtime symbol's
//! address, a global's or a string constant's address) are still zero:
//! each instruction holding such a relocation is followed by a
//! `; -> NAME` comment that names its target (a Toy function, a runtime
//! symbol, a collecting runtime function's trampoline `SYMBOL.gc`, a Toy
//! global, a string constant).

use super::{Compiler, Emit};
use crate::ir;
use crate::span::SourceMap;
use cranelift_module::{DataId, FuncId as ClFuncId, Module, ModuleReloc, ModuleRelocTarget};

/// Which listing of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// The CLIF as translated from the IR, before Cranelift's optimizer.
    Clif,
    /// The CLIF after Cranelift's optimizer (what it lowers to machine code).
    OptimizedClif,
    /// The machine code, disassembled.
    Asm,
}

/// The listing of every function (or only the one named `only`), each
/// preceded by a `; fn NAME` line. CLIF listings end with one
/// `; u0:N = NAME` line per function the CLIF calls. An unknown `only`
/// is an error naming it.
pub fn module_listing(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &super::CodegenOptions,
    only: Option<&str>,
    kind: Listing,
) -> Result<String, String> {
    let mut out = String::new();
    for (name, text) in function_listings(module, sources, opts, only, kind)? {
        out.push_str(&format!("; fn {name}\n{text}\n"));
    }
    Ok(out)
}

/// The listing of one function, `name`, without a header line (what a
/// viewer shows in a column of its own).
pub fn function_listing(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &super::CodegenOptions,
    name: &str,
    kind: Listing,
) -> Result<String, String> {
    let mut texts = function_listings(module, sources, opts, Some(name), kind)?;
    Ok(texts.pop().map(|(_, text)| text).unwrap_or_default())
}

/// `(name, listing)` of every function, or of the one named `only`, in
/// module order.
pub fn function_listings(
    module: &ir::Module,
    sources: &SourceMap,
    opts: &super::CodegenOptions,
    only: Option<&str>,
    kind: Listing,
) -> Result<Vec<(String, String)>, String> {
    if let Some(name) = only
        && !module.funcs.iter().any(|f| f.name == name)
    {
        return Err(format!("no function named `{name}`"));
    }
    let mut cx = Compiler::new(module, sources, opts)?;
    let texts = cx.compile(Emit::Listing(kind, only))?;
    // SAFETY: nothing was finalized, so no code of this module can run.
    unsafe { cx.module.free_memory() };
    Ok(texts)
}

/// The disassembly of the function just compiled in `ctx` as `id`: one
/// line per instruction (`offset: mnemonic operands`), each relocation
/// named in a comment after its instruction.
pub(super) fn disassemble(
    cx: &Compiler,
    ctx: &cranelift_codegen::Context,
    id: ClFuncId,
) -> Result<String, String> {
    let code = ctx
        .compiled_code()
        .ok_or("no compiled code to disassemble")?;
    let relocs = super::module_relocs(code, &ctx.func, id);
    let cs = host_disassembler().map_err(|e| format!("disassembler: {e}"))?;
    let bytes = code.code_buffer();
    let insns = cs
        .disasm_all(bytes, 0)
        .map_err(|e| format!("disassembler: {e}"))?;
    let mut out = String::new();
    for insn in insns.iter() {
        let start = insn.address() as u32;
        let end = start + insn.len() as u32;
        let mnemonic = insn.mnemonic().unwrap_or("?");
        let line = match insn.op_str() {
            Some(ops) if !ops.is_empty() => format!("{start:6x}:  {mnemonic:<6} {ops}"),
            _ => format!("{start:6x}:  {mnemonic}"),
        };
        out.push_str(&line);
        let targets: Vec<String> = relocs
            .iter()
            .filter(|r| (start..end).contains(&r.offset))
            .map(|r| cx.reloc_target_name(r))
            .collect();
        if !targets.is_empty() {
            out.push_str(&format!("  ; -> {}", targets.join(", ")));
        }
        out.push('\n');
    }
    let decoded: usize = insns.iter().map(|i| i.len()).sum();
    if decoded < bytes.len() {
        out.push_str(&format!(
            "; {} bytes of constants or undecoded data follow\n",
            bytes.len() - decoded
        ));
    }
    Ok(out)
}

/// A Capstone disassembler for the machine toyc runs on (Intel syntax on
/// x86-64).
pub(super) fn host_disassembler() -> Result<capstone::Capstone, capstone::Error> {
    use capstone::prelude::*;
    #[cfg(target_arch = "x86_64")]
    {
        Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .syntax(arch::x86::ArchSyntax::Intel)
            .build()
    }
    #[cfg(target_arch = "aarch64")]
    {
        let mut cs = Capstone::new()
            .arm64()
            .mode(arch::arm64::ArchMode::Arm)
            .build()?;
        // Cranelift puts constants inline on AArch64: print them as data
        // and go on decoding after them.
        cs.set_skipdata(true)?;
        Ok(cs)
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        Err(capstone::Error::CustomError(
            "toyc disassembles only x86-64 and aarch64",
        ))
    }
}

impl Compiler<'_> {
    /// What a relocation refers to, for a reader: a function's name (Toy or
    /// runtime), a Toy global `global NAME`, a string constant `"TEXT"`,
    /// or an imported data symbol; a nonzero offset into the target is
    /// appended. (x86-64's PC-relative relocations carry an addend of -4,
    /// because the PC is past the 4-byte field; that is not an offset into
    /// the target and is not shown.)
    fn reloc_target_name(&self, reloc: &ModuleReloc) -> String {
        let name = match &reloc.name {
            ModuleRelocTarget::User {
                namespace: 0,
                index,
            } => self.callee_name(ClFuncId::from_u32(*index)),
            ModuleRelocTarget::User { index, .. } => self.data_name(DataId::from_u32(*index)),
            ModuleRelocTarget::LibCall(call) => call.to_string(),
            ModuleRelocTarget::KnownSymbol(sym) => format!("{sym:?}"),
            ModuleRelocTarget::FunctionOffset(_, offset) => format!("this function+{offset}"),
        };
        use cranelift_codegen::binemit::Reloc;
        let pc_bias = match reloc.kind {
            Reloc::X86PCRel4 | Reloc::X86CallPCRel4 | Reloc::X86CallPLTRel4 => 4,
            _ => 0,
        };
        match reloc.addend + pc_bias {
            0 => name,
            a if a > 0 => format!("{name}+{a}"),
            a => format!("{name}{a}"),
        }
    }

    /// A data object's name: `global NAME`, a string constant's text
    /// (quoted, shortened past 24 characters) or an imported symbol.
    fn data_name(&self, id: DataId) -> String {
        if let Some(g) = self.globals.iter().position(|d| *d == id) {
            let name = self.ir.program.globals.get(g).map(|g| g.name.as_str());
            return format!("global {}", name.unwrap_or("?"));
        }
        if let Some((text, _)) = self.strs.iter().find(|(_, d)| **d == id) {
            let short: String = text.chars().take(24).collect();
            let more = if short.len() < text.len() { "..." } else { "" };
            return format!("{:?}{more}", short);
        }
        let decl = self.module.declarations().get_data_decl(id);
        decl.linkage_name(id).to_string()
    }
}
