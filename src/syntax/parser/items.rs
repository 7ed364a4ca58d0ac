//! Items (imports, structs, functions, globals), types, and the module.

use super::exprs::exprs;
use super::stmts::block;
use super::{
    Cx, P, PExtra, PInput, ToyError, entry_comma, ident, semi_may_be_missing, skip_group,
    skip_junk, skip_to_comma, type_colon,
};
use crate::syntax::ast::{
    Block, Expr, ExprKind, FieldDef, FnDef, GlobalDef, Ident, Import, Item, Module, Param,
    StructDef, TypeExpr, TypeExprKind,
};
use crate::syntax::token::Token;
use chumsky::prelude::*;

/// `int`, `Name`, `m.Name`, `[T]`. A missing type is reported and becomes
/// a zero-width `TypeExprKind::Error`, so the declaration around it stays.
pub(crate) fn type_expr<'a, E: ToyError<'a>>(cx: Cx<'a>) -> P<'a, TypeExpr, E> {
    let missing = empty().map_with(move |_, e| TypeExpr {
        kind: TypeExprKind::Error,
        span: cx.span(e.span()),
    });
    recursive(move |ty| {
        let named = ident(cx)
            .then(just(Token::Dot).ignore_then(ident(cx)).or_not())
            .map(|(a, b)| match b {
                Some(b) => TypeExprKind::Qualified(Box::new((a, b))),
                None => TypeExprKind::Named(a),
            });
        let array = ty
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map(|t| TypeExprKind::Array(Box::new(t)));
        choice((named, array))
            .map_with(move |kind, e| TypeExpr {
                kind,
                span: cx.span(e.span()),
            })
            .labelled("type")
    })
    .recover_with(via_parser(missing))
    .boxed()
}

/// The whole file: items until the end. An item that fails is recovered
/// (re-parsed without a missing `;`, or skipped up to the next item
/// keyword), so the module parser itself does not fail.
pub(crate) fn module<'a, E: ToyError<'a>>(cx: Cx<'a>) -> P<'a, Module, E> {
    let ex = exprs(cx);
    let body = block(cx, &ex);
    let ty = type_expr(cx);
    let semi_item = semi_item(cx, ty.clone(), ex.full.clone());
    let struct_def = struct_def(cx, ty.clone());
    let fn_def = fn_def(cx, ty.clone(), body);

    let missing_semi = semi_item
        .clone()
        .then_ignore(semi_may_be_missing(cx))
        .map(Some);
    let junk = skip_junk(|t| t.starts_item()).map(|_| None);
    let item = choice((fn_def, struct_def, semi_item.then_ignore(just(Token::Semi))))
        .map(Some)
        .labelled("item")
        .recover_with(via_parser(missing_semi))
        .recover_with(via_parser(broken_global(cx, ty)))
        .recover_with(via_parser(junk));
    item.repeated()
        .fold(Vec::new(), |mut v, i| {
            if let Some(i) = i {
                v.push(i);
            }
            v
        })
        .then_ignore(end())
        .map(|items| Module { items })
        .boxed()
}

/// The items that end with `;` (without it): `import m` and global
/// `let`/`var` definitions.
fn semi_item<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    ty: P<'a, TypeExpr, E>,
    full: P<'a, Expr, E>,
) -> P<'a, Item, E> {
    let import_core = just(Token::Import)
        .ignore_then(ident(cx))
        .map_with(move |name, e| {
            Item::Import(Import {
                name,
                span: cx.span(e.span()),
            })
        });
    let global_core = choice((just(Token::Let).to(false), just(Token::Var).to(true)))
        .then(ident(cx))
        .then(just(Token::Colon).ignore_then(ty).or_not())
        .then_ignore(just(Token::Assign))
        .then(full)
        .map_with(move |(((mutable, name), ty), init), e| {
            Item::Global(GlobalDef {
                mutable,
                name,
                ty,
                init,
                span: cx.span(e.span()),
            })
        });
    choice((import_core, global_core)).boxed()
}

/// `open name: type, ... close` (a trailing comma allowed): struct fields
/// and parameters, each made by `entry`. When the list does not parse, the
/// names are still kept (with error types), so uses of them and calls do
/// not cascade; when not even that parses, the group is skipped and the
/// list is empty.
fn typed_names<'a, T: 'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    ty: P<'a, TypeExpr, E>,
    open: Token<'static>,
    close: Token<'static>,
    entry: fn(Ident, TypeExpr) -> T,
) -> P<'a, Vec<T>, E> {
    let strict = ident(cx)
        .then_ignore(type_colon())
        .then(ty)
        .map(move |(name, ty)| entry(name, ty));
    let lenient = ident(cx)
        .then(skip_to_comma().map_with(move |_, e| cx.span(e.span())))
        .map(move |(name, span)| {
            let kind = TypeExprKind::Error;
            entry(name, TypeExpr { kind, span })
        })
        .separated_by(just(Token::Comma))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(open.clone()), just(close.clone()));
    strict
        .separated_by(entry_comma())
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(just(open.clone()), just(close))
        .recover_with(via_parser(lenient))
        .recover_with(via_parser(skip_group(open).map(|_| Vec::new())))
        .boxed()
}

/// `struct S { name: T, .. }`.
fn struct_def<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    ty: P<'a, TypeExpr, E>,
) -> impl Parser<'a, PInput<'a>, Item, PExtra<'a, E>> + Clone {
    let fields = typed_names(cx, ty, Token::LBrace, Token::RBrace, |name, ty| FieldDef {
        name,
        ty,
    });
    just(Token::Struct)
        .ignore_then(ident(cx))
        .then(fields)
        .map_with(move |(name, fields), e| {
            Item::Struct(StructDef {
                name,
                fields,
                span: cx.span(e.span()),
            })
        })
}

/// `fn f(name: T, ..) -> R { .. }`.
fn fn_def<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    ty: P<'a, TypeExpr, E>,
    body: P<'a, Block, E>,
) -> impl Parser<'a, PInput<'a>, Item, PExtra<'a, E>> + Clone {
    let params = typed_names(cx, ty.clone(), Token::LParen, Token::RParen, |name, ty| {
        Param { name, ty }
    });
    just(Token::Fn)
        .ignore_then(ident(cx))
        .then(params)
        .then(just(Token::Arrow).ignore_then(ty).or_not())
        .then(body)
        .map_with(move |(((name, params), ret), body), e| {
            Item::Fn(FnDef {
                name,
                params,
                ret,
                body,
                span: cx.span(e.span()),
            })
        })
}

/// Recovery for a global whose initialiser fails to parse: `let G =
/// <broken>;` still defines `G` (so later uses do not cascade), with an
/// error initialiser.
fn broken_global<'a, E: ToyError<'a>>(
    cx: Cx<'a>,
    ty: P<'a, TypeExpr, E>,
) -> impl Parser<'a, PInput<'a>, Option<Item>, PExtra<'a, E>> + Clone {
    choice((just(Token::Let).to(false), just(Token::Var).to(true)))
        .then(ident(cx))
        .then(just(Token::Colon).ignore_then(ty).or_not())
        .then_ignore(skip_junk(|t| t.starts_item()))
        .map_with(move |((mutable, name), ty), e| {
            let span = cx.span(e.span());
            let init = Expr {
                kind: ExprKind::Error,
                span,
            };
            Some(Item::Global(GlobalDef {
                mutable,
                name,
                ty,
                init,
                span,
            }))
        })
}
