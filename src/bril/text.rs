//! The Bril text format (what `bril2txt` prints and `bril2json` reads):
//! a chumsky parser over characters, straight to [`ast::Program`].
//!
//! Grammar (the one of Bril's `briltxt`): a program is functions
//! `@name(arg: type, ...): type { item* }` (the parameter list and the
//! result type are optional); an item is a label `.name:` or an
//! instruction `dest: type = const LIT;`, `dest: type = op operand*;` or
//! `op operand*;`, where an operand is a variable, `@func` or `.label`.
//! `#` starts a comment. Identifiers start with a letter, `_` or `%` and go
//! on with those, digits and `.`.
//!
//! Every token skips the whitespace and comments before it; an item's span
//! starts at its first token ([`trim_leading`]). A broken instruction is
//! skipped through its `;` and parsing goes on, so every error is reported.
use super::ast::{BrilType, Function, Instr, Item, Literal, Param, Program};
use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use chumsky::error::{EmptyErr, LabelError, RichPattern, RichReason};
use chumsky::prelude::*;

/// The errors the grammar can make: [`Rich`] for the diagnostics, and
/// [`EmptyErr`] for the first, fast parse of [`parse`], which only needs
/// to know whether the file is well formed.
trait SyntaxError<'a>:
    chumsky::error::Error<'a, &'a str> + LabelError<'a, &'a str, &'static str> + Clone + 'a
{
    /// An error with a message of ours at `span`.
    fn custom(span: SimpleSpan, msg: String) -> Self;
}

impl<'a> SyntaxError<'a> for Rich<'a, char> {
    fn custom(span: SimpleSpan, msg: String) -> Self {
        Rich::custom(span, msg)
    }
}

impl<'a> SyntaxError<'a> for EmptyErr {
    fn custom(_: SimpleSpan, _: String) -> Self {
        EmptyErr::default()
    }
}

/// An operand as written: which list it goes to follows from its sigil.
#[derive(Clone)]
enum Operand {
    Var(String),
    Func(String),
    Label(String),
}

/// The right-hand side of `dest: type = ...`.
#[derive(Clone)]
enum Rhs {
    Const(Literal),
    Op(String, Vec<Operand>),
}

/// Parses a whole file; every syntax error is returned.
///
/// A file is parsed first with [`EmptyErr`], which records nothing about
/// the alternatives that failed on the way (with [`Rich`] that bookkeeping
/// costs more than the parse). Only a file with an error is parsed again,
/// with [`Rich`], for the diagnostics. The grammar is one function generic
/// over the error, so both parses accept the same files.
pub fn parse(file: FileId, text: &str) -> Result<Program, Vec<Diagnostic>> {
    let (out, errors) = program::<EmptyErr>(file, text)
        .parse(text)
        .into_output_errors();
    if errors.is_empty()
        && let Some(p) = out
    {
        return Ok(p);
    }
    let (_, errors) = program::<Rich<'_, char>>(file, text)
        .parse(text)
        .into_output_errors();
    let mut diags: Vec<Diagnostic> = errors.iter().map(|e| diagnostic(file, text, e)).collect();
    diags.sort_by_key(|d| d.span.start);
    diags.dedup_by_key(|d| d.span.start);
    Err(diags)
}

/// Whitespace and `#` comments.
fn ws<'a, E: SyntaxError<'a>>() -> impl Parser<'a, &'a str, (), extra::Err<E>> + Clone {
    let comment = just('#').then(none_of('\n').repeated()).ignored();
    choice((
        any().filter(|c: &char| c.is_whitespace()).ignored(),
        comment,
    ))
    .repeated()
}

/// The text of an identifier (no leading whitespace).
fn ident_str<'a, E: SyntaxError<'a>>() -> impl Parser<'a, &'a str, &'a str, extra::Err<E>> + Clone {
    any()
        .filter(|c: &char| c.is_alphabetic() || matches!(c, '_' | '%'))
        .then(
            any()
                .filter(|c: &char| c.is_alphanumeric() || matches!(c, '_' | '%' | '.'))
                .repeated(),
        )
        .to_slice()
}

fn ident<'a, E: SyntaxError<'a>>() -> impl Parser<'a, &'a str, String, extra::Err<E>> + Clone {
    ws().ignore_then(ident_str())
        .map(String::from)
        .labelled("identifier")
}

/// An identifier after the sigil `sigil` (`@f`, `.l`).
fn sigil_name<'a, E: SyntaxError<'a>>(
    sigil: char,
    what: &'static str,
) -> impl Parser<'a, &'a str, String, extra::Err<E>> + Clone {
    ws().ignore_then(just(sigil).ignore_then(ident_str()))
        .map(String::from)
        .labelled(what)
}

fn sym<'a, E: SyntaxError<'a>>(c: char) -> impl Parser<'a, &'a str, char, extra::Err<E>> + Clone {
    ws().ignore_then(just(c))
}

fn bril_type<'a, E: SyntaxError<'a>>() -> impl Parser<'a, &'a str, BrilType, extra::Err<E>> + Clone
{
    recursive(|ty| {
        ws().ignore_then(ident_str().labelled("type"))
            .then(sym('<').ignore_then(ty).then_ignore(sym('>')).or_not())
            .try_map(|(name, param): (&str, Option<BrilType>), span| match (name, param) {
                ("int", None) => Ok(BrilType::Int),
                ("bool", None) => Ok(BrilType::Bool),
                ("float", None) => Ok(BrilType::Float),
                ("char", None) => Ok(BrilType::Char),
                ("ptr", Some(t)) => Ok(BrilType::Ptr(Box::new(t))),
                ("ptr", None) => Err(E::custom(
                    span,
                    "`ptr` needs its element type: `ptr<int>`".into(),
                )),
                (n, _) => Err(E::custom(
                    span,
                    format!(
                        "unknown type `{n}` (Bril's types are int, bool, float, char and ptr<T>)"
                    ),
                )),
            })
    })
}

/// A literal of `const`: a number, `true`/`false` or a char.
fn literal<'a, E: SyntaxError<'a>>() -> impl Parser<'a, &'a str, Literal, extra::Err<E>> + Clone {
    let digit = any().filter(|c: &char| c.is_ascii_digit());
    let digits = digit.repeated().at_least(1);
    let mantissa = choice((
        digits
            .then(just('.').then(digit.repeated()).or_not())
            .ignored(),
        just('.').then(digits).ignored(),
    ));
    let exponent = one_of("eE").then(one_of("+-").or_not()).then(digits);
    let number = one_of("+-")
        .or_not()
        .then(mantissa)
        .then(exponent.or_not())
        .to_slice()
        .try_map(|s: &str, span| number_literal(s).map_err(|m| E::custom(span, m)));
    let escape = just('\\').ignore_then(one_of("0abtnvfr")).map(|c| match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        't' => '\t',
        'n' => '\n',
        'v' => '\u{b}',
        'f' => '\u{c}',
        _ => '\r',
    });
    let character = just('\'')
        .ignore_then(choice((escape, none_of("'\\\n"))))
        .then_ignore(just('\''))
        .map(Literal::Char);
    ws().ignore_then(choice((
        just("true").to(Literal::Bool(true)),
        just("false").to(Literal::Bool(false)),
        character,
        number,
    )))
    .labelled("literal")
}

/// A label or an instruction; a broken instruction is skipped through its
/// `;` (giving `None`).
fn item<'a, E: SyntaxError<'a>>(
    file: FileId,
    text: &'a str,
) -> impl Parser<'a, &'a str, Option<Item>, extra::Err<E>> + Clone {
    let span_of = move |s: SimpleSpan| trim_leading(file, text, s);
    let operand = choice((
        sigil_name('@', "function name").map(Operand::Func),
        sigil_name('.', "label").map(Operand::Label),
        ident().map(Operand::Var),
    ));
    let operands = operand.repeated().collect::<Vec<_>>();
    let rhs = choice((
        ws().ignore_then(just("const"))
            .then(any().filter(|c: &char| c.is_whitespace()).rewind())
            .ignore_then(literal())
            .map(Rhs::Const),
        ident()
            .then(operands.clone())
            .map(|(op, args)| Rhs::Op(op, args)),
    ));
    let value_instr = ident()
        .then(sym(':').ignore_then(bril_type()).or_not())
        .then_ignore(sym('='))
        .then(rhs)
        .then_ignore(sym(';'))
        .map_with(move |((dest, ty), rhs), e| {
            let (op, args, value) = match rhs {
                Rhs::Const(v) => ("const".to_string(), Vec::new(), Some(v)),
                Rhs::Op(op, args) => (op, args, None),
            };
            instr(op, Some(dest), ty, args, value, span_of(e.span()))
        });
    let effect_instr = ident()
        .then(operands)
        .then_ignore(sym(';'))
        .map_with(move |(op, args), e| instr(op, None, None, args, None, span_of(e.span())));
    let label = sigil_name('.', "label")
        .then_ignore(sym(':'))
        .map_with(move |name, e| Item::Label {
            name,
            span: span_of(e.span()),
        });
    let skip_broken = ws()
        .ignore_then(none_of(";}").repeated().at_least(1))
        .then(just(';'))
        .to(None);
    choice((label, value_instr, effect_instr))
        .map(Some)
        .recover_with(via_parser(skip_broken))
}

fn program<'a, E: SyntaxError<'a>>(
    file: FileId,
    text: &'a str,
) -> impl Parser<'a, &'a str, Program, extra::Err<E>> {
    let span_of = move |s: SimpleSpan| trim_leading(file, text, s);
    let param = ident()
        .then_ignore(sym(':'))
        .then(bril_type())
        .map_with(move |(name, ty), e| Param {
            name,
            ty,
            span: span_of(e.span()),
        });
    let params = param
        .separated_by(sym(','))
        .allow_trailing()
        .collect::<Vec<_>>()
        .delimited_by(sym('('), sym(')'))
        .or_not();
    let function = sigil_name('@', "function name")
        .map_with(move |name, e| (name, span_of(e.span())))
        .then(params)
        .then(sym(':').ignore_then(bril_type()).or_not())
        .then(
            item(file, text)
                .repeated()
                .collect::<Vec<_>>()
                .delimited_by(sym('{'), sym('}')),
        )
        .map(|((((name, span), params), ret), items)| Function {
            name,
            params: params.unwrap_or_default(),
            ret,
            items: items.into_iter().flatten().collect(),
            span,
        });
    function
        .repeated()
        .collect::<Vec<_>>()
        .then_ignore(ws())
        .then_ignore(end())
        .map(|functions| Program { functions })
}

/// An instruction from its written operands.
fn instr(
    op: String,
    dest: Option<String>,
    ty: Option<BrilType>,
    operands: Vec<Operand>,
    value: Option<Literal>,
    span: Span,
) -> Item {
    let mut i = Instr {
        op,
        dest,
        ty,
        args: Vec::new(),
        funcs: Vec::new(),
        labels: Vec::new(),
        value,
        span,
    };
    for o in operands {
        match o {
            Operand::Var(v) => i.args.push(v),
            Operand::Func(f) => i.funcs.push(f),
            Operand::Label(l) => i.labels.push(l),
        }
    }
    Item::Instr(i)
}

/// A number as written: an integer (no `.` or exponent) must fit in i64.
fn number_literal(s: &str) -> Result<Literal, String> {
    if s.contains(['.', 'e', 'E']) {
        s.parse::<f64>()
            .map(Literal::Float)
            .map_err(|_| format!("invalid number `{s}`"))
    } else {
        s.parse::<i64>()
            .map(Literal::Int)
            .map_err(|_| format!("integer `{s}` does not fit in 64 bits"))
    }
}

/// `s` without the whitespace and comments its first token skipped.
fn trim_leading(file: FileId, text: &str, s: SimpleSpan) -> Span {
    let bytes = text.as_bytes();
    let mut start = s.start;
    while start < s.end {
        match bytes.get(start) {
            Some(b'#') => {
                while start < s.end && bytes.get(start) != Some(&b'\n') {
                    start += 1;
                }
            }
            Some(c) if c.is_ascii_whitespace() => start += 1,
            _ => break,
        }
    }
    Span::new(file, start, s.end.max(start))
}

/// A chumsky error in our message style: ``expected `;`, found `}` ``.
fn diagnostic(file: FileId, text: &str, e: &Rich<'_, char>) -> Diagnostic {
    let mut span = *e.span();
    // An error found after whitespace points at the token, not the gap.
    let trimmed = trim_leading(file, text, span);
    if (trimmed.start as usize) < span.end {
        span = SimpleSpan::from(trimmed.start as usize..span.end);
    }
    let at = Span::new(file, span.start, span.end.max(span.start));
    match e.reason() {
        RichReason::Custom(msg) => Diagnostic::error(at, msg.clone()),
        RichReason::ExpectedFound { expected, found } => {
            let found = match found {
                Some(c) => format!("`{}`", c.escape_debug()),
                None => "end of file".into(),
            };
            let mut list: Vec<String> = Vec::new();
            for p in expected {
                let s = match p {
                    // Whitespace and comments may come anywhere: never the
                    // thing that was missing.
                    RichPattern::Token(c) if **c == '#' => continue,
                    RichPattern::Label(l) => l.to_string(),
                    RichPattern::Token(c) => format!("`{}`", c.escape_debug()),
                    RichPattern::Identifier(s) => format!("`{s}`"),
                    RichPattern::EndOfInput => "end of file".into(),
                    _ => continue,
                };
                if !list.contains(&s) {
                    list.push(s);
                }
            }
            let message = match list.as_slice() {
                [] => format!("unexpected {found}"),
                [one] => format!("expected {one}, found {found}"),
                [init @ .., last] => {
                    format!("expected {} or {last}, found {found}", init.join(", "))
                }
            };
            Diagnostic::error(at, message).with_label("here")
        }
    }
}
