//! `toyc repl`, driven through a pseudo-terminal as a user would: the line
//! editor runs in raw mode on an xterm, and each line is typed after the
//! prompt that asks for it (the editor drops input typed ahead).
use rexpect::session::PtySession;
use std::process::Command;

/// A REPL session on a pseudo-terminal with its history under `state`,
/// waiting at its first prompt.
fn start(state: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toyc"));
    cmd.arg("repl")
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env("XDG_STATE_HOME", state);
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).expect("spawn toyc repl");
    p.exp_string(":help for help").expect("banner");
    p.exp_string(PROMPT).expect("first prompt");
    p
}

const PROMPT: &str = "toy> ";

/// A fresh directory in the temp directory for one test.
fn temp_dir(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toyc-repl-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Types `input` and returns what the REPL wrote until its next prompt
/// (the echoed input and terminal control sequences included, carriage
/// returns removed).
fn enter(p: &mut PtySession, input: &str) -> String {
    p.send_line(input).expect("send");
    let out = p
        .exp_string(PROMPT)
        .unwrap_or_else(|e| panic!("after `{input}`, no prompt: {e}"));
    out.replace('\r', "")
}

/// Types `input` and checks that the REPL's answer contains each of `wanted`.
fn expect(p: &mut PtySession, input: &str, wanted: &[&str]) -> String {
    let out = enter(p, input);
    for w in wanted {
        assert!(out.contains(w), "after `{input}`, no `{w}` in {out:?}");
    }
    out
}

fn quit(mut p: PtySession) {
    p.send_line(":quit").expect("send");
    p.exp_eof().expect("the REPL ends at :quit");
}

#[test]
fn expressions_statements_items_and_variables() {
    let dir = temp_dir("basics");
    let mut p = start(&dir);
    expect(&mut p, "40 + 2", &["\n42\n"]);
    expect(&mut p, "print(\"a\", 1 < 2);", &["\na true\n"]);
    enter(&mut p, "fn sq(n: int) -> int { return n * n; }");
    enter(&mut p, "let x = sq(7);");
    expect(&mut p, "x + 1", &["\n50\n"]);
    // A multi-line item: the line continues while a brace is open.
    p.send_line("fn greet(who: str) -> str {").expect("send");
    p.exp_string("...> ").expect("continuation prompt");
    p.send_line("  return \"hi \" + who; }").expect("send");
    p.exp_string(PROMPT).expect("prompt");
    expect(&mut p, "greet(\"bob\")", &["\nhi bob\n"]);
    // A call of a function that returns nothing runs without `;`.
    enter(&mut p, "fn shout() { print(\"HEY\"); }");
    expect(&mut p, "shout()", &["\nHEY\n"]);
    // Redefining a function replaces it for later lines.
    enter(&mut p, "fn sq(n: int) -> int { return n * n * n; }");
    expect(&mut p, "sq(3)", &["\n27\n"]);
    quit(p);
}

#[test]
fn variables_keep_their_values_and_no_line_runs_twice() {
    let dir = temp_dir("vars");
    let mut p = start(&dir);
    enter(
        &mut p,
        "fn noisy() -> int { print(\"side effect\"); return 1; }",
    );
    let first = enter(&mut p, "var count = noisy();");
    assert_eq!(first.matches("side effect").count(), 1, "{first:?}");
    let mut later = String::new();
    later += &enter(&mut p, "count += 10;");
    later += &enter(&mut p, "var names = [\"a\"];");
    later += &enter(&mut p, "push(names, \"b\\n\");");
    later += &expect(&mut p, "count", &["\n11\n"]);
    later += &expect(&mut p, "names", &["[\"a\", \"b\\n\"]"]);
    enter(&mut p, "struct P { x: float, tag: str }");
    enter(&mut p, "var pt = P { x: 1.5, tag: \"t\" };");
    enter(&mut p, "pt.x = pt.x * 2.0;");
    later += &expect(&mut p, "pt", &["P { x: 3.0, tag: \"t\" }"]);
    // Arrays of numbers are kept as strings of their elements.
    enter(&mut p, "var fs = [1.5, -0.0, 1e100];");
    enter(&mut p, "push(fs, 0.0 / 0.0); push(fs, -1.0 / 0.0);");
    later += &expect(&mut p, "fs", &["[1.5, -0.0, 1e100, NaN, -inf]"]);
    enter(&mut p, "var big: [int] = [];");
    enter(&mut p, "for i in 0..50000 { push(big, i - 7); }");
    later += &expect(&mut p, "big[0] * 100000 + big[49999]", &["\n-650008\n"]);
    enter(&mut p, "let nan = 0.0 / 0.0;");
    later += &expect(&mut p, "nan != nan", &["\ntrue\n"]);
    assert!(
        !later.contains("side effect"),
        "a line ran again: {later:?}"
    );
    quit(p);
}

#[test]
fn errors_are_reported_against_the_line_and_the_session_goes_on() {
    let dir = temp_dir("errors");
    let mut p = start(&dir);
    enter(&mut p, "let a = [1, 2, 3];");
    // Line 2: a type error, shown against the line itself.
    // (rexpect reads the terminal's bytes as Latin-1: the report's box
    // characters are not compared.)
    let report = expect(
        &mut p,
        "let s = \"x\" + 1;",
        &[
            "Error: <line 2>:1:9: cannot apply `+` to `str` and `int`",
            "[ <line 2>:1:9 ]",
        ],
    );
    // The echoed input, then the line in the report's snippets.
    assert!(
        report.matches("let s = \"x\" + 1;").count() >= 2,
        "{report:?}"
    );
    // Line 3: a syntax error.
    expect(&mut p, "print(1 +);", &["<line 3>:1:"]);
    // Line 4: a runtime error (exit code 101 for a program).
    expect(
        &mut p,
        "a[5]",
        &[
            "error: index out of bounds: index 5, length 3",
            "at <line 4>:1:1",
        ],
    );
    // The session goes on, and the failed line defined nothing.
    expect(&mut p, "len(a)", &["\n3\n"]);
    expect(&mut p, "s", &["cannot find", "`s`"]);
    expect(
        &mut p,
        "fn main() { }",
        &["give your function another name"],
    );
    expect(&mut p, ":nope", &["unknown command `:nope`"]);
    // A cyclic value cannot be written back as a literal: it is forgotten
    // after the line that made it, and the session goes on.
    enter(&mut p, "struct N { next: N, v: int }");
    enter(&mut p, "var n = N { next: nil, v: 1 };");
    expect(&mut p, "n.next = n;", &["note: `n` is forgotten"]);
    expect(&mut p, "n", &["cannot find value `n`"]);
    expect(&mut p, "a[0] + a[2]", &["\n4\n"]);
    quit(p);
}

#[test]
fn commands_show_the_ir_the_clif_and_the_machine_code() {
    let dir = temp_dir("commands");
    let mut p = start(&dir);
    enter(&mut p, "fn add(a: int, b: int) -> int { return a + b; }");
    expect(&mut p, ":ir add", &["fn add(", "return"]);
    expect(&mut p, ":clif add", &["function ", "iadd", "return"]);
    let asm = expect(&mut p, ":asm add", &["push", "ret"]);
    assert!(asm.contains("lea") || asm.contains("add "), "{asm:?}");
    expect(
        &mut p,
        ":asm nosuch",
        &["no function named `nosuch` (functions: add)"],
    );
    expect(&mut p, ":passes", &["licm", "sccp"]);
    expect(&mut p, ":help", &[":ir NAME", ":reset"]);
    expect(&mut p, ":reset", &["(the session is empty)"]);
    expect(&mut p, "add(1, 2)", &["cannot find function `add`"]);
    expect(&mut p, "import math;", &[]);
    expect(&mut p, "math.gcd(12, 18)", &["\n6\n"]);
    quit(p);
}

#[test]
fn history_is_kept_in_the_state_folder() {
    let dir = temp_dir("history");
    let mut p = start(&dir);
    enter(&mut p, "1 + 1");
    enter(&mut p, "2 + 2");
    quit(p);
    let history = std::fs::read_to_string(dir.join("toyc/history")).expect("history file");
    let lines: Vec<&str> = history.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines, ["1 + 1", "2 + 2", ":quit"]);
}

#[test]
fn an_unwritable_history_is_reported_and_the_session_goes_on() {
    let dir = temp_dir("nohistory");
    // The state folder is a file, so no history folder can be made in it.
    let state = dir.join("state");
    std::fs::write(&state, "not a folder").expect("write");
    let mut p = start(&state);
    expect(&mut p, "6 * 7", &["history not saved", "\n42\n"]);
    expect(&mut p, "6 * 8", &["\n48\n"]);
    quit(p);
}
