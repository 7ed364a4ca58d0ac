//! The `recinline` pass: how many rounds a small recursive function is
//! inlined into itself, how many calls of itself are left, where the budget
//! stops it, and what it leaves alone. Each case runs `toyc ir
//! --passes=tailrec,recinline` (a debug build: the verifier runs after the
//! pass and its step) on a Toy program.

use super::toy_run::{stat, toyc};

/// (IR text of function `f`, stats and remarks text) after `tailrec` and
/// `recinline`.
fn ir(src: &str, f: &str) -> (String, String) {
    let (out, err, code) = toyc(
        &[
            "ir",
            "--passes=tailrec,recinline",
            "--stats",
            "--remarks=recinline",
            "--fn",
            f,
        ],
        src,
    );
    assert_eq!(code, 0, "toyc ir failed: {err}");
    (out, err)
}

/// Doubly recursive Fibonacci (`main` comes after it).
const FIB: &str = "fn fib(n: int) -> int {
    if n < 2 {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}
";

fn calls(ir: &str, f: &str) -> usize {
    ir.matches(&format!("invoke {f}(")).count()
}

#[test]
fn fib_is_inlined_three_levels_after_tailrec() {
    let src = &format!("{FIB}fn main() {{ print(fib(20)); }}");
    let (after, stats) = ir(src, "fib");
    assert_eq!(stat(&stats, "tailrec.accumulated"), 1, "{stats}");
    assert_eq!(stat(&stats, "recinline.rounds"), 3, "{stats}");
    assert_eq!(stat(&stats, "recinline.inlined"), 3, "{stats}");
    assert_eq!(stat(&stats, "recinline.skipped_budget"), 0, "{stats}");
    assert_eq!(calls(&after, "fib"), 1, "{after}");
    // The accumulator loop of each level: four loops, each with two φs (the
    // argument and the accumulator) in its header; a copy's single return
    // needs no φ where it joins its caller.
    assert_eq!(after.matches("= φ").count(), 4 * 2, "{after}");
    for level in 1..=3 {
        let line = format!("in fib: inlined fib into itself at 5:12 (level {level})");
        assert!(stats.contains(&line), "no `{line}` in\n{stats}");
    }
}

#[test]
fn several_calls_of_itself_stop_at_the_budget() {
    // After tailrec, tak calls itself three times; one round makes nine
    // calls and a second would pass MAX_TOTAL_STMTS.
    let src = "fn tak(x: int, y: int, z: int) -> int {
    if y < x {
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
    }
    return z;
}
fn main() { print(tak(18, 12, 6)); }";
    let (after, stats) = ir(src, "tak");
    assert_eq!(stat(&stats, "tailrec.eliminated"), 1, "{stats}");
    assert_eq!(stat(&stats, "recinline.rounds"), 1, "{stats}");
    assert_eq!(stat(&stats, "recinline.inlined"), 3, "{stats}");
    assert_eq!(stat(&stats, "recinline.skipped_budget"), 1, "{stats}");
    assert_eq!(calls(&after, "tak"), 9, "{after}");
}

#[test]
fn large_bodies_mutual_recursion_and_plain_functions_are_left() {
    // `big` has more than MAX_BODY_STMTS statements; `even`/`odd` call
    // each other, not themselves; `leaf` calls nothing.
    let mut big = String::from(
        "fn big(n: int) -> int {\n    if n < 1 {\n        return 0;\n    }\n    var s = n;\n",
    );
    for k in 0..20 {
        big.push_str(&format!("    s = s * {} + n / {};\n", k + 3, k + 2));
    }
    big.push_str("    return 1 - big(n - 1) + s;\n}\n");
    let src = format!(
        "{big}fn even(n: int) -> bool {{
    if n == 0 {{
        return true;
    }}
    return !odd(n - 1);
}}
fn odd(n: int) -> bool {{
    if n == 0 {{
        return false;
    }}
    return !even(n - 1);
}}
fn leaf(n: int) -> int {{ return n + 1; }}
fn main() {{ print(big(3), even(4), leaf(1)); }}"
    );
    for f in ["big", "even", "odd", "leaf"] {
        let (after, stats) = ir(&src, f);
        assert_eq!(stat(&stats, "recinline.inlined"), 0, "{f}: {stats}");
        assert_eq!(stat(&stats, "recinline.rounds"), 0, "{f}: {stats}");
        let (before, _, _) = toyc(&["ir", "--passes=tailrec", "--fn", f], &src);
        assert_eq!(after, before, "{f} changed");
    }
}

#[test]
fn a_call_in_a_try_goes_to_the_copied_handler() {
    // Each level's `try` handler catches the level below it: after three
    // rounds four `take_exception`s (one per level) and one real call,
    // whose exception goes to the innermost copy's handler.
    let src = "fn wrap(n: int) -> str {
    if n == 0 {
        throw \"bottom\";
    }
    try {
        return wrap(n - 1);
    } catch e {
        throw e + str(n);
    }
}
fn main() { print(wrap(3)); }";
    let (after, stats) = ir(src, "wrap");
    assert_eq!(stat(&stats, "recinline.rounds"), 3, "{stats}");
    assert_eq!(calls(&after, "wrap"), 1, "{after}");
    assert_eq!(after.matches("take_exception()").count(), 4, "{after}");
    assert_eq!(after.matches("unwind").count(), 2, "{after}");
}

#[test]
fn recursion_overflows_the_stack_after_inlining() {
    // `1 - f(..)` does not accumulate: the call stays, is inlined three
    // levels, and the innermost copy's real call still overflows.
    let src = "fn forever(n: int) -> int {
    return 1 - forever(n + 1);
}
fn main() { print(\"start\"); print(forever(0)); }";
    let (after, stats) = ir(src, "forever");
    assert_eq!(stat(&stats, "recinline.rounds"), 3, "{stats}");
    assert_eq!(calls(&after, "forever"), 1, "{after}");
    let (out, err, code) = toyc(&["run", "-O2"], src);
    assert_eq!(
        (out.as_str(), err.as_str(), code),
        ("start\n", "error: stack overflow\n", 101)
    );
}

#[test]
fn fib_machine_code_makes_one_call_of_itself() {
    // The three inlined levels are loops in one frame; the innermost copy's
    // call is the only `call fib` (the other call is the stack-overflow
    // path's).
    let src = &format!("{FIB}fn main() {{ print(fib(25)); }}");
    let (asm, err, code) = toyc(&["asm", "--fn", "fib"], src);
    assert_eq!(code, 0, "{err}");
    assert_eq!(asm.matches("; -> fib\n").count(), 1, "{asm}");
    assert_eq!(asm.matches("call").count(), 2, "{asm}");
    let (out, _, code) = toyc(&["run", "-O2"], src);
    assert_eq!((out.as_str(), code), ("75025\n", 0));
}
