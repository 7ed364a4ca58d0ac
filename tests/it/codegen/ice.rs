//! The backend's internal-error path: a panic inside Cranelift's
//! compilation of a function is caught (`catch_unwind` in
//! `codegen::Compiler::compile`), becomes an `Err` naming the function,
//! and `toyc run` reports it as an internal compiler error with exit code
//! 70. The panic is real: `CodegenOptions::panic_in` (set by the driver
//! from `TOYC_TEST_CODEGEN_PANIC`, for tests only) panics inside the
//! caught closure, where a Cranelift panic would happen.

use crate::ssa_support::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::Command;
use toyc::codegen::CodegenOptions;
use toyc::sema::hir::Type;
use toyc::span::SourceMap;

#[test]
fn a_panic_while_compiling_a_function_is_caught_and_named() {
    let m = build(program(vec![F::new().finish(
        "main",
        Type::Void,
        vec![print(vec![int(1)])],
    )]));
    let mut sources = SourceMap::new();
    sources.add("t.toy".into(), None, String::new());
    for optimize in [false, true] {
        let opts = |panic_in: Option<&str>| CodegenOptions {
            optimize,
            verify: true,
            panic_in: panic_in.map(String::from),
            ..Default::default()
        };
        let run = |o: &CodegenOptions| {
            catch_unwind(AssertUnwindSafe(|| {
                toyc::codegen::run::run(&m, &sources, o, &[], true)
            }))
            .expect("no panic escapes the backend")
        };
        assert_eq!(
            run(&opts(Some("main"))),
            Err("Cranelift panicked while compiling `main`".to_string())
        );
        let code = catch_unwind(AssertUnwindSafe(|| {
            toyc::codegen::run_module(&m, &sources, &opts(Some("main")), &[])
        }))
        .expect("no panic escapes run_module");
        assert_eq!(code, 70);
        // The hook is what fails: without it (or aimed at another
        // function) the same module compiles and runs.
        assert_eq!(run(&opts(None)), Ok((0, b"1\n".to_vec())));
        assert_eq!(run(&opts(Some("nope"))), Ok((0, b"1\n".to_vec())));
    }
}

#[test]
fn toyc_run_reports_a_backend_panic_as_an_internal_error() {
    let dir = std::env::temp_dir().join(format!("toyc-ice-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("p.toy");
    std::fs::write(
        &path,
        "fn helper() -> int {\n    return 2;\n}\nfn main() {\n    print(helper());\n}\n",
    )
    .unwrap();
    let toyc = |opt: &str, panic_in: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toyc"));
        cmd.args(["run", opt]).arg(&path).env("NO_COLOR", "1");
        if let Some(f) = panic_in {
            cmd.env("TOYC_TEST_CODEGEN_PANIC", f);
        }
        cmd.output().expect("run toyc")
    };
    for opt in ["-O0", "-O2"] {
        let out = toyc(opt, Some("main"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(70), "{opt}: {stderr}");
        assert!(out.stdout.is_empty(), "{opt}: nothing runs");
        let lines: Vec<&str> = stderr.lines().collect();
        // The panic hook's report (message and where in toyc), then the
        // backend's error naming the function, then the help line.
        assert_eq!(
            lines.first().copied(),
            Some(
                "error: internal compiler error: TOYC_TEST_CODEGEN_PANIC: a deliberate panic \
                 (tests only)"
            ),
            "{opt}: {stderr}"
        );
        assert!(
            lines[1].starts_with("  at src/codegen/compile.rs:")
                && lines[1].ends_with(" (in the compiler)"),
            "{opt}: {stderr}"
        );
        assert_eq!(
            &lines[2..],
            &[
                "error: internal compiler error in the code generator: Cranelift panicked \
                 while compiling `main`",
                toyc::diag::ICE_HELP,
            ],
            "{opt}: {stderr}"
        );
        // Not Rust's own panic report.
        assert!(
            !stderr.contains("panicked at") && !stderr.contains("RUST_BACKTRACE"),
            "{opt}: {stderr}"
        );
        let ok = toyc(opt, None);
        assert_eq!(ok.status.code(), Some(0), "{opt}");
        assert_eq!(String::from_utf8_lossy(&ok.stdout), "2\n", "{opt}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
