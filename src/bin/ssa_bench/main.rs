//! `ssa_bench FILE.toy...`: SSA construction two ways on the same typed HIR.
//!
//! Ours: `toyc::ssa::build_function` (Braun et al. with on-the-fly folding
//! and SCC-based removal of redundant φ) into `toyc::ir::IrCode`.
//! Theirs: cranelift-frontend's `FunctionBuilder` with `declare_var` /
//! `def_var` / `use_var` into Cranelift IR ([`clif_lower`]).
//!
//! Only functions both sides support are measured (see `clif_lower`); the
//! rest are counted as skipped. Prints, per file, the median time of each
//! side over `--reps` repetitions (interleaved), the ratio ours/theirs, the
//! φ count of our IR and the block-parameter count of theirs (entry block
//! excluded), and the instruction counts. Every Cranelift function is run
//! through Cranelift's verifier once before timing.
//!
//! Both sides keep one context (allocations) for all functions, as the
//! compiler does; `--fresh` gives each function a new one on both sides.
//!
//! Usage: ssa_bench [--reps N] [--markdown] [--fresh] FILE.toy...

mod clif_lower;

/// The allocator `toyc` runs with (src/main.rs), so that both builders are
/// measured as they would run inside the compiler.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use cranelift_codegen::ir::Function;
use cranelift_codegen::settings;
use cranelift_frontend::FunctionBuilderContext;
use std::path::{Path, PathBuf};
use std::time::Instant;
use toyc::ir::{Inst, IrCode};
use toyc::sema::hir::{FuncId, Program};
use toyc::span::SourceMap;
use toyc::ssa::SsaContext;

/// Results for one program.
struct Report {
    name: String,
    lines: usize,
    functions: usize,
    lowered: usize,
    ours_ms: f64,
    theirs_ms: f64,
    phis: usize,
    phi_operands: usize,
    block_params: usize,
    our_stmts: usize,
    clif_insts: usize,
}

/// The functions both lowerings accept; errors if a Cranelift function
/// fails the verifier (a bug in the bench lowering).
fn supported(program: &Program) -> Result<Vec<FuncId>, String> {
    let flags = settings::Flags::new(settings::builder());
    let mut ok = Vec::new();
    let mut ctx = FunctionBuilderContext::new();
    for i in 0..program.functions.len() {
        let id = FuncId(i as u32);
        let Ok(sig) = clif_lower::signature(program.func(id)) else {
            continue;
        };
        let mut func = Function::with_name_signature(Default::default(), sig);
        match clif_lower::lower(program, id, &mut func, &mut ctx) {
            Ok(()) => {
                cranelift_codegen::verify_function(&func, &flags).map_err(|e| {
                    format!(
                        "Cranelift verifier failed on `{}`: {e}\n{}",
                        program.func(id).name,
                        func.display()
                    )
                })?;
                ok.push(id);
            }
            // An unfinished builder leaves state behind: start afresh.
            Err(_) => ctx = FunctionBuilderContext::new(),
        }
    }
    Ok(ok)
}

/// Whether each function starts from a fresh context on both sides
/// (`--fresh`) instead of one context reused for all functions, as
/// `toyc::ssa::build_module` does (and codegen with cranelift-frontend).
#[derive(Clone, Copy)]
struct Fresh(bool);

#[inline(never)]
fn build_ours(
    program: &Program,
    ids: &[FuncId],
    may_throw: &[bool],
    cx: &mut SsaContext,
    fresh: Fresh,
) -> Vec<IrCode> {
    ids.iter()
        .map(|&id| {
            if fresh.0 {
                *cx = SsaContext::default();
            }
            toyc::ssa::build_function_in(cx, program, id, may_throw)
        })
        .collect()
}

#[inline(never)]
fn build_theirs(
    program: &Program,
    ids: &[FuncId],
    ctx: &mut FunctionBuilderContext,
    fresh: Fresh,
) -> Result<Vec<Function>, String> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        if fresh.0 {
            *ctx = FunctionBuilderContext::new();
        }
        let sig = clif_lower::signature(program.func(id))?;
        let mut func = Function::with_name_signature(Default::default(), sig);
        clif_lower::lower(program, id, &mut func, ctx)?;
        out.push(func);
    }
    Ok(out)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

fn measure(path: &Path, reps: usize, fresh: Fresh) -> Result<Report, String> {
    let mut sources = SourceMap::new();
    let program = toyc::driver::check_file(path, &mut sources)
        .map_err(|d| format!("{}: {} compile error(s)", path.display(), d.len()))?;
    let lines = sources
        .files()
        .next()
        .map(|(_, f)| f.text.lines().count())
        .unwrap_or(0);
    let ids = supported(&program)?;
    let may_throw = toyc::ssa::throws::may_throw(&program);
    let mut ctx = FunctionBuilderContext::new();
    let mut cx = SsaContext::default();

    // Counts, from one construction each.
    let ours = build_ours(&program, &ids, &may_throw, &mut cx, fresh);
    let theirs = build_theirs(&program, &ids, &mut ctx, fresh)?;
    let mut phis = 0;
    let mut phi_operands = 0;
    let mut our_stmts = 0;
    for code in &ours {
        our_stmts += code.stmts.len();
        for inst in code.stmts.inst.values() {
            if let Inst::Phi { values, .. } = inst {
                phis += 1;
                phi_operands += values.len();
            }
        }
    }
    let mut block_params = 0;
    let mut clif_insts = 0;
    for f in &theirs {
        let entry = f.layout.entry_block();
        for b in f.layout.blocks() {
            if Some(b) != entry {
                block_params += f.dfg.block_params(b).len();
            }
            clif_insts += f.layout.block_insts(b).count();
        }
    }
    drop((ours, theirs));

    let mut t_ours = Vec::new();
    let mut t_theirs = Vec::new();
    for rep in 0..reps {
        // Alternate which side goes first.
        for side in 0..2 {
            let start = Instant::now();
            if (rep + side) % 2 == 0 {
                let out = build_ours(&program, &ids, &may_throw, &mut cx, fresh);
                t_ours.push(start.elapsed().as_secs_f64() * 1e3);
                drop(out);
            } else {
                let out = build_theirs(&program, &ids, &mut ctx, fresh)?;
                t_theirs.push(start.elapsed().as_secs_f64() * 1e3);
                drop(out);
            }
        }
    }
    Ok(Report {
        name: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        lines,
        functions: program.functions.len(),
        lowered: ids.len(),
        ours_ms: median(&mut t_ours),
        theirs_ms: median(&mut t_theirs),
        phis,
        phi_operands,
        block_params,
        our_stmts,
        clif_insts,
    })
}

fn render(reports: &[Report], markdown: bool) -> String {
    let head = [
        "program",
        "lines",
        "functions (measured/all)",
        "ours ms",
        "cranelift-frontend ms",
        "ours/theirs",
        "our φ (operands)",
        "their block params",
        "our stmts",
        "their insts",
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in reports {
        rows.push(vec![
            r.name.clone(),
            r.lines.to_string(),
            format!("{}/{}", r.lowered, r.functions),
            format!("{:.2}", r.ours_ms),
            format!("{:.2}", r.theirs_ms),
            if r.theirs_ms > 0.0 {
                format!("{:.2}", r.ours_ms / r.theirs_ms)
            } else {
                "-".into()
            },
            format!("{} ({})", r.phis, r.phi_operands),
            r.block_params.to_string(),
            r.our_stmts.to_string(),
            r.clif_insts.to_string(),
        ]);
    }
    let mut out = String::new();
    if markdown {
        out += &format!("| {} |\n|{}\n", head.join(" | "), "---|".repeat(head.len()));
        for row in rows {
            out += &format!("| {} |\n", row.join(" | "));
        }
    } else {
        out += &head.join("\t");
        out.push('\n');
        for row in rows {
            out += &row.join("\t");
            out.push('\n');
        }
    }
    out
}

fn run(args: Vec<String>) -> Result<String, String> {
    let mut reps = 5;
    let mut markdown = false;
    let mut fresh = Fresh(false);
    let mut files = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--reps" => {
                reps = it
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--reps needs a count")?
            }
            "--markdown" => markdown = true,
            "--fresh" => fresh = Fresh(true),
            "-h" | "--help" => {
                return Ok(
                    "usage: ssa_bench [--reps N] [--markdown] [--fresh] FILE.toy...\n".into(),
                );
            }
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.is_empty() {
        return Err("usage: ssa_bench [--reps N] [--markdown] [--fresh] FILE.toy...".into());
    }
    let mut reports = Vec::new();
    for f in &files {
        reports.push(measure(f, reps, fresh)?);
    }
    Ok(render(&reports, markdown))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // HIR lowering recurses over nesting: give it room.
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(args));
    match handle
        .map_err(|e| e.to_string())
        .and_then(|h| h.join().map_err(|_| "panicked".to_string()))
    {
        Ok(Ok(text)) => print!("{text}"),
        Ok(Err(e)) | Err(e) => {
            eprintln!("ssa_bench: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        let mut sources = SourceMap::new();
        let id = sources.add("t.toy".into(), None, src.into());
        toyc::sema::analyze(&mut sources, id).expect("test program type-checks")
    }

    /// A loop-carried variable needs one φ / block parameter at the loop
    /// header on both sides; a variable only read in the loop needs none.
    #[test]
    fn loop_needs_one_phi_on_both_sides() {
        let p = program(
            "fn f(n: int, k: int) -> int { var s = 0; var i = 0; while i < n { s += k; i += 1; } return s; }\n\
             fn main() { print(f(3, 2)); }",
        );
        let ids = supported(&p).expect("verifier passes");
        let f = ids
            .iter()
            .copied()
            .find(|id| p.func(*id).name == "f")
            .expect("f is supported");
        assert!(
            !ids.iter().any(|id| p.func(*id).name == "main"),
            "print is not in the subset"
        );
        let ours = toyc::ssa::build_function(&p, f, &toyc::ssa::throws::may_throw(&p));
        let phis = ours
            .stmts
            .inst
            .values()
            .filter(|i| matches!(i, Inst::Phi { .. }))
            .count();
        let theirs = build_theirs(&p, &[f], &mut FunctionBuilderContext::new(), Fresh(false))
            .expect("lowers");
        let entry = theirs[0].layout.entry_block();
        let params: usize = theirs[0]
            .layout
            .blocks()
            .filter(|b| Some(*b) != entry)
            .map(|b| theirs[0].dfg.block_params(b).len())
            .sum();
        assert_eq!(phis, 2, "s and i");
        assert_eq!(params, 2, "s and i:\n{}", theirs[0].display());
    }
}
