//! The two parses of `parse_tokens` (module docs) agree: the fast
//! [`EmptyErr`] parse and the [`PError`] parse of the same tokens build
//! the same module with the same number of errors, so the fast parse
//! accepts exactly the files the diagnostic parse accepts.

use super::{Cx, PError, parse_with};
use crate::span::FileId;
use crate::syntax::{ast, delims, lexer};
use chumsky::error::EmptyErr;
use std::path::Path;

/// Both parses of `text`: (module, error count) with [`EmptyErr`] and
/// with [`PError`]; `None` when the delimiter pass rejects the nesting (the
/// parser does not run then).
type Both = ((ast::Module, usize), (ast::Module, usize));

fn both(text: &str) -> Option<Both> {
    let text = text.to_string();
    // On a thread with a roomy stack, as the driver parses.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let cx = Cx {
                file: FileId(0),
                text: &text,
            };
            let (tokens, _) = lexer::lex(&text);
            let balanced = delims::balance(tokens, &text);
            if balanced.too_deep {
                return None;
            }
            let (fast, fast_errs) = parse_with::<EmptyErr>(cx, &balanced.tokens);
            let (rich, rich_errs) = parse_with::<PError<'_>>(cx, &balanced.tokens);
            Some(((fast, fast_errs.len()), (rich, rich_errs.len())))
        })
        .unwrap()
        .join()
        .unwrap()
}

/// Whether `text` parses without errors, after checking that both parses
/// agree on it.
fn accepted(what: &str, text: &str) -> bool {
    let ((fast, fast_errs), (rich, rich_errs)) =
        both(text).unwrap_or_else(|| panic!("{what}: nested too deeply"));
    assert_eq!(fast_errs, rich_errs, "{what}: error counts differ");
    assert_eq!(fast, rich, "{what}: modules differ");
    fast_errs == 0
}

fn main_with(body: &str) -> String {
    format!("fn main() {{ {body} }}\n")
}

#[test]
fn snippets_agree() {
    let good = [
        "let x = 1 + 2 * 3;",
        "var a: [int] = [1, 2, 3]; a[0] += 4;",
        "let p = P { x: 1, y: 2 }; print(p.x);",
        "if a < b { f(); } else if c { g(); } else { h(); }",
        "'outer: for i in 0..10 { for x in xs { break 'outer; } }",
        "while !done { done = -x >= 2 && y != 3 || z; }",
        "try { throw \"e\"; } catch e { print(e); }",
        "let m = -9223372036854775808;",
        "let s = [0; 8]; ; ; return;",
        "let v = m.S { a: [], b: (1) };",
        "let b = a < b | c && d << 2 >= e % 3 - -f || !g;",
    ];
    let bad = [
        // missing `;` (recovered, the statement kept)
        "let x = 1\nlet y = 2;",
        // chained comparisons (reported by `validate`), one per run
        "let b = 1 < 2 < 3;",
        "let b = x | a < b <= c & 1 && d == e != f || g > h;",
        // an operator without its right operand
        "let b = a * b + ;",
        // struct literal in a condition (reported and kept)
        "if P { x: 1 }.x { }",
        // 2^63 without a minus
        "let big = 9223372036854775808;",
        // broken `let` initialiser, broken call arguments and index
        "let x = );\nf(1 2); a[1 2];",
        // junk skipped up to the next statement keyword
        "x y z while true { }",
        // missing `,` and `:` in a struct literal
        "let p = P { x: 1 y 2 };",
    ];
    for s in good {
        assert!(accepted(s, &main_with(s)), "{s:?} should parse");
    }
    for s in bad {
        assert!(!accepted(s, &main_with(s)), "{s:?} should not parse");
    }
    let items_bad = [
        "struct S { a int, b: }\nfn f(x int) -> { }",
        "let G = ;\nimport m\nfn main() { }",
        "fn f( { }\nlet = 3;",
    ];
    for s in items_bad {
        assert!(!accepted(s, s), "{s:?} should not parse");
    }
}

/// Every Toy file of the lang-tests, the examples and the stdlib.
#[test]
fn corpus_agrees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["lang-tests", "examples", "stdlib"] {
        collect_toy(&root.join(dir), &mut files);
    }
    files.sort();
    let (mut good, mut bad) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let what = path.display().to_string();
        if both(&text).is_none() {
            continue;
        }
        if accepted(&what, &text) {
            good += 1;
        } else {
            bad += 1;
        }
    }
    // The corpus has both kinds (most of lang-tests/errors/syntax has
    // parse errors; the rest only lexical ones).
    assert!(good > 300, "only {good} files without syntax errors");
    assert!(bad > 20, "only {bad} files with syntax errors");
}

fn collect_toy(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_toy(&path, out);
        } else if path.extension().is_some_and(|e| e == "toy") {
            out.push(path);
        }
    }
}
