//! The IR interpreter on modules written as IR text: exact output,
//! agreement with the JIT, exceptions, the dynamic instruction count, and
//! the passes preserving behaviour.

use toyc::codegen::CodegenOptions;
use toyc::ir::Module;
use toyc::ir::handbuild::DEPTH_IR;
use toyc::span::SourceMap;

const EMPTY_INIT: &str = "fn <init>()\n1 ─ return\n";

/// The module of `text` (IR text, see docs/ir.md), with a source map
/// for its runtime error positions.
fn module(text: &str) -> (Module, SourceMap) {
    let m = toyc::ir::parse::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let mut sources = SourceMap::new();
    sources.add("test.toy".into(), None, "x".into());
    (m, sources)
}

/// fib (recursive calls), a float loop with φs, string concatenation.
fn sample() -> (Module, SourceMap) {
    module(&format!(
        "fn fib(_1::int) -> int
1 ─ %1 = ilt(_1, 2)::bool
└──      goto #3 if not %1
2 ─      return _1
3 ─ %4 = isub(_1, 1)::int
│   %5 = invoke fib(%4)::int
│   %6 = isub(_1, 2)::int
│   %7 = invoke fib(%6)::int
│   %8 = iadd(%5, %7)::int
└──      return %8

fn main() -> int
1 ─ %1 = invoke fib(20)::int
│        runtime print_int(%1)
└──      runtime print_newline()
2 ┄ %4 = φ (#1 => 0, #2 => %6)::int
│   %5 = φ (#1 => 0.0, #2 => %7)::float
│   %6 = iadd(%4, 1)::int
│   %7 = fadd(%5, 0.1)::float
│   %8 = ige(%6, 10)::bool
└──      goto #2 if not %8
3 ─      runtime print_float(%7)
│        runtime print_space()
│   %12 = \"ab\"::str
│   %13 = runtime str_of_int(%6)::str
│   %14 = runtime str_concat(%12, %13)::str
│        runtime print_str(%14)
│        runtime print_newline()
│   %17 = imul(3, 4)::int
└──      return %17
{EMPTY_INIT}"
    ))
}

fn interp(m: &Module, s: &SourceMap) -> (i32, String) {
    let (code, out, _) = toyc::interp::run(m, s, &[], false, true).expect("interpreter runs");
    (code, String::from_utf8_lossy(&out).into_owned())
}

fn jit(m: &Module, s: &SourceMap) -> (i32, String) {
    let (code, out) = toyc::codegen::run::run(
        m,
        s,
        &CodegenOptions {
            optimize: false,
            verify: true,
            ..Default::default()
        },
        &[],
        true,
    )
    .expect("jit runs");
    (code, String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn interpreter_output_and_exit_code() {
    let (m, s) = sample();
    let (code, out) = interp(&m, &s);
    assert_eq!(code, 12);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "6765");
    assert!(lines[1].ends_with(" ab10"), "{out}");
    assert_eq!(lines.len(), 2);
}

#[test]
fn interpreter_agrees_with_the_jit() {
    let (m, s) = sample();
    assert_eq!(interp(&m, &s), jit(&m, &s));
}

#[test]
fn passes_preserve_behaviour() {
    let (mut m, s) = sample();
    let before = interp(&m, &s);
    let opts = toyc::opt::PipelineOptions {
        passes: toyc::opt::default_passes(2),
        verify: false,
        ..Default::default()
    };
    let mut counters = toyc::opt::Counters::default();
    toyc::opt::run_pipeline(&mut m, &opts, &mut counters, &|_| String::new())
        .expect("pipeline runs");
    assert_eq!(interp(&m, &s), before);
    assert_eq!(jit(&m, &s), before);
    assert!(counters.get("sccp.consts") >= 1); // 3 * 4
}

#[test]
fn uncaught_exception_exits_101_after_flushing() {
    let (m, s) = module(&format!(
        "fn main()\n\
         1 ─ runtime print_int(7)\n  │   raise division_by_zero()\n  └── unwind\n\
         {EMPTY_INIT}"
    ));
    assert_eq!(interp(&m, &s), (101, "7".to_string()));
    assert_eq!(interp(&m, &s), jit(&m, &s));
}

#[test]
fn dynamic_instruction_count() {
    // A loop of 3 iterations: entry 1 stmt; each iteration φ + add + cmp + br = 4; exit return = 1.
    let (m, s) = module(&format!(
        "fn main() -> int
1 ─      runtime print_space()
2 ┄ %2 = φ (#1 => 0, #2 => %3)::int
│   %3 = iadd(%2, 1)::int
│   %4 = ige(%3, 3)::bool
└──      goto #2 if not %4
3 ─      return %3
{EMPTY_INIT}"
    ));
    let (code, _, count) = toyc::interp::run(&m, &s, &[], false, true).expect("runs");
    assert_eq!(code, 3);
    // <init>: its return; main: 1 + 3 iterations of 4 + the return.
    assert_eq!(count, 1 + 1 + 3 * 4 + 1);
}

/// `depth(n) = n == 0 ? 0 : 1 + depth(n - 1)`; main prints depth(N).
fn recursion(n: i64) -> (Module, SourceMap) {
    module(&format!(
        "{DEPTH_IR}
fn main()
1 ─ %1 = invoke depth({n})::int
│        runtime print_int(%1)
└──      return
{EMPTY_INIT}"
    ))
}

#[test]
fn deep_recursion_of_100000_frames() {
    let (m, s) = recursion(100_000);
    assert_eq!(interp(&m, &s), (0, "100000".to_string()));
}

/// Runs in a child process (the overflow ends the process): the child is
/// this test binary, selected by an environment variable.
#[test]
fn unbounded_recursion_is_a_stack_overflow() {
    if std::env::var_os("TOYC_INTERP_OVERFLOW_CHILD").is_some() {
        let (m, s) = recursion(-1);
        let _ = toyc::interp::run(&m, &s, &[], false, false);
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    // The test's name in this binary: its module path less the crate name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::unbounded_recursion_is_a_stack_overflow");
    let out = std::process::Command::new(exe)
        .args(["--exact", &name, "--nocapture"])
        .env("TOYC_INTERP_OVERFLOW_CHILD", "1")
        .output()
        .expect("child runs");
    assert_eq!(out.status.code(), Some(101));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error: stack overflow"), "{stderr}");
}
