//! The token pass between lexer and parser.
//!
//! It guarantees the parser a token stream whose brackets are balanced and
//! whose nesting is bounded:
//! - Delimiters are matched with a stack. When they do not balance, the
//!   stream is repaired: a stray closer is reported (``unexpected `}` ``)
//!   and dropped; an opener left open is reported (``unclosed `{` ``, at the
//!   opener; of several closed at the same point, the innermost) and closed
//!   by a synthetic zero-width closer, placed before the next item keyword
//!   (`fn`, `struct`, `import` cannot appear inside a body), before a closer
//!   that matches an outer opener (a `}` that starts a line matches the
//!   nearest `{` whose line is indented like it), or at the end.
//! - Nesting depth (open brackets plus a run of prefix `-`/`!`) is limited
//!   to [`MAX_NESTING`], so the recursive-descent parser's recursion depth
//!   is bounded whatever the input.
//! - `-` directly followed by the literal `9223372036854775808` in prefix
//!   position becomes one [`Token::MinInt`] token (i64::MIN).
//!
//! Synthetic tokens are the only zero-width tokens; parser errors found at
//! one are a cascade of an error already reported here.

use super::lexer::{I64_MIN_MAGNITUDE, LexError};
use super::token::Token;
use chumsky::span::SimpleSpan;

/// The deepest nesting of brackets and prefix operators accepted.
pub const MAX_NESTING: usize = 1000;

pub struct Balanced<'a> {
    pub tokens: Vec<(Token<'a>, SimpleSpan)>,
    pub errors: Vec<LexError>,
    /// Byte offsets where synthetic closers were inserted (sorted).
    pub synthetic: Vec<usize>,
    /// Set when the nesting limit was exceeded; the tokens must not be parsed.
    pub too_deep: bool,
}

fn closer_of(t: &Token<'_>) -> Token<'static> {
    match t {
        Token::LParen => Token::RParen,
        Token::LBracket => Token::RBracket,
        _ => Token::RBrace,
    }
}

fn error(span: SimpleSpan, message: String, label: &str) -> LexError {
    LexError { span, message, label: label.to_string() }
}

pub fn balance<'a>(tokens: Vec<(Token<'a>, SimpleSpan)>, text: &str) -> Balanced<'a> {
    let mut errors = Vec::new();
    let tokens = if is_balanced(&tokens) { tokens } else { repair(tokens, text, &mut errors) };
    let mut synthetic: Vec<usize> = tokens.iter().filter(|(_, s)| s.start == s.end).map(|(_, s)| s.start).collect();
    synthetic.dedup();
    let tokens = fold_min_int(tokens);
    let too_deep = match check_depth(&tokens) {
        Some(span) => {
            errors.push(error(
                span,
                format!("nesting too deep (the limit is {MAX_NESTING} levels)"),
                "nested too deeply",
            ));
            true
        }
        None => false,
    };
    Balanced { tokens, errors, synthetic, too_deep }
}

fn is_balanced(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
    let mut stack = Vec::new();
    for (t, _) in tokens {
        if t.is_opener() {
            stack.push(closer_of(t));
        } else if t.is_closer() && stack.pop().as_ref() != Some(t) {
            return false;
        }
    }
    stack.is_empty()
}

/// Line indentation, for matching a `}` that starts a line with the `{` on
/// a line indented the same. Each line's indentation is computed once.
struct Indents<'t> {
    text: &'t str,
    line_starts: Vec<usize>,
    cache: std::collections::HashMap<usize, usize>,
}

impl Indents<'_> {
    fn new(text: &str) -> Indents<'_> {
        let mut line_starts = vec![0];
        line_starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        Indents { text, line_starts, cache: Default::default() }
    }

    /// (indentation in bytes of the line holding `pos`, whether `pos` is
    /// the first non-blank byte of its line).
    fn at(&mut self, pos: usize) -> (usize, bool) {
        let line = self.line_starts.partition_point(|&s| s <= pos).saturating_sub(1);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let text = self.text;
        let indent = *self
            .cache
            .entry(line)
            .or_insert_with(|| text.as_bytes()[start..].iter().take_while(|b| matches!(b, b' ' | b'\t')).count());
        (indent, start + indent == pos)
    }
}

/// An open delimiter during repair.
struct Open {
    closer: Token<'static>,
    span: SimpleSpan,
    text: &'static str,
    /// Indentation of the opener's line.
    indent: usize,
}

fn repair<'a>(
    tokens: Vec<(Token<'a>, SimpleSpan)>,
    text: &str,
    errors: &mut Vec<LexError>,
) -> Vec<(Token<'a>, SimpleSpan)> {
    let text_len = text.len();
    let mut indents = Indents::new(text);
    let mut out = Vec::with_capacity(tokens.len() + 4);
    let mut stack: Vec<Open> = Vec::new();
    // Closes every opener above `keep` at byte `at`. Openers closed together
    // are one mistake: the innermost is reported.
    let close_all_above = |stack: &mut Vec<Open>,
                           keep: usize,
                           at: usize,
                           out: &mut Vec<(Token<'a>, SimpleSpan)>,
                           errors: &mut Vec<LexError>| {
        let mut reported = false;
        while stack.len() > keep {
            if let Some(open) = stack.pop() {
                if !reported {
                    errors.push(error(
                        open.span,
                        format!("unclosed `{}`", open.text),
                        "this delimiter is never closed",
                    ));
                    reported = true;
                }
                out.push((open.closer, SimpleSpan::from(at..at)));
            }
        }
    };
    for (t, s) in tokens {
        if t.is_opener() {
            let indent = indents.at(s.start).0;
            stack.push(Open { closer: closer_of(&t), span: s, text: t.fixed_text().unwrap_or("?"), indent });
            out.push((t, s));
        } else if t.is_closer() {
            match stack.iter().rposition(|o| o.closer == t) {
                Some(mut i) => {
                    // A `}` starting a line closes the `{` of a line indented
                    // like it: braces opened in between were left unclosed.
                    if t == Token::RBrace {
                        let (indent, first) = indents.at(s.start);
                        if first && stack[i].indent != indent {
                            if let Some(j) = stack[..i].iter().rposition(|o| o.closer == t && o.indent == indent) {
                                i = j;
                            }
                        }
                    }
                    close_all_above(&mut stack, i + 1, s.start, &mut out, errors);
                    stack.pop();
                    out.push((t, s));
                }
                None => {
                    let text = t.fixed_text().unwrap_or("?");
                    errors.push(error(s, format!("unexpected `{text}`"), "no delimiter to close here"));
                }
            }
        } else {
            if matches!(t, Token::Fn | Token::Struct | Token::Import) {
                close_all_above(&mut stack, 0, s.start, &mut out, errors);
            }
            out.push((t, s));
        }
    }
    close_all_above(&mut stack, 0, text_len, &mut out, errors);
    out
}

/// Whether a token can end an operand, so that a `-` after it is binary.
fn ends_operand(t: &Token<'_>) -> bool {
    use Token::*;
    matches!(t, Ident(_) | Int(_) | MinInt | Float(_) | Str(_) | True | False | Nil | RParen | RBracket)
}

fn fold_min_int(tokens: Vec<(Token<'_>, SimpleSpan)>) -> Vec<(Token<'_>, SimpleSpan)> {
    let needs = tokens.iter().any(|(t, _)| *t == Token::Int(I64_MIN_MAGNITUDE));
    if !needs {
        return tokens;
    }
    let mut out: Vec<(Token<'_>, SimpleSpan)> = Vec::with_capacity(tokens.len());
    let mut it = tokens.into_iter().peekable();
    while let Some((t, s)) = it.next() {
        let prefix = out.last().is_none_or(|(p, _)| !ends_operand(p));
        if t == Token::Minus && prefix {
            if let Some((Token::Int(I64_MIN_MAGNITUDE), lit_span)) = it.peek() {
                let lit_span = *lit_span;
                it.next();
                let postfix = matches!(it.peek(), Some((Token::LParen | Token::LBracket | Token::Dot, _)));
                if postfix {
                    out.push((t, s));
                    out.push((Token::Int(I64_MIN_MAGNITUDE), lit_span));
                } else {
                    out.push((Token::MinInt, SimpleSpan::from(s.start..lit_span.end)));
                }
                continue;
            }
        }
        out.push((t, s));
    }
    out
}

/// The span of the first token nested deeper than [`MAX_NESTING`], if any.
fn check_depth(tokens: &[(Token<'_>, SimpleSpan)]) -> Option<SimpleSpan> {
    let mut stack: Vec<usize> = Vec::new();
    let mut pending = 0usize;
    let mut prev: Option<&Token<'_>> = None;
    for (t, s) in tokens {
        let base = stack.last().copied().unwrap_or(0);
        if t.is_opener() {
            let depth = base + pending + 1;
            if depth > MAX_NESTING {
                return Some(*s);
            }
            stack.push(depth);
            pending = 0;
        } else if t.is_closer() {
            stack.pop();
            pending = 0;
        } else if matches!(t, Token::Minus | Token::Bang) && prev.is_none_or(|p| !ends_operand(p)) {
            pending += 1;
            if base + pending > MAX_NESTING {
                return Some(*s);
            }
        } else {
            pending = 0;
        }
        prev = Some(t);
    }
    None
}
