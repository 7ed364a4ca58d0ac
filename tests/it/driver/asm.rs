//! `toyc asm` (disassembled machine code) and `toyc clif --optimized`.
use std::process::Command;

fn toyc_env(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .expect("run toyc")
}

/// Writes a Toy program to a fresh file in the temp directory.
fn program(test: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("toyc-asm-{}-{test}.toy", std::process::id()));
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn stdout_of(args: &[&str]) -> String {
    stdout_with(args, &[])
}

fn stdout_with(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = toyc_env(args, env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The mnemonic of each instruction line (`  offset:  mnemonic operands`).
fn mnemonics(listing: &str) -> Vec<&str> {
    listing
        .lines()
        .filter(|l| !l.starts_with(';'))
        .filter_map(|l| l.split(":  ").nth(1)?.split_whitespace().next())
        .collect()
}

const PROGRAM: &str = "\
fn add(a: int, b: int) -> int { return a + b; }
fn fib(n: int) -> int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn main() { print(add(fib(20), 1)); }
";

#[test]
fn add_is_one_addition_between_prologue_and_return() {
    let file = program("add", PROGRAM);
    for level in ["-O0", "-O2"] {
        let text = stdout_of(&["asm", level, "--fn", "add", file.to_str().unwrap()]);
        assert!(text.starts_with("; fn add\n"), "{text}");
        #[cfg(target_arch = "x86_64")]
        {
            // The frame pointer is kept (the collector walks frames by it).
            assert_eq!(
                mnemonics(&text),
                ["push", "mov", "lea", "mov", "pop", "ret"],
                "{level}: {text}"
            );
            assert!(text.contains("lea    rax, [rdi + rsi]"), "{level}: {text}");
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            assert!(mnemonics(&text).contains(&"add"), "{level}: {text}");
            assert_eq!(mnemonics(&text).last(), Some(&"ret"), "{level}: {text}");
        }
    }
}

#[test]
fn calls_name_their_targets() {
    let file = program("calls", PROGRAM);
    let text = stdout_of(&["asm", "-O0", file.to_str().unwrap()]);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("; fn ")).collect();
    assert_eq!(
        headers,
        ["; fn add", "; fn fib", "; fn main", "; fn <init>"]
    );
    let fib = text
        .split("; fn ")
        .find(|f| f.starts_with("fib\n"))
        .unwrap();
    // Two recursive calls, each naming `fib`, and the addition of their results.
    let calls: Vec<&str> = fib
        .lines()
        .filter(|l| mnemonics(l) == ["call"] && l.ends_with("; -> fib"))
        .collect();
    assert_eq!(calls.len(), 2, "{fib}");
    assert!(mnemonics(fib).contains(&"add"), "{fib}");
    assert!(mnemonics(fib).contains(&"ret"), "{fib}");
    // The stack-limit check reads a runtime symbol.
    assert!(fib.contains("; -> toy_stack_limit"), "{fib}");
    let main = text
        .split("; fn ")
        .find(|f| f.starts_with("main\n"))
        .unwrap();
    assert!(main.contains("; -> toy_print_int\n"), "{main}");
    assert!(main.contains("; -> toy_print_newline\n"), "{main}");
    assert!(
        main.contains("; -> add\n") && main.contains("; -> fib\n"),
        "{main}"
    );
}

#[test]
fn data_references_name_globals_and_strings() {
    let file = program(
        "data",
        "var count = 0;\nfn main() { count += 1; print(\"hello\", count); }\n",
    );
    let text = stdout_of(&["asm", "--fn", "main", file.to_str().unwrap()]);
    assert!(text.contains("; -> global count\n"), "{text}");
    assert!(text.contains("; -> \"hello\"\n"), "{text}");
    // Collecting runtime functions are called through their trampolines.
    let file = program(
        "concat",
        "fn main() { let s = \"a\" + str(len(args())); print(s); }\n",
    );
    let text = stdout_of(&["asm", "--fn", "main", file.to_str().unwrap()]);
    assert!(text.contains("; -> toy_str_concat.gc\n"), "{text}");
}

/// At -O2 the translation lowers a multiplication by 8 as a shift by 3
/// (`codegen/const_div.rs`), and the constant 8 is never made. Without
/// our passes, `(x + 1) + 2` reaches Cranelift as two additions: its
/// e-graph, off by default, folds them into one when
/// `TOYC_CRANELIFT_OPT=speed` turns it on, and `--optimized` shows that.
/// At -O0 the multiplication stays.
#[test]
fn optimized_clif_is_what_cranelift_rewrote() {
    let file = program(
        "times8",
        "fn times8(x: int) -> int { return x * 8; }\n\
         fn add3(x: int) -> int { return (x + 1) + 2; }\n\
         fn main() { print(times8(len(args())), add3(len(args()))); }\n",
    );
    let path = file.to_str().unwrap();
    let plain = stdout_of(&["clif", "--fn", "times8", path]);
    assert!(!plain.contains("imul"), "{plain}");
    assert!(
        plain.contains("v2 = ishl.i64 v0, v1  ; v1 = 3\n"),
        "{plain}"
    );
    assert!(!plain.contains("iconst.i64 8"), "{plain}");
    let adds = |args: &[&str], env: &[(&str, &str)]| {
        let all = [&["clif", "--passes=", "--fn", "add3"], args, &[path]].concat();
        let text = stdout_with(&all, env);
        (text.matches("iadd").count(), text)
    };
    let speed = [("TOYC_CRANELIFT_OPT", "speed")];
    assert_eq!(adds(&[], &speed).0, 2, "{}", adds(&[], &speed).1);
    assert_eq!(
        adds(&["--optimized"], &[]).0,
        2,
        "{}",
        adds(&["--optimized"], &[]).1
    );
    let (n, rewritten) = adds(&["--optimized"], &speed);
    assert_eq!(n, 1, "{rewritten}");
    assert!(rewritten.contains("iconst.i64 3\n"), "{rewritten}");
    for args in [&["clif", "-O0"][..], &["clif", "-O0", "--optimized"]] {
        let o0 = stdout_with(&[args, &["--fn", "times8", path]].concat(), &speed);
        assert!(o0.contains("imul"), "{o0}");
    }
    for opt in ["-O0", "-O2"] {
        assert_eq!(
            stdout_of(&["run", opt, path, "--", "a", "b"]),
            "16 5\n",
            "{opt}"
        );
    }
}

/// A multiplication by the float constant 2.0 (on either side) is lowered
/// as `x + x`, the same value in every case (sign of zero, overflow, NaN);
/// other constants stay multiplications.
#[test]
fn times_two_is_an_addition() {
    let file = program(
        "twice",
        "fn twice(x: float) -> float { return 2.0 * x; }\n\
         fn twice_r(x: float) -> float { return x * 2.0; }\n\
         fn half(x: float) -> float { return x * 0.5; }\n\
         fn main() { let z = 0.0; print(twice(-0.0), twice_r(1e308), twice(z / z), twice_r(1.5), half(3.0)); }\n",
    );
    let path = file.to_str().unwrap();
    for f in ["twice", "twice_r"] {
        let clif = stdout_of(&["clif", "--fn", f, path]);
        assert!(clif.contains("v1 = fadd.f64 v0, v0\n"), "{clif}");
        assert!(!clif.contains("fmul"), "{clif}");
    }
    let half = stdout_of(&["clif", "--fn", "half", path]);
    assert!(half.contains("fmul"), "{half}");
    for opt in ["-O0", "-O2"] {
        assert_eq!(
            stdout_of(&["run", opt, path]),
            "-0.0 inf NaN 3.0 1.5\n",
            "{opt}"
        );
    }
}

/// An index out of bounds passes its index and length to the runtime in a
/// slot of the frame (one per function, `codegen/raise.rs`), and every
/// position constant carries `runtime::POSITION_TAG`.
#[test]
fn index_errors_pass_their_operands_in_one_slot() {
    let file = program(
        "raise_slot",
        "fn get2(a: [int], i: int, j: int) -> int { return a[i] + a[j]; }\n\
         fn main() { print(get2([1, 2], 0, 1)); }\n",
    );
    let clif = stdout_of(&["clif", "--fn", "get2", file.to_str().unwrap()]);
    assert_eq!(clif.matches("explicit_slot").count(), 1, "{clif}");
    assert_eq!(clif.matches("ss0 = explicit_slot 16").count(), 1, "{clif}");
    assert_eq!(clif.matches("= stack_addr.i64 ss0+8").count(), 2, "{clif}");
    assert!(
        clif.contains("= iconst.i64 0x007f_0000_0000_0000"),
        "{clif}"
    );
    assert!(
        clif.contains("= iconst.i64 0x007f_0000_0000_0001"),
        "{clif}"
    );
    assert!(clif.contains("; u0:4 = toy_raise_index_at.gc"), "{clif}");
}

/// The loop of a two-pointer reversal keeps both indices where they are:
/// with the index and length as call arguments of the error paths, the
/// register allocator moved them into the argument registers on every
/// iteration (twelve `mov` between registers in this function).
#[test]
#[cfg(target_arch = "x86_64")]
fn a_checked_loop_does_not_shuffle_its_indices() {
    let file = program(
        "reverse",
        "fn rev(p: [int], k: int) {\n\
         var lo = 0;\n\
         var hi = k;\n\
         while lo < hi {\n\
         let t = p[lo];\n\
         p[lo] = p[hi];\n\
         p[hi] = t;\n\
         lo += 1;\n\
         hi -= 1;\n\
         }\n\
         }\n\
         fn main() { let p = [1, 2, 3, 4]; rev(p, 3); print(p[0], p[3]); }\n",
    );
    let text = stdout_of(&["asm", "--fn", "rev", file.to_str().unwrap()]);
    let reg = |s: &str| !s.contains('[') && !s.trim().starts_with(|c: char| c.is_ascii_digit());
    let moves = text
        .lines()
        .filter_map(|l| l.split(":  ").nth(1))
        .filter(|i| {
            let mut parts = i.splitn(2, char::is_whitespace);
            parts.next() == Some("mov")
                && parts.next().is_some_and(|ops| {
                    ops.split(", ").all(reg) && !ops.contains("rsp") && !ops.contains("rbp")
                })
        })
        .count();
    assert!(moves <= 2, "{moves} register moves:\n{text}");
}
