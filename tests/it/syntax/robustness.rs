//! The parser never panics, hangs or overflows: empty and garbage input,
//! a 1 MB line, deep nesting, long operator chains. Library-level tests run
//! `syntax::parse` on a thread with the driver's large stack.

use std::time::{Duration, Instant};
use toyc::diag::Diagnostic;
use toyc::span::FileId;
use toyc::syntax::{delims::MAX_NESTING, parse};

/// Parses on a thread with the driver's stack size; returns the number of
/// items, the diagnostics and the time taken. The tree is dropped on that
/// thread: a 100,000-term chain is a deep tree, and drops recursively.
fn parse_big_stack(text: String) -> (Items, Vec<Diagnostic>, Duration) {
    std::thread::Builder::new()
        .stack_size(toyc::driver::COMPILER_STACK)
        .spawn(move || {
            let start = Instant::now();
            let (m, d) = parse(FileId(0), &text);
            let took = start.elapsed();
            (
                Items {
                    items: vec![(); m.items.len()],
                },
                d,
                took,
            )
        })
        .unwrap()
        .join()
        .expect("the parser panicked")
}

/// The shape of a parsed module that the tests look at.
struct Items {
    items: Vec<()>,
}

fn messages(d: &[Diagnostic]) -> Vec<&str> {
    d.iter().map(|d| d.message.as_str()).collect()
}

/// A tiny deterministic generator (xorshift), so failures reproduce.
pub(super) struct Rng(pub(super) u64);
impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn empty_file_is_an_empty_module() {
    let (m, d, _) = parse_big_stack(String::new());
    assert!(m.items.is_empty());
    assert!(d.is_empty());
    let (m, d, _) = parse_big_stack("  \n\t// nothing\n/* here */\n".into());
    assert!(m.items.is_empty() && d.is_empty());
}

#[test]
fn random_bytes_do_not_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for len in [1, 2, 3, 10, 100, 1000, 20_000] {
        for _ in 0..20 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let (_, d, _) = parse_big_stack(text);
            assert!(d.len() <= toyc::syntax::MAX_ERRORS);
        }
    }
}

#[test]
fn random_token_soup_does_not_panic() {
    const WORDS: &[&str] = &[
        "fn",
        "let",
        "var",
        "if",
        "else",
        "while",
        "for",
        "in",
        "break",
        "continue",
        "return",
        "struct",
        "import",
        "true",
        "false",
        "nil",
        "throw",
        "try",
        "catch",
        "x",
        "main",
        "P",
        "'a",
        "1",
        "0x1f",
        "2.5",
        "\"s\"",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ",",
        ";",
        ":",
        ".",
        "..",
        "->",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "|",
        "^",
        "<<",
        ">>",
        "!",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "&&",
        "||",
        "=",
        "+=",
        "<<=",
        "\n",
        "/*",
        "*/",
        "//",
        "\"",
        "9223372036854775808",
        "99999999999999999999",
        "$",
    ];
    let mut rng = Rng(12345);
    for _ in 0..300 {
        let n = rng.below(60) + 1;
        let text: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let text = text.join(" ");
        let (_, d, _) = parse_big_stack(text.clone());
        for diag in &d {
            assert!(
                diag.span.start <= diag.span.end && diag.span.end as usize <= text.len(),
                "{text:?}: {diag:?}"
            );
        }
    }
}

#[test]
fn mutations_of_a_valid_program_do_not_panic() {
    let program = "import math;\nstruct P { x: int, y: [float] }\nlet G = -9223372036854775808;\n\
        fn f(p: P, n: int) -> int {\n  'o: for i in 0..n { if p.x < i { break 'o; } else if i == 2 { continue; } }\n\
        try { throw \"x\\n\"; } catch e { print(e, [1; 2], P { x: 1, y: [] }); }\n  return (n + 1) * 2;\n}\n";
    let mut rng = Rng(777);
    for _ in 0..300 {
        let mut bytes = program.as_bytes().to_vec();
        for _ in 0..rng.below(4) + 1 {
            let i = rng.below(bytes.len());
            match rng.below(3) {
                0 => {
                    bytes.remove(i);
                }
                1 => bytes.insert(i, b"{}()[];\"/*-'"[rng.below(12)]),
                _ => bytes.truncate(i),
            }
            if bytes.is_empty() {
                break;
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        parse_big_stack(text);
    }
}

#[test]
fn one_megabyte_line_is_parsed_in_linear_time() {
    // 1 MB: a single line holding one long expression.
    let term = "a.b[1](2) + ";
    let mut text = String::from("fn main() { let x = ");
    while text.len() < 1 << 20 {
        text.push_str(term);
    }
    text.push_str("0; }");
    let (m, d, took) = parse_big_stack(text);
    assert!(d.is_empty(), "{:?}", messages(&d));
    assert_eq!(m.items.len(), 1);
    assert!(took < Duration::from_secs(30), "took {took:?}");

    // 1 MB of garbage on one line: errors are capped, time stays linear.
    let mut rng = Rng(99);
    let garbage: String = (0..1 << 20)
        .map(|_| (b' ' + rng.below(95) as u8) as char)
        .collect();
    let (_, d, took) = parse_big_stack(garbage);
    assert!(!d.is_empty() && d.len() <= toyc::syntax::MAX_ERRORS);
    assert!(took < Duration::from_secs(30), "took {took:?}");

    // A 1 MB string literal.
    let text = format!("fn main() {{ let s = \"{}\"; }}", "x".repeat(1 << 20));
    let (_, d, _) = parse_big_stack(text);
    assert!(d.is_empty());
}

#[test]
fn long_operator_chain_parses_without_deep_recursion() {
    let text = format!("fn main() {{ let x = {}; }}", vec!["1"; 100_000].join("+"));
    let (m, d, took) = parse_big_stack(text);
    assert!(d.is_empty(), "{:?}", messages(&d));
    assert_eq!(m.items.len(), 1);
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let text = format!("fn main() {{ let x = a{}; }}", ".f(1)[2]".repeat(50_000));
    let (_, d, _) = parse_big_stack(text);
    assert!(d.is_empty());
    let text = format!(
        "fn main() {{ if a {{ }}{} }}",
        " else if b { }".repeat(20_000)
    );
    let (_, d, _) = parse_big_stack(text);
    assert!(d.is_empty());
}

fn too_deep(d: &[Diagnostic]) -> bool {
    d.iter()
        .any(|d| d.message == format!("nesting too deep (the limit is {MAX_NESTING} levels)"))
}

#[test]
fn deep_nesting_is_a_clean_error() {
    let n = 10_000;
    let parens = format!(
        "fn main() {{ let x = {}1{}; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    let blocks = format!("fn main() {}{}", "{".repeat(n), "}".repeat(n));
    let neg = format!("fn main() {{ let x = {}1; }}", "-".repeat(n));
    let not = format!("fn main() {{ let x = {}true; }}", "!".repeat(n));
    let arrays = format!(
        "fn main() {{ let x = {}{}; }}",
        "[".repeat(n),
        "]".repeat(n)
    );
    let types = format!("fn f(a: {}int{}) {{ }}", "[".repeat(n), "]".repeat(n));
    let mixed = format!(
        "fn main() {{ let x = {}1{}; }}",
        "-(".repeat(n),
        ")".repeat(n)
    );
    let unclosed = format!("fn main() {{ let x = {}", "(".repeat(n));
    for (i, text) in [parens, blocks, neg, not, arrays, types, mixed, unclosed]
        .into_iter()
        .enumerate()
    {
        let (_, d, _) = parse_big_stack(text);
        assert!(too_deep(&d), "case {i}: {:?}", messages(&d));
    }
}

#[test]
fn nesting_up_to_the_limit_parses() {
    let n = MAX_NESTING - 5;
    let parens = format!(
        "fn main() {{ let x = {}1{}; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    let blocks = format!("fn main() {}{}", "{".repeat(n), "}".repeat(n));
    let neg = format!("fn main() {{ let x = {}1; }}", "-".repeat(n));
    for text in [parens, blocks, neg] {
        let (m, d, _) = parse_big_stack(text);
        assert!(d.is_empty(), "{:?}", messages(&d));
        assert_eq!(m.items.len(), 1);
    }
}

#[test]
fn huge_literals() {
    let text = format!("fn main() {{ let x = {}; }}", "9".repeat(100_000));
    let (_, d, _) = parse_big_stack(text);
    assert_eq!(messages(&d), ["integer literal out of range for int"]);
    let text = format!("fn main() {{ let x = {}.5; }}", "9".repeat(100_000));
    let (_, d, _) = parse_big_stack(text);
    assert_eq!(messages(&d), ["invalid number literal"]);
}

#[test]
fn many_errors_are_capped() {
    let text = "fn main() { let = ; }\n".repeat(1000);
    let (m, d, _) = parse_big_stack(text);
    assert_eq!(m.items.len(), 1000);
    assert_eq!(d.len(), toyc::syntax::MAX_ERRORS);
    assert!(d.last().is_some_and(|d| !d.notes.is_empty()));
}

// ------------------------------------------------------------------------ CLI

/// A scratch file for one test, removed when dropped.
struct TempFile(std::path::PathBuf);
impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("toyc-robustness-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }
}
impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `toyc check FILE`; returns the exit code and stderr.
fn toyc_check(path: &std::path::Path) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toyc"))
        .arg("check")
        .arg(path)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_missing_file_is_an_error_not_a_panic() {
    let path = std::env::temp_dir().join(format!(
        "toyc-robustness-{}-does-not-exist.toy",
        std::process::id()
    ));
    let (code, err) = toyc_check(&path);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("cannot read") && !err.contains("panic"),
        "{err}"
    );
}

#[test]
fn cli_non_utf8_file_is_an_error_not_a_panic() {
    let file = TempFile::new("latin1.toy", b"fn main() { print(\"caf\xe9\"); }\n");
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("not valid UTF-8") && !err.contains("panic"),
        "{err}"
    );
}

#[test]
fn cli_empty_file_reports_the_missing_main() {
    let file = TempFile::new("empty.toy", b"");
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no `main` function"), "{err}");
}

#[test]
fn cli_garbage_gives_syntax_errors() {
    let mut rng = Rng(4242);
    let bytes: Vec<u8> = (0..50_000).map(|_| rng.next() as u8 & 0x7f).collect();
    let file = TempFile::new("garbage.toy", &bytes);
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("Error") && !err.contains("panic"), "{err}");
}

#[test]
fn cli_one_megabyte_line() {
    let mut text = String::from("fn main() { let x = 1");
    while text.len() < 1 << 20 {
        text.push_str(" + 1");
    }
    text.push_str("; print(x); }");
    let file = TempFile::new("megabyte.toy", text.as_bytes());
    let start = Instant::now();
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 0, "{err}");
    assert!(start.elapsed() < Duration::from_secs(60));
    // The same line with an error at its end.
    text.truncate(text.len() - "; print(x); }".len());
    text.push_str(" +; }");
    let file = TempFile::new("megabyte-bad.toy", text.as_bytes());
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("expected expression, found `;`"), "{err}");
}

#[test]
fn cli_deep_nesting_is_a_clean_error() {
    let n = 10_000;
    for (name, text) in [
        (
            "parens.toy",
            format!(
                "fn main() {{ let x = {}1{}; }}",
                "(".repeat(n),
                ")".repeat(n)
            ),
        ),
        (
            "blocks.toy",
            format!("fn main() {}{}", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "neg.toy",
            format!("fn main() {{ let x = {}1; }}", "-".repeat(n)),
        ),
    ] {
        let file = TempFile::new(name, text.as_bytes());
        let (code, err) = toyc_check(&file.0);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(err.contains("nesting too deep"), "{name}: {err}");
    }
}

#[test]
fn cli_huge_literal() {
    let text = format!("fn main() {{ let x = {}; }}", "9".repeat(10_000));
    let file = TempFile::new("huge.toy", text.as_bytes());
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("integer literal out of range for int"),
        "{err}"
    );
}

#[test]
fn cli_syntax_errors_are_all_reported_with_positions() {
    let src = "fn main() {\n    let x = 1\n    let y = x +;\n    print(y $);\n}\n";
    let file = TempFile::new("several.toy", src.as_bytes());
    let (code, err) = toyc_check(&file.0);
    assert_eq!(code, 1, "{err}");
    let name = file.0.display().to_string();
    for want in [
        format!("{name}:2:14: expected `;`, found `let`"),
        format!("{name}:3:16: expected expression, found `;`"),
        format!("{name}:4:13: unexpected character `$`"),
    ] {
        assert!(err.contains(&want), "missing {want:?} in:\n{err}");
    }
}
