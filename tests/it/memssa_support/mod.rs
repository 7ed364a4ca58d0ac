//! Shared helpers of the MemorySSA and memory-pass tests.
#![allow(dead_code)]

use std::sync::Arc;
use toyc::ir::Module;
use toyc::opt::{self, Counters};
use toyc::span::SourceMap;

/// SSA of `source` (no passes).
pub fn compile(name: &str, source: &str) -> Module {
    compile_with_sources(name, source).0
}

/// SSA of `source` and its source map.
pub fn compile_with_sources(name: &str, source: &str) -> (Module, SourceMap) {
    let dir = std::env::temp_dir().join(format!("toyc-memssa-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.toy"));
    std::fs::write(&path, source).expect("write source");
    let mut sources = SourceMap::new();
    let program = match toyc::driver::check_file(&path, &mut sources) {
        Ok(p) => p,
        Err(d) => panic!("does not compile: {d:?}"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    (toyc::ssa::build_module(Arc::new(program)), sources)
}

/// Runs `passes` (names from the PASSES table) with the verifiers on.
pub fn run_passes(module: &mut Module, passes: &[&'static str]) -> Counters {
    let opts = opt::PipelineOptions {
        passes: passes.to_vec(),
        verify: true,
        ..Default::default()
    };
    let mut c = Counters::default();
    if let Err(e) = opt::run_pipeline(module, &opts, &mut c, &|_| String::new()) {
        panic!("verifier: {e:?}");
    }
    c
}

pub fn func_index(module: &Module, name: &str) -> usize {
    module
        .funcs
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// The function printed with its MemorySSA (no source margin).
pub fn memssa_text(module: &Module, name: &str, walker: bool) -> String {
    let sums = toyc::memssa::alias::compute_summaries(module);
    let f = &module.funcs[func_index(module, name)];
    toyc::memssa::print::print_function(f, &module.program, &sums, None, walker)
}

/// The IR of one function (no source margin).
pub fn ir_text(module: &Module, name: &str) -> String {
    toyc::ir::print::print_function(
        &module.funcs[func_index(module, name)],
        &module.program,
        None,
    )
}

/// Runs the program in the interpreter: (stdout, exit code, dynamic
/// instruction count).
pub fn interp(module: &Module, sources: &SourceMap) -> (String, i32, u64) {
    match toyc::interp::run(module, sources, &[], false, true) {
        Ok((code, out, n)) => (String::from_utf8_lossy(&out).into_owned(), code, n),
        Err(e) => panic!("interpreter: {e}"),
    }
}

/// Runs `passes` on `src`; checks that the interpreter's output and exit
/// code are unchanged; returns the counters and the output.
pub fn check_output(name: &str, src: &str, passes: &[&'static str]) -> (Counters, String) {
    let (c, out, _) = check_module(name, src, passes);
    (c, out)
}

/// [`check_output`], and the IR of function `f` after the passes.
pub fn check(
    name: &str,
    src: &str,
    passes: &[&'static str],
    f: &str,
) -> (Counters, String, String) {
    let (c, out, module) = check_module(name, src, passes);
    (c, out, ir_text(&module, f))
}

/// [`check_output`], and the module after the passes.
pub fn check_module(name: &str, src: &str, passes: &[&'static str]) -> (Counters, String, Module) {
    let (mut module, sources) = compile_with_sources(name, src);
    let (before, code0, _) = interp(&module, &sources);
    let c = run_passes(&mut module, passes);
    let (after, code1, _) = interp(&module, &sources);
    assert_eq!(
        (before.as_str(), code0),
        (after.as_str(), code1),
        "behaviour changed by {passes:?}"
    );
    (c, after, module)
}

/// The number of lines of `ir` that contain `pat`.
pub fn count(ir: &str, pat: &str) -> usize {
    ir.lines().filter(|l| l.contains(pat)).count()
}
