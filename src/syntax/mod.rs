//! Parsing: source text → [`ast::Module`] plus every syntax error found.
//!
//! Pipeline: [`lexer`] (text → tokens, lexical errors; a large text in
//! pieces on the pool's threads, `lexer::lex_on`) → [`delims`]
//! (balances brackets, bounds nesting, folds `-9223372036854775808`) →
//! `parser` (chumsky combinators over the token slice, with recovery; a
//! file is parsed with `EmptyErr` first, a large one in pieces on the
//! pool's threads, and again whole with `Rich` only when it has an error,
//! see `parser`'s docs) →
//! `errors` (our message style), then the errors are sorted by position,
//! cascades are dropped and the count is capped. A large file without any
//! error goes through all of it piece by piece on the pool's threads, its
//! tokens never joined into one stream (`parse_lexed_pieces`); any error
//! sends it through the stages above, so errors never depend on pieces.
//!
//! Decisions where LANGUAGE.md is silent:
//! - Number literals: `_` may appear anywhere after the first digit; letters
//!   glued to a number make it invalid (`12ab`, `1e`); `1.x` is a field
//!   access (a digit must follow the `.` of a float); a float literal that
//!   overflows to infinity (`1e999`) is invalid; hex and binary literals must
//!   fit in i64 like decimal ones (`0xffffffffffffffff` is out of range).
//! - `9223372036854775808` is accepted only directly after a prefix `-`
//!   (not followed by a postfix operator); it is then i64::MIN.
//! - Strings may span lines; `\u{...}` takes 1 to 6 hex digits naming a
//!   Unicode scalar value.
//! - Trailing commas are allowed in every comma list; an empty statement
//!   `;` is allowed and dropped.
//! - Nesting deeper than [`delims::MAX_NESTING`] brackets and prefix
//!   operators is an error; at most [`MAX_ERRORS`] errors are reported.
pub mod ast;
pub mod delims;
mod errors;
pub mod lexer;
mod parser;
pub mod sexpr;
pub mod token;

use crate::diag::Diagnostic;
use crate::span::FileId;

/// At most this many syntax errors are reported per file.
pub const MAX_ERRORS: usize = 100;

/// Parses one file. Always returns a module (with `Error` nodes where the
/// text did not parse) together with every syntax error found.
pub fn parse(file: FileId, text: &str) -> (ast::Module, Vec<Diagnostic>) {
    parse_on(file, text, &crate::par::Pool::default())
}

/// [`parse`], a large file lexed and its items parsed on `pool`'s threads (the
/// same module and errors: `parser`'s docs and `lexer::lex_on`'s).
pub fn parse_on(
    file: FileId,
    text: &str,
    pool: &crate::par::Pool,
) -> (ast::Module, Vec<Diagnostic>) {
    let cx = parser::Cx { file, text };
    if let Some(module) = parse_lexed_pieces(cx, pool) {
        let early = check_import_order(&module);
        #[cfg(debug_assertions)]
        {
            let whole = parse_stages(cx, pool);
            debug_assert!(
                whole.0 == module && whole.1 == finish(early.clone()),
                "a file parsed piece by piece differs from its parse whole"
            );
        }
        return (module, finish(early));
    }
    parse_stages(cx, pool)
}

/// A large file with no error, from lexing to parsing piece by piece on
/// `pool`'s threads without ever joining its tokens: each piece of
/// [`lexer::piece_cuts`] (cut where a line starts an item) must lex
/// without error, have balanced brackets, nest within the limit and parse
/// without any error; then its items, in order, are the module, as
/// [`parse_stages`] would build it (brackets balanced piece by piece are
/// balanced in the whole, so `delims` repairs nothing; a piece starts at
/// `fn` or `struct`, so the `-9223372036854775808` fold and the nesting
/// count see what they see in the whole stream). A piece's tokens are
/// freed as soon as it is parsed, so a worker's next piece reuses their
/// memory. `None`, and the caller parses in stages, for a small file or
/// when any piece falls short.
fn parse_lexed_pieces(cx: parser::Cx<'_>, pool: &crate::par::Pool) -> Option<ast::Module> {
    let cuts = lexer::piece_cuts(cx.text)?;
    let work = cx.text.len() / crate::par::SOURCE_BYTES_PER_STATEMENT;
    let parsed = pool.map(cuts.len() - 1, work, |k| {
        let piece = lexer::lex_piece(cx.text, cuts[k]..cuts[k + 1])?;
        let synthetic = piece.iter().any(|(_, s)| s.start == s.end);
        if synthetic || !delims::is_balanced(&piece) {
            return None;
        }
        let piece = delims::fold_min_int(piece);
        if delims::check_depth(&piece).is_some() {
            return None;
        }
        // The piece ends where the next one's first token starts: at its
        // cut, a line that starts with `fn` or `struct`.
        parser::parse_piece(cx, &piece, cuts[k + 1])
    });
    parser::join_pieces(parsed)
}

/// [`parse_on`]'s general path: the tokens of the whole file, balanced,
/// then parsed (in pieces when large and error-free, `parser`'s docs).
fn parse_stages(cx: parser::Cx<'_>, pool: &crate::par::Pool) -> (ast::Module, Vec<Diagnostic>) {
    let text = cx.text;
    let (tokens, lex_errors) = lexer::lex_on(text, pool);
    let balanced = delims::balance(tokens, text);
    // Everything after an unterminated string or comment is inside it, so
    // later errors and unclosed delimiters are its cascade.
    let cut = lex_errors
        .iter()
        .filter(|e| e.message.starts_with("unterminated"))
        .map(|e| e.span.start)
        .min()
        .unwrap_or(usize::MAX);
    let delim_errors = balanced
        .errors
        .iter()
        .filter(|e| cut == usize::MAX || !e.message.starts_with("unclosed"));
    let mut early: Vec<Diagnostic> = lex_errors
        .iter()
        .chain(delim_errors)
        .map(|e| errors::lex_diagnostic(cx, e))
        .collect();
    let module = if balanced.too_deep {
        ast::Module::default()
    } else {
        let (module, parse_errors) = parser::parse_tokens_on(cx, &balanced.tokens, pool);
        for e in &parse_errors {
            let s = e.span();
            // Zero-width tokens are synthetic closers: the delimiter pass
            // already reported the problem there, and an error right after
            // one is its cascade.
            let at_synthetic = (s.start == s.end && e.found().is_some())
                || balanced.synthetic.binary_search(&s.start).is_ok();
            if !at_synthetic && s.start < cut {
                early.push(errors::parse_diagnostic(cx, e, &balanced.tokens));
            }
        }
        module
    };
    early.extend(check_import_order(&module));
    (module, finish(early))
}

/// `import` must come before every other item.
fn check_import_order(module: &ast::Module) -> Vec<Diagnostic> {
    let mut seen_other = false;
    let mut out = Vec::new();
    for item in &module.items {
        match item {
            ast::Item::Import(i) if seen_other => {
                out.push(
                    Diagnostic::error(i.span, "imports must come before other items")
                        .with_label("move this import to the top of the file"),
                );
            }
            ast::Item::Import(_) => {}
            _ => seen_other = true,
        }
    }
    out
}

/// Sorts by position, keeps one error per position (the first reported:
/// lexical before delimiter before parse errors), and caps the count.
fn finish(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.span.start);
    diags.dedup_by(|later, earlier| later.span.start == earlier.span.start);
    if diags.len() > MAX_ERRORS {
        let rest = diags.len() - MAX_ERRORS;
        diags.truncate(MAX_ERRORS);
        if let Some(last) = diags.last_mut() {
            last.notes.push(format!(
                "{rest} more syntax errors in this file are not shown"
            ));
        }
    }
    diags
}
