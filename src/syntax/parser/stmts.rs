//! Blocks and statements.

use super::exprs::ExprParsers;
use super::items::type_expr;
use super::{Cx, P, PExtra, PInput, ToyError, ident, semi_may_be_missing, skip_junk};
use crate::syntax::ast::{BinOp, Block, Expr, ExprKind, ForRange, Ident, Stmt, StmtKind};
use crate::syntax::token::Token;
use chumsky::prelude::*;

/// `{ stmt* }`. A statement that fails to parse is recovered (see the
/// module docs of `parser`), so a block fails only without its `{`.
pub(crate) fn block<'a, E: ToyError<'a>>(cx: Cx<'a>, ex: &ExprParsers<'a, E>) -> P<'a, Block, E> {
    let full = ex.full.clone();
    let no_struct = ex.no_struct.clone();
    recursive(move |block| {
        let block = block.boxed();
        let stmt = stmt(cx, full, no_struct, block);
        stmt.repeated()
            .fold(Vec::new(), |mut v, s| {
                if let Some(s) = s {
                    v.push(s);
                }
                v
            })
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map_with(move |stmts, e| Block {
                stmts,
                span: cx.span(e.span()),
            })
            .boxed()
    })
    .boxed()
}

enum Loop {
    While(Expr, Block),
    Range(Ident, Expr, Expr, Block),
    Each(Ident, Expr, Block),
}

/// One statement; `None` for an empty statement `;`.
fn stmt<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    full: P<'a, Expr, E>,
    no_struct: P<'a, Expr, E>,
    block: P<'a, Block, E>,
) -> P<'a, Option<Stmt>, E> {
    let simple = simple_core(cx, full.clone(), label(cx).boxed());
    let if_stmt = if_stmt(cx, no_struct.clone(), block.clone());
    let loop_stmt = loop_stmt(cx, no_struct, block.clone());
    let try_stmt = try_stmt(cx, block.clone());
    let block_stmt = block.map(|b| Stmt {
        span: b.span,
        kind: StmtKind::Block(b),
    });

    let with_span = move |kind, e: SimpleSpan| Stmt {
        kind,
        span: cx.span(e),
    };
    let simple_stmt = simple
        .clone()
        .then_ignore(just(Token::Semi))
        .map_with(move |k, e| with_span(k, e.span()));
    let missing_semi = simple
        .then_ignore(semi_may_be_missing(cx))
        .map_with(move |k, e| Some(with_span(k, e.span())));
    let junk = skip_junk(|t| t.starts_statement_keyword())
        .map_with(move |_, e| Some(with_span(StmtKind::Error, e.span())));

    choice((
        if_stmt.map(Some),
        loop_stmt.map(Some),
        try_stmt.map(Some),
        block_stmt.map(Some),
        simple_stmt.map(Some),
        just(Token::Semi).to(None),
    ))
    .labelled("statement")
    .recover_with(via_parser(missing_semi))
    .recover_with(via_parser(broken_let(cx)))
    .recover_with(via_parser(junk))
    .boxed()
}

/// A loop label `'name`.
fn label<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
) -> impl Parser<'a, PInput<'a>, Ident, PExtra<'a, E>> + Clone {
    select_ref! { Token::Label(name) = e => Ident { name: name.to_string(), span: cx.span(e.span()) } }
}

/// `if c { } else if c { } else { }`: the else-if chain is collected
/// iteratively and folded from the end.
fn if_stmt<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    no_struct: P<'a, Expr, E>,
    block: P<'a, Block, E>,
) -> impl Parser<'a, PInput<'a>, Stmt, PExtra<'a, E>> + Clone {
    let kw_span = |t: Token<'static>| just(t).map_with(|_, e| e.span());
    let cond_block = no_struct.then(block.clone());
    kw_span(Token::If)
        .then(cond_block.clone())
        .then(
            just(Token::Else)
                .ignore_then(kw_span(Token::If))
                .then(cond_block)
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(just(Token::Else).ignore_then(block).or_not())
        .map(move |(((if_span, (cond, then_block)), elifs), els)| {
            let mut else_block = els;
            for (span, (cond, then_block)) in elifs.into_iter().rev() {
                let end = else_block.as_ref().map_or(then_block.span, |b| b.span);
                let span = cx.span(span).to(end);
                let stmt = Stmt {
                    kind: StmtKind::If {
                        cond,
                        then_block,
                        else_block,
                    },
                    span,
                };
                else_block = Some(Block {
                    stmts: vec![stmt],
                    span,
                });
            }
            let end = else_block.as_ref().map_or(then_block.span, |b| b.span);
            Stmt {
                span: cx.span(if_span).to(end),
                kind: StmtKind::If {
                    cond,
                    then_block,
                    else_block,
                },
            }
        })
}

/// `[label:] while c { }`, `[label:] for x in a..b { }` and
/// `[label:] for x in a { }`.
fn loop_stmt<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    no_struct: P<'a, Expr, E>,
    block: P<'a, Block, E>,
) -> impl Parser<'a, PInput<'a>, Stmt, PExtra<'a, E>> + Clone {
    let while_loop = just(Token::While)
        .ignore_then(no_struct.clone())
        .then(block.clone())
        .map(|(c, b)| Loop::While(c, b));
    let for_loop = just(Token::For)
        .ignore_then(ident(cx))
        .then_ignore(just(Token::In))
        .then(no_struct.clone())
        .then(just(Token::DotDot).ignore_then(no_struct).or_not())
        .then(block)
        .map(|(((var, a), b), body)| match b {
            Some(end) => Loop::Range(var, a, end, body),
            None => Loop::Each(var, a, body),
        });
    label(cx)
        .then_ignore(just(Token::Colon))
        .or_not()
        .then(choice((while_loop, for_loop)))
        .map_with(move |(label, l), e| {
            let kind = match l {
                Loop::While(cond, body) => StmtKind::While { label, cond, body },
                Loop::Range(var, start, end, body) => StmtKind::ForRange(Box::new(ForRange {
                    label,
                    var,
                    start,
                    end,
                    body,
                })),
                Loop::Each(var, iter, body) => StmtKind::ForEach {
                    label,
                    var,
                    iter,
                    body,
                },
            };
            Stmt {
                kind,
                span: cx.span(e.span()),
            }
        })
}

/// `try { } catch e { }`.
fn try_stmt<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    block: P<'a, Block, E>,
) -> impl Parser<'a, PInput<'a>, Stmt, PExtra<'a, E>> + Clone {
    just(Token::Try)
        .ignore_then(block.clone())
        .then_ignore(just(Token::Catch))
        .then(ident(cx))
        .then(block)
        .map_with(move |((body, var), handler), e| Stmt {
            kind: StmtKind::Try { body, var, handler },
            span: cx.span(e.span()),
        })
}

/// Recovery for a `let`/`var` whose initialiser fails to parse: it still
/// declares the name (so later uses do not cascade), with an error
/// initialiser.
fn broken_let<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
) -> impl Parser<'a, PInput<'a>, Option<Stmt>, PExtra<'a, E>> + Clone {
    choice((just(Token::Let).to(false), just(Token::Var).to(true)))
        .then(ident(cx))
        .then(just(Token::Colon).ignore_then(type_expr(cx)).or_not())
        .then_ignore(skip_junk(|t| t.starts_statement_keyword()))
        .map_with(move |((mutable, name), ty), e| {
            let init = Expr {
                kind: ExprKind::Error,
                span: cx.span(e.span()),
            };
            Some(Stmt {
                kind: StmtKind::Let {
                    mutable,
                    name,
                    ty,
                    init,
                },
                span: cx.span(e.span()),
            })
        })
}

/// Statements that end with `;`, without the `;`: `let`/`var`, `return`,
/// `break`, `continue`, `throw`, assignments and expression statements.
fn simple_core<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    full: P<'a, Expr, E>,
    label: P<'a, Ident, E>,
) -> P<'a, StmtKind, E> {
    let let_stmt = choice((just(Token::Let).to(false), just(Token::Var).to(true)))
        .then(ident(cx))
        .then(just(Token::Colon).ignore_then(type_expr(cx)).or_not())
        .then_ignore(just(Token::Assign))
        .then(full.clone())
        .map(|(((mutable, name), ty), init)| StmtKind::Let {
            mutable,
            name,
            ty,
            init,
        });
    let ret = just(Token::Return)
        .ignore_then(full.clone().or_not())
        .map(StmtKind::Return);
    let brk = just(Token::Break)
        .ignore_then(label.clone().or_not())
        .map(|label| StmtKind::Break { label });
    let cont = just(Token::Continue)
        .ignore_then(label.or_not())
        .map(|label| StmtKind::Continue { label });
    let throw = just(Token::Throw)
        .ignore_then(full.clone())
        .map(StmtKind::Throw);
    let assign_op = select_ref! {
        Token::Assign => None,
        Token::PlusEq => Some(BinOp::Add),
        Token::MinusEq => Some(BinOp::Sub),
        Token::StarEq => Some(BinOp::Mul),
        Token::SlashEq => Some(BinOp::Div),
        Token::PercentEq => Some(BinOp::Rem),
        Token::AmpEq => Some(BinOp::BitAnd),
        Token::PipeEq => Some(BinOp::BitOr),
        Token::CaretEq => Some(BinOp::BitXor),
        Token::ShlEq => Some(BinOp::Shl),
        Token::ShrEq => Some(BinOp::Shr),
    };
    let assign_or_expr = full
        .clone()
        .then(assign_op.then(full).or_not())
        .map(|(target, rest)| match rest {
            Some((op, value)) => StmtKind::Assign { target, op, value },
            None => StmtKind::Expr(target),
        });
    choice((let_stmt, ret, brk, cont, throw, assign_or_expr)).boxed()
}
