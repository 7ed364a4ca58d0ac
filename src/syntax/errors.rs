//! Turning lexer and parser errors into [`Diagnostic`]s in our message
//! style (docs/diagnostics.md, "Syntax"): ``expected `;`, found `}` ``.

use super::lexer::LexError;
use super::parser::{Cx, PError};
use super::token::Token;
use crate::diag::Diagnostic;
use chumsky::error::{RichPattern, RichReason};

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

pub(crate) fn parse_diagnostic(cx: Cx<'_>, e: &PError<'_>) -> Diagnostic {
    let span = cx.span(*e.span());
    match e.reason() {
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
            Diagnostic::error(span, format!("expected {expected}, found {found_text}"))
                .with_label(format!("expected {expected}"))
        }
    }
}
