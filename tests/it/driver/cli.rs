//! Command-line behaviour not tied to one stage.
use std::process::Command;

fn toyc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toyc")
}

#[test]
fn fn_filter_prints_only_that_function() {
    for cmd in ["ir", "clif", "asm"] {
        let out = toyc(&[cmd, "--fn", "fib", "examples/fib.toy"]);
        assert_eq!(out.status.code(), Some(0), "{cmd}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("fib"), "{cmd}: {text}");
        assert!(!text.contains("fn main"), "{cmd} printed main too: {text}");
    }
}

#[test]
fn passes_lists_the_pass_table() {
    let out = toyc(&["passes"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names.len(), toyc::opt::PASSES.len(), "{text}");
    assert_eq!(names.first(), Some(&"sccp"));
    assert!(
        names.contains(&"cse.late") && names.contains(&"pi"),
        "{text}"
    );
}

#[test]
fn a_pass_without_its_prerequisite_is_a_command_line_error() {
    let out = toyc(&["ir", "--passes=licm", "examples/fib.toy"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pass `licm` needs `loops` earlier"), "{err}");
}

#[test]
fn fn_filter_with_an_unknown_name_is_a_command_line_error() {
    for cmd in ["ir", "clif", "asm"] {
        let out = toyc(&[cmd, "--fn", "nosuch", "examples/fib.toy"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(out.stdout.is_empty(), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no function named `nosuch`") && err.contains("main"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn passes_none_runs_no_pass() {
    // At -O2, fib.toy gives LICM something to hoist; with `--passes=none`
    // no pass runs, so no counter is printed and the output is the same.
    let with = toyc(&["run", "--stats", "examples/fib.toy"]);
    let without = toyc(&["run", "--passes=none", "--stats", "examples/fib.toy"]);
    assert_eq!(with.status.code(), Some(0));
    assert_eq!(without.status.code(), Some(0));
    assert_eq!(with.stdout, without.stdout);
    assert!(String::from_utf8_lossy(&with.stderr).contains("licm.hoisted:"));
    assert_eq!(String::from_utf8_lossy(&without.stderr), "");
}

/// Writes `text` to a fresh file in the temp directory, named for `test`.
fn temp_file(test: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("toyc-{}-{test}.ir", std::process::id()));
    std::fs::write(&path, text).expect("write temp file");
    path
}

#[test]
fn opt_runs_passes_on_the_output_of_ir() {
    // `toyc ir` of a whole module (header lines and all) is `toyc opt` input,
    // and `toyc opt --passes=` with the -O2 list gives what `toyc ir` gives.
    let o0 = toyc(&["ir", "-O0", "--flags", "examples/linked_list.toy"]);
    let path = temp_file("roundtrip", &String::from_utf8_lossy(&o0.stdout));
    let list = toyc::opt::default_passes(2).join(",");
    let out = toyc(&[
        "opt",
        path.to_str().expect("utf-8"),
        "--flags",
        "--passes",
        &list,
    ]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("struct Node { value::int, next::Node }\n"),
        "{text}"
    );
    assert!(
        text.contains("fn reverse(_1::Node) -> Node  # list\n"),
        "{text}"
    );
}

#[test]
fn opt_reports_errors_with_file_line_and_column() {
    let path = temp_file("bad", "fn f() -> int\n1 ─ %1 = iadd(1)::int\n");
    let p = path.to_str().expect("utf-8");
    let out = toyc(&["opt", p, "--passes=dce"]);
    let bad_pass = toyc(&["opt", p, "--passes=nosuch"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: {p}:2:10: `iadd` takes two operands\n")
    );
    assert_eq!(bad_pass.status.code(), Some(2));
}

#[test]
fn opt_on_a_filetest_prints_its_expectation() {
    let file = "tests/filetests/licm_invariant_load_and_arithmetic.ir";
    let text = std::fs::read_to_string(file).expect("filetest");
    let expected = text.split("\n; expect:\n").nth(1).expect("expectation");
    let out = toyc(&["opt", file, "--passes=licm"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}

/// Runs `toyc ARGS` with `input` on its stdin (written from a thread, so
/// a toyc that exits before reading it, or writes much first, is fine).
pub(crate) fn toyc_with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toyc");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for toyc");
    writer.join().expect("writer");
    out
}

#[test]
fn stdin_longer_than_a_buffer_reads_line_by_line() {
    // 100,000 numbers, then a line of 200,000 bytes: both cross the
    // runtime's 64 KiB reads.
    let mut input = String::new();
    for i in 1..=100_000 {
        input.push_str(&format!("{i}\n"));
    }
    input.push_str(&"x".repeat(200_000));
    input.push_str("\nend");
    let toy = std::env::temp_dir().join(format!("toyc-{}-stdin-sum.toy", std::process::id()));
    std::fs::write(
        &toy,
        "fn main() {\n    var sum = 0;\n    var n = 0;\n    while n < 100000 {\n        \
         sum += parse_int(read_line());\n        n += 1;\n    }\n    \
         print(sum, len(read_line()), read_line(), at_eof());\n}\n",
    )
    .unwrap();
    for mode in ["-O0", "-O2", "--interp"] {
        let out = toyc_with_stdin(&["run", mode, toy.to_str().unwrap()], input.as_bytes());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "5000050000 200000 end true\n",
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_file(&toy);
}

#[test]
fn write_file_then_read_file_round_trips() {
    let dir = std::env::temp_dir().join(format!("toyc-{}-write-file", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let toy = dir.join("w.toy");
    std::fs::write(
        &toy,
        "fn main() {\n    let p = args()[0];\n    write_file(p, \"one\\ntwo\");\n    \
         write_file(p, read_file(p) + \"\\n\");\n    print(len(read_file(p)));\n}\n",
    )
    .unwrap();
    for mode in ["-O0", "-O2", "--interp"] {
        let data = dir.join(format!("data{mode}.txt"));
        let d = data.to_str().unwrap();
        let out = toyc(&["run", mode, toy.to_str().unwrap(), "--", d]);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "8\n", "{mode}");
        assert_eq!(std::fs::read(&data).unwrap(), b"one\ntwo\n", "{mode}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn profile_without_interp_is_a_command_line_error_with_a_hint() {
    let out = toyc(&["run", "--profile", "examples/hello.toy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`--profile`") && err.contains("needs `--interp`"),
        "{err}"
    );
    assert!(
        err.contains("hint: toyc run --interp --profile FILE"),
        "{err}"
    );
    let ok = toyc(&["run", "--interp", "--profile", "examples/hello.toy"]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stderr).starts_with("total_dyn_inst: "));
}

#[test]
fn o3_os_and_oz_run_as_o2_with_a_note() {
    for (flag, why) in [
        ("-O3", "toyc's highest level"),
        ("-Os", "toyc does not optimise for size"),
        ("-Oz", "toyc does not optimise for size"),
    ] {
        let out = toyc(&["run", flag, "examples/hello.toy"]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        assert_eq!(out.stdout, b"Hello, world!\n", "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err,
            format!("note: {flag} is treated as -O2 ({why})\n"),
            "{flag}"
        );
    }
    let o2 = toyc(&["ir", "-O2", "examples/fib.toy"]);
    let o3 = toyc(&["ir", "-O3", "examples/fib.toy"]);
    assert_eq!(o2.stdout, o3.stdout);
    let bad = toyc(&["run", "-O4", "examples/hello.toy"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected 0, 1 or 2"));
}

#[test]
fn run_dash_reads_the_program_from_stdin_and_gives_it_empty_input() {
    let prog =
        "fn main() {\n    print(at_eof(), read_all() == \"\");\n    let _ = read_line();\n}\n";
    for mode in ["-O0", "-O2", "--interp"] {
        let out = toyc_with_stdin(&["run", mode, "-"], prog.as_bytes());
        assert_eq!(out.status.code(), Some(101), "{mode}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "true true\n",
            "{mode}"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: end of input\n  at <stdin>:3:13\n",
            "{mode}"
        );
    }
    let bad = toyc_with_stdin(&["check", "-"], b"fn main() {\n    let x: int = 1.5;\n}\n");
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("<stdin>:2:18: mismatched types"), "{err}");
}

#[test]
fn check_format_json_writes_one_object_per_diagnostic() {
    let src = "fn main() {\n    let x: int = \"a\\\"b\";\n    let y = zz;\n}\n";
    let out = toyc_with_stdin(&["check", "--format=json", "-"], src.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with(
            "{\"file\":\"<stdin>\",\"line\":2,\"col\":18,\"end_line\":2,\"end_col\":24,\
             \"severity\":\"error\",\"message\":\"mismatched types: expected `int`, found `str`\""
        ),
        "{text}"
    );
    assert!(
        lines[1].contains("\"line\":3,\"col\":13,") && lines[1].ends_with("\"notes\":[]}"),
        "{text}"
    );
    let ok = toyc(&["check", "--format=json", "examples/fib.toy"]);
    assert_eq!((ok.status.code(), ok.stdout.len()), (Some(0), 0));
    let missing = toyc(&["check", "--format=json", "no/such.toy"]);
    assert_eq!(missing.status.code(), Some(1));
    let m = String::from_utf8_lossy(&missing.stdout);
    assert!(
        m.starts_with("{\"file\":\"no/such.toy\",\"line\":0,\"col\":0,")
            && m.contains("cannot read"),
        "{m}"
    );
}

#[test]
fn a_prompt_is_written_before_the_program_waits_for_input() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("toyc-{}-prompt", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let toy = dir.join("prompt.toy");
    std::fs::write(
        &toy,
        "fn main() {\n    write(\"name? \");\n    print(\"hi \" + read_line());\n}\n",
    )
    .unwrap();
    for mode in ["-O2", "--interp"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toyc"))
            .args(["run", mode, toy.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run toyc");
        let mut out = child.stdout.take().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // The answer is written only once the prompt has arrived; without
        // the prompt within 20 s stdin is closed unanswered (so a missing
        // flush fails below instead of hanging).
        let (seen, wait) = std::sync::mpsc::channel::<()>();
        let answer = std::thread::spawn(move || {
            if wait
                .recv_timeout(std::time::Duration::from_secs(20))
                .is_ok()
            {
                stdin.write_all(b"Ada\n").unwrap();
            }
        });
        let mut prompt = [0u8; 6];
        out.read_exact(&mut prompt).expect("the prompt");
        let _ = seen.send(());
        answer.join().unwrap();
        let mut rest = String::new();
        out.read_to_string(&mut rest).unwrap();
        assert_eq!(&prompt, b"name? ", "{mode}");
        assert_eq!(rest, "hi Ada\n", "{mode}: the prompt came only at the end");
        assert!(child.wait().unwrap().success(), "{mode}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An inner step of a pass (`checks` restores loop shape with
/// `simplifycfg`) is printable with `--print-after=OUTER.STEP`, after
/// each run of that step, naming the function.
#[test]
fn print_after_names_a_step_inside_a_pass() {
    let out = toyc(&[
        "ir",
        "--print-after=checks.simplifycfg",
        "lang-tests/loops-opt/first_check_wins.toy",
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let heads: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("*** IR after"))
        .collect();
    assert_eq!(
        heads,
        ["*** IR after checks.simplifycfg (fn main) ***"],
        "{stderr}"
    );
    let bad = toyc(&["ir", "--print-after=checks.nothing", "examples/hello.toy"]);
    assert_eq!(bad.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&bad.stderr);
    assert!(
        msg.contains("checks.simplifycfg, checks.loops, divpair.cse, inline.sccp"),
        "{msg}"
    );
}

/// `toyc cfg` (and `toyc ir --dot`) prints the CFG as Graphviz DOT: one box
/// per block with its statements, `true`/`false` on the two edges of a
/// conditional branch.
#[test]
fn cfg_prints_graphviz_dot() {
    let out = toyc(&["cfg", "--fn", "fib", "examples/fib.toy"]);
    assert!(out.status.success());
    let dot = String::from_utf8_lossy(&out.stdout);
    assert!(dot.starts_with("digraph \"fib\" {\n"), "{dot}");
    assert!(dot.trim_end().ends_with('}'), "{dot}");
    let blocks = dot.lines().filter(|l| l.contains(" [label=\"#")).count();
    let edges: Vec<&str> = dot.lines().filter(|l| l.contains(" -> ")).collect();
    assert_eq!(blocks, 5, "{dot}");
    assert_eq!(edges.len(), 6, "{dot}");
    assert_eq!(edges.iter().filter(|e| e.contains("\"true\"")).count(), 2);
    assert_eq!(edges.iter().filter(|e| e.contains("\"false\"")).count(), 2);
    assert!(dot.contains("return %"), "{dot}");
    let ir_dot = toyc(&["ir", "--dot", "--fn", "fib", "examples/fib.toy"]);
    assert_eq!(ir_dot.stdout, out.stdout);
}

/// `tests/it/driver/scale.toy`: `scale` doubles an array in a loop with two
/// bounds checks; `main` calls it once, so `inline` copies it into `main`.
const SCALE: &str = "tests/it/driver/scale.toy";

/// The `***` header lines and the function signature lines of `text`.
fn heads_and_fns(text: &str) -> (Vec<&str>, Vec<&str>) {
    let heads = text.lines().filter(|l| l.starts_with("***")).collect();
    let fns = text.lines().filter(|l| l.starts_with("fn ")).collect();
    (heads, fns)
}

/// `--print-after` takes a list; `--fn` leaves only that function in
/// what it prints.
#[test]
fn print_after_takes_a_list_and_fn_filters_it() {
    let out = toyc(&["ir", "--fn", "scale", "--print-after=dce,licm", SCALE]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let (heads, fns) = heads_and_fns(&err);
    assert_eq!(heads, ["*** IR after dce ***", "*** IR after licm ***"]);
    assert_eq!(fns, ["fn scale(_1::[int], _2::int)  # a, k"; 2]);
    let out = toyc(&["ir", "--print-after=dce", SCALE]);
    let err = String::from_utf8_lossy(&out.stderr);
    let (_, fns) = heads_and_fns(&err);
    assert_eq!(
        fns,
        [
            "fn scale(_1::[int], _2::int)  # a, k",
            "fn main()",
            "fn <init>()"
        ]
    );
}

/// `--print-changed` prints each function at the start and then only after
/// the passes that changed it; with `--fn`, only that function.
#[test]
fn print_changed_prints_a_function_after_the_passes_that_changed_it() {
    let out = toyc(&["ir", "--print-changed", SCALE]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        heads_and_fns(&err).0,
        [
            "*** IR at start (fn scale) ***",
            "*** IR at start (fn main) ***",
            "*** IR at start (fn <init>) ***",
            "*** IR after inline (fn main) ***",
            "*** IR after checks (fn scale) ***",
            "*** IR after checks (fn main) ***",
            "*** IR after rotate (fn scale) ***",
            "*** IR after rotate (fn main) ***",
            "*** IR after gvn_load (fn main) ***",
            "*** IR after cse.late (fn main) ***",
            "*** IR after simplifycfg.late (fn scale) ***",
            "*** IR after simplifycfg.late (fn main) ***",
        ]
    );
    let out = toyc(&["ir", "--fn", "scale", "--print-changed", SCALE]);
    let err = String::from_utf8_lossy(&out.stderr);
    let (heads, fns) = heads_and_fns(&err);
    assert_eq!(
        heads,
        [
            "*** IR at start (fn scale) ***",
            "*** IR after checks (fn scale) ***",
            "*** IR after rotate (fn scale) ***",
            "*** IR after simplifycfg.late (fn scale) ***",
        ]
    );
    assert_eq!(fns.len(), 4);
}

/// `--print-changed=diff`: the changes as a unified diff. `checks` removes
/// both bounds checks of `scale` (their compares, branches and raise
/// blocks) and the second `len` load goes with them.
#[test]
fn print_changed_diff_prints_a_unified_diff() {
    let out = toyc(&[
        "ir",
        "--fn",
        "scale",
        "--print-changed=diff",
        "--passes=sccp,dce,simplifycfg,loops,checks",
        SCALE,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let diff = err
        .split_once("*** IR diff after checks (fn scale) ***\n")
        .map(|(_, d)| d)
        .unwrap_or_else(|| panic!("no diff after checks: {err}"));
    assert_eq!(
        diff,
        "--- before checks
+++ after checks
@@ -1,21 +1,11 @@
 fn scale(_1::[int], _2::int)  # a, k
 2 1 ─ %1  = load len(_1)::int
-  2 ┄ %2  = φ (#1 => 0, #5 => %14)::int  # i
+  2 ┄ %2  = φ (#1 => 0, #3 => %8)::int  # i
   │   %3  = ilt(%2, %1)::bool
-  └──       goto #6 if not %3
-3 3 ─ %5  = load len(_1)::int
-  │   %6  = iult(%2, %5)::bool
-  └──       goto #7 if not %6
-  4 ─ %8  = load _1[%2]::int
-  │   %9  = imul(%8, _2)::int
-  │   %10 = load len(_1)::int
-  │   %11 = iult(%2, %10)::bool
-  └──       goto #8 if not %11
-  5 ─       store _1[%2] = %9
-2 │   %14 = iadd(%2, 1)::int
+  └──       goto #4 if not %3
+3 3 ─ %5  = load _1[%2]::int
+  │   %6  = imul(%5, _2)::int
+  │         store _1[%2] = %6
+2 │   %8  = iadd(%2, 1)::int
   └──       goto #2
-5 6 ─       return
-3 7 ─       raise index_out_of_bounds(%2, %5)
-  └──       unwind
-  8 ─       raise index_out_of_bounds(%2, %10)
-  └──       unwind
+5 4 ─       return
"
    );
    // sccp, dce, simplifycfg and loops left it unchanged: no diff for them.
    assert_eq!(err.matches("*** IR diff after").count(), 1, "{err}");
}

/// `--stats --fn NAME` counts what the passes did in that function; the
/// module's counts are the sums over its functions.
#[test]
fn stats_with_fn_counts_that_function() {
    let stats = |func: Option<&str>| {
        let mut args = vec!["ir", "--stats", SCALE];
        if let Some(f) = func {
            args.extend(["--fn", f]);
        }
        let out = toyc(&args);
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(
        stats(Some("scale")),
        "checks.bounds_removed: 2
checks.simplifycfg.merged: 2
rotate.loops.exits: 1
rotate.loops.preheaders: 1
rotate.rotated: 1
simplifycfg.threaded: 1
"
    );
    assert_eq!(
        stats(Some("main")),
        "checks.bounds_removed: 2
checks.simplifycfg.merged: 2
cse.folded: 1
gvn_load.forwarded_alloc: 1
inline.inlined: 1
inline.simplifycfg.merged: 2
inline.simplifycfg.threaded: 1
rotate.loops.exits: 1
rotate.loops.preheaders: 1
rotate.rotated: 1
simplifycfg.merged: 2
"
    );
    assert_eq!(
        stats(None),
        "checks.bounds_removed: 4
checks.simplifycfg.merged: 4
cse.folded: 1
gvn_load.forwarded_alloc: 1
inline.inlined: 1
inline.simplifycfg.merged: 2
inline.simplifycfg.threaded: 1
rotate.loops.exits: 2
rotate.loops.preheaders: 2
rotate.rotated: 2
simplifycfg.merged: 2
simplifycfg.threaded: 1
"
    );
}

/// A name in `--print-after`/`--print-before` that is no pass is a
/// command-line error listing the passes and steps there are.
#[test]
fn an_unknown_pass_to_print_lists_the_known_ones() {
    let out = toyc(&["ir", "--print-after=dce,lcim", SCALE]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --print-after: unknown pass `lcim`
  known passes: sccp, dce, simplifycfg, inline, tailrec, recinline, loops, pi, cse, knownbits, checks, rotate, gvn_load, licm, version, gvn_load.late, cse.late, simplifycfg.late, divpair, dse
  steps inside passes (--print-after only): checks.simplifycfg, checks.loops, divpair.cse, inline.sccp, inline.simplifycfg, recinline.simplifycfg, rotate.loops, version.licm
"
    );
    let out = toyc(&["ir", "--print-before=nope", SCALE]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: --print-before: unknown pass `nope`\n")
    );
}

/// `--memssa` before the file: the file is not taken as its value.
#[test]
fn memssa_works_before_or_after_the_file() {
    let before = toyc(&["ir", "--memssa", SCALE]);
    let after = toyc(&["ir", SCALE, "--memssa"]);
    assert_eq!(
        before.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    assert_eq!(before.stdout, after.stdout);
    let text = String::from_utf8_lossy(&before.stdout);
    assert!(
        text.starts_with("fn scale(_1::[int], _2::int)  # a, k\n  │ ; MemoryUse(liveOnEntry)\n"),
        "{text}"
    );
    let walker = toyc(&["ir", "--memssa=walker", SCALE]);
    assert!(String::from_utf8_lossy(&walker.stdout).contains("- clobbered by liveOnEntry"));
}

/// `toyc explore` writes one HTML page with the columns of every function;
/// `--fn` keeps one, and `-o -` writes to stdout.
#[test]
fn explore_writes_one_self_contained_page() {
    let out = toyc(&["explore", SCALE, "--fn", "scale", "-o", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8_lossy(&out.stdout);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(
        !html.contains("src=") && !html.contains("href="),
        "no external assets"
    );
    let cols: Vec<&str> = html
        .split("<div class=\"col")
        .skip(1)
        .filter_map(|c| c.split("data-col=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(
        cols,
        [
            "source",
            "start",
            "pass-checks",
            "pass-rotate",
            "pass-simplifycfg.late",
            "memssa",
            "clif",
            "machine"
        ]
    );
    assert_eq!(html.matches("<section class=\"fn\"").count(), 1);
    let all = toyc(&["explore", SCALE, "-o", "-"]);
    let html = String::from_utf8_lossy(&all.stdout);
    assert_eq!(html.matches("<section class=\"fn\"").count(), 3);
    assert!(html.contains("<option value=\"main\" selected>main</option>"));
}

/// `toyc run` is parsed against `run` alone first (`Cli::from_env`); it must
/// give what the whole command line gives, and leave help and errors to it.
#[test]
fn the_run_only_and_plain_parses_agree_with_the_whole_command_line() {
    use clap::Parser;
    use toyc::driver::cli::Cli;
    let os = |args: &[&str]| -> Vec<std::ffi::OsString> { args.iter().map(|a| a.into()).collect() };
    for args in [
        &["toyc", "run", "f.toy"][..],
        &[
            "toyc",
            "run",
            "-O0",
            "--interp",
            "--profile",
            "f.toy",
            "--",
            "3",
            "x",
        ],
        &[
            "toyc",
            "run",
            "--passes=dce,sccp",
            "--stats",
            "--threads",
            "1",
            "f.bril",
        ],
        &["toyc", "run", "-W", "error", "--gc-stats", "-"],
    ] {
        let fast = Cli::parse_run_only(&os(args)).expect("accepted");
        let whole = Cli::try_parse_from(args).expect("accepted");
        assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{args:?}");
    }
    for args in [
        &["toyc", "run", "--help"][..],
        &["toyc", "run"],
        &["toyc", "run", "--bogus", "f.toy"],
        &["toyc", "run", "a.toy", "b.toy"],
    ] {
        assert!(Cli::parse_run_only(&os(args)).is_none(), "{args:?}");
    }
    // The plain form needs no clap at all, and gives what clap gives.
    for args in [
        &["toyc", "run", "f.toy"][..],
        &["toyc", "run", "f.toy", "--"],
        &[
            "toyc",
            "run",
            "dir/f.toy",
            "--",
            "3",
            "-x",
            "--",
            "--time-passes",
        ],
    ] {
        let plain = Cli::parse_plain_run(&os(args)).expect("plain");
        let whole = Cli::try_parse_from(args).expect("accepted");
        assert_eq!(format!("{plain:?}"), format!("{whole:?}"), "{args:?}");
    }
    for args in [
        &["toyc", "run", "-", "--", "3"][..],
        &["toyc", "run", "-O0", "f.toy"],
        &["toyc", "run", "f.toy", "--stats"],
        &["toyc", "run", "f.toy", "3"],
        &["toyc", "run"],
        &["toyc", "ir", "f.toy"],
        &["toyc", "run", "--help"],
    ] {
        assert!(Cli::parse_plain_run(&os(args)).is_none(), "{args:?}");
    }
    let help = toyc(&["run", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.starts_with("Compile a program with the JIT and run it."),
        "{text}"
    );
    assert!(
        text.contains("Usage: toyc run [OPTIONS] <FILE> [-- <ARGS>...]"),
        "{text}"
    );
}

/// `toyc ir prog.toy | head`: output into a pipe whose reader is gone
/// ends toyc quietly with exit code 0, not with an internal error; so
/// does a closed standard error.
#[test]
fn a_closed_output_ends_toyc_quietly() {
    for args in [
        &["ir", "examples/fib.toy"][..],
        &["passes"],
        &["run", "examples/fib.toy"],
    ] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(writer)
            .output()
            .expect("run toyc");
        assert_eq!(
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).as_ref()
            ),
            (Some(0), ""),
            "toyc {args:?}"
        );
    }
}

#[test]
fn a_closed_stderr_ends_toyc_quietly() {
    let dir = std::env::temp_dir().join(format!("toyc-stderr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("bad.toy");
    std::fs::write(&bad, "fn main() { let x: int = true; }\n").expect("write");
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["check", bad.to_str().expect("utf-8 path")])
        .env("NO_COLOR", "1")
        .stderr(writer)
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(0));
}
