//! `-W error`, `-A warnings` and warnings in `--format=json`, on every
//! command that compiles.

/// A program with exactly one warning (an unused local at 2:9) that prints
/// `ok`.
const ONE_WARNING: &str = "fn main() {\n    let unused = 1;\n    print(\"ok\");\n}\n";

/// Runs toyc with the program on stdin (`-` as the file).
fn toyc_on(args: &[&str], program: &str) -> std::process::Output {
    super::cli::toyc_with_stdin(args, program.as_bytes())
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const HEADLINE: &str = "<stdin>:2:9: unused variable `unused`";

#[test]
fn warnings_are_reported_and_the_exit_code_is_unchanged() {
    for args in [
        &["run", "-"][..],
        &["run", "--interp", "-O0", "-"],
        &["check", "-"],
    ] {
        let out = toyc_on(args, ONE_WARNING);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("Warning: {HEADLINE}\n")),
            "{args:?}: {err}"
        );
        assert_eq!(err.matches("Warning: ").count(), 1, "{args:?}: {err}");
    }
    let run = toyc_on(&["run", "-"], ONE_WARNING);
    assert_eq!(String::from_utf8_lossy(&run.stdout), "ok\n");
}

#[test]
fn w_error_turns_warnings_into_errors_on_every_compiling_command() {
    for cmd in ["run", "check", "ir", "cfg", "clif"] {
        for flag in [&["-W", "error"][..], &["-Werror"]] {
            let mut args = vec![cmd];
            args.extend_from_slice(flag);
            args.push("-");
            let out = toyc_on(&args, ONE_WARNING);
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert!(
                out.stdout.is_empty(),
                "{args:?}: the program ran or printed"
            );
            let err = stderr(&out);
            assert!(
                err.starts_with(&format!("Error: {HEADLINE}\n")),
                "{args:?}: {err}"
            );
            assert!(
                err.contains("`-W error` turns warnings into errors"),
                "{err}"
            );
            assert!(!err.contains("Warning: "), "{args:?}: {err}");
        }
    }
    // Without warnings, `-W error` changes nothing.
    let clean = toyc_on(
        &["run", "-W", "error", "-"],
        "fn main() {\n    print(1);\n}\n",
    );
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&clean.stdout), "1\n");
}

#[test]
fn a_warnings_silences_them_on_every_compiling_command() {
    for cmd in ["run", "check", "ir", "cfg", "clif"] {
        for flag in [&["-A", "warnings"][..], &["-Awarnings"]] {
            let mut args = vec![cmd];
            args.extend_from_slice(flag);
            args.push("-");
            let out = toyc_on(&args, ONE_WARNING);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            assert_eq!(stderr(&out), "", "{args:?}");
        }
    }
}

#[test]
fn warning_flags_reject_other_values_and_each_other() {
    for args in [
        &["check", "-W", "warnings", "-"][..],
        &["check", "-A", "error", "-"],
        &["check", "-W", "error", "-A", "warnings", "-"],
    ] {
        let out = toyc_on(args, ONE_WARNING);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn check_json_includes_warnings_with_their_severity() {
    let out = toyc_on(&["check", "--format=json", "-"], ONE_WARNING);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text,
        "{\"file\":\"<stdin>\",\"line\":2,\"col\":9,\"end_line\":2,\"end_col\":15,\
         \"severity\":\"warning\",\"message\":\"unused variable `unused`\",\
         \"label\":\"`unused` is never read\",\
         \"notes\":[\"if this is intentional, prefix it with an underscore: `_unused`\"]}\n"
    );
    let denied = toyc_on(&["check", "--format=json", "-W", "error", "-"], ONE_WARNING);
    assert_eq!(denied.status.code(), Some(1));
    let text = String::from_utf8_lossy(&denied.stdout);
    assert!(
        text.contains("\"severity\":\"error\",\"message\":\"unused variable"),
        "{text}"
    );
    let allowed = toyc_on(
        &["check", "--format=json", "-A", "warnings", "-"],
        ONE_WARNING,
    );
    assert_eq!((allowed.status.code(), allowed.stdout.len()), (Some(0), 0));
}
