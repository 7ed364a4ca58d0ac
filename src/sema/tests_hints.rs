//! Whole reports (position, headline, label, secondary labels, notes) for
//! the slips that get a hint, and for the cases where recovery must not
//! add errors of its own: docs/diagnostics.md, "Hints" and "Recovery".
//! Syntax errors come through `analyze` as the driver sees them.

use crate::diag::Diagnostic;
use crate::sema::analyze;
use crate::span::SourceMap;

/// Every diagnostic of `src` as `L:C: message | label [| L:C: secondary]*
/// [| note]*`.
fn reports(src: &str) -> Vec<String> {
    let mut sm = SourceMap::new();
    let f = sm.add("test.toy".into(), None, src.into());
    let diags: Vec<Diagnostic> = analyze(&mut sm, f).err().unwrap_or_default();
    let pos = |d: crate::span::Span| {
        let (l, c) = sm.get(f).line_col(d.start);
        format!("{l}:{c}")
    };
    diags
        .iter()
        .map(|d| {
            let mut s = format!("{}: {} | {}", pos(d.span), d.message, d.label);
            for (span, label) in &d.secondary {
                s += &format!(" | {}: {label}", pos(*span));
            }
            for n in &d.notes {
                s += &format!(" | {n}");
            }
            s
        })
        .collect()
}

fn main_body(body: &str) -> String {
    format!("fn main() {{\n{body}\n}}\n")
}

#[test]
fn missing_semicolon_is_reported_after_the_previous_token() {
    assert_eq!(
        reports(&main_body("    let a = 1\n    print(a);")),
        ["2:14: expected `;`, found `print` | add `;` here | 3:5: unexpected token"]
    );
    // Blank lines and comments in between do not move it.
    assert_eq!(
        reports(&main_body(
            "    let a = 1 // one\n\n    /* c */\n    print(a);"
        )),
        ["2:14: expected `;`, found `print` | add `;` here | 5:5: unexpected token"]
    );
    // On the same line, the error stays at the token found.
    assert_eq!(
        reports(&main_body("    let a = 1 print(a);")),
        ["2:15: expected `;`, found `print` | expected `;`"]
    );
}

#[test]
fn recovery_never_invents_a_missing_return() {
    let src = "fn helper(x: int) -> int {\n    if x > 0 {\n        return 1;\n    return 0;\n}\n\nfn main() {\n    print(helper(1));\n}\n";
    assert_eq!(
        reports(src),
        ["2:14: unclosed `{` | this delimiter is never closed"]
    );
    // Without the syntax error the check is still made.
    assert_eq!(
        reports("fn f() -> int {\n}\nfn main() {\n}\n"),
        [
            "1:4: function `f` must return `int` on every path | `f` does not return on every path | 2:1: the end of the body is reachable"
        ]
    );
}

#[test]
fn unclosed_paren_is_one_error() {
    assert_eq!(
        reports(
            "fn main() {\n    let y = (2 * 3;\n    print(y);\n}\n\nfn other() -> int {\n    return 1;\n}\n"
        ),
        ["2:13: unclosed `(` | this delimiter is never closed"]
    );
    assert_eq!(
        reports("let y = (2 * 3;\nfn main() {\n    print(y);\n}\n"),
        ["1:9: unclosed `(` | this delimiter is never closed"]
    );
}

#[test]
fn struct_literal_with_a_wrong_field_keeps_its_type() {
    assert_eq!(
        reports(
            "struct P { x: float }\nfn main() {\n    let q = P { x: 1 };\n    print(q.z);\n}\n"
        ),
        [
            "3:20: mismatched types: expected `float`, found `int` | expected `float`, found `int` | help: use a float literal: `1.0`",
            "4:13: no field `z` on `P` | unknown field | 1:1: `P` is defined here | did you mean `x`?",
        ]
    );
}

#[test]
fn increment_and_decrement_operators() {
    assert_eq!(
        reports(&main_body("    var i = 0;\n    i++;")),
        [
            "3:6: Toy has no postfix increment operator | `++` is not an operator in Toy | help: use a compound assignment: `i += 1;`"
        ]
    );
    assert_eq!(
        reports(&main_body("    var a = [1];\n    a[0]++;")),
        [
            "3:9: Toy has no postfix increment operator | `++` is not an operator in Toy | help: use a compound assignment: `a[0] += 1;`"
        ]
    );
    assert_eq!(
        reports(&main_body("    var i = 0;\n    i--;")),
        [
            "3:6: Toy has no postfix decrement operator | `--` is not an operator in Toy | help: use a compound assignment: `i -= 1;`"
        ]
    );
    assert_eq!(
        reports(&main_body("    var i = 0;\n    ++i;")),
        [
            "3:5: Toy has no prefix increment operator | `++` is not an operator in Toy | help: use a compound assignment: `i += 1;`"
        ]
    );
}

#[test]
fn single_quotes() {
    assert_eq!(
        reports(&main_body("    let c: str = 'c';\n    print(c);")),
        ["2:18: Toy has no character literals | write a string in double quotes: `\"c\"`"]
    );
    assert_eq!(
        reports(&main_body("    print('hi', '\\n', '\\'');")),
        [
            "2:11: Toy has no single-quoted strings | write a string in double quotes: `\"hi\"`",
            "2:17: Toy has no character literals | write a string in double quotes: `\"\\n\"`",
            "2:23: Toy has no character literals | write a string in double quotes: `\"'\"`",
        ]
    );
    // Labels are not affected.
    assert_eq!(
        reports(&main_body("    'a: while true { break 'a; }")),
        Vec::<String>::new()
    );
}

#[test]
fn method_calls() {
    assert_eq!(
        reports(&main_body("    let a = [1, 2];\n    print(a.len());")),
        [
            "3:13: no method `len` on `[int]` | Toy has no methods: functions take the value as an argument | help: call the builtin: `len(a)`"
        ]
    );
    assert_eq!(
        reports(&main_body("    var a = [1];\n    a.push(2 + 1);")),
        [
            "3:7: no method `push` on `[int]` | Toy has no methods: functions take the value as an argument | help: call the builtin: `push(a, 2 + 1)`"
        ]
    );
    // Not a builtin: no help.
    assert_eq!(
        reports(&main_body("    let s = \"x\";\n    s.shout();")),
        [
            "3:7: no method `shout` on `str` | Toy has no methods: functions take the value as an argument"
        ]
    );
}

#[test]
fn int_literal_where_a_float_is_expected() {
    assert_eq!(
        reports(&main_body("    let f: float = 3;")),
        [
            "2:20: mismatched types: expected `float`, found `int` | expected `float`, found `int` | help: use a float literal: `3.0`"
        ]
    );
    assert_eq!(
        reports(&main_body("    let g = 1.0 + 2;")),
        [
            "2:13: cannot apply `+` to `float` and `int` | `+` cannot be applied to `float` and `int` | 2:13: this is `float` | 2:19: this is `int` | help: use a float literal: `2.0`"
        ]
    );
    assert_eq!(
        reports(&main_body("    var f = 1.5;\n    f *= -2;")),
        [
            "3:5: cannot apply `*=` to `float` and `int` | `*=` cannot be applied to `float` and `int` | 3:5: this is `float` | 3:10: this is `int` | help: use a float literal: `-2.0`"
        ]
    );
    assert_eq!(
        reports(&main_body("    let h: float = 0x10;")),
        [
            "2:20: mismatched types: expected `float`, found `int` | expected `float`, found `int` | help: convert it: `float(0x10)`"
        ]
    );
    // Not a literal: no help.
    assert_eq!(
        reports(&main_body("    let n = 3;\n    let f: float = n;")),
        ["3:20: mismatched types: expected `float`, found `int` | expected `float`, found `int`"]
    );
}

#[test]
fn struct_literal_in_a_condition() {
    assert_eq!(
        reports(
            "struct P { x: int }\nfn main() {\n    let p = P { x: 1 };\n    if p == P { x: 1 } {\n        print(1);\n    }\n    while p == P { x: 2 } {\n    }\n}\n"
        ),
        [
            "4:13: struct literals are not allowed here | a struct literal here would be read as the start of the block | help: surround the struct literal with parentheses: `(P { x: 1 })`",
            "7:16: struct literals are not allowed here | a struct literal here would be read as the start of the block | help: surround the struct literal with parentheses: `(P { x: 2 })`",
        ]
    );
    // Parenthesised, it is fine; `if flag {}` is still a block.
    assert_eq!(
        reports(
            "struct P { x: int }\nfn main() {\n    let p = P { x: 1 };\n    let flag = true;\n    if p == (P { x: 1 }) { }\n    if flag {}\n}\n"
        ),
        Vec::<String>::new()
    );
}

#[test]
fn assigning_to_for_and_catch_variables() {
    assert_eq!(
        reports(&main_body("    for i in 0..3 {\n        i = 2;\n    }")),
        [
            "3:9: cannot assign to immutable `i` | cannot assign twice to an immutable variable | 2:9: `i` is the loop variable, which cannot be made mutable | help: to change it in the body, shadow it with a mutable copy: `var i = i;`"
        ]
    );
    assert_eq!(
        reports(&main_body(
            "    for s in [\"a\"] {\n        s += \"b\";\n    }"
        )),
        [
            "3:9: cannot assign to immutable `s` | cannot assign twice to an immutable variable | 2:9: `s` is the loop variable, which cannot be made mutable | help: to change it in the body, shadow it with a mutable copy: `var s = s;`"
        ]
    );
    assert_eq!(
        reports(&main_body(
            "    try {\n        throw \"x\";\n    } catch e {\n        e = \"y\";\n    }"
        )),
        [
            "5:9: cannot assign to immutable `e` | cannot assign twice to an immutable variable | 4:13: `e` is the `catch` variable, which cannot be made mutable | help: to change it in the handler, shadow it with a mutable copy: `var e = e;`"
        ]
    );
    assert_eq!(
        reports(&main_body("    let x = 1;\n    x = 2;")),
        [
            "3:5: cannot assign to immutable `x` | cannot assign twice to an immutable variable | 2:9: `x` is declared here; declare it with `var` to make it mutable"
        ]
    );
}
