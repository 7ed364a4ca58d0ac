//! The IR interpreter (`toyc run --interp`): executes `IrCode` directly,
//! after whatever passes ran, with the JIT's semantics and output.
//!
//! Values are the JIT's machine images in a `u64` (an int's bits, a float's
//! bits, a bool 0/1, a reference's address, `nil` = 0), and every heap object
//! and every runtime call is the runtime's own (`crate::runtime`): strings,
//! arrays, structs have the same layout, printing uses the same functions,
//! exceptions the same pending state and messages, so the output is
//! byte-identical to the JIT's. Integer and float operations go through
//! [`crate::ir::fold`], the constant folder SSA construction and SCCP use.
//!
//! Like the JIT, it runs `<init>` then `main` on a thread with a large
//! stack; running out of it prints `error: stack overflow` (exit 101).
//! `--profile` counts executed statements: `total_dyn_inst: N` on stderr.

mod exec;

use crate::ir::{self, Inst, Type};
use crate::rtfns::TagArg;
use crate::runtime;
use crate::runtime::gc::GcConfig;
use crate::runtime::heap::TypeDesc;
use crate::span::{SourceMap, Span};
use crate::type_tags::TypeTags;
use std::collections::HashMap;

/// Stack of the interpreter thread (reserved, touched only as deep as the
/// program recurses).
pub const INTERP_STACK: usize = 1 << 30;
/// Room kept for the runtime's own calls below the overflow limit.
const STACK_MARGIN: usize = 4 << 20;

/// Everything a run needs, prepared before the program thread starts.
pub(crate) struct Prepared {
    /// Per function, per statement: the position id of its span.
    pub pos_ids: Vec<Vec<u64>>,
    /// Per function, per statement: the type tag an instruction needs
    /// (`NewArray`, `NewStruct`, `PrintValue`, `Args`), else 0.
    pub tags: Vec<Vec<u64>>,
    /// Per function: for each `Upsilon` statement, the `PhiC`s listing it.
    pub upsilon_targets: Vec<HashMap<u32, Vec<u32>>>,
    /// Per function: the statements whose values are references (roots of
    /// the collector while the function runs).
    pub ref_stmts: Vec<Vec<u32>>,
    /// Per function: the parameters that are references.
    pub ref_params: Vec<Vec<u32>>,
    /// The globals that are references.
    pub ref_globals: Vec<u32>,
}

fn reference_indices<'t>(types: impl Iterator<Item = &'t Type>) -> Vec<u32> {
    types
        .enumerate()
        .filter(|(_, t)| t.is_ref())
        .map(|(i, _)| i as u32)
        .collect()
}

fn prepare(module: &ir::Module, sources: &SourceMap) -> (Prepared, Vec<String>, Vec<TypeDesc>) {
    let program = module.program.clone();
    let mut types = TypeTags::default();
    let mut positions = Vec::new();
    let mut pos_of: HashMap<Span, u64> = HashMap::new();
    let mut prepared = Prepared {
        pos_ids: Vec::new(),
        tags: Vec::new(),
        upsilon_targets: Vec::new(),
        ref_stmts: Vec::new(),
        ref_params: Vec::new(),
        ref_globals: reference_indices(program.globals.iter().map(|g| &g.ty)),
    };
    for f in &module.funcs {
        let mut ids = Vec::with_capacity(f.stmts.len());
        let mut tags = Vec::with_capacity(f.stmts.len());
        let mut ups: HashMap<u32, Vec<u32>> = HashMap::new();
        for (s, inst) in f.stmts.inst.iter() {
            let span = f.stmts.span[s];
            let id = *pos_of.entry(span).or_insert_with(|| {
                positions.push(sources.position(span));
                positions.len() as u64 - 1
            });
            ids.push(id);
            let tag = match inst {
                Inst::NewArray { elem, .. } => {
                    types.tag(&program, &Type::Array(Box::new(elem.clone())))
                }
                Inst::NewStruct { strukt, .. } => types.tag(&program, &Type::Struct(*strukt)),
                // The type tag a runtime function takes (`rtfns::RUNTIME`).
                Inst::Runtime { func, args } => match func.row().tag {
                    Some(TagArg::OfArg) => args
                        .first()
                        .and_then(|op| f.operand_type(op))
                        .map_or(0, |t| types.tag(&program, &t)),
                    Some(TagArg::OfResult) => types.tag(&program, &f.stmts.ty[s]),
                    None => 0,
                },
                Inst::PhiC { upsilons } => {
                    for u in upsilons {
                        ups.entry(u.0).or_default().push(s.0);
                    }
                    0
                }
                _ => 0,
            };
            tags.push(tag);
        }
        prepared.pos_ids.push(ids);
        prepared.tags.push(tags);
        prepared.upsilon_targets.push(ups);
        prepared
            .ref_stmts
            .push(reference_indices(f.stmts.ty.values()));
        prepared.ref_params.push(reference_indices(f.params.iter()));
    }
    (prepared, positions, types.descs)
}

/// Interprets `module` (`<init>` then `main`); returns the exit code, the
/// program's output when `capture` (else it went to stdout), and the number
/// of statements executed. `Err` is an internal error.
pub fn run(
    module: &ir::Module,
    sources: &SourceMap,
    args: &[String],
    profile: bool,
    capture: bool,
) -> Result<(i32, Vec<u8>, u64), String> {
    run_with_gc(module, sources, args, profile, capture, GcConfig::default())
}

/// [`run`] with the collector configured by `gc`.
pub fn run_with_gc(
    module: &ir::Module,
    sources: &SourceMap,
    args: &[String],
    profile: bool,
    capture: bool,
    gc: GcConfig,
) -> Result<(i32, Vec<u8>, u64), String> {
    let program = module.program.clone();
    let (init_i, main_i) = (program.init.0 as usize, program.main.0 as usize);
    if module.funcs.get(main_i).is_none() || module.funcs.get(init_i).is_none() {
        return Err("no `main` or `<init>` function".into());
    }
    let _guard = runtime::run_lock();
    let (prepared, positions, types) = prepare(module, sources);
    runtime::reset(positions, gc);
    runtime::heap::install(types, args.to_vec());
    runtime::gc::roots::install_jit(None);
    if capture {
        runtime::output::set_capture(true);
    }
    let result = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("toy-interp".into())
            .stack_size(INTERP_STACK)
            .spawn_scoped(scope, || {
                runtime::gc::begin_program();
                runtime::bril::begin_program();
                let mut m = exec::Machine::new(module, &prepared, profile);
                let code = m.run_program(init_i, main_i);
                runtime::end_of_program();
                (code, m.dyn_insts)
            })
            .map_err(|e| format!("cannot start the interpreter thread: {e}"))?
            .join()
            .map_err(|_| "the interpreter thread panicked".to_string())
    });
    let (code, dyn_insts) = result?;
    runtime::output::flush();
    if profile {
        eprintln!("total_dyn_inst: {dyn_insts}");
    }
    let out = if capture {
        runtime::output::set_capture(false)
    } else {
        Vec::new()
    };
    Ok((code, out, dyn_insts))
}

/// `toyc run --interp`: runs and returns the exit code (70 on an internal
/// error, reported on stderr).
pub fn run_module(
    module: &ir::Module,
    sources: &SourceMap,
    args: &[String],
    profile: bool,
    gc: GcConfig,
) -> i32 {
    match run_with_gc(module, sources, args, profile, false, gc) {
        Ok((code, _, _)) => code,
        Err(e) => {
            runtime::output::flush();
            eprintln!("error: internal compiler error in the IR interpreter: {e}");
            eprintln!("{}", crate::diag::ICE_HELP);
            70
        }
    }
}

pub(crate) fn stack_margin() -> usize {
    STACK_MARGIN
}
