//! End-to-end tests of the JIT: `toyc run` on small programs, at `-O0` and
//! `-O2`, checking stdout, stderr and the exit code.

use std::path::PathBuf;
use std::process::Command;

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn write_program(name: &str, src: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toyc-jit-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.toy"));
    std::fs::write(&path, src).expect("write program");
    path
}

fn run_opt(path: &PathBuf, opt: &str, args: &[&str]) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toyc"));
    cmd.arg("run").arg(path).arg(opt);
    if !args.is_empty() {
        cmd.arg("--").args(args);
    }
    let out = cmd.output().expect("run toyc");
    Outcome {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `src` at -O0 and -O2 with `args`; both must give the same outcome,
/// which is returned.
fn run_args(name: &str, src: &str, args: &[&str]) -> Outcome {
    let path = write_program(name, src);
    let o0 = run_opt(&path, "-O0", args);
    let o2 = run_opt(&path, "-O2", args);
    assert_eq!(
        (o0.code, &o0.stdout, &o0.stderr),
        (o2.code, &o2.stdout, &o2.stderr),
        "-O0 and -O2 differ for {name}"
    );
    o2
}

fn run(name: &str, src: &str) -> Outcome {
    run_args(name, src, &[])
}

fn expect_ok(name: &str, src: &str, stdout: &str) {
    let o = run(name, src);
    assert_eq!(o.stderr, "", "{name}: stderr");
    assert_eq!(o.stdout, stdout, "{name}: stdout");
    assert_eq!(o.code, Some(0), "{name}: exit code");
}

#[test]
fn hello_and_print_formats() {
    expect_ok(
        "hello",
        r#"fn main() { print("hello", 1, 2.5, true); write("a", 1); write("\n"); }"#,
        "hello 1 2.5 true\na1\n",
    );
}

#[test]
fn float_printing() {
    expect_ok(
        "floats",
        "fn main() {\n  let z = 0.0;\n  print(1.0, 0.1, 1e100, -0.0, 0.1 + 0.2, 1e16, 1e-7, 123456789.0);\n  print(z / z, 1.0 / z, -1.0 / z);\n}\n",
        "1.0 0.1 1e100 -0.0 0.30000000000000004 1e16 1e-7 123456789.0\nNaN inf -inf\n",
    );
}

#[test]
fn main_result_is_the_exit_code() {
    let o = run("exit_main", "fn main() -> int { print(\"x\"); return 42; }");
    assert_eq!((o.code, o.stdout.as_str()), (Some(42), "x\n"));
}

#[test]
fn exit_flushes_and_ends_the_program() {
    let o = run(
        "exit_call",
        "fn main() { write(\"a\"); exit(3); print(\"no\"); }",
    );
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (Some(3), "a", "")
    );
}

#[test]
fn uncaught_error_reports_message_and_position() {
    let o = run(
        "uncaught",
        "fn main() {\n    print(\"before\");\n    let a = [1, 2, 3];\n    print(a[5]);\n}\n",
    );
    assert_eq!(o.code, Some(101));
    assert_eq!(o.stdout, "before\n");
    assert!(
        o.stderr
            .starts_with("error: index out of bounds: index 5, length 3\n  at "),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("uncaught.toy:4:"), "{}", o.stderr);
}

#[test]
fn uncaught_throw_in_a_callee() {
    let o = run(
        "throw",
        "fn f(x: int) -> int {\n  if x > 1 { throw \"too big: \" + str(x); }\n  return x;\n}\nfn main() { print(f(1)); print(f(5)); }\n",
    );
    assert_eq!((o.code, o.stdout.as_str()), (Some(101), "1\n"));
    assert!(
        o.stderr.starts_with("error: too big: 5\n  at "),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("throw.toy:2:"), "{}", o.stderr);
}

#[test]
fn stack_overflow_is_an_error_not_a_crash() {
    let o = run(
        "overflow",
        "fn f(n: int) -> int { return 1 - f(n + 1); }\nfn main() { print(\"start\"); print(f(0)); }\n",
    );
    assert_eq!(
        (o.code, o.stdout.as_str(), o.stderr.as_str()),
        (Some(101), "start\n", "error: stack overflow\n")
    );
}

#[test]
fn recursion_100_000_deep() {
    expect_ok(
        "deep",
        "fn depth(n: int) -> int { if n == 0 { return 0; } return depth(n - 1) + 1; }\nfn main() { print(depth(100000)); }\n",
        "100000\n",
    );
}

/// Ten million levels of tail recursion (plain and accumulating) run at
/// `-O2`, where the tailrec pass makes them loops; at `-O0` the same program
/// is real recursion and overflows the stack.
#[test]
fn tail_recursion_10_000_000_deep_at_o2() {
    let path = write_program(
        "deep_tail",
        "fn count(n: int, acc: int) -> int { if n == 0 { return acc; } return count(n - 1, acc + 2); }\n\
         fn sum(n: int) -> int { if n == 0 { return 0; } return n + sum(n - 1); }\n\
         fn main() { print(count(10000000, 0)); print(sum(10000000)); }\n",
    );
    let o2 = run_opt(&path, "-O2", &[]);
    assert_eq!(
        (o2.code, o2.stdout.as_str(), o2.stderr.as_str()),
        (Some(0), "20000000\n50000005000000\n", "")
    );
    let o0 = run_opt(&path, "-O0", &[]);
    assert_eq!(
        (o0.code, o0.stdout.as_str(), o0.stderr.as_str()),
        (Some(101), "", "error: stack overflow\n")
    );
}

#[test]
fn integer_edge_cases() {
    expect_ok(
        "ints",
        "fn div(a: int, b: int) -> int { return a / b; }\nfn rem(a: int, b: int) -> int { return a % b; }\n\
         fn shl(a: int, b: int) -> int { return a << b; }\nfn shr(a: int, b: int) -> int { return a >> b; }\n\
         fn main() {\n  let m = -9223372036854775807 - 1;\n  print(div(m, -1), rem(m, -1), div(7, -2), rem(-7, 2));\n\
           print(shl(1, 65), shr(-8, 1), m - 1, int(-2.7), int(1e300), float(3));\n}\n",
        "-9223372036854775808 0 -3 -1\n2 -4 9223372036854775807 -2 9223372036854775807 3.0\n",
    );
}

#[test]
fn division_by_zero_is_caught() {
    expect_ok(
        "div0",
        "fn main() {\n  let x = 0;\n  try { print(1 / x); } catch e { print(\"caught:\", e); }\n  try { throw \"t\"; } catch e { print(e); }\n}\n",
        "caught: division by zero\nt\n",
    );
}

#[test]
fn loops_and_phis() {
    expect_ok(
        "loops",
        "fn main() {\n  var s = 0;\n  var i = 1;\n  while i <= 100 { s += i; i += 1; }\n  var t = 0;\n  for j in 0..10 { if j % 2 == 0 { continue; } t = t + j; }\n  print(s, t);\n}\n",
        "5050 25\n",
    );
}

#[test]
fn strings() {
    expect_ok(
        "strings",
        "fn main() {\n  let s = \"hello\" + \" \" + \"world\";\n  print(len(s), s[0], s == \"hello world\", \"a\" < s, str(1.5), str(true));\n\
           print(substr(s, 0, 5), chr(65), fixed(3.14159, 2), parse_int(\"-12\") + 1, parse_float(\"2.5\"));\n\
           try { print(parse_int(\"x1\")); } catch _ { print(\"bad int\"); }\n}\n",
        "11 104 true true 1.5 true\nhello A 3.14 -11 2.5\nbad int\n",
    );
}

#[test]
/// `a` is a reference: printed after `pop(a)` (an argument to its right) ran.
fn arrays_and_structs() {
    expect_ok(
        "heap",
        "struct P { x: float, name: str, next: P }\n\
         fn main() {\n  let a = [1, 2, 3];\n  push(a, 4);\n  a[0] = 10;\n  let b = [\"x\"; 2];\n  let p = P { x: 1.0, name: \"n\", next: nil };\n\
           print(a, len(a), pop(a), a, b, p, p.next == nil);\n}\n",
        "[10, 2, 3] 4 4 [10, 2, 3] [\"x\", \"x\"] P { x: 1.0, name: \"n\", next: nil } true\n",
    );
}

#[test]
fn program_arguments() {
    let o = run_args(
        "args",
        "fn main() { let a = args(); print(len(a), a); }",
        &["one", "two"],
    );
    assert_eq!(
        (o.code, o.stdout.as_str()),
        (Some(0), "2 [\"one\", \"two\"]\n")
    );
}

#[test]
fn globals_are_initialised_before_main() {
    expect_ok(
        "globals",
        "let K = 6 * 7;\nvar count = 0;\nfn bump() { count += 1; }\nfn main() { bump(); bump(); print(K, count); }\n",
        "42 2\n",
    );
}

#[test]
fn clif_command_prints_each_function() {
    let path = write_program(
        "clif",
        "fn sq(x: int) -> int { return x * x; }\nfn main() { print(sq(3)); }\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .arg("clif")
        .arg(&path)
        .output()
        .expect("toyc clif");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text.contains("; fn sq\n") && text.contains("; fn main\n"),
        "{text}"
    );
    assert!(text.contains("imul"), "{text}");
}

/// Cranelift orders blocks for lowering and register allocation by a
/// depth-first search that enters a branch's first target first. A loop's
/// exit must be that first target (so its body stays next to its header
/// instead of following the rest of the function, which made the
/// single-pass allocator quadratic on functions of thousands of loops),
/// while an error path stays the second target (entered last: right after
/// its check). So every `brif` names the later block first, unless the
/// later block is cold.
#[test]
fn branches_name_the_later_block_first_unless_it_is_cold() {
    let src = "fn main() { var a = [1, 2, 3]; var s = 0; var i = 0;\n\
               while i < 3 { if a[i] > 1 { s += a[i]; } i += 1; }\n\
               for j in 0..2 { s += j; }\n\
               print(s); }\n";
    assert_eq!(run_args("branch_order", src, &[]).stdout, "6\n");
    let path = write_program("branch_order", src);
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["clif", "-O0"])
        .arg(&path)
        .output()
        .expect("toyc clif");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let num = |s: &str| -> u32 {
        let s = s.trim().trim_start_matches("block");
        s[..s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len())]
            .parse()
            .expect("block number")
    };
    let cold: Vec<u32> = text
        .lines()
        .filter(|l| l.starts_with("block") && l.contains(" cold:"))
        .map(num)
        .collect();
    let (mut plain, mut checks) = (0, 0);
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("brif "))
    {
        let targets: Vec<u32> = line
            .match_indices("block")
            .map(|(i, _)| num(&line[i..]))
            .collect();
        let [first, second] = targets[..] else {
            panic!("{line}")
        };
        if cold.contains(&first) || cold.contains(&second) {
            assert!(
                cold.contains(&second) && !cold.contains(&first),
                "cold target not second: {line}\n{text}"
            );
            checks += 1;
        } else {
            assert!(
                first > second,
                "the later block is not the first target: {line}\n{text}"
            );
            plain += 1;
        }
    }
    // Two loop headers and an `if`; three bounds checks.
    assert!(
        plain >= 3 && checks >= 1,
        "{plain} plain, {checks} check branches\n{text}"
    );
}

/// A branch to the later block tests the complement of its condition. When
/// nothing else reads the comparison, the comparison itself is
/// complemented, so the function holds no dead one; a comparison read
/// elsewhere too (printed here) stays, beside the complemented copy.
#[test]
fn a_condition_only_its_branch_reads_is_complemented_in_place() {
    let src = "fn f(x: int, y: float) -> int {\n\
               if x < 3 { print(1); }\n\
               if y > 0.5 { print(2); }\n\
               let c = x == 7;\n\
               print(c);\n\
               if c { return 1; }\n\
               return 0;\n\
               }\n\
               fn main() { print(f(2, 1.0), f(7, 0.0)); }\n";
    assert_eq!(
        run_args("cmp_in_place", src, &[]).stdout,
        "1\n2\nfalse\ntrue\n0 1\n"
    );
    let path = write_program("cmp_in_place", src);
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["clif", "-O0", "--fn", "f"])
        .arg(&path)
        .output()
        .expect("toyc clif");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let ops: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split(" = ").nth(1))
        .filter(|r| r.starts_with("icmp") || r.starts_with("fcmp"))
        .map(|r| r.split(',').next().unwrap_or(r))
        .collect();
    assert_eq!(
        ops,
        [
            "icmp.i64 sge v0",
            "fcmp.f64 ule v1",
            "icmp.i64 eq v0",
            "icmp.i64 ne v0"
        ],
        "{text}"
    );
}
