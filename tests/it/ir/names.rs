//! Source names on values (`# i` after a statement, `# a, n` after a
//! signature): what SSA construction names, what the inliner names
//! (`callee::x`), that the IR parser reads them back, and that passes
//! moving a statement keep its name.

use std::process::Command;

fn toyc_ir(test: &str, args: &[&str], src: &str) -> String {
    let path = std::env::temp_dir().join(format!("toyc-names-{}-{test}.toy", std::process::id()));
    std::fs::write(&path, src).expect("write source");
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .arg("ir")
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const SRC: &str = "\
fn sq(x: int) -> int {
    let y = x * x;
    return y;
}

fn main() {
    var total = 0;
    for i in 0..4 {
        total = total + sq(i);
    }
    print(total);
}
";

#[test]
fn construction_names_phis_and_assigned_values() {
    // The loop counter's φ is `i`; its increment belongs to the hidden
    // counter, so it has no name; `total`'s φ and its new value are
    // `total`; the call's result was never assigned.
    let want = "\
fn sq(_1::int) -> int  # x
2 1 ─ %1 = imul(_1, _1)::int  # y
3 └──      return %1

fn main()
 8 1 ─       goto #2
   2 ┄ %2  = φ (#1 => 0, #3 => %8)::int  # i
   │   %3  = φ (#1 => 0, #3 => %7)::int  # total
   │   %4  = ilt(%2, 4)::bool
   └──       goto #4 if not %4
 9 3 ─ %6  = invoke sq(%2)::int
   │   %7  = iadd(%3, %6)::int  # total
 8 │   %8  = iadd(%2, 1)::int
   └──       goto #2
11 4 ─       runtime print_int(%3)
   │         runtime print_newline()
12 └──       return

fn <init>()
1 1 ─      return
";
    assert_eq!(toyc_ir("o0", &["-O0"], SRC), want);
}

#[test]
fn inlined_values_are_named_after_the_callee() {
    let want = "\
fn main()
 8 1 ─       nothing
   2 ┄ %2  = φ (#1 => 0, #3 => %6)::int  # i
   │   %3  = φ (#1 => 0, #3 => %5)::int  # total
 2 │   %4  = imul(%2, %2)::int  # sq::y
 9 │   %5  = iadd(%3, %4)::int  # total
 8 │   %6  = iadd(%2, 1)::int
   │   %7  = ilt(%6, 4)::bool
   └──       goto #4 if not %7
   3 ─       goto #2
11 4 ─       runtime print_int(%5)
   │         runtime print_newline()
12 └──       return
";
    assert_eq!(toyc_ir("o2", &["--fn", "main"], SRC), want);
    // An unnamed argument takes the name of the parameter it becomes.
    let src = "fn len2(a: [int]) -> int { return len(a) * 2; }\n\
               fn main() { print(len2([1, 2])); }\n";
    let want = "\
fn main()
2 1 ─ %1 = new [int](len 2, fill 1)::[int]  # len2::a
  │        store %1[1] = 2
1 │   %3 = load len(%1)::int
  │   %4 = imul(%3, 2)::int
2 │        runtime print_int(%4)
  │        runtime print_newline()
  └──      return
";
    assert_eq!(
        toyc_ir("arg", &["--passes=inline", "--fn", "main"], src),
        want
    );
}

const TEXT: &str = "\
var @g::int

fn f(_1::int) -> int  # n
1 ─      goto #2
2 ┄ %2 = φ (#1 => 0, #3 => %6)::int  # i
│   %3 = ilt(%2, _1)::bool
└──      goto #4 if not %3
3 ─ %5 = load @g::int  # k
│   %6 = iadd(%2, %5)::int  # i
└──      goto #2
4 ─      return %2
";

#[test]
fn the_parser_reads_names_back_and_licm_keeps_a_hoisted_statements_name() {
    let module = toyc::ir::parse::parse(TEXT).expect("parses");
    let f = &module.funcs[0];
    assert_eq!(f.param_names, vec!["n".into()]);
    assert_eq!(f.stmts.name_of(toyc::ir::Value(1)), Some("i"));
    assert_eq!(f.stmts.name_of(toyc::ir::Value(2)), None);
    let printed = toyc::ir::print::print_module_with(&module, None, None, false);
    let again = toyc::ir::parse::parse(&printed).expect("parses again");
    assert_eq!(again.funcs, module.funcs);
    // A name is part of the function: the same text without it differs.
    let unnamed = toyc::ir::parse::parse(&TEXT.replace("  # k", "")).expect("parses");
    assert_ne!(unnamed.funcs, module.funcs);

    let mut module = module;
    let opts = toyc::opt::PipelineOptions {
        passes: vec!["loops", "licm"],
        verify: true,
        ..Default::default()
    };
    toyc::opt::run_pipeline(&mut module, &opts, &mut Default::default(), &|_| {
        String::new()
    })
    .expect("verifies");
    let out = toyc::ir::print::print_module_with(&module, None, None, false);
    assert!(out.contains("= load @g::int  # k\n"), "{out}");
    let hoisted_to = out.find("load @g").expect("kept");
    assert!(hoisted_to < out.find("φ").expect("loop"), "hoisted: {out}");
}

#[test]
fn parameter_names_must_name_every_parameter() {
    let text = TEXT.replace("fn f(_1::int) -> int  # n", "fn f(_1::int) -> int  # n, m");
    let err = toyc::ir::parse::parse(&text).expect_err("two names for one parameter");
    assert_eq!(
        err[0].to_string(),
        "3:24: 2 parameter names for 1 parameters"
    );
}
