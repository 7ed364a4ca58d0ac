//! The IR text parser: reads what `ir::print` writes (`toyc ir`, with or
//! without the line margin, with or without `!flags(..)`) back into a
//! [`Module`]. The grammar is in `docs/ir.md` ("The text form").
//!
//! A file is a module: a header (`struct`, `let`/`var` global lines) and
//! then functions, each a `fn` signature line followed by its statements.
//! Functions get ids in file order; every called function must be defined
//! in the file. Values (`%n`) and blocks (`#n`) may be numbered freely in
//! hand-written input (each number defined once); the parser numbers
//! statements and blocks by position, as the printer does, so printing a
//! parsed module renumbers them.
//!
//! Invariants: parsing never panics; every syntax error carries the line
//! and column where it was found; a module that parses is verified with
//! `ir::verify` before it is returned, and verifier failures are
//! [`ParseError`]s at the function's `fn` line, not internal errors.
//! Spans are all `Span::default()` (the text has no source positions).

mod cursor;
mod lexer;
mod names;
mod stmt;

use crate::ir::{IrCode, Module, VarName};
use crate::sema::hir::Program;
use crate::types::{FuncId, Type};
use cursor::Cursor;
use lexer::{Tok, Token};
use std::fmt;
use std::sync::Arc;

/// A syntax or verifier error, at a 1-based line and column (0:0 when the
/// input has no line to point at).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub msg: String,
}

impl ParseError {
    pub fn new(line: u32, col: u32, msg: String) -> ParseError {
        ParseError { line, col, msg }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

/// A function's signature line and its body lines.
struct FnText<'a> {
    head: &'a [Token],
    body: Vec<&'a [Token]>,
}

/// Parses a whole module; see the module doc. On failure, the first syntax
/// error, or every verifier error.
pub fn parse(text: &str) -> Result<Module, Vec<ParseError>> {
    let lines = lexer::lex(text).map_err(|e| vec![e])?;
    let (header, fns) = split_items(&lines).map_err(|e| vec![e])?;
    let mut program = parse_header(&header).map_err(|e| vec![e])?;
    let mut sigs = Vec::new();
    for f in &fns {
        let sig = parse_signature(f.head, &program).map_err(|e| vec![e])?;
        if program.functions.iter().any(|g| g.name == sig.0) {
            let t = &f.head[0];
            let msg = format!("function `{}` is defined twice", sig.0);
            return Err(vec![ParseError::new(t.line, t.col, msg)]);
        }
        program.declare_function(&sig.0, sig.1.clone(), sig.2.clone());
        sigs.push(sig);
    }
    let find = |n: &str| program.functions.iter().position(|f| f.name == n);
    // A Bril program's entry (`<main>`, docs/bril.md) runs before its `main`.
    let entry = find("<main>").or_else(|| find("main"));
    program.main = FuncId(entry.unwrap_or(0) as u32);
    program.init = FuncId(find("<init>").unwrap_or(0) as u32);
    let mut funcs = Vec::new();
    for (i, (f, (name, params, ret, param_names))) in fns.iter().zip(sigs).enumerate() {
        let head = stmt::Head {
            name,
            at: (f.head[0].line, f.head[0].col),
            func: FuncId(i as u32),
            params,
            ret,
            param_names,
        };
        funcs.push(stmt::parse_body(head, &f.body, &program).map_err(|e| vec![e])?);
    }
    let module = Module {
        funcs,
        program: Arc::new(program),
    };
    verify(&module, &fns)?;
    Ok(module)
}

/// The verifier's errors on `module`, each at its function's `fn` line.
fn verify(module: &Module, fns: &[FnText]) -> Result<(), Vec<ParseError>> {
    let mut errors = Vec::new();
    for (f, text) in module.funcs.iter().zip(fns) {
        let at = &text.head[0];
        for e in crate::ir::verify::verify_function(f, &module.program) {
            let msg = format!("invalid IR in `{}`: {e}", f.name);
            errors.push(ParseError::new(at.line, at.col, msg));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Header lines (before the first `fn`) and the functions.
fn split_items(lines: &[Vec<Token>]) -> Result<(Vec<&[Token]>, Vec<FnText<'_>>), ParseError> {
    let mut header = Vec::new();
    let mut fns: Vec<FnText> = Vec::new();
    for line in lines {
        let first = &line[0];
        let kw = match &first.tok {
            Tok::Ident(s) => s.as_str(),
            _ => "",
        };
        match (kw, fns.last_mut()) {
            ("fn", _) => fns.push(FnText {
                head: line,
                body: Vec::new(),
            }),
            ("struct" | "let" | "var", None) => header.push(line.as_slice()),
            ("struct" | "let" | "var", Some(_)) => {
                let msg = format!("`{kw}` lines must come before the first function");
                return Err(ParseError::new(first.line, first.col, msg));
            }
            (_, Some(f)) => f.body.push(line),
            (_, None) => {
                let msg =
                    "expected `struct`, `let`, `var` or `fn` (statements belong to a function)";
                return Err(ParseError::new(first.line, first.col, msg.into()));
            }
        }
    }
    Ok((header, fns))
}

/// The struct and global tables of the header. Struct field types may name
/// any struct of the header, so names are collected first.
fn parse_header(lines: &[&[Token]]) -> Result<Program, ParseError> {
    let mut names = Program::default();
    let structs: Vec<&[Token]> = lines
        .iter()
        .copied()
        .filter(|l| l[0].tok == Tok::Ident("struct".into()))
        .collect();
    for line in &structs {
        let mut c = Cursor::new(line);
        c.expect_ident("struct")?;
        let name = c.name("a struct name")?;
        if names.structs.iter().any(|s| s.name == name) {
            return Err(c.err(format!("struct `{name}` is declared twice")));
        }
        names.declare_struct(&name, Vec::new());
    }
    let mut program = Program::default();
    for line in &structs {
        let mut c = Cursor::new(line);
        c.expect_ident("struct")?;
        let name = c.name("a struct name")?;
        let fields = parse_fields(&mut c, &names)?;
        program.declare_struct(&name, fields);
    }
    for line in lines
        .iter()
        .filter(|l| l[0].tok != Tok::Ident("struct".into()))
    {
        let mut c = Cursor::new(line);
        let mutable = c.eat_ident("var");
        if !mutable {
            c.expect_ident("let")?;
        }
        let name = match c.next() {
            Some(Tok::Global(g)) => g.clone(),
            _ => return Err(c.err("expected a global name (`@name`)")),
        };
        if program.globals.iter().any(|g| g.name == name) {
            return Err(c.err(format!("global `@{name}` is declared twice")));
        }
        c.expect_punct("::")?;
        let ty = c.ty(&program)?;
        c.expect_end()?;
        program.declare_global(&name, ty, mutable);
    }
    Ok(program)
}

/// `{ name::T, ... }` to the end of the line.
fn parse_fields(c: &mut Cursor, names: &Program) -> Result<Vec<(String, Type)>, ParseError> {
    c.expect_punct("{")?;
    let mut fields: Vec<(String, Type)> = Vec::new();
    while !c.eat_punct("}") {
        if !fields.is_empty() {
            c.expect_punct(",")?;
        }
        let f = c.name("a field name")?;
        if fields.iter().any(|(g, _)| *g == f) {
            return Err(c.err(format!("field `{f}` is declared twice")));
        }
        c.expect_punct("::")?;
        fields.push((f, c.ty(names)?));
    }
    c.expect_end()?;
    Ok(fields)
}

/// A signature: name, parameter types, return type, parameter names.
type Signature = (String, Vec<Type>, Type, Vec<VarName>);

/// `fn name(_1::T, _2::T) -> T` (no arrow: returns nothing) and optionally
/// `# a, b`, the parameters' source names; parameters may also be written
/// as bare types.
fn parse_signature(line: &[Token], program: &Program) -> Result<Signature, ParseError> {
    let mut c = Cursor::new(line);
    c.expect_ident("fn")?;
    let name = c.name("a function name")?;
    let mut k = 0;
    let params = c.list(|c| {
        k += 1;
        if let Some(Tok::Arg(n)) = c.peek() {
            if *n != k {
                return Err(c.err(format!("expected parameter `_{k}`, found `_{n}`")));
            }
            c.next();
            c.expect_punct("::")?;
        }
        c.ty(program)
    })?;
    let ret = if c.eat_punct("->") {
        c.ty(program)?
    } else {
        Type::Void
    };
    let names: Vec<VarName> = match c.source_names() {
        Some(s) => s.split(',').map(|n| VarName::from(n.trim())).collect(),
        None => Vec::new(),
    };
    if !names.is_empty() && names.len() != params.len() {
        return Err(c.err(format!(
            "{} parameter names for {} parameters",
            names.len(),
            params.len()
        )));
    }
    c.expect_end()?;
    Ok((name, params, ret, names))
}

/// Parses one function alone (a module holding only it, see [`parse`]).
pub fn parse_function(text: &str) -> Result<IrCode, Vec<ParseError>> {
    let mut m = parse(text)?;
    match m.funcs.len() {
        1 => Ok(m.funcs.pop().expect("one function")),
        n => Err(vec![ParseError::new(
            0,
            0,
            format!("expected one function, found {n}"),
        )]),
    }
}
