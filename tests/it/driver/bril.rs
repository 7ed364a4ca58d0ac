//! Bril programs through every command that takes a program: they go
//! through the same IR, passes and back ends as Toy.
use crate::ssa_support::{COUNTDOWN, COUNTDOWN_JSON};
use std::process::Command;

/// Runs toyc from the repository root: (exit code, stdout, stderr).
pub(crate) fn toyc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run toyc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file in the temporary folder, unique to this test process.
pub(crate) fn temp(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("toyc-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("write temp file");
    path.display().to_string()
}

#[test]
fn bril_text_and_json_run_in_every_mode() {
    let text = temp("countdown.bril", COUNTDOWN);
    let json = temp("countdown.json", COUNTDOWN_JSON);
    for file in [&text, &json] {
        for mode in ["-O0", "-O2", "--interp"] {
            let (code, out, err) = toyc(&["run", mode, file, "--", "5"]);
            assert_eq!(
                (code, out.as_str(), err.as_str()),
                (0, "1\n", ""),
                "{mode} {file}"
            );
        }
        assert_eq!(toyc(&["check", file]).0, 0);
    }
}

#[test]
fn ir_shows_the_loop_phi_and_the_entry_function() {
    let file = temp("ir.bril", COUNTDOWN);
    let (code, out, _) = toyc(&["ir", "-O0", &file]);
    assert_eq!(code, 0);
    assert!(out.contains("= φ (#1 => _1, #3 => %"), "{out}");
    assert!(out.contains("fn <main>()\n"), "{out}");
    assert!(out.contains("invoke main(0)"), "{out}");
}

#[test]
fn passes_print_after_stats_and_memssa_work_on_bril() {
    let file = temp("passes.bril", COUNTDOWN);
    let (code, _, err) = toyc(&[
        "run",
        "--passes=sccp,dce",
        "--print-after=sccp",
        &file,
        "--",
        "3",
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("*** IR after sccp ***"), "{err}");
    let (code, out, err) = toyc(&["run", "-O2", "--stats", &file, "--", "3"]);
    assert_eq!((code, out.as_str()), (0, "1\n"));
    assert!(err.contains("inline.inlined: 1"), "{err}");
    let (code, out, _) = toyc(&["ir", &file, "--memssa"]);
    assert_eq!(code, 0);
    assert!(out.contains("fn main(_1::int)"), "{out}");
    let (code, out, _) = toyc(&["clif", "--fn", "main", &file]);
    assert_eq!(code, 0);
    assert!(out.starts_with("; fn main\nfunction "), "{out}");
    let (code, _, err) = toyc(&["run", "--interp", "--profile", &file, "--", "3"]);
    assert_eq!(code, 0);
    assert!(err.starts_with("total_dyn_inst: "), "{err}");
}

#[test]
fn bril_syntax_errors_have_file_line_and_column() {
    let file = temp("bad.bril", "@main {\n  x: int = const 1\n}\n");
    let (code, out, err) = toyc(&["check", &file]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(
        err.contains("bad.bril:3:1: expected `;`, found `}`"),
        "{err}"
    );
}

#[test]
fn check_format_json_reads_bril() {
    let file = temp("json-diag.bril", "@main {\n  x: int = add y y;\n}\n");
    let (code, out, err) = toyc(&["check", "--format=json", &file]);
    assert_eq!((code, err.as_str()), (1, ""));
    assert!(
        out.contains("\"line\":2,\"col\":3,") && out.contains("undefined variable `y`"),
        "{out}"
    );
}
