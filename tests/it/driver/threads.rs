//! `--threads N`: SSA construction, the function passes and Cranelift's
//! compilation spread over threads give the same output as one thread:
//! the same IR, counters and remarks, the same machine code, the same run.
use std::process::Command;

fn toyc(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toyc");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `.toy` programs of some lang-test folders with several functions
/// (not the modules they import, which have no `main`).
fn programs() -> Vec<String> {
    let mut files = Vec::new();
    for dir in ["lang-tests/inline", "lang-tests/gc"] {
        for entry in std::fs::read_dir(dir).expect("lang-tests folder") {
            let path = entry.expect("entry").path();
            let is_program = path.extension().is_some_and(|e| e == "toy")
                && std::fs::read_to_string(&path).is_ok_and(|text| text.contains("fn main("));
            if is_program {
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "too few programs: {files:?}");
    files
}

#[test]
fn ir_counters_and_remarks_do_not_depend_on_the_thread_count() {
    for file in programs() {
        let run =
            |threads: &str| toyc(&["ir", "--stats", "--remarks", "--threads", threads, &file]);
        let one = run("1");
        assert_eq!(one.0, Some(0), "{file}: {}", one.2);
        assert_eq!(run("3"), one, "{file}");
    }
}

#[test]
fn machine_code_and_runs_do_not_depend_on_the_thread_count() {
    for file in programs() {
        let asm = |threads: &str| toyc(&["asm", "--threads", threads, &file]);
        let one = asm("1");
        assert_eq!(one.0, Some(0), "{file}: {}", one.2);
        assert_eq!(asm("3"), one, "{file}");
        let run = |threads: &str| toyc(&["run", "--threads", threads, &file]);
        assert_eq!(run("3"), run("1"), "{file}");
    }
}

/// A program large enough that every stage that may spread its work over
/// threads does (parsing, type checking, the lint walk, the may-throw
/// walk, SSA construction, the passes): its warnings, IR and counters do
/// not depend on the thread count either.
#[test]
fn a_large_program_s_warnings_and_ir_do_not_depend_on_the_thread_count() {
    let dir = std::env::temp_dir().join(format!("toyc-threads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("large.toy");
    let mut src = String::new();
    for i in 0..1500 {
        src += &format!(
            "fn f{i}(x: int, a: [int]) -> int {{\n    var unused{i} = x;\n    \
             if 1 < 2 {{ return a[x] / (x | 1); }}\n    return x;\n}}\n"
        );
    }
    src += "fn main() {\n    print(f0(1, [1, 2, 3]));\n}\n";
    std::fs::write(&file, src).expect("write program");
    let file = file.to_string_lossy().into_owned();
    let run = |threads: &str| toyc(&["ir", "--stats", "--threads", threads, &file]);
    let one = run("1");
    assert_eq!(one.0, Some(0), "{}", one.2);
    assert!(one.2.contains("unused variable `unused1499`"), "{}", one.2);
    assert!(one.2.contains("comparison is always true"), "{}", one.2);
    assert_eq!(run("3"), one);
    let _ = std::fs::remove_dir_all(&dir);
}
