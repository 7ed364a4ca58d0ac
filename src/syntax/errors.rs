//! Turning lexer and parser errors into [`Diagnostic`]s in our message
//! style (docs/diagnostics.md, "Syntax"): ``expected `;`, found `}` ``.

use super::lexer::LexError;
use super::parser::{Cx, PError};
use super::token::Token;
use crate::diag::Diagnostic;
use chumsky::error::{RichPattern, RichReason};
use chumsky::span::SimpleSpan;

/// The token stream the parser saw (balanced; synthetic closers are the
/// zero-width tokens).
pub(crate) type Tokens<'a> = [(Token<'a>, SimpleSpan)];

/// At most this many expected alternatives are listed.
const MAX_EXPECTED: usize = 6;

pub(crate) fn lex_diagnostic(cx: Cx<'_>, e: &LexError) -> Diagnostic {
    Diagnostic::error(cx.span(e.span), e.message.clone()).with_label(e.label.clone())
}

/// Tokens that can only continue an expression already parsed (postfix
/// operators, assignment). They are dropped from "expected" lists that
/// also name something else, so a missing `;` reads ``expected `;` ``.
fn continues_expression(t: &Token<'_>) -> bool {
    use Token::*;
    matches!(
        t,
        Dot | LParen
            | LBracket
            | Assign
            | PlusEq
            | MinusEq
            | StarEq
            | SlashEq
            | PercentEq
            | AmpEq
            | PipeEq
            | CaretEq
            | ShlEq
            | ShrEq
    )
}

/// How the token found at `span` is shown: its source text in backticks
/// when short, else its kind.
fn describe_found(cx: Cx<'_>, found: Option<&Token<'_>>, span: std::ops::Range<usize>) -> String {
    let Some(tok) = found else {
        return "end of file".into();
    };
    let text = cx.text.get(span).unwrap_or("");
    if !text.is_empty() && text.chars().count() <= 24 && !text.contains('\n') {
        return format!("`{text}`");
    }
    match tok {
        Token::Str(_) => "string literal".into(),
        Token::Ident(_) => "identifier".into(),
        t => format!("`{t}`"),
    }
}

/// Joins `a, b or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// The message of the parser's error for a struct literal in a condition.
pub(crate) const STRUCT_LIT_IN_CONDITION: &str = "struct literals are not allowed here";

pub(crate) fn parse_diagnostic(cx: Cx<'_>, e: &PError<'_>, stream: &Tokens<'_>) -> Diagnostic {
    let span = cx.span(*e.span());
    if let Some(d) = slip_diagnostic(cx, e, stream) {
        return d;
    }
    match e.reason() {
        RichReason::Custom(msg) if msg == STRUCT_LIT_IN_CONDITION => {
            let text = cx.text.get(e.span().start..e.span().end).unwrap_or("");
            Diagnostic::error(span, msg.clone())
                .with_label("a struct literal here would be read as the start of the block")
                .with_note(format!(
                    "help: surround the struct literal with parentheses: `({text})`"
                ))
        }
        RichReason::Custom(msg) => Diagnostic::error(span, msg.clone()),
        RichReason::ExpectedFound { expected, found } => {
            let found_text = describe_found(cx, found.as_deref(), e.span().start..e.span().end);
            let has_other = expected.iter().any(|p| match p {
                RichPattern::Token(t) => !continues_expression(t),
                RichPattern::Label(_) | RichPattern::EndOfInput | RichPattern::Identifier(_) => {
                    true
                }
                _ => false,
            });
            let mut labels = Vec::new();
            let mut tokens = Vec::new();
            for p in expected {
                let s = match p {
                    RichPattern::Token(t) if has_other && continues_expression(t) => continue,
                    RichPattern::Token(t) => t.describe_expected(),
                    RichPattern::Label(l) => l.to_string(),
                    RichPattern::Identifier(s) => format!("`{s}`"),
                    RichPattern::EndOfInput => "end of file".into(),
                    _ => continue,
                };
                let list = if matches!(p, RichPattern::Label(_)) {
                    &mut labels
                } else {
                    &mut tokens
                };
                if !list.contains(&s) {
                    list.push(s);
                }
            }
            labels.append(&mut tokens);
            let mut list = labels;
            if list.is_empty() {
                let msg = format!("unexpected {found_text}");
                return Diagnostic::error(span, msg.clone()).with_label("unexpected token");
            }
            if list.len() > MAX_EXPECTED {
                list.truncate(MAX_EXPECTED - 1);
                list.push("something else".into());
            }
            let expected = join_or(&list);
            let message = format!("expected {expected}, found {found_text}");
            if expected == "`;`"
                && let Some(d) = missing_semi(cx, *e.span(), &message, stream)
            {
                return d;
            }
            Diagnostic::error(span, message).with_label(format!("expected {expected}"))
        }
    }
}

/// The index of the first token starting at or after `pos`.
fn token_at(tokens: &Tokens<'_>, pos: usize) -> usize {
    tokens.partition_point(|(_, s)| s.start < pos)
}

/// The last real (not synthetic) token before index `i`.
fn real_before(tokens: &Tokens<'_>, i: usize) -> Option<usize> {
    (0..i).rev().find(|&j| tokens[j].1.start < tokens[j].1.end)
}

/// A missing `;` at the end of a line is reported where it is missing,
/// like rustc: just after the previous token, with "add `;` here" (and the
/// token found, on a later line, as a secondary label). `None` when the
/// token found is on the same line as the previous one: then the error
/// stays at it.
fn missing_semi(
    cx: Cx<'_>,
    at: SimpleSpan,
    message: &str,
    tokens: &Tokens<'_>,
) -> Option<Diagnostic> {
    let found = token_at(tokens, at.start);
    let prev = real_before(tokens, found)?;
    let end = tokens[prev].1.end;
    let between = cx.text.get(end..at.start)?;
    if at.start < cx.text.len() && !between.contains('\n') {
        return None;
    }
    let d =
        Diagnostic::error(cx.span(SimpleSpan::from(end..end)), message).with_label("add `;` here");
    Some(if at.start < at.end {
        d.with_secondary(cx.span(at), "unexpected token")
    } else {
        d
    })
}

/// Whether a token can end an operand (so `++` after it is postfix).
fn ends_operand(t: &Token<'_>) -> bool {
    matches!(t, Token::Ident(_) | Token::RParen | Token::RBracket)
}

/// The index of the first token of the postfix chain (`a.b[i].c`) that
/// ends with token `j`.
fn operand_start(tokens: &Tokens<'_>, mut j: usize) -> usize {
    loop {
        match tokens[j].0 {
            Token::RParen | Token::RBracket => {
                let mut depth = 0usize;
                let mut k = j;
                loop {
                    let t = &tokens[k].0;
                    if t.is_closer() {
                        depth += 1;
                    } else if t.is_opener() {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    if k == 0 {
                        return 0;
                    }
                    k -= 1;
                }
                match k.checked_sub(1) {
                    Some(p) if ends_operand(&tokens[p].0) => j = p,
                    _ => return k,
                }
            }
            Token::Ident(_) if j >= 2 && tokens[j - 1].0 == Token::Dot => j -= 2,
            _ => return j,
        }
    }
}

/// Errors at `++` and `--`, which Toy does not have (`i++`, `i--`, `++i`),
/// reported as such with the compound assignment as help.
fn slip_diagnostic(cx: Cx<'_>, e: &PError<'_>, tokens: &Tokens<'_>) -> Option<Diagnostic> {
    let RichReason::ExpectedFound { .. } = e.reason() else {
        return None;
    };
    let k = token_at(tokens, e.span().start);
    let tok = |i: usize| tokens.get(i).map(|(t, _)| t);
    let glued = |i: usize| tokens[i].1.end == tokens[i + 1].1.start;
    let text = |a: usize, b: usize| {
        cx.text
            .get(tokens[a].1.start..tokens[b].1.end)
            .unwrap_or("")
    };
    // (first token of the operator, the operand's first and last token,
    // the operator, whether it is postfix)
    let (op, operand, sym, postfix) = match tok(k)? {
        // `i++`: the error is at the second `+`.
        Token::Plus if k >= 2 && *tok(k - 1)? == Token::Plus && glued(k - 1) => ends_operand(tok(
            k - 2,
        )?)
        .then_some((k - 1, (operand_start(tokens, k - 2), k - 2), '+', true))?,
        // `i--`: parsed as `i - -`, the error is at what follows.
        _ if k >= 3
            && *tok(k - 1)? == Token::Minus
            && *tok(k - 2)? == Token::Minus
            && glued(k - 2) =>
        {
            ends_operand(tok(k - 3)?).then_some((
                k - 2,
                (operand_start(tokens, k - 3), k - 3),
                '-',
                true,
            ))?
        }
        // `++i`: the error is at the first `+`.
        Token::Plus
            if *tok(k + 1)? == Token::Plus
                && glued(k)
                && matches!(tok(k + 2)?, Token::Ident(_))
                && (k == 0 || !ends_operand(tok(k - 1)?)) =>
        {
            (k, (k + 2, k + 2), '+', false)
        }
        _ => return None,
    };
    let kind = if sym == '+' { "increment" } else { "decrement" };
    let fix = if postfix { "postfix" } else { "prefix" };
    let span = cx.span(SimpleSpan::from(tokens[op].1.start..tokens[op + 1].1.end));
    Some(
        Diagnostic::error(span, format!("Toy has no {fix} {kind} operator"))
            .with_label(format!("`{sym}{sym}` is not an operator in Toy"))
            .with_note(format!(
                "help: use a compound assignment: `{} {sym}= 1;`",
                text(operand.0, operand.1)
            )),
    )
}
