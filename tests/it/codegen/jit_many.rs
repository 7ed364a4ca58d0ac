//! Many programs JIT-compiled and run in one process: each run's JIT
//! memory (code and data in one arena, within 32-bit relocation reach of
//! each other) is released when the run ends, so the process can compile
//! programs indefinitely.

use std::sync::Arc;
use toyc::codegen::CodegenOptions;
use toyc::span::SourceMap;

fn build(src: &str, name: &str) -> (toyc::ir::Module, SourceMap) {
    let dir = std::env::temp_dir().join(format!("toyc-jit-many-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.toy"));
    std::fs::write(&path, src).expect("write program");
    let mut sources = SourceMap::new();
    let program = toyc::driver::check_file(&path, &mut sources).expect("program checks");
    (toyc::ssa::build_module(Arc::new(program)), sources)
}

#[test]
fn a_thousand_jit_runs_in_one_process() {
    // Globals (writable data), a string constant (read-only data) and
    // calls between functions: every kind of relocation between code and data.
    let src = "var g = 40;\n\
               fn add(x: int, y: int) -> int { return x + y; }\n\
               fn main() -> int { g = add(g, len(\"ab\")); print(\"v\", g); return g - 42; }\n";
    let (module, sources) = build(src, "many");
    for i in 0..1000 {
        let opts = CodegenOptions {
            optimize: i % 2 == 1,
            verify: true,
            ..Default::default()
        };
        let (code, out) =
            toyc::codegen::run::run(&module, &sources, &opts, &[], true).expect("jit");
        assert_eq!(
            (code, String::from_utf8_lossy(&out).as_ref()),
            (0, "v 42\n"),
            "run {i}"
        );
    }
}
