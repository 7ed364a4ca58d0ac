//! Expressions, loosest first: `||`, `&&`, comparisons (non-associative),
//! `|`, `^`, `&`, `<< >>`, `+ -`, `* / %`, prefix `- !`, postfix (call,
//! index, field), atoms.
//!
//! Two entry points share one recursive core: `full` (struct literals
//! allowed) and `no_struct` (for `if`/`while` conditions and `for` ranges,
//! where `Name {` starts the body). Inside brackets struct literals are
//! allowed again, so nested positions use `full`.

use super::{Cx, P, ToyError, entry_comma, ident, no_match, opened_by, skip_group};
use crate::syntax::ast::{BinOp, Expr, ExprKind, Ident, StructLit, UnOp};
use crate::syntax::errors::STRUCT_LIT_IN_CONDITION;
use crate::syntax::token::Token;
use chumsky::prelude::*;

pub(crate) struct ExprParsers<'a, E: ToyError<'a>> {
    pub full: P<'a, Expr, E>,
    pub no_struct: P<'a, Expr, E>,
}

pub(crate) fn exprs<'a, E: ToyError<'a>>(cx: Cx<'a>) -> ExprParsers<'a, E> {
    let full = recursive(|full| levels(cx, full.boxed(), true)).boxed();
    let no_struct = levels(cx, full.clone(), false);
    ExprParsers { full, no_struct }
}

fn error_expr(cx: Cx<'_>, span: SimpleSpan) -> Expr {
    Expr {
        kind: ExprKind::Error,
        span: cx.span(span),
    }
}

fn levels<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    full: P<'a, Expr, E>,
    allow_struct: bool,
) -> P<'a, Expr, E> {
    let atom = atom(cx, full.clone(), allow_struct);
    let postfix = postfix(cx, atom, full);
    let unary = unary(cx, postfix);
    // No label here: the atom's label already makes an expression missing
    // at any operand position read "expected expression".
    binary(unary)
}

fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    let span = l.span.to(r.span);
    Expr {
        kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
        span,
    }
}

/// How tightly a binary operator binds: 0 is tightest. All levels are
/// left-associative except comparisons ([`CMP_LEVEL`]).
fn level(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        Mul | Div | Rem => 0,
        Add | Sub => 1,
        Shl | Shr => 2,
        BitAnd => 3,
        BitXor => 4,
        BitOr => 5,
        Eq | Ne | Lt | Le | Gt | Ge => CMP_LEVEL,
        And => 7,
        Or => 8,
    }
}

const CMP_LEVEL: u8 = 6;
const LEVELS: u8 = 9;

/// All binary operators: `next (op next)*` with any operator, then grouped
/// by [`level`] ([`fold_binary`]). One flat list instead of a parser per
/// level: every operator token belongs to exactly one level, so this
/// accepts the same token sequences and stops at the same token as a
/// parser per level would, and each operator fails as one `select_ref`
/// (expecting "something else", which no message shows).
fn binary<'a, E: ToyError<'a>>(next: P<'a, Expr, E>) -> P<'a, Expr, E> {
    let op = select_ref! {
        Token::Star => BinOp::Mul,
        Token::Slash => BinOp::Div,
        Token::Percent => BinOp::Rem,
        Token::Plus => BinOp::Add,
        Token::Minus => BinOp::Sub,
        Token::Shl => BinOp::Shl,
        Token::Shr => BinOp::Shr,
        Token::Amp => BinOp::BitAnd,
        Token::Caret => BinOp::BitXor,
        Token::Pipe => BinOp::BitOr,
        Token::EqEq => BinOp::Eq,
        Token::NotEq => BinOp::Ne,
        Token::Lt => BinOp::Lt,
        Token::Le => BinOp::Le,
        Token::Gt => BinOp::Gt,
        Token::Ge => BinOp::Ge,
        Token::AndAnd => BinOp::And,
        Token::OrOr => BinOp::Or,
    }
    .map_with(|op, e| (op, e.span()));
    next.clone()
        .then(op.then(next).repeated().collect::<Vec<_>>())
        .validate(|(first, rest), _, emitter| {
            fold_binary(first, rest, &mut |span| {
                emitter.emit(E::custom(span, "comparison operators cannot be chained"))
            })
        })
        .boxed()
}

/// Groups `first (op operand)*` by precedence, tightest level first, each
/// level left to right. Comparisons do not associate: in a run of two or
/// more, `chained` is called with the second operator's span, and the
/// whole run becomes an `Error` node (it has no meaning, and typing it as
/// `(a < b) < c` would add a cascade such as
/// ``cannot apply `<` to `bool` and `int` ``).
fn fold_binary(
    first: Expr,
    rest: Vec<((BinOp, SimpleSpan), Expr)>,
    chained: &mut dyn FnMut(SimpleSpan),
) -> Expr {
    if rest.len() < 2 {
        // No chain and no precedence to resolve.
        return match rest.into_iter().next() {
            Some(((op, _), r)) => bin(op, first, r),
            None => first,
        };
    }
    let mut operands = Vec::with_capacity(rest.len() + 1);
    operands.push(first);
    let mut ops = Vec::with_capacity(rest.len());
    for (op, e) in rest {
        ops.push(op);
        operands.push(e);
    }
    for lvl in 0..LEVELS {
        if ops.iter().any(|&(op, _)| level(op) == lvl) {
            (operands, ops) = fold_level(operands, ops, lvl, chained);
        }
    }
    operands.pop().expect("one operand is left")
}

/// Folds the operators of level `lvl` (see [`fold_binary`]); `operands`
/// has one more element than `ops`.
fn fold_level(
    operands: Vec<Expr>,
    ops: Vec<(BinOp, SimpleSpan)>,
    lvl: u8,
    chained: &mut dyn FnMut(SimpleSpan),
) -> (Vec<Expr>, Vec<(BinOp, SimpleSpan)>) {
    let mut out = Vec::with_capacity(operands.len());
    let mut out_ops = Vec::with_capacity(ops.len());
    let mut operands = operands.into_iter();
    let mut cur = operands.next().expect("an operand before every operator");
    // The comparisons so far in the current run, and the second one's span.
    let mut run = (0usize, None);
    let mut end_run = |cur: Expr, run: &mut (usize, Option<SimpleSpan>)| match std::mem::take(run) {
        (_, Some(second)) => {
            chained(second);
            Expr {
                kind: ExprKind::Error,
                span: cur.span,
            }
        }
        _ => cur,
    };
    for (op, span) in ops {
        let r = operands.next().expect("an operand after every operator");
        if level(op) == lvl {
            if lvl == CMP_LEVEL {
                run.0 += 1;
                if run.0 == 2 {
                    run.1 = Some(span);
                }
            }
            cur = bin(op, cur, r);
        } else {
            out.push(end_run(cur, &mut run));
            out_ops.push((op, span));
            cur = r;
        }
    }
    out.push(end_run(cur, &mut run));
    (out, out_ops)
}

/// Prefix operators: collected, then applied innermost first.
fn unary<'a, E: ToyError<'a>>(cx: Cx<'a>, next: P<'a, Expr, E>) -> P<'a, Expr, E> {
    let op = select_ref! { Token::Minus => UnOp::Neg, Token::Bang => UnOp::Not }
        .map_with(|op, e| (op, e.span()));
    op.repeated()
        .collect::<Vec<_>>()
        .then(next)
        .map(move |(ops, e)| {
            ops.into_iter().rev().fold(e, |e, (op, s)| {
                let span = cx.span(s).to(e.span);
                Expr {
                    kind: ExprKind::Unary(op, Box::new(e)),
                    span,
                }
            })
        })
        .boxed()
}

enum Postfix {
    Call(Vec<Expr>, SimpleSpan),
    Index(Expr, SimpleSpan),
    Field(Ident),
    /// A call or index whose brackets did not parse.
    Broken(SimpleSpan),
}

/// Comma-separated `item`s with an optional trailing comma.
fn comma_list<'a, O: 'a, E: ToyError<'a>>(item: P<'a, O, E>) -> P<'a, Vec<O>, E> {
    item.separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .boxed()
}

fn postfix<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    atom: P<'a, Expr, E>,
    full: P<'a, Expr, E>,
) -> P<'a, Expr, E> {
    let call = comma_list(full.clone())
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .map_with(|args, e| Postfix::Call(args, e.span()))
        .recover_with(via_parser(skip_group(Token::LParen).map(Postfix::Broken)));
    let call = opened_by(Token::LParen, call);
    let index = full
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .map_with(|i, e| Postfix::Index(i, e.span()))
        .recover_with(via_parser(skip_group(Token::LBracket).map(Postfix::Broken)));
    let index = opened_by(Token::LBracket, index);
    let field = just(Token::Dot).ignore_then(ident(cx)).map(Postfix::Field);
    atom.foldl(choice((call, index, field)).repeated(), move |e, p| {
        let start = e.span;
        match p {
            Postfix::Call(args, s) => Expr {
                span: start.to(cx.span(s)),
                kind: ExprKind::Call(Box::new(e), args),
            },
            Postfix::Index(i, s) => Expr {
                span: start.to(cx.span(s)),
                kind: ExprKind::Index(Box::new(e), Box::new(i)),
            },
            Postfix::Field(f) => Expr {
                span: start.to(f.span),
                kind: ExprKind::Field(Box::new(e), f),
            },
            Postfix::Broken(s) => Expr {
                span: start.to(cx.span(s)),
                kind: ExprKind::Error,
            },
        }
    })
    .boxed()
}

/// Literals, names, `( e )`, array literals and (when allowed) struct
/// literals.
fn atom<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    full: P<'a, Expr, E>,
    allow_struct: bool,
) -> P<'a, Expr, E> {
    let literal = select_ref! {
        Token::Int(v) => i64::try_from(*v).map(ExprKind::Int).ok(),
        Token::MinInt => Some(ExprKind::Int(i64::MIN)),
        Token::Float(v) => Some(ExprKind::Float(*v)),
        Token::Str(s) => Some(ExprKind::Str(s.clone())),
        Token::True => Some(ExprKind::Bool(true)),
        Token::False => Some(ExprKind::Bool(false)),
        Token::Nil => Some(ExprKind::Nil),
    }
    .validate(move |kind, e, emitter| {
        let kind = kind.unwrap_or_else(|| {
            // Only 2^63 gets here: it fits only directly under unary minus.
            emitter.emit(E::custom(e.span(), "integer literal out of range for int"));
            ExprKind::Error
        });
        Expr {
            kind,
            span: cx.span(e.span()),
        }
    });
    let name = ident(cx).map(|id| Expr {
        span: id.span,
        kind: ExprKind::Name(id),
    });
    let paren = full
        .clone()
        .delimited_by(just(Token::LParen), just(Token::RParen))
        .map_with(move |inner, e| Expr {
            span: cx.span(e.span()),
            ..inner
        })
        .recover_with(via_parser(
            skip_group(Token::LParen).map(move |s| error_expr(cx, s)),
        ));
    let paren = opened_by(Token::LParen, paren);
    let array = array(cx, full.clone());
    if allow_struct {
        choice((literal, struct_lit(cx, full, true), name, paren, array))
            .labelled("expression")
            .boxed()
    } else {
        // `Name { field: ...` cannot start a block, so it is a struct
        // literal after all: reported, and kept (no cascade).
        let misplaced = struct_lit(cx, full, false).validate(|lit, e, emitter| {
            emitter.emit(E::custom(e.span(), STRUCT_LIT_IN_CONDITION));
            lit
        });
        choice((literal, misplaced, name, paren, array))
            .labelled("expression")
            .boxed()
    }
}

enum ArrayTail {
    /// `; count`
    Count(Expr),
    /// `, e, e ,?`
    More(Vec<Expr>),
}

/// `[]`, `[a, b, c]`, `[value; count]`. The first element is parsed once,
/// then the tail decides which form it is (no backtracking over elements).
fn array<'a, E: ToyError<'a>>(cx: Cx<'a>, full: P<'a, Expr, E>) -> P<'a, Expr, E> {
    let tail = choice((
        just(Token::Semi)
            .ignore_then(full.clone())
            .map(ArrayTail::Count),
        just(Token::Comma)
            .ignore_then(full.clone())
            .repeated()
            .collect::<Vec<_>>()
            .then_ignore(just(Token::Comma).or_not())
            .map(ArrayTail::More),
    ));
    let array = full
        .then(tail)
        .or_not()
        .delimited_by(just(Token::LBracket), just(Token::RBracket))
        .map_with(move |body, e| {
            let kind = match body {
                None => ExprKind::ArrayLit(Vec::new()),
                Some((value, ArrayTail::Count(n))) => {
                    ExprKind::ArrayRepeat(Box::new(value), Box::new(n))
                }
                Some((first, ArrayTail::More(rest))) => {
                    let mut v = Vec::with_capacity(rest.len() + 1);
                    v.push(first);
                    v.extend(rest);
                    ExprKind::ArrayLit(v)
                }
            };
            Expr {
                kind,
                span: cx.span(e.span()),
            }
        })
        .recover_with(via_parser(
            skip_group(Token::LBracket).map(move |s| error_expr(cx, s)),
        ));
    opened_by(Token::LBracket, array).boxed()
}

/// Whether a struct literal starts here: `Name {` or `m.Name {` followed by
/// `field :` or (when `allow_empty`) `}`. Looks ahead without consuming or
/// recording errors past the current token.
fn struct_lit_ahead<'a, E: ToyError<'a>>(allow_empty: bool) -> P<'a, (), E> {
    custom(move |inp| {
        let save = inp.save();
        let is_ident = |t: &Option<Token<'_>>| matches!(t, Some(Token::Ident(_)));
        // Peeks the next token's kind, without payloads (no clones of strings).
        let mut next = || {
            inp.next_maybe().map(|t| match &*t {
                Token::Ident(_) => Token::Ident(""),
                Token::Str(_) => Token::Str(String::new()),
                t => t.clone(),
            })
        };
        let mut ok = false;
        if is_ident(&next()) {
            let mut t = next();
            if t == Some(Token::Dot) {
                t = if is_ident(&next()) { next() } else { None };
            }
            if t == Some(Token::LBrace) {
                let t = next();
                ok = (allow_empty && t == Some(Token::RBrace))
                    || (is_ident(&t) && next() == Some(Token::Colon));
            }
        }
        inp.rewind(save);
        if ok { Ok(()) } else { Err(no_match(inp)) }
    })
    .boxed()
}

/// `Name { field: e, .. }` or `m.Name { .. }`; `allow_empty`: whether
/// `Name {}` counts (see [`struct_lit_ahead`]).
fn struct_lit<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    full: P<'a, Expr, E>,
    allow_empty: bool,
) -> P<'a, Expr, E> {
    let path = ident(cx)
        .then(just(Token::Dot).ignore_then(ident(cx)).or_not())
        .map(|(a, b)| match b {
            Some(name) => (Some(a), name),
            None => (None, a),
        });
    let field = ident(cx).then_ignore(just(Token::Colon)).then(full).boxed();
    let fields = field
        .separated_by(entry_comma())
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(Token::LBrace), just(Token::RBrace))
        .map(Some)
        .recover_with(via_parser(skip_group(Token::LBrace).map(|_| None)));
    struct_lit_ahead(allow_empty)
        .ignore_then(path)
        .then(fields)
        .map_with(move |((module, name), fields), e| {
            let span = cx.span(e.span());
            match fields {
                Some(fields) => Expr {
                    kind: ExprKind::StructLit(Box::new(StructLit {
                        module,
                        name,
                        fields,
                    })),
                    span,
                },
                None => Expr {
                    kind: ExprKind::Error,
                    span,
                },
            }
        })
        .boxed()
}
