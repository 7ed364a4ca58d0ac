//! Snapshots of the printed IR after SSA construction (`toyc ir`), one per
//! program. Every module is verified before printing. Review a changed
//! snapshot by eye before accepting it (`INSTA_UPDATE=always cargo test`).
use std::sync::Arc;
use toyc::ir::Module;
use toyc::span::SourceMap;

/// Type-checks `src`, builds and verifies its IR.
fn ir_of(src: &str) -> (Module, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("test.toy".into(), None, src.into());
    let program = match toyc::sema::analyze(&mut sources, file) {
        Ok(p) => p,
        Err(diags) => panic!(
            "does not compile:\n{}",
            toyc::diag::render(&sources, &diags, false)
        ),
    };
    let m = toyc::ssa::build_module(Arc::new(program));
    if let Err(errs) = toyc::ir::verify::verify_module(&m) {
        panic!(
            "verifier:\n{}\n{}",
            errs.join("\n"),
            toyc::ir::print::print_module(&m, &sources, None)
        );
    }
    (m, sources)
}

fn snap(name: &str, src: &str) {
    let (m, sources) = ir_of(src);
    let text = toyc::ir::print::print_module(&m, &sources, None);
    insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn fib_recursive() {
    snap(
        "fib_recursive",
        r#"fn fib(n: int) -> int {
    if n < 2 {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

fn main() {
    print(fib(20));
}
"#,
    );
}

#[test]
fn factorial_while() {
    snap(
        "factorial_while",
        r#"fn fact(x: int) -> int {
    var n = 0;
    var s = 1;
    while n < x {
        n += 1;
        s *= n;
    }
    return s;
}

fn main() {
    print(fact(10));
}
"#,
    );
}

#[test]
fn labelled_loops() {
    snap(
        "labelled_loops",
        r#"fn main() {
    var count = 0;
    'outer: for i in 0..10 {
        for j in 0..10 {
            if j > i {
                continue 'outer;
            }
            if i * j > 20 {
                break 'outer;
            }
            count += 1;
        }
    }
    print(count);
}
"#,
    );
}

#[test]
fn short_circuit() {
    snap(
        "short_circuit",
        r#"fn check(a: int, b: int) -> bool {
    let both = a > 0 && b > 0;
    if both || a == b {
        return true;
    } else if !(a < b) {
        return false;
    }
    return a == 0;
}

fn main() {
    print(check(1, 2));
}
"#,
    );
}

#[test]
fn division_checks() {
    snap(
        "division_checks",
        r#"fn f(a: int, b: int) -> int {
    let q = a / b;
    let r = a % 7;
    let s = a / 2 + a / 2;
    return q + r + s;
}

fn main() {
    print(f(100, 7));
}
"#,
    );
}

#[test]
fn floats_and_builtins() {
    snap(
        "floats_and_builtins",
        r#"fn main() {
    let x = 2.0;
    let y = sqrt(x) * 3.5 + float(4);
    let z = y % 1.5;
    print(int(y), z, fabs(-1.25), pow(x, 10.0));
    write("done", 1, true, "\n");
}
"#,
    );
}

#[test]
fn strings() {
    snap(
        "strings",
        r#"fn main() {
    let s = "hello";
    let t = s + ", world";
    if t != s && len(t) > 3 {
        print(t, t[0], s < t);
    }
    print(str(42) + str(1.5), substr(t, 0, 4));
}
"#,
    );
}

#[test]
fn arrays() {
    snap(
        "arrays",
        r#"fn sum(a: [int]) -> int {
    var s = 0;
    for x in a {
        s += x;
    }
    return s;
}

fn main() {
    let a = [1, 2, 3];
    push(a, 4);
    a[0] = a[1] * 2;
    let b = [0; 5];
    print(sum(a), pop(a), len(b), a);
}
"#,
    );
}

#[test]
fn structs_and_nil() {
    snap(
        "structs_and_nil",
        r#"struct Node { value: int, next: Node }

fn length(n: Node) -> int {
    var k = 0;
    var cur = n;
    while cur != nil {
        k += 1;
        cur = cur.next;
    }
    return k;
}

fn main() {
    let a = Node { value: 1, next: nil };
    let b = Node { next: a, value: 2 };
    b.value += 10;
    print(length(b), b.value, a);
}
"#,
    );
}

#[test]
fn globals_and_init() {
    snap(
        "globals_and_init",
        r#"var counter = 0;
let LIMIT: int = 3 * 4;

fn bump() {
    counter += 1;
}

fn main() -> int {
    while counter < LIMIT {
        bump();
    }
    return counter;
}
"#,
    );
}

#[test]
fn try_catch() {
    snap(
        "try_catch",
        r#"fn risky(n: int) -> int {
    if n > 2 {
        throw "too big";
    }
    return 10 / n;
}

fn main() {
    var x = 1;
    var tries = 0;
    try {
        x = risky(0);
        tries += 1;
        x = risky(5);
    } catch e {
        print("caught", e, x, tries);
    }
    print(x);
}
"#,
    );
}

#[test]
fn assert_and_exit() {
    snap(
        "assert_and_exit",
        r#"fn main() -> int {
    let n = parse_int("12");
    assert(n > 0, "positive");
    assert(n < 100);
    if n == 12 {
        exit(3);
    }
    return n;
}
"#,
    );
}

/// ϒ/φᶜ placement, shape 1: `x` is assigned before the try and twice inside
/// it, and read in the handler. Each call that may throw inside the try is
/// preceded by a ϒ of the value `x` has at that point, and the handler's
/// φᶜ for `x` lists those ϒ nodes (one per throwing point).
#[test]
fn upsilon_assigned_before_and_in_try() {
    snap(
        "upsilon_assigned_before_and_in_try",
        r#"fn f(n: int) -> int {
    if n > 1 {
        throw "big";
    }
    return n;
}

fn main() {
    var x = 10;
    try {
        x = f(0);
        x = f(1) + x;
        x = f(2);
    } catch e {
        print(e, x);
    }
    print(x);
}
"#,
    );
}

/// ϒ/φᶜ placement, shape 2: a try inside a loop whose handler breaks or
/// continues. The handler's φᶜ merges the ϒ values of the current iteration;
/// the loop header's φ merges the values coming from the body, the handler's
/// `continue` and the entry.
#[test]
fn upsilon_try_in_loop_break_continue() {
    snap(
        "upsilon_try_in_loop_break_continue",
        r#"fn main() {
    var sum = 0;
    var i = 0;
    while i < 10 {
        i += 1;
        try {
            sum += 100 / (i - 3);
        } catch e {
            if sum > 50 {
                break;
            }
            sum += 1000;
            continue;
        }
        sum += 1;
    }
    print(sum, i);
}
"#,
    );
}

/// ϒ/φᶜ placement, shape 3: nested tries where the inner handler rethrows.
/// The inner handler's φᶜ sees the inner try's ϒ values; the outer handler's
/// φᶜ sees ϒ values from the outer body, from the inner body (whose throwing
/// points are also inside the outer try) and from the inner handler's throw.
#[test]
fn upsilon_nested_try_rethrow() {
    snap(
        "upsilon_nested_try_rethrow",
        r#"fn g(n: int) -> int {
    if n == 2 {
        throw "two";
    }
    return n * 10;
}

fn main() {
    var x = 0;
    try {
        x = g(1);
        try {
            x = g(2);
        } catch e {
            x += 1;
            throw "re: " + e;
        }
        x = 5;
    } catch e2 {
        print(e2, x);
    }
    print(x);
}
"#,
    );
}
