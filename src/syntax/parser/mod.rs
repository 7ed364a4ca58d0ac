//! The parser: balanced tokens → [`ast::Module`], built from chumsky
//! combinators over the token slice (spans mapped out with
//! `split_token_span`).
//!
//! Recursion is bounded: binary operator chains, postfix chains, prefix
//! operator runs and `else if` chains are parsed with `repeated()` and
//! folded, so only brackets and prefix operators nest the parser, and the
//! delimiter pass bounds those.
//!
//! Recovery (every syntax error is reported, later code is still parsed):
//! - a statement or item that fails is first re-parsed without its `;` when
//!   the next token begins a new statement or a new line (missing `;`:
//!   one error, and the statement is kept);
//! - otherwise it is skipped, bracket groups as units, through the next `;`
//!   or up to the next statement keyword / closing brace (one error);
//! - a bracketed group whose contents fail (call arguments, parentheses,
//!   array and struct literals, parameter lists) becomes an error node.
//!
//! Two parses, one grammar: every parser is generic over its error type
//! ([`ToyError`]). A file is parsed first with [`EmptyErr`], which keeps
//! nothing about the alternatives that failed on the way (with [`Rich`],
//! merging those expectations costs more than the rest of the parse). Only
//! if that parse reports any error at all, recovered ones included, is the
//! file parsed again with [`Rich`], and that parse's module and errors are
//! the result. Both parses run the same combinators, recovery included,
//! and no combinator looks at an error's contents, so they accept the same
//! files and build the same modules.

mod exprs;
mod items;
mod stmts;
#[cfg(test)]
mod tests;

use super::ast::Ident;
use super::token::Token;
use crate::span::{FileId, Span};
use chumsky::DefaultExpected;
use chumsky::error::EmptyErr;
use chumsky::input::{InputRef, MappedInput};
use chumsky::label::LabelError;
use chumsky::prelude::*;

pub(crate) type PInput<'a> = MappedInput<'a, Token<'a>, SimpleSpan, &'a [(Token<'a>, SimpleSpan)]>;
/// The error of the diagnostic parse.
pub(crate) type PError<'a> = Rich<'a, Token<'a>, SimpleSpan>;
pub(crate) type PExtra<'a, E> = extra::Err<E>;
pub(crate) type P<'a, O, E> = Boxed<'a, 'a, PInput<'a>, O, PExtra<'a, E>>;

/// The errors the grammar can make: [`PError`] for the diagnostics, and
/// [`EmptyErr`] for the first parse, which only finds out whether the file
/// has any error (module docs).
pub(crate) trait ToyError<'a>:
    chumsky::error::Error<'a, PInput<'a>> + LabelError<'a, PInput<'a>, &'static str> + Clone + 'a
{
    /// An error with a message of ours at `span`.
    fn custom(span: SimpleSpan, msg: &'static str) -> Self;

    /// Whether errors carry what the diagnostics need (found token, span).
    const DETAILED: bool;
}

impl<'a> ToyError<'a> for PError<'a> {
    fn custom(span: SimpleSpan, msg: &'static str) -> Self {
        Rich::custom(span, msg)
    }
    const DETAILED: bool = true;
}

impl<'a> ToyError<'a> for EmptyErr {
    fn custom(_: SimpleSpan, _: &'static str) -> Self {
        EmptyErr::default()
    }
    const DETAILED: bool = false;
}

/// What every parser needs to know about the file.
#[derive(Clone, Copy)]
pub(crate) struct Cx<'a> {
    pub file: FileId,
    pub text: &'a str,
}

impl Cx<'_> {
    pub fn span(&self, s: SimpleSpan) -> Span {
        Span::new(self.file, s.start, s.end)
    }
}

/// Parses a balanced token stream. Always returns a module; the errors
/// are those of the [`PError`] parse, which runs only when the fast
/// [`EmptyErr`] parse finds any (module docs).
pub(crate) fn parse_tokens<'a>(
    cx: Cx<'a>,
    tokens: &'a [(Token<'a>, SimpleSpan)],
) -> (super::ast::Module, Vec<PError<'a>>) {
    let end = cx.text.len();
    let (module, errors) = parse_with::<EmptyErr>(cx, tokens, end);
    if errors.is_empty() {
        return (module, Vec::new());
    }
    parse_with::<PError<'a>>(cx, tokens, end)
}

/// [`parse_tokens`], on `pool`'s threads when the file is large: the fast
/// parse runs over pieces of the file cut at item boundaries
/// ([`item_cuts`]); if every piece parses without any error, their items
/// in order are the module, as the whole file's parse would have built it
/// (the grammar's module is a sequence of items, each parsed on its own
/// tokens). Otherwise the whole file is parsed as [`parse_tokens`] does,
/// so errors and their recovery never depend on the pieces.
pub(crate) fn parse_tokens_on<'a>(
    cx: Cx<'a>,
    tokens: &'a [(Token<'a>, SimpleSpan)],
    pool: &crate::par::Pool,
) -> (super::ast::Module, Vec<PError<'a>>) {
    if let Some(module) = parse_pieces(cx, tokens, pool) {
        return (module, Vec::new());
    }
    parse_tokens(cx, tokens)
}

/// The module of one piece of a file, `tokens` being whole items and `end`
/// where the next piece starts (or the file ends), when it parses without
/// any error ([`EmptyErr`]); `None` otherwise.
pub(crate) fn parse_piece<'a>(
    cx: Cx<'a>,
    tokens: &'a [(Token<'a>, SimpleSpan)],
    end: usize,
) -> Option<super::ast::Module> {
    let (module, errors) = parse_with::<EmptyErr>(cx, tokens, end);
    errors.is_empty().then_some(module)
}

/// Files with fewer tokens are parsed whole.
const MIN_PIECE_TOKENS: usize = 50_000;

/// How many pieces a large file is cut into (more than threads, so that
/// uneven pieces still keep every thread busy).
const PIECES: usize = 8;

/// The module of a large, error-free file, parsed piece by piece on
/// `pool`'s threads; `None` for a small file or when a piece has an error.
fn parse_pieces<'a>(
    cx: Cx<'a>,
    tokens: &'a [(Token<'a>, SimpleSpan)],
    pool: &crate::par::Pool,
) -> Option<super::ast::Module> {
    if tokens.len() < MIN_PIECE_TOKENS {
        return None;
    }
    let cuts = item_cuts(tokens, PIECES);
    if cuts.len() < 3 {
        return None;
    }
    // About eight tokens a statement: the pool's work estimate.
    let parsed = pool.map(cuts.len() - 1, tokens.len() / 8, |k| {
        let piece = &tokens[cuts[k]..cuts[k + 1]];
        let eoi = tokens.get(cuts[k + 1]).map_or(cx.text.len(), |t| t.1.start);
        parse_piece(cx, piece, eoi)
    });
    join_pieces(parsed)
}

/// The module of a file whose pieces, in order, parsed as `parsed` (by
/// [`parse_piece`]): their items, or `None` when any piece did not parse.
pub(crate) fn join_pieces(parsed: Vec<Option<super::ast::Module>>) -> Option<super::ast::Module> {
    let mut items = Vec::new();
    for module in parsed {
        items.extend(module?.items);
    }
    Some(super::ast::Module { items })
}

/// `0`, then up to `pieces - 1` token positions that start an item for
/// certain, near even shares of `tokens`, then `tokens.len()`. A cut is a
/// `fn NAME` or `struct NAME` outside every bracket, right after a `}` or
/// `;` also outside every bracket: the end of the item before it, since
/// no item or expression goes on with `fn` or `struct` after those.
fn item_cuts(tokens: &[(Token<'_>, SimpleSpan)], pieces: usize) -> Vec<usize> {
    let share = tokens.len() / pieces;
    let mut cuts = vec![0];
    let mut depth = 0usize;
    for (i, (t, _)) in tokens.iter().enumerate() {
        match t {
            Token::LParen | Token::LBrace | Token::LBracket => depth += 1,
            Token::RParen | Token::RBrace | Token::RBracket => {
                depth = depth.saturating_sub(1);
            }
            Token::Fn | Token::Struct
                if depth == 0
                    && i >= cuts[cuts.len() - 1] + share
                    && i > 0
                    && matches!(tokens[i - 1].0, Token::RBrace | Token::Semi)
                    && matches!(tokens.get(i + 1), Some((Token::Ident(_), _))) =>
            {
                cuts.push(i);
            }
            _ => {}
        }
    }
    cuts.push(tokens.len());
    cuts
}

/// One parse of a balanced token stream with the error type `E`.
pub(crate) fn parse_with<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    tokens: &'a [(Token<'a>, SimpleSpan)],
    end: usize,
) -> (super::ast::Module, Vec<E>) {
    let eoi = SimpleSpan::from(end..end);
    let parser = items::module::<E>(cx);
    let (out, errors) = parser
        .parse(tokens.split_token_span(eoi))
        .into_output_errors();
    (out.unwrap_or_default(), errors)
}

/// The error of a `custom` parser that does not apply here: it expects
/// nothing in particular, so merging it into the furthest error adds nothing
/// (a custom-message error would replace the real expectations).
pub(crate) fn no_match<'a, E: ToyError<'a>>(
    inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>,
) -> E {
    if !E::DETAILED {
        let here = inp.cursor();
        let span = inp.span_since(&here);
        return <E as LabelError<'a, PInput<'a>, DefaultExpected<'a, Token<'a>>>>::expected_found(
            std::iter::empty(),
            None,
            span,
        );
    }
    let save = inp.save();
    let before = inp.cursor();
    let found = inp.next_maybe();
    let span = inp.span_since(&before);
    inp.rewind(save);
    <E as LabelError<'a, PInput<'a>, DefaultExpected<'a, Token<'a>>>>::expected_found(
        std::iter::empty(),
        found,
        span,
    )
}

pub(crate) fn ident<'a, E: ToyError<'a>>(cx: Cx<'a>) -> P<'a, Ident, E> {
    select_ref! { Token::Ident(name) = e => Ident { name: name.to_string(), span: cx.span(e.span()) } }
        .labelled("identifier")
        .boxed()
}

/// Whether a line break separates the token starting at `pos` from the
/// previous token (only whitespace may stand between them and the break).
fn newline_before(text: &str, pos: usize) -> bool {
    let before = text.get(..pos).unwrap_or("");
    for c in before.chars().rev() {
        match c {
            '\n' => return true,
            ' ' | '\t' | '\r' => continue,
            _ => return false,
        }
    }
    false
}

/// Succeeds without consuming when a statement whose `;` is missing may
/// end here: at a statement keyword, a `}`, the end, or a line break.
pub(crate) fn semi_may_be_missing<'a, E: ToyError<'a>>(cx: Cx<'a>) -> P<'a, (), E> {
    custom(
        move |inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
            let save = inp.save();
            let before = inp.cursor();
            let tok = inp.next_maybe();
            let span = inp.span_since(&before);
            inp.rewind(save);
            let ok = match tok.as_deref() {
                None => true,
                Some(t) => {
                    t.starts_statement()
                        || *t == Token::RBrace
                        || newline_before(cx.text, span.start)
                }
            };
            if ok { Ok(()) } else { Err(no_match(inp)) }
        },
    )
    .boxed()
}

/// Skips at least one token for recovery: bracket groups count as one
/// unit; stops after a `;`, or before a closing bracket or (after the
/// first unit) a token for which `stop` holds. Fails only at a closing
/// bracket or the end.
pub(crate) fn skip_junk<'a, E: ToyError<'a>>(stop: fn(&Token<'_>) -> bool) -> P<'a, (), E> {
    custom(
        move |inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
            let mut depth = 0usize;
            let mut consumed = false;
            loop {
                let save = inp.save();
                let Some(tok) = inp.next_maybe() else { break };
                let t: &Token<'_> = &tok;
                if depth == 0 {
                    if t.is_closer() || (consumed && stop(t)) {
                        inp.rewind(save);
                        break;
                    }
                    if *t == Token::Semi {
                        consumed = true;
                        break;
                    }
                }
                if t.is_opener() {
                    depth += 1;
                } else if t.is_closer() {
                    depth -= 1;
                }
                consumed = true;
            }
            if consumed { Ok(()) } else { Err(no_match(inp)) }
        },
    )
    .boxed()
}

/// The `,` between `name: value` entries (fields, parameters, struct
/// literal fields). A missing `,` before another `name :` is reported and
/// the list goes on.
pub(crate) fn entry_comma<'a, E: ToyError<'a>>() -> P<'a, (), E> {
    let next_is_entry = custom(|inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
        let save = inp.save();
        let first = inp
            .next_maybe()
            .is_some_and(|t| matches!(*t, Token::Ident(_)));
        let second = inp.next_maybe().is_some_and(|t| *t == Token::Colon);
        inp.rewind(save);
        if first && second {
            Ok(())
        } else {
            Err(no_match(inp))
        }
    });
    just(Token::Comma)
        .ignored()
        .recover_with(via_parser(next_is_entry))
        .boxed()
}

/// The `:` between a name and its type in fields and parameters. A missing
/// `:` before something that starts a type is reported and parsing goes on.
pub(crate) fn type_colon<'a, E: ToyError<'a>>() -> P<'a, (), E> {
    let type_follows = custom(|inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
        let save = inp.save();
        let ok = inp
            .next_maybe()
            .is_some_and(|t| matches!(*t, Token::Ident(_) | Token::LBracket));
        inp.rewind(save);
        if ok { Ok(()) } else { Err(no_match(inp)) }
    });
    just(Token::Colon)
        .ignored()
        .recover_with(via_parser(type_follows))
        .boxed()
}

/// Skips tokens (bracket groups as units) up to a `,` or closing bracket
/// at the current level; may skip nothing.
pub(crate) fn skip_to_comma<'a, E: ToyError<'a>>() -> P<'a, (), E> {
    custom(|inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
        let mut depth = 0usize;
        loop {
            let save = inp.save();
            let Some(t) = inp.next_maybe() else { break };
            if depth == 0 && (*t == Token::Comma || t.is_closer()) {
                inp.rewind(save);
                break;
            }
            if t.is_opener() {
                depth += 1;
            } else if t.is_closer() {
                depth -= 1;
            }
        }
        Ok(())
    })
    .boxed()
}

/// `p`, a construct that starts with the bracket `open` and recovers by
/// skipping the group ([`skip_group`]), tried only where the next token is
/// `open`. Elsewhere this fails as `just(open)`, the first parser of `p`,
/// would (the same expected token at the same place), without running a
/// recovery that cannot apply: every operand tries a call and an index.
pub(crate) fn opened_by<'a, O, E: ToyError<'a>>(
    open: Token<'static>,
    p: impl Parser<'a, PInput<'a>, O, PExtra<'a, E>> + Clone,
) -> impl Parser<'a, PInput<'a>, O, PExtra<'a, E>> + Clone {
    let open: Token<'a> = open;
    just(open).rewind().ignore_then(p)
}

/// A bracket group `open ... close` skipped as a unit (the stream is
/// balanced), for recovering the contents of a bracketed construct.
pub(crate) fn skip_group<'a, E: ToyError<'a>>(open: Token<'static>) -> P<'a, SimpleSpan, E> {
    custom(
        move |inp: &mut InputRef<'a, '_, PInput<'a>, PExtra<'a, E>>| {
            let start = inp.cursor();
            let save = inp.save();
            match inp.next_maybe() {
                Some(t) if *t == open => {}
                _ => {
                    inp.rewind(save);
                    return Err(no_match(inp));
                }
            }
            let mut depth = 1usize;
            while depth > 0 {
                let Some(t) = inp.next_maybe() else { break };
                if t.is_opener() {
                    depth += 1;
                } else if t.is_closer() {
                    depth -= 1;
                }
            }
            Ok(inp.span_since(&start))
        },
    )
    .boxed()
}
