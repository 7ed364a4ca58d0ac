//! The two parses of `parse_tokens` (module docs) agree: the fast
//! [`EmptyErr`] parse and the [`PError`] parse of the same tokens build
//! the same module with the same number of errors, so the fast parse
//! accepts exactly the files the diagnostic parse accepts.

use super::{Cx, PError, parse_with};
use crate::span::FileId;
use crate::syntax::token::Token;
use crate::syntax::{ast, delims, lexer};
use chumsky::error::EmptyErr;
use chumsky::span::SimpleSpan;
use std::path::Path;

/// Both parses of `text`: (module, error count) with [`EmptyErr`] and
/// with [`PError`]; `None` when the delimiter pass rejects the nesting (the
/// parser does not run then).
type Both = ((ast::Module, usize), (ast::Module, usize));

fn both(text: &str) -> Option<Both> {
    with_tokens(text.to_string(), |cx, tokens| {
        let (fast, fast_errs) = parse_with::<EmptyErr>(cx, tokens, cx.text.len());
        let (rich, rich_errs) = parse_with::<PError<'_>>(cx, tokens, cx.text.len());
        ((fast, fast_errs.len()), (rich, rich_errs.len()))
    })
}

/// `f` of a [`Cx`] of `text` (file 0), on a thread with a roomy stack, as
/// the driver parses.
fn on_roomy_stack<R: Send + 'static>(
    text: String,
    f: impl for<'a> FnOnce(Cx<'a>) -> R + Send + 'static,
) -> R {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            f(Cx {
                file: FileId(0),
                text: &text,
            })
        })
        .unwrap()
        .join()
        .unwrap()
}

/// `f` of `text`'s balanced tokens, or `None` when the delimiter pass
/// rejects the nesting ([`on_roomy_stack`]).
fn with_tokens<R: Send + 'static>(
    text: String,
    f: impl for<'a> FnOnce(Cx<'a>, &'a [(Token<'a>, SimpleSpan)]) -> R + Send + 'static,
) -> Option<R> {
    on_roomy_stack(text, |cx| {
        let (tokens, _) = lexer::lex(cx.text);
        let balanced = delims::balance(tokens, cx.text);
        if balanced.too_deep {
            return None;
        }
        Some(f(cx, &balanced.tokens))
    })
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

/// Every error-free Toy file of the corpus, one after another: a sequence
/// of items, large enough to be parsed in pieces.
fn large_error_free_text() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["lang-tests", "examples", "stdlib"] {
        collect_toy(&root.join(dir), &mut files);
    }
    files.sort();
    let mut text = String::new();
    for path in &files {
        let file = std::fs::read_to_string(path).unwrap();
        let lexes = lexer::lex(&file).1.is_empty();
        if lexes && both(&file).is_some_and(|((_, fast), (_, rich))| fast == 0 && rich == 0) {
            text.push_str(&file);
            text.push('\n');
        }
    }
    text
}

/// The module and error count of `text` parsed whole and parsed with
/// `parse_tokens_on` on three threads, and whether pieces were used.
fn whole_and_pieces(text: String) -> ((ast::Module, usize), (ast::Module, usize), bool) {
    with_tokens(text, |cx, tokens| {
        let pool = crate::par::Pool::new(3, 0);
        let (whole, whole_errs) = super::parse_tokens(cx, tokens);
        let (on, on_errs) = super::parse_tokens_on(cx, tokens, &pool);
        let pieces = super::parse_pieces(cx, tokens, &pool).is_some();
        ((whole, whole_errs.len()), (on, on_errs.len()), pieces)
    })
    .expect("not nested too deeply")
}

#[test]
fn a_large_file_parsed_in_pieces_is_the_file_parsed_whole() {
    let text = large_error_free_text();
    let (whole, on, pieces) = whole_and_pieces(text.clone());
    assert!(
        pieces,
        "the corpus ({} bytes) was not cut into pieces",
        text.len()
    );
    assert_eq!(whole.1, 0);
    assert!(whole.0.items.len() > 1000, "{} items", whole.0.items.len());
    assert_eq!(on, whole);
    // One broken item at the end: no pieces, the whole file's errors.
    let (whole, on, pieces) = whole_and_pieces(text + "fn broken() { let = 3; }\n");
    assert!(!pieces);
    assert!(whole.1 > 0);
    assert_eq!(on, whole);
}

#[test]
fn pieces_start_at_items_outside_brackets() {
    let text = "fn a() { f(fn); } struct S { x: int } let g = 1; fn b() { } fn c() { }";
    let (tokens, _) = lexer::lex(text);
    let cuts = super::item_cuts(&tokens, tokens.len());
    let at: Vec<&str> = cuts[1..cuts.len() - 1]
        .iter()
        .map(|&i| &text[tokens[i].1.start..tokens[i + 1].1.end])
        .collect();
    assert_eq!(at, vec!["struct S", "fn b", "fn c"]);
    assert_eq!((cuts[0], cuts[cuts.len() - 1]), (0, tokens.len()));
}

#[test]
fn a_large_text_lexed_in_pieces_is_the_text_lexed_whole() {
    let text = large_error_free_text();
    assert!(text.len() >= lexer::MIN_PIECE_BYTES, "{} bytes", text.len());
    assert!(lexer::line_cuts(&text, 8).len() > 3);
    let pool = crate::par::Pool::new(3, 0);
    let whole = lexer::lex(&text);
    assert!(whole.1.is_empty());
    assert_eq!(lexer::lex_on(&text, &pool), whole);
}

#[test]
fn a_cut_inside_a_block_comment_lexes_the_text_whole() {
    // Everything after the first quarter is inside one block comment, so
    // every cut but the first falls inside it: the pieces after it lex
    // tokens the whole text does not have, the piece before the comment's
    // end has an unterminated comment, and the text is lexed whole.
    let body = large_error_free_text().replace("/*", "").replace("*/", "");
    let quarter = body.len() / 4;
    let at = quarter + body[quarter..].find("\nfn ").expect("a function") + 1;
    let text = format!("{}/*\n{}*/\nfn tail() {{}}\n", &body[..at], &body[at..]);
    let cuts = lexer::line_cuts(&text, 8);
    assert!(
        cuts.iter().any(|&c| c > at && c < text.len() - 20),
        "{cuts:?}"
    );
    let pool = crate::par::Pool::new(3, 0);
    let whole = lexer::lex(&text);
    assert!(whole.1.is_empty(), "{:?}", whole.1.first());
    assert_eq!(lexer::lex_on(&text, &pool), whole);
    assert_eq!(whole.0.last().map(|t| &t.0), Some(&Token::RBrace));
}

/// Whether `parse_on` takes its piecewise path
/// (`syntax::parse_lexed_pieces`) on `text`, then what it gives and what
/// its staged path (`syntax::parse_stages`) gives, on three threads
/// ([`on_roomy_stack`]: the staged parse of a broken file recurses).
type Parsed = (ast::Module, Vec<crate::diag::Diagnostic>);
fn piecewise_and_staged(text: String) -> (bool, Parsed, Parsed) {
    on_roomy_stack(text, |cx| {
        let pool = crate::par::Pool::new(3, 0);
        let pieces = crate::syntax::parse_lexed_pieces(cx, &pool).is_some();
        let on = crate::syntax::parse_on(cx.file, cx.text, &pool);
        (pieces, on, crate::syntax::parse_stages(cx, &pool))
    })
}

/// A large program without any error (the corpus of
/// [`large_error_free_text`] has files whose brackets `delims` repairs):
/// items of every kind, `i64::MIN`, deep nesting and multi-line strings.
fn large_program() -> String {
    let mut text = String::from("import math;\nstruct P { x: int, next: P }\n");
    for i in 0..3000 {
        text += &format!(
            "fn f{i}(x: int, p: P) -> int {{
    var s = -9223372036854775808 + x;
    for j in 0..x {{
        if j % 3 == {m} {{ s += ((j * {i}) & 7) << 1; }} else {{ s -= -(-1); }}
    }}
    let t = \"line one
 fn in a string {{ {{\";
    return s + len(t) + p.x;
}}
",
            m = i % 3
        );
        if i % 100 == 0 {
            text += &format!("let g{i} = [1, 2, 3];\nstruct S{i} {{ a: [int] }}\n");
        }
    }
    text
}

#[test]
fn a_large_file_lexed_and_parsed_piece_by_piece_is_the_file_parsed_in_stages() {
    let text = large_program();
    assert!(text.len() >= lexer::MIN_PIECE_BYTES, "{} bytes", text.len());
    let (pieces, on, staged) = piecewise_and_staged(text.clone());
    assert!(pieces);
    assert!(on.1.is_empty(), "{:?}", on.1.first());
    assert!(on.0.items.len() > 3000, "{} items", on.0.items.len());
    assert_eq!(on, staged);
    // Broken in the middle (an unclosed brace, an error inside one item)
    // or at the end: never piece by piece, and the errors of the stages.
    let mid = text.len() / 2;
    let at = mid + text[mid..].find("\nfn ").expect("a function") + 1;
    for broken in [
        format!("{}fn open() {{ if true {{\n{}", &text[..at], &text[at..]),
        format!("{}fn bad() {{ let = 3; }}\n{}", &text[..at], &text[at..]),
        text.clone() + "fn broken() { let = 3; }\n",
    ] {
        let (pieces, on, staged) = piecewise_and_staged(broken);
        assert!(!pieces);
        assert!(!on.1.is_empty());
        assert_eq!(on, staged);
    }
}
