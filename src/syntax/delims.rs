//! The token pass between lexer and parser.
//!
//! It guarantees the parser a token stream whose brackets are balanced and
//! whose nesting is bounded:
//! - Delimiters are matched with a stack. When they do not balance, the
//!   stream is repaired: a stray closer is reported (``unexpected `}` ``)
//!   and dropped; an opener left open is reported (``unclosed `{` ``, at the
//!   opener; of several on one line, the innermost) and closed by a
//!   synthetic zero-width closer. Openers are found unclosed before the next
//!   item keyword (`fn`, `struct`, `import` cannot appear inside a body),
//!   before a closer that matches an outer opener (a `}` that starts a line
//!   matches the nearest `{` whose line is indented like it), or at the end.
//!   The closer goes there, except that a `(` or `[` followed on its line
//!   by `;` or `{` is closed just before that token (`f(x;`, `if (c {`),
//!   and one whose line ends with an operand is closed at the end of its
//!   line (`let a = f(1` then `print(a);`).
//! - A `}` that would close a `{` indented unlike it, when no open `{` is
//!   indented like it, first looks back for an `if`/`while`/`for`/`else`
//!   line indented like it that lacks its `{`: a synthetic `{` is inserted
//!   there (at the start of the next line) and reported.
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
use std::collections::HashMap;

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
    LexError {
        span,
        message,
        label: label.to_string(),
    }
}

pub fn balance<'a>(tokens: Vec<(Token<'a>, SimpleSpan)>, text: &str) -> Balanced<'a> {
    let mut errors = Vec::new();
    let tokens = if is_balanced(&tokens) {
        tokens
    } else {
        repair(tokens, text, &mut errors)
    };
    let mut synthetic: Vec<usize> = tokens
        .iter()
        .filter(|(_, s)| s.start == s.end)
        .map(|(_, s)| s.start)
        .collect();
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
    Balanced {
        tokens,
        errors,
        synthetic,
        too_deep,
    }
}

pub(crate) fn is_balanced(tokens: &[(Token<'_>, SimpleSpan)]) -> bool {
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

/// Line numbers and indentation, for the repair heuristics. Each line's
/// indentation is computed once.
struct Lines<'t> {
    text: &'t str,
    line_starts: Vec<usize>,
    indent_cache: HashMap<usize, usize>,
}

impl Lines<'_> {
    fn new(text: &str) -> Lines<'_> {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines {
            text,
            line_starts,
            indent_cache: HashMap::new(),
        }
    }

    fn line(&self, pos: usize) -> usize {
        self.line_starts
            .partition_point(|&s| s <= pos)
            .saturating_sub(1)
    }

    /// (indentation in bytes of the line holding `pos`, whether `pos` is
    /// the first non-blank byte of its line).
    fn indent(&mut self, pos: usize) -> (usize, bool) {
        let line = self.line(pos);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let text = self.text;
        let indent = *self.indent_cache.entry(line).or_insert_with(|| {
            text.as_bytes()[start..]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count()
        });
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
    /// Index of the opener in the output.
    at: usize,
}

/// Lines longer than this many tokens are not searched for a place to
/// close an unclosed `(` or `[` (keeps repair linear).
const MAX_LINE_SCAN: usize = 200;

/// How many tokens back a `}` looks for a block header missing its `{`
/// (keeps repair linear).
const MAX_BACK_SCAN: usize = 400;

struct Repair<'a, 't> {
    out: Vec<(Token<'a>, SimpleSpan)>,
    stack: Vec<Open>,
    /// Synthetic tokens (closers, and `{` where a block lacks it) to
    /// insert before `out[index]`, in insertion order.
    inserts: Vec<(usize, Token<'static>)>,
    lines: Lines<'t>,
    errors: Vec<LexError>,
}

impl<'a> Repair<'a, '_> {
    /// Where an unclosed `(` or `[` at `out[at]` is closed: before the
    /// first `;` or `{` after it on its line, or else, when its line ends
    /// with an operand (`f(1` then a new line), before the first token of
    /// the next line. Looks at most [`MAX_LINE_SCAN`] tokens ahead.
    fn stop_on_line(&self, at: usize) -> Option<usize> {
        let line = self.lines.line(self.out[at].1.start);
        let limit = self.out.len().min(at + 1 + MAX_LINE_SCAN);
        let next_line = (at + 1..limit)
            .find(|&j| self.lines.line(self.out[j].1.start) != line)
            .unwrap_or(limit);
        if let Some(j) =
            (at + 1..next_line).find(|&j| matches!(self.out[j].0, Token::Semi | Token::LBrace))
        {
            return Some(j);
        }
        (next_line < limit && next_line > at + 1 && ends_operand(&self.out[next_line - 1].0))
            .then_some(next_line)
    }

    /// Whether `out[from+1..to]` leaves exactly `open` brackets open.
    fn depth_is(&self, from: usize, to: usize, open: usize) -> bool {
        let mut depth = 0isize;
        for (t, _) in &self.out[from + 1..to] {
            if t.is_opener() {
                depth += 1;
            } else if t.is_closer() {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
        }
        depth == open as isize
    }

    /// Closes every opener above `keep`, reached at byte `at`. An unclosed
    /// `(` or `[` followed on its line by a `;` or `{` is closed before that
    /// token (the usual typo: `f(x;`, `if (c {`) when that nests properly;
    /// others are closed here.
    /// One error per line of unclosed openers (the innermost on it).
    fn close_above(&mut self, keep: usize, at: usize) {
        // Openers of this group closed so far: (index, where closed; None
        // for here).
        let mut inner: Vec<(usize, Option<usize>)> = Vec::new();
        let mut reported_line = None;
        while self.stack.len() > keep {
            let Some(open) = self.stack.pop() else { break };
            let line = self.lines.line(open.span.start);
            if reported_line != Some(line) {
                self.errors.push(error(
                    open.span,
                    format!("unclosed `{}`", open.text),
                    "this delimiter is never closed",
                ));
                reported_line = Some(line);
            }
            let mut placed = None;
            if open.closer != Token::RBrace
                && let Some(p) = self.stop_on_line(open.at)
            {
                // Openers inside the new group must close there too.
                // `inner` is in decreasing index order, so those before
                // `p` are at its end (at most MAX_LINE_SCAN of them).
                let enclosed: Vec<_> = inner.iter().rev().take_while(|(i, _)| *i < p).collect();
                if enclosed.iter().all(|(_, q)| *q == Some(p))
                    && self.depth_is(open.at, p, enclosed.len())
                {
                    placed = Some(p);
                }
            }
            match placed {
                Some(p) => self.inserts.push((p, open.closer)),
                None => self.out.push((open.closer, SimpleSpan::from(at..at))),
            }
            inner.push((open.at, placed));
        }
    }

    /// A `}` starting a line indented by `indent` would close the `{` of
    /// `stack[i]`, which is on a line indented differently, and no open `{`
    /// is indented like it. If a line after that `{`, indented like the
    /// `}`, starts an `if`, `while`, `for` or `} else` and has no `{`, the
    /// block's `{` is missing there (`if x > 0` then `return 1;` then `}`):
    /// a synthetic `{` is inserted at the start of the next line, reported,
    /// and closed by this `}`. Looks at most [`MAX_BACK_SCAN`] tokens back.
    fn open_missing_brace(&mut self, i: usize, indent: usize) -> bool {
        let opener = &self.stack[i];
        if self.stack.last().is_some_and(|o| o.closer != Token::RBrace) {
            return false;
        }
        let from = (opener.at + 1).max(self.out.len().saturating_sub(MAX_BACK_SCAN));
        let mut line_start = self.out.len();
        while line_start > from {
            // The first token of the line holding out[line_start - 1].
            let line = self.lines.line(self.out[line_start - 1].1.start);
            let mut k = line_start - 1;
            while k > from && self.lines.line(self.out[k - 1].1.start) == line {
                k -= 1;
            }
            let next = line_start;
            line_start = k;
            let (line_indent, first) = self.lines.indent(self.out[k].1.start);
            if !first || line_indent != indent {
                continue;
            }
            let header = matches!(
                (&self.out[k].0, self.out.get(k + 1).map(|t| &t.0)),
                (Token::If | Token::While | Token::For | Token::Else, _)
                    | (Token::RBrace, Some(Token::Else))
            );
            let has_brace = self.out[k + 1..next]
                .iter()
                .any(|(t, _)| *t == Token::LBrace);
            if !header || has_brace || next >= self.out.len() {
                return false;
            }
            let at = self.out[next].1;
            let found = self.lines.text.get(at.start..at.end).unwrap_or("");
            let message = if found.len() <= 24 && !found.contains('\n') {
                format!("expected `{{`, found `{found}`")
            } else {
                "expected `{`".to_string()
            };
            self.errors
                .push(error(at, message, "the block's `{` is missing before this"));
            self.inserts.push((next, Token::LBrace));
            return true;
        }
        false
    }

    /// The output with the inserted closers in place.
    fn finish(mut self) -> (Vec<(Token<'a>, SimpleSpan)>, Vec<LexError>) {
        if self.inserts.is_empty() {
            return (self.out, self.errors);
        }
        self.inserts.sort_by_key(|(i, _)| *i);
        let mut out = Vec::with_capacity(self.out.len() + self.inserts.len());
        let mut ins = self.inserts.into_iter().peekable();
        for (i, (t, s)) in self.out.into_iter().enumerate() {
            while let Some((_, closer)) = ins.next_if(|(j, _)| *j == i) {
                out.push((closer, SimpleSpan::from(s.start..s.start)));
            }
            out.push((t, s));
        }
        (out, self.errors)
    }
}

fn repair<'a>(
    tokens: Vec<(Token<'a>, SimpleSpan)>,
    text: &str,
    errors: &mut Vec<LexError>,
) -> Vec<(Token<'a>, SimpleSpan)> {
    let mut r = Repair {
        out: Vec::with_capacity(tokens.len() + 4),
        stack: Vec::new(),
        inserts: Vec::new(),
        lines: Lines::new(text),
        errors: Vec::new(),
    };
    for (t, s) in tokens {
        if t.is_opener() {
            let indent = r.lines.indent(s.start).0;
            let at = r.out.len();
            r.stack.push(Open {
                closer: closer_of(&t),
                span: s,
                text: t.fixed_text().unwrap_or("?"),
                indent,
                at,
            });
            r.out.push((t, s));
        } else if t.is_closer() {
            match r.stack.iter().rposition(|o| o.closer == t) {
                Some(mut i) => {
                    // A `}` starting a line closes the `{` of a line indented
                    // like it: braces opened in between were left unclosed.
                    if t == Token::RBrace {
                        let (indent, first) = r.lines.indent(s.start);
                        if first && r.stack[i].indent != indent {
                            match r.stack[..i]
                                .iter()
                                .rposition(|o| o.closer == t && o.indent == indent)
                            {
                                Some(j) => i = j,
                                None if r.open_missing_brace(i, indent) => {
                                    r.out.push((t, s));
                                    continue;
                                }
                                None => {}
                            }
                        }
                    }
                    r.close_above(i + 1, s.start);
                    r.stack.pop();
                    r.out.push((t, s));
                }
                None => {
                    let text = t.fixed_text().unwrap_or("?");
                    r.errors.push(error(
                        s,
                        format!("unexpected `{text}`"),
                        "no delimiter to close here",
                    ));
                }
            }
        } else {
            if matches!(t, Token::Fn | Token::Struct | Token::Import) {
                r.close_above(0, s.start);
            }
            r.out.push((t, s));
        }
    }
    r.close_above(0, text.len());
    let (out, errs) = r.finish();
    errors.extend(errs);
    out
}

/// Whether a token can end an operand, so that a `-` after it is binary.
fn ends_operand(t: &Token<'_>) -> bool {
    use Token::*;
    matches!(
        t,
        Ident(_) | Int(_) | MinInt | Float(_) | Str(_) | True | False | Nil | RParen | RBracket
    )
}

pub(crate) fn fold_min_int(tokens: Vec<(Token<'_>, SimpleSpan)>) -> Vec<(Token<'_>, SimpleSpan)> {
    let needs = tokens
        .iter()
        .any(|(t, _)| *t == Token::Int(I64_MIN_MAGNITUDE));
    if !needs {
        return tokens;
    }
    let mut out: Vec<(Token<'_>, SimpleSpan)> = Vec::with_capacity(tokens.len());
    let mut it = tokens.into_iter().peekable();
    while let Some((t, s)) = it.next() {
        let prefix = out.last().is_none_or(|(p, _)| !ends_operand(p));
        if t == Token::Minus
            && prefix
            && let Some((Token::Int(I64_MIN_MAGNITUDE), lit_span)) = it.peek()
        {
            let lit_span = *lit_span;
            it.next();
            let postfix = matches!(
                it.peek(),
                Some((Token::LParen | Token::LBracket | Token::Dot, _))
            );
            if postfix {
                out.push((t, s));
                out.push((Token::Int(I64_MIN_MAGNITUDE), lit_span));
            } else {
                out.push((Token::MinInt, SimpleSpan::from(s.start..lit_span.end)));
            }
            continue;
        }
        out.push((t, s));
    }
    out
}

/// The span of the first token nested deeper than [`MAX_NESTING`], if any.
pub(crate) fn check_depth(tokens: &[(Token<'_>, SimpleSpan)]) -> Option<SimpleSpan> {
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
