//! A cursor over one line's tokens, with the small expectations every
//! parser of the IR text shares. Every method returns an error at the
//! token it stopped on (or the end of the line), never panics.

use super::ParseError;
use super::lexer::{Tok, Token};
use crate::sema::hir::Program;
use crate::types::Type;

pub struct Cursor<'a> {
    toks: &'a [Token],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(toks: &'a [Token]) -> Cursor<'a> {
        Cursor { toks, pos: 0 }
    }

    pub fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    pub fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    pub fn next(&mut self) -> Option<&'a Tok> {
        let t = self.peek();
        self.pos += usize::from(t.is_some());
        t
    }

    /// Skips a block-continuation marker (`│`, `└──`).
    pub fn eat_cont(&mut self) {
        self.pos += usize::from(self.peek() == Some(&Tok::Cont));
    }

    /// The line and column of the current token.
    pub fn position(&self) -> (u32, u32) {
        let e = self.err("");
        (e.line, e.col)
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// An error at the current token (or just past the line's last one).
    pub fn err(&self, msg: impl Into<String>) -> ParseError {
        let (line, col) = match self.toks.get(self.pos) {
            Some(t) => (t.line, t.col),
            None => self.toks.last().map_or((0, 0), |t| (t.line, t.col + 1)),
        };
        ParseError::new(line, col, msg.into())
    }

    /// What the current token is, for error messages.
    pub fn found(&self) -> String {
        match self.peek() {
            None => "the end of the line".into(),
            Some(t) => format!("`{}`", describe(t)),
        }
    }

    pub fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    pub fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(q)) if q == s)
    }

    /// Consumes `p` if it is next.
    pub fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        self.pos += usize::from(yes);
        yes
    }

    /// Consumes the name `s` if it is next.
    pub fn eat_ident(&mut self, s: &str) -> bool {
        let yes = self.is_ident(s);
        self.pos += usize::from(yes);
        yes
    }

    pub fn expect_punct(&mut self, p: &str) -> Result<(), ParseError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{p}`, found {}", self.found())))
        }
    }

    pub fn expect_ident(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat_ident(s) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{s}`, found {}", self.found())))
        }
    }

    /// Any name.
    pub fn name(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                Ok(s.clone())
            }
            _ => Err(self.err(format!("expected {what}, found {}", self.found()))),
        }
    }

    /// The text of a `# names` comment, if one is next.
    pub fn source_names(&mut self) -> Option<String> {
        match self.peek() {
            Some(Tok::SourceNames(s)) => {
                self.pos += 1;
                Some(s.clone())
            }
            _ => None,
        }
    }

    pub fn expect_end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err(format!(
                "unexpected {} at the end of the line",
                self.found()
            )))
        }
    }

    /// A type as `Program::type_name` writes it: `int`, `float`, `bool`,
    /// `str`, `()`, `[T]`, or a struct name of `program`.
    pub fn ty(&mut self, program: &Program) -> Result<Type, ParseError> {
        if self.eat_punct("[") {
            let elem = self.ty(program)?;
            self.expect_punct("]")?;
            return Ok(Type::Array(Box::new(elem)));
        }
        if self.eat_punct("(") {
            self.expect_punct(")")?;
            return Ok(Type::Void);
        }
        let err = self.err(format!("expected a type, found {}", self.found()));
        let name = self.name("a type").map_err(|_| err.clone())?;
        Ok(match name.as_str() {
            "int" => Type::Int,
            "float" => Type::Float,
            "bool" => Type::Bool,
            "str" => Type::Str,
            _ => match program.structs.iter().position(|s| s.name == name) {
                Some(i) => Type::Struct(crate::types::StructId(i as u32)),
                None => {
                    return Err(ParseError {
                        msg: format!("unknown type `{name}`"),
                        ..err
                    });
                }
            },
        })
    }

    /// A comma-separated list between `(` and `)`.
    pub fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Cursor<'a>) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        self.expect_punct("(")?;
        let mut out = Vec::new();
        if self.eat_punct(")") {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat_punct(")") {
                return Ok(out);
            }
            self.expect_punct(",")?;
        }
    }
}

/// A token as written.
pub fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => s.clone(),
        Tok::Int(i) => i.to_string(),
        Tok::Float(x) => format!("{x:?}"),
        Tok::Str(s) => format!("{s:?}"),
        Tok::Value(n) => format!("%{n}"),
        Tok::Arg(n) => format!("_{n}"),
        Tok::Block(n) => format!("#{n}"),
        Tok::Global(s) => format!("@{s}"),
        Tok::BlockStart => "─".into(),
        Tok::Cont => "│".into(),
        Tok::Punct(p) => p.to_string(),
        Tok::SourceNames(s) => format!("# {s}"),
    }
}
