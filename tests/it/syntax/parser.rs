//! Parser tests with exact expectations: AST shapes as S-expressions
//! (`toyc::syntax::sexpr`), and error messages with their `line:col`.

use toyc::span::{FileId, SourceMap};
use toyc::syntax::{ast, parse, sexpr};

/// Parses on a thread with a roomy stack (as the driver does).
fn run(src: &str) -> (ast::Module, Vec<String>) {
    let text = src.to_string();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let (module, diags) = parse(FileId(0), &text);
            let mut map = SourceMap::new();
            map.add("t.toy".into(), None, text.clone());
            let file = map.get(FileId(0));
            let errs = diags
                .iter()
                .map(|d| {
                    let (l, c) = file.line_col(d.span.start);
                    format!("{l}:{c}: {}", d.message)
                })
                .collect();
            (module, errs)
        })
        .unwrap()
        .join()
        .unwrap()
}

/// The module as S-expressions; the source must parse without errors.
fn ok(src: &str) -> String {
    let (m, errs) = run(src);
    assert!(errs.is_empty(), "unexpected errors for {src:?}: {errs:#?}");
    sexpr::module(&m)
}

/// The errors (`line:col: message`) of a source that must have some.
fn errs(src: &str) -> Vec<String> {
    let (_, errs) = run(src);
    assert!(!errs.is_empty(), "expected errors for {src:?}");
    errs
}

/// The statements of `fn main() { BODY }`.
fn body(stmts: &str) -> String {
    let s = ok(&format!("fn main() {{ {stmts} }}"));
    s.strip_prefix("(fn main () _ ")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(&s)
        .to_string()
}

/// One expression, as the initialiser of a `let`.
fn expr(e: &str) -> String {
    let s = body(&format!("let v = {e};"));
    s.strip_prefix("{ (let v _ ")
        .and_then(|s| s.strip_suffix(") }"))
        .unwrap_or(&s)
        .to_string()
}

/// Errors of `fn main() { BODY }` (line 1 holds `fn main() {`).
fn body_errs(stmts: &str) -> Vec<String> {
    errs(&format!("fn main() {{\n{stmts}\n}}"))
}

// ---------------------------------------------------------------- precedence

#[test]
fn arithmetic_precedence_and_associativity() {
    assert_eq!(expr("1 + 2 * 3"), "(+ 1 (* 2 3))");
    assert_eq!(expr("1 * 2 + 3"), "(+ (* 1 2) 3)");
    assert_eq!(expr("1 - 2 - 3"), "(- (- 1 2) 3)");
    assert_eq!(expr("8 / 4 / 2 % 3"), "(% (/ (/ 8 4) 2) 3)");
    assert_eq!(expr("(1 + 2) * 3"), "(* (+ 1 2) 3)");
}

#[test]
fn bitwise_and_shift_precedence() {
    assert_eq!(expr("a | b ^ c & d"), "(| a (^ b (& c d)))");
    assert_eq!(expr("a & b << 1 + 2"), "(& a (<< b (+ 1 2)))");
    assert_eq!(expr("a << 1 >> 2"), "(>> (<< a 1) 2)");
    assert_eq!(expr("a ^ b ^ c"), "(^ (^ a b) c)");
}

#[test]
fn logical_and_comparison_precedence() {
    assert_eq!(expr("a || b && c"), "(|| a (&& b c))");
    assert_eq!(expr("a && b || c && d"), "(|| (&& a b) (&& c d))");
    assert_eq!(expr("a == b | c"), "(== a (| b c))");
    assert_eq!(
        expr("a < b && c >= d || e != f"),
        "(|| (&& (< a b) (>= c d)) (!= e f))"
    );
    assert_eq!(expr("x <= y && y > z"), "(&& (<= x y) (> y z))");
}

#[test]
fn unary_and_postfix() {
    assert_eq!(expr("-a.b[1](2)"), "(- (call (index (. a b) 1) 2))");
    assert_eq!(expr("!-x"), "(! (- x))");
    assert_eq!(expr("- -x"), "(- (- x))");
    assert_eq!(expr("-x * y"), "(* (- x) y)");
    assert_eq!(expr("f(1, g(2), )(3)"), "(call (call f 1 (call g 2)) 3)");
    assert_eq!(expr("math.gcd(a, b)"), "(call (. math gcd) a b)");
    assert_eq!(expr("a[i][j].k"), "(. (index (index a i) j) k)");
    assert_eq!(
        expr("float(i) + int(f) + len(str(x))"),
        "(+ (+ (call float i) (call int f)) (call len (call str x)))"
    );
}

#[test]
fn chained_comparison_is_an_error_at_the_second_operator() {
    assert_eq!(
        body_errs("let b = a < b < c;"),
        ["2:15: comparison operators cannot be chained"]
    );
    assert_eq!(
        body_errs("let b = a == b != c;"),
        ["2:16: comparison operators cannot be chained"]
    );
    // One error per run of comparisons; `&&` and `||` end a run, tighter
    // operators do not.
    assert_eq!(
        body_errs("let b = a < b < c && d == e | 1 != f;"),
        [
            "2:15: comparison operators cannot be chained",
            "2:33: comparison operators cannot be chained"
        ]
    );
}

// ------------------------------------------------------------------ literals

#[test]
fn integer_literals() {
    assert_eq!(expr("42"), "42");
    assert_eq!(expr("0xff"), "255");
    assert_eq!(expr("0XFF"), "255");
    assert_eq!(expr("0b1010"), "10");
    assert_eq!(expr("1_000_000"), "1000000");
    assert_eq!(expr("9223372036854775807"), "9223372036854775807");
    assert_eq!(expr("0x7fff_ffff_ffff_ffff"), "9223372036854775807");
}

#[test]
fn i64_min_literal_under_unary_minus() {
    assert_eq!(expr("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(
        expr("1 - -9223372036854775808"),
        "(- 1 -9223372036854775808)"
    );
    assert_eq!(expr("-(-9223372036854775808)"), "(- -9223372036854775808)");
    // Not directly under unary minus: out of range.
    assert_eq!(
        body_errs("let a = 9223372036854775808;"),
        ["2:9: integer literal out of range for int"]
    );
    assert_eq!(
        body_errs("let a = 1 - 9223372036854775808;"),
        ["2:13: integer literal out of range for int"]
    );
    assert_eq!(
        body_errs("let a = -(9223372036854775808);"),
        ["2:11: integer literal out of range for int"]
    );
    assert_eq!(
        body_errs("let a = -9223372036854775809;"),
        ["2:10: integer literal out of range for int"]
    );
}

#[test]
fn out_of_range_and_invalid_numbers() {
    assert_eq!(
        body_errs("let a = 99999999999999999999;"),
        ["2:9: integer literal out of range for int"]
    );
    assert_eq!(
        body_errs("let a = 0x1_0000_0000_0000_0000;"),
        ["2:9: integer literal out of range for int"]
    );
    assert_eq!(body_errs("let a = 0x;"), ["2:9: invalid number literal"]);
    assert_eq!(body_errs("let a = 0b102;"), ["2:9: invalid number literal"]);
    assert_eq!(body_errs("let a = 12ab;"), ["2:9: invalid number literal"]);
    assert_eq!(body_errs("let a = 1e;"), ["2:9: invalid number literal"]);
    assert_eq!(body_errs("let a = 1e999;"), ["2:9: invalid number literal"]);
}

#[test]
fn float_literals() {
    assert_eq!(expr("1.5"), "1.5");
    assert_eq!(expr("2.0e-3"), "0.002");
    assert_eq!(expr("1e9"), "1000000000.0");
    assert_eq!(expr("1E+2"), "100.0");
    assert_eq!(expr("1_000.25"), "1000.25");
    // A digit must follow the dot, else it is a field access.
    assert_eq!(expr("1.x"), "(. 1 x)");
    assert_eq!(body("for i in 1..10 { }"), "{ (for i 1 10 { }) }");
    assert_eq!(body("for i in 0..n-1 { }"), "{ (for i 0 (- n 1) { }) }");
}

#[test]
fn string_literals_and_escapes() {
    assert_eq!(expr(r#""a\n\t\r\\\"\0b""#), r#""a\n\t\r\\\"\0b""#);
    assert_eq!(expr(r#""\u{1F600}\u{41}""#), "\"😀A\"");
    assert_eq!(expr("\"héllo\""), "\"héllo\"");
    assert_eq!(expr("\"\""), "\"\"");
    assert_eq!(expr("\"two\nlines\""), "\"two\\nlines\"");
}

#[test]
fn bad_escapes_and_unterminated_strings() {
    assert_eq!(
        body_errs(r#"let s = "a\qb";"#),
        ["2:11: invalid escape `\\q` in string"]
    );
    assert_eq!(
        body_errs(r#"let s = "\u{110000}";"#),
        ["2:10: invalid escape `\\u{110000}` in string"]
    );
    assert_eq!(
        body_errs(r#"let s = "\u{D800}";"#),
        ["2:10: invalid escape `\\u{D800}` in string"]
    );
    assert_eq!(
        body_errs(r#"let s = "\u41";"#),
        ["2:10: invalid escape `\\u` in string"]
    );
    // Both bad escapes in one string are reported.
    assert_eq!(body_errs(r#"let s = "\x\y";"#).len(), 2);
    assert_eq!(
        errs("fn main() {\n let s = \"abc;\n}\n"),
        ["2:10: unterminated string literal"]
    );
}

#[test]
fn keywords_literals() {
    assert_eq!(expr("true"), "true");
    assert_eq!(expr("false"), "false");
    assert_eq!(expr("nil"), "nil");
    assert_eq!(
        body_errs("let fn = 1;"),
        ["2:5: expected identifier, found `fn`"]
    );
}

#[test]
fn array_literals() {
    assert_eq!(expr("[]"), "[]");
    assert_eq!(expr("[1]"), "[1]");
    assert_eq!(expr("[1, 2, 3,]"), "[1 2 3]");
    assert_eq!(expr("[0; n * 2]"), "[0; (* n 2)]");
    assert_eq!(expr("[[1, 2], [], [x; 3]]"), "[[1 2] [] [x; 3]]");
}

#[test]
fn struct_literals() {
    assert_eq!(
        expr("Point { x: 1.0, y: 2.0 }"),
        "(struct Point (x 1.0) (y 2.0))"
    );
    assert_eq!(
        expr("geom.Point { x: 1.0, y: 2.0, }"),
        "(struct geom.Point (x 1.0) (y 2.0))"
    );
    assert_eq!(expr("Empty {}"), "(struct Empty)");
    assert_eq!(
        expr("Node { next: Node { next: nil } }.next"),
        "(. (struct Node (next (struct Node (next nil)))) next)"
    );
    assert_eq!(expr("f(P { x: 1 })"), "(call f (struct P (x 1)))");
}

#[test]
fn struct_literal_restriction_in_conditions() {
    assert_eq!(
        body("if x == y { f(); }"),
        "{ (if (== x y) { (expr (call f)) }) }"
    );
    assert_eq!(body("while ok { }"), "{ (while ok { }) }");
    assert_eq!(body("for x in arr { }"), "{ (foreach x arr { }) }");
    assert_eq!(body("for i in a..b { }"), "{ (for i a b { }) }");
    assert_eq!(
        body("if (P { x: 1 }).x == 1 { }"),
        "{ (if (== (. (struct P (x 1)) x) 1) { }) }"
    );
    assert_eq!(
        body("for x in (S { a: [1] }).a { }"),
        "{ (foreach x (. (struct S (a [1])) a) { }) }"
    );
    assert_eq!(
        body("if f(P { x: 1 }) { }"),
        "{ (if (call f (struct P (x 1))) { }) }"
    );
    // Unparenthesised, `P { x: 1 }` is not a struct literal in a condition.
    assert!(!errs("fn main() { if P { x: 1 } == p { } }").is_empty());
}

#[test]
fn comments() {
    assert_eq!(
        ok("// line\nfn main() { /* block /* nested */ still */ f(); } // end"),
        "(fn main () _ { (expr (call f)) })"
    );
    assert_eq!(
        errs("fn main() { }\n/* open /* nested */\n"),
        ["2:1: unterminated block comment"]
    );
    assert_eq!(ok(""), "");
    assert_eq!(ok("  // only a comment\n"), "");
}

// ---------------------------------------------------------------- statements

#[test]
fn let_var_and_assignments() {
    assert_eq!(
        body("let x = 1; var y: int = 2;"),
        "{ (let x _ 1) (var y int 2) }"
    );
    assert_eq!(
        body("let a: [[int]] = []; let p: geom.Point = nil;"),
        "{ (let a [[int]] []) (let p geom.Point nil) }"
    );
    assert_eq!(
        body("x = 1; a[i] = 2; p.f = 3;"),
        "{ (= x 1) (= (index a i) 2) (= (. p f) 3) }"
    );
    assert_eq!(
        body("x += 1; x -= 1; x *= 1; x /= 1; x %= 1; x &= 1; x |= 1; x ^= 1; x <<= 1; x >>= 1;"),
        "{ (+= x 1) (-= x 1) (*= x 1) (/= x 1) (%= x 1) (&= x 1) (|= x 1) (^= x 1) (<<= x 1) (>>= x 1) }"
    );
    assert_eq!(body("f(x); ;"), "{ (expr (call f x)) }");
}

#[test]
fn if_else_chains() {
    assert_eq!(body("if a { }"), "{ (if a { }) }");
    assert_eq!(
        body("if a { x(); } else { y(); }"),
        "{ (if a { (expr (call x)) } { (expr (call y)) }) }"
    );
    assert_eq!(
        body("if a { } else if b { } else if c { } else { z(); }"),
        "{ (if a { } { (if b { } { (if c { } { (expr (call z)) }) }) }) }"
    );
}

#[test]
fn loops_and_labels() {
    assert_eq!(
        body("'outer: while c { break 'outer; continue 'outer; break; continue; }"),
        "{ (while 'outer c { (break 'outer) (continue 'outer) (break) (continue) }) }"
    );
    assert_eq!(
        body("'a: for i in 0..10 { 'b: for x in xs { break 'a; } }"),
        "{ (for 'a i 0 10 { (foreach 'b x xs { (break 'a) }) }) }"
    );
    assert_eq!(
        body_errs("'a: if x { }"),
        ["2:5: expected `while` or `for`, found `if`"]
    );
}

#[test]
fn return_throw_try_block() {
    assert_eq!(
        body("return; return 1 + 2;"),
        "{ (return) (return (+ 1 2)) }"
    );
    assert_eq!(body("throw \"boom\";"), "{ (throw \"boom\") }");
    assert_eq!(
        body("try { f(); } catch e { print(e); }"),
        "{ (try { (expr (call f)) } e { (expr (call print e)) }) }"
    );
    assert_eq!(body("{ let x = 1; { } }"), "{ { (let x _ 1) { } } }");
}

// --------------------------------------------------------------------- items

#[test]
fn items() {
    assert_eq!(
        ok(
            "import math;\nimport geom;\nstruct P { x: float, y: float, }\nstruct E {}\nlet G: int = 1;\nvar c = 0;\nfn f(a: int, b: [str],) -> [int] { return []; }\nfn main() { }"
        ),
        "(import math)\n(import geom)\n(struct P (x float) (y float))\n(struct E)\n(let G int 1)\n(var c _ 0)\n(fn f ((a int) (b [str])) [int] { (return []) })\n(fn main () _ { })"
    );
    assert_eq!(
        ok("fn f(p: geom.Point) -> geom.Point { return p; }"),
        "(fn f ((p geom.Point)) geom.Point { (return p) })"
    );
}

#[test]
fn imports_must_come_first() {
    assert_eq!(
        errs("fn main() { }\nimport math;\n"),
        ["2:1: imports must come before other items"]
    );
}

#[test]
fn spans_are_byte_ranges() {
    let (m, _) = run("fn main() { let v = a + b * c; }");
    let ast::Item::Fn(f) = &m.items[0] else {
        panic!("not a fn")
    };
    assert_eq!((f.span.start, f.span.end), (0, 32));
    let ast::StmtKind::Let { init, .. } = &f.body.stmts[0].kind else {
        panic!("not a let")
    };
    assert_eq!((init.span.start, init.span.end), (20, 29));
    assert_eq!(
        (f.body.stmts[0].span.start, f.body.stmts[0].span.end),
        (12, 30)
    );
}

#[test]
fn a_parenthesised_expression_spans_its_parentheses() {
    // 0         1         2         3
    // 0123456789012345678901234567890123456
    // fn main() { let v = ((a + b)) * c.f; }
    let (m, _) = run("fn main() { let v = ((a + b)) * c.f; }");
    let ast::Item::Fn(f) = &m.items[0] else {
        panic!("not a fn")
    };
    let ast::StmtKind::Let { init, .. } = &f.body.stmts[0].kind else {
        panic!("not a let")
    };
    assert_eq!((init.span.start, init.span.end), (20, 35));
    let ast::ExprKind::Binary(_, l, r) = &init.kind else {
        panic!("not a binary")
    };
    // The outer parentheses belong to the operand; the inner ones are inside.
    assert_eq!((l.span.start, l.span.end), (20, 29));
    assert!(matches!(l.kind, ast::ExprKind::Binary(..)));
    assert_eq!((r.span.start, r.span.end), (32, 35));
    let (m, _) = run("fn main() { (f)(1); }");
    let ast::Item::Fn(f) = &m.items[0] else {
        panic!("not a fn")
    };
    let ast::StmtKind::Expr(call) = &f.body.stmts[0].kind else {
        panic!("not an expression")
    };
    let ast::ExprKind::Call(callee, _) = &call.kind else {
        panic!("not a call")
    };
    assert_eq!(
        (callee.span.start, callee.span.end, call.span.start),
        (12, 15, 12)
    );
}

// ------------------------------------------------------------------- recovery

#[test]
fn missing_semicolon_is_one_error_and_keeps_the_statement() {
    let src = "fn main() {\n    let x = 1\n    let y = x;\n}\n";
    // Reported where the `;` is missing: just after `1`, on line 2.
    assert_eq!(errs(src), ["2:14: expected `;`, found `let`"]);
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn main () _ { (let x _ 1) (let y _ x) })"
    );
    // Before a new line (at the end of the line lacking it), before `}`
    // on the same line (at the `}`).
    assert_eq!(body_errs("f()\ng();"), ["2:4: expected `;`, found `g`"]);
    assert_eq!(
        errs("fn main() { return 1 }"),
        ["1:22: expected `;`, found `}`"]
    );
}

#[test]
fn unclosed_brace_points_at_the_opening_brace() {
    let src = "fn main() {\n    if x {\n        f();\n}\nfn g() { let a = 1 }\n";
    // The `}` on line 4 is indented like `fn main() {`, so the `{` of the
    // `if` is the one left open.
    assert_eq!(
        errs(src),
        ["2:10: unclosed `{`", "5:20: expected `;`, found `}`"]
    );
    let (m, _) = run(src);
    assert_eq!(
        m.items.len(),
        2,
        "the function after the unclosed brace is still parsed"
    );
    assert_eq!(errs("fn main() {\n  f();\n"), ["1:11: unclosed `{`"]);
    assert_eq!(errs("fn main() { let a = [1, 2; }"), ["1:21: unclosed `[`"]);
}

#[test]
fn unclosed_brace_found_by_indentation_and_at_item_keywords() {
    let src = "fn main() {\n    let x = 1;\n    if x > 0 {\n        print(x);\n    let y = 2;\n}\nfn g() {\n    while true {\n        f(\n    }\n    h();\n}\n";
    assert_eq!(errs(src), ["3:14: unclosed `{`", "9:10: unclosed `(`"]);
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn main () _ { (let x _ 1) (if (> x 0) { (expr (call print x)) (let y _ 2) }) })\n\
         (fn g () _ { (while true { (expr (call f)) }) (expr (call h)) })"
    );
    // Without a telling indentation, the next `fn` closes what is open.
    assert_eq!(
        errs("fn a() { if x { f(); }\nfn b() { }"),
        ["1:8: unclosed `{`"]
    );
}

#[test]
fn unclosed_paren_or_bracket_is_closed_before_the_end_of_its_statement() {
    let src = "fn main() {\n    if (x > 1 {\n        print(x);\n    }\n    let y = foo(bar[1;\n    while (i < 3 { i += 1; }\n    print(\"a\";\n}\n";
    assert_eq!(
        errs(src),
        [
            "2:8: unclosed `(`",
            "5:20: unclosed `[`",
            "6:11: unclosed `(`",
            "7:10: unclosed `(`"
        ]
    );
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn main () _ { (if (> x 1) { (expr (call print x)) }) (let y _ (call foo (index bar 1))) \
         (while (< i 3) { (+= i 1) }) (expr (call print \"a\")) })"
    );
}

#[test]
fn missing_block_brace_found_by_indentation() {
    // The `}` on line 4 is indented like the `if`, whose line has no `{`:
    // the `{` is missing there, not a `}` further down.
    let src = "fn f(x: int) -> int {\n    if x > 0\n        return 1;\n    }\n    return 0;\n}\n";
    assert_eq!(errs(src), ["3:9: expected `{`, found `return`"]);
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn f ((x int)) int { (if (> x 0) { (return 1) }) (return 0) })"
    );
    let src = "fn main() {\n    while c\n        f();\n    }\n    if c {\n    } else\n        g();\n    }\n}\n";
    assert_eq!(
        errs(src),
        [
            "3:9: expected `{`, found `f`",
            "7:9: expected `{`, found `g`"
        ]
    );
    // Not when the `}` is indented unlike the header: the usual repair.
    let src = "fn main() {\n    for i in a\n        f();\n  }\n}\n";
    assert_eq!(
        errs(src),
        [
            "3:9: expected `..` or `{`, found `f`",
            "5:1: unexpected `}`"
        ]
    );
}

#[test]
fn unclosed_paren_at_the_end_of_a_line_is_closed_there() {
    // The line ends with an operand: the `(` is closed there, and the
    // missing `;` right after the repair is not reported again.
    let src = "fn main() {\n    let a = f(1, g(2)\n    print(a);\n}\n";
    assert_eq!(errs(src), ["2:14: unclosed `(`"]);
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn main () _ { (let a _ (call f 1 (call g 2))) (expr (call print a)) })"
    );
    // A line ending with `,` or an operator goes on: closed at the `}`.
    let src = "fn main() {\n    let a = f(1,\n    2\n}\n";
    assert_eq!(errs(src), ["2:14: unclosed `(`"]);
}

#[test]
fn stray_closing_delimiter() {
    assert_eq!(
        errs("fn main() { f(); } }\nfn g() { }"),
        ["1:20: unexpected `}`"]
    );
    assert_eq!(errs("fn main() { f()); }"), ["1:16: unexpected `)`"]);
}

#[test]
fn stray_tokens() {
    assert_eq!(body_errs("let x = 5 5;"), ["2:11: expected `;`, found `5`"]);
    assert_eq!(
        body_errs("let x = 1 + ;"),
        ["2:13: expected expression, found `;`"]
    );
    assert_eq!(
        body_errs("f(1 2);"),
        ["2:5: expected `,` or `)`, found `2`"]
    );
    assert_eq!(
        errs("xyz 123;\nfn main() { }"),
        ["1:1: expected item, found `xyz`"]
    );
    assert_eq!(
        body_errs("let x = 1 $ 2;"),
        [
            "2:11: unexpected character `$`",
            "2:13: expected `;`, found `2`"
        ]
    );
    assert_eq!(body_errs("x.;"), ["2:3: expected identifier, found `;`"]);
    assert_eq!(
        body_errs("let = 1;"),
        ["2:5: expected identifier, found `=`"]
    );
}

#[test]
fn statement_and_end_of_file_messages() {
    assert_eq!(
        body_errs("else { }"),
        ["2:1: expected statement, found `else`"]
    );
    assert_eq!(
        errs("fn main() { }\nlet"),
        ["2:4: expected identifier, found end of file"]
    );
    assert_eq!(
        errs("fn main() { }\nfn f() -> int"),
        ["2:14: expected `{`, found end of file"]
    );
}

#[test]
fn several_errors_in_one_file_are_all_reported() {
    let src = "\
struct P { x: int y: int }
fn a() { let x = ; }
fn b() { f(1 2); g() h(); }
fn c() -> int { return 1 }
let g = 1 +;
fn main() { @ }
";
    assert_eq!(
        errs(src),
        [
            "1:19: expected `,`, found `y`",
            "2:18: expected expression, found `;`",
            "3:14: expected `,` or `)`, found `2`",
            "3:22: expected `;`, found `h`",
            "4:26: expected `;`, found `}`",
            "5:12: expected expression, found `;`",
            "6:13: unexpected character `@`",
        ]
    );
    let (m, _) = run(src);
    assert_eq!(m.items.len(), 6);
    assert_eq!(
        sexpr::module(&m),
        "(struct P (x int) (y int))\n(fn a () _ { (let x _ <error>) })\n(fn b () _ { (expr <error>) <error> })\n(fn c () int { (return 1) })\n(let g _ <error>)\n(fn main () _ { })"
    );
}

#[test]
fn unexpected_characters() {
    // A run of unexpected characters is one error.
    assert_eq!(
        body_errs("let x = 1; #@ f();"),
        ["2:12: unexpected character `#`"]
    );
    assert_eq!(
        body_errs("let x = 1; #@!"),
        [
            "2:12: unexpected character `#`",
            "3:1: expected expression, found `}`"
        ]
    );
    assert_eq!(body_errs("let x = ' a;"), ["2:9: unexpected character `'`"]);
    assert_eq!(
        body_errs("let x = 'a;"),
        ["2:9: expected expression, found `'a`"]
    );
    assert_eq!(body_errs("let é = 1;")[0], "2:5: unexpected character `é`");
}

#[test]
fn missing_commas_between_entries_are_recovered() {
    let src = "struct P { x: int y: int }\nfn f(a: int b: P) { let p = P { x: 1 y: 2 }; }";
    assert_eq!(
        errs(src),
        [
            "1:19: expected `,`, found `y`",
            "2:13: expected `,`, found `b`",
            "2:38: expected `,`, found `y`"
        ]
    );
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(struct P (x int) (y int))\n(fn f ((a int) (b P)) _ { (let p _ (struct P (x 1) (y 2))) })"
    );
}

#[test]
fn missing_colons_and_broken_parameters_keep_the_names() {
    let src = "fn f(a int) { }\nfn g(a, b: [int]) { }\nstruct P { x int, y: int }";
    assert_eq!(
        errs(src),
        [
            "1:8: expected `:`, found `int`",
            "2:7: expected `:`, found `,`",
            "3:14: expected `:`, found `int`"
        ]
    );
    let (m, _) = run(src);
    assert_eq!(
        sexpr::module(&m),
        "(fn f ((a int)) _ { })\n(fn g ((a <error>) (b <error>)) _ { })\n(struct P (x int) (y int))"
    );
    let (m, e) = run("struct Q { a, b: int }");
    assert_eq!(e, ["1:13: expected `:`, found `,`"]);
    assert_eq!(sexpr::module(&m), "(struct Q (a <error>) (b <error>))");
}

#[test]
fn missing_types_keep_the_declaration() {
    let (m, e) = run("fn f() -> { }\nfn g() { let x: = 1; }");
    assert_eq!(
        e,
        [
            "1:11: expected type, found `{`",
            "2:17: expected type, found `=`"
        ]
    );
    assert_eq!(
        sexpr::module(&m),
        "(fn f () <error> { })\n(fn g () _ { (let x <error> 1) })"
    );
}

#[test]
fn error_nodes_after_errors() {
    let (m, _) = run("fn main() { let a = f(1 2); let b = (1 +); let c = [1 2]; }");
    assert_eq!(
        sexpr::module(&m),
        "(fn main () _ { (let a _ <error>) (let b _ <error>) (let c _ <error>) })"
    );
}
