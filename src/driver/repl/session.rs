//! The state of a REPL session and how one line becomes a program.
//!
//! Every line is compiled and run as a whole program, put together from
//! what the session has kept:
//!
//! ```text
//! import ...;                         the kept `import` lines
//! fn ... / struct ...                 the kept item lines (a name defined
//!                                     again replaces the earlier one)
//! var x: T = LITERAL;                 the session's variables, with the
//!                                     values they had after the last line
//! <this line>                         items at top level, or statements in
//!                                     `fn __line() { ... }`, or an
//!                                     expression as `print(...)` there
//! fn main() { __line(); <values> }    prints the variables' values
//! ```
//!
//! A line of `let`/`var` declarations defines session variables: they
//! become globals of the program, initialised by the line. After a line
//! runs, `main` prints every variable's value as a Toy literal (after a
//! sentinel line in the captured output), and the next program declares the
//! variable with that literal. So no earlier line runs again and no side
//! effect repeats; the price is that a value is copied, not shared: two
//! variables that referred to the same array refer to two equal arrays
//! after the line that made them, and a cyclic struct value cannot be
//! kept (docs/repl.md).
//!
//! Each kept line is a [`Segment`] of the program's text named `<line N>`,
//! and each variable's declaration one named `<variable NAME>`, so runtime
//! errors name the line, and compile errors are shown against the line
//! alone ([`Session::render`]). A value that cannot be written back as a
//! literal (a cyclic struct, which Toy prints cut off with `...`; a struct
//! of an imported module, printed without its module name) makes its
//! declaration fail to compile; the REPL then forgets that variable
//! ([`Program::variables_in`]).

use crate::diag::Diagnostic;
use crate::span::{FileId, Segment, SourceMap, Span};
use crate::syntax::ast;

/// The name of the function that holds a statement or expression line.
pub const LINE_FN: &str = "__line";

/// What the program prints after a line's own output, before the values.
pub const SENTINEL: &str = "\u{1}toyc-repl-values";

/// A line the session keeps, with its number (from 1).
#[derive(Clone, Debug)]
pub struct Piece {
    pub line: usize,
    pub text: String,
}

/// A session variable: a global of every later program.
#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub mutable: bool,
    /// The type as Toy writes it (`[int]`, `Point`).
    pub ty: String,
    /// Its value after the last line, as a Toy expression.
    pub literal: String,
}

/// How a line is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    /// Items at top level (`fn`, `struct`, `import`, `let`, `var`).
    Items,
    /// Statements, in the body of [`LINE_FN`].
    Statements,
    /// An expression whose value is printed.
    Expression,
}

/// What a session has kept.
#[derive(Default)]
pub struct Session {
    pub imports: Vec<(String, Piece)>,
    /// `fn` and `struct` items, each line with the names it defines.
    pub items: Vec<(Vec<String>, Piece)>,
    pub variables: Vec<Variable>,
}

/// A program put together for one line: its text, the kept lines in it,
/// and the names of the variables its `main` prints.
pub struct Program {
    pub text: String,
    pub segments: Vec<Segment>,
    pub printed: Vec<String>,
}

/// The names a line of items defines, by kind.
#[derive(Default)]
pub struct Defines {
    pub imports: Vec<String>,
    pub items: Vec<String>,
    pub globals: Vec<String>,
}

impl Defines {
    pub fn of(module: &ast::Module) -> Defines {
        let mut d = Defines::default();
        for item in &module.items {
            match item {
                ast::Item::Import(i) => d.imports.push(i.name.name.clone()),
                ast::Item::Struct(s) => d.items.push(s.name.name.clone()),
                ast::Item::Fn(f) => d.items.push(f.name.name.clone()),
                ast::Item::Global(g) => d.globals.push(g.name.name.clone()),
            }
        }
        d
    }
    fn all(&self) -> impl Iterator<Item = &String> {
        self.items.iter().chain(&self.globals)
    }
}

/// How `text` is to be run: as items if it parses as items, as statements
/// if it parses in a function body, as an expression if it parses as
/// `print`'s argument; statements otherwise (whose errors are then shown).
pub fn classify(text: &str) -> (Form, Option<ast::Module>) {
    let file = FileId(0);
    let (module, errors) = crate::syntax::parse(file, text);
    if errors.is_empty() && !module.items.is_empty() {
        return (Form::Items, Some(module));
    }
    let body = format!("fn {LINE_FN}() {{\n{text}\n}}");
    if crate::syntax::parse(file, &body).1.is_empty() {
        return (Form::Statements, None);
    }
    let expr = format!("fn {LINE_FN}() {{\nprint({text});\n}}");
    if crate::syntax::parse(file, &expr).1.is_empty() {
        return (Form::Expression, None);
    }
    (Form::Statements, None)
}

impl Session {
    /// The program for the line `piece` run as `form` (`None`: only what
    /// the session kept, for `:ir` and the like). `defines` are the names
    /// an item line defines, which replace the kept ones.
    pub fn program(&self, line: Option<(&Piece, Form)>, defines: &Defines) -> Program {
        let mut p = Program {
            text: String::new(),
            segments: Vec::new(),
            printed: Vec::new(),
        };
        let new_items = matches!(line, Some((_, Form::Items)));
        for (name, piece) in &self.imports {
            if !(new_items && defines.imports.contains(name)) {
                p.push_piece(piece, "", "\n");
            }
        }
        if let Some((piece, Form::Items)) = line
            && !defines.imports.is_empty()
        {
            p.push_piece(piece, "", "\n");
        }
        let replaced = |name: &String| new_items && defines.all().any(|d| d == name);
        for (names, piece) in &self.items {
            if !names.iter().any(replaced) {
                p.push_piece(piece, "", "\n");
            }
        }
        for (name, parse) in DECODERS {
            let call = format!("{name}(");
            if self.variables.iter().any(|v| v.literal.starts_with(&call)) {
                p.text.push_str(&decoder(name, parse));
            }
        }
        for v in &self.variables {
            if !replaced(&v.name) {
                let kw = if v.mutable { "var" } else { "let" };
                let decl = format!("{kw} {}: {} = {};", v.name, v.ty, v.literal);
                p.push_segment(&decl, variable_segment(&v.name), "\n");
                p.printed.push(v.name.clone());
            }
        }
        let mut calls_line = false;
        match line {
            Some((piece, Form::Items)) if defines.imports.is_empty() => {
                p.push_piece(piece, "", "\n");
                p.printed.extend(defines.globals.iter().cloned());
            }
            Some((_, Form::Items)) | None => {}
            Some((piece, Form::Statements)) => {
                p.push_piece(piece, &format!("fn {LINE_FN}() {{\n"), "\n}\n");
                calls_line = true;
            }
            Some((piece, Form::Expression)) => {
                p.push_piece(piece, &format!("fn {LINE_FN}() {{\nprint("), ");\n}\n");
                calls_line = true;
            }
        }
        p.text.push_str("fn main() {\n");
        if calls_line {
            p.text.push_str(&format!("    {LINE_FN}();\n"));
        }
        p.text
            .push_str(&format!("    print(\"{}\");\n", SENTINEL.escape_unicode()));
        for name in &p.printed {
            p.text.push_str(&format!("    print([{name}]);\n"));
        }
        p.text.push_str("}\n");
        p
    }

    /// Forgets the variables named.
    pub fn forget(&mut self, names: &[String]) {
        self.variables.retain(|v| !names.contains(&v.name));
    }

    /// The program for `piece` as a statement line with `;` added: an
    /// expression line whose value cannot be printed (a call of a function
    /// that returns nothing) runs this way.
    pub fn statement_program(&self, piece: &Piece) -> Program {
        let mut p = self.program(Some((piece, Form::Statements)), &Defines::default());
        // `fn __line() {\nTEXT\n}`: put the `;` after TEXT, outside its segment.
        let seg_end = p.segments.last().map_or(0, |s| s.end as usize);
        p.text.insert(seg_end, ';');
        p
    }

    /// Records what a line that ran kept: its imports and items, and the
    /// variables' values printed after `sentinel` in `output` (types from
    /// the checked `program`). Returns the line's own output.
    pub fn keep(
        &mut self,
        piece: &Piece,
        form: Form,
        defines: &Defines,
        printed: &[String],
        output: &[u8],
        program: &crate::sema::hir::Program,
    ) -> Vec<u8> {
        let text = String::from_utf8_lossy(output);
        let marker = format!("{SENTINEL}\n");
        let (own, values) = match text.find(&marker) {
            Some(at) => (&text[..at], &text[at + marker.len()..]),
            None => (&text[..], ""),
        };
        if form == Form::Items {
            if !defines.imports.is_empty() {
                self.imports.retain(|(n, _)| !defines.imports.contains(n));
                for name in &defines.imports {
                    self.imports.push((name.clone(), piece.clone()));
                }
            } else {
                let all: Vec<&String> = defines.all().collect();
                self.items
                    .retain(|(names, _)| !names.iter().any(|n| all.contains(&n)));
                self.variables.retain(|v| !all.contains(&&v.name));
                if !defines.items.is_empty() {
                    self.items.push((defines.items.clone(), piece.clone()));
                }
            }
        }
        for (name, line) in printed.iter().zip(values.lines()) {
            match self.variables.iter_mut().find(|v| &v.name == name) {
                Some(v) => v.literal = value_expr(&v.ty, line),
                None => {
                    let Some(g) = program.globals.iter().find(|g| &g.name == name) else {
                        continue;
                    };
                    let ty = program.type_name(&g.ty);
                    self.variables.push(Variable {
                        name: name.clone(),
                        mutable: g.mutable,
                        literal: value_expr(&ty, line),
                        ty,
                    });
                }
            }
        }
        own.as_bytes().to_vec()
    }

    /// Renders `diags` (of a program whose main file is `main`) with every
    /// span inside a kept line shown against that line alone.
    pub fn render(sources: &SourceMap, main: FileId, diags: &[Diagnostic], colour: bool) -> String {
        let mut shown = SourceMap::new();
        for (_, f) in sources.files() {
            shown.add(f.name.clone(), f.path.clone(), f.text.clone());
        }
        let file = sources.get(main);
        let remap = |span: Span, shown: &mut SourceMap| -> Span {
            if span.file != main {
                return span;
            }
            let Some(seg) = file.segment_at(span) else {
                return span;
            };
            let text = file.text[seg.start as usize..seg.end as usize].to_string();
            let id = shown.add(seg.name.clone(), None, text);
            Span {
                file: id,
                start: span.start - seg.start,
                end: span.end - seg.start,
            }
        };
        let mut out = Vec::new();
        for d in diags {
            let mut d = d.clone();
            d.span = remap(d.span, &mut shown);
            for (span, _) in &mut d.secondary {
                *span = remap(*span, &mut shown);
            }
            out.push(d);
        }
        crate::diag::render(&shown, &out, colour)
    }
}

impl Program {
    fn push_piece(&mut self, piece: &Piece, before: &str, after: &str) {
        self.text.push_str(before);
        self.push_segment(&piece.text, format!("<line {}>", piece.line), after);
    }

    fn push_segment(&mut self, text: &str, name: String, after: &str) {
        let start = self.text.len() as u32;
        self.text.push_str(text);
        self.segments.push(Segment {
            start,
            end: self.text.len() as u32,
            name,
        });
        self.text.push_str(after);
    }

    /// The session variables whose declarations `diags` point into.
    pub fn variables_in(&self, diags: &[Diagnostic]) -> Vec<String> {
        let mut names = Vec::new();
        for d in diags {
            let Some(seg) = self
                .segments
                .iter()
                .find(|s| s.start <= d.span.start && d.span.end <= s.end)
            else {
                continue;
            };
            if let Some(name) = seg
                .name
                .strip_prefix("<variable ")
                .and_then(|n| n.strip_suffix('>'))
                && !names.iter().any(|n| n == name)
            {
                names.push(name.to_string());
            }
        }
        names
    }
}

/// The name of a session variable's declaration in a program.
fn variable_segment(name: &str) -> String {
    format!("<variable {name}>")
}

/// The functions that decode an `[int]` or `[float]` value kept as a
/// string ([`value_expr`]), and their names.
const DECODERS: [(&str, &str); 2] = [(DECODE_INTS, "parse_int"), (DECODE_FLOATS, "parse_float")];
const DECODE_INTS: &str = "__repl_ints";
const DECODE_FLOATS: &str = "__repl_floats";

/// The Toy function `NAME(s: str) -> [T]` that splits `s` at commas and
/// parses each part with `parse`.
fn decoder(name: &str, parse: &str) -> String {
    let ty = if parse == "parse_int" { "int" } else { "float" };
    format!(
        "fn {name}(s: str) -> [{ty}] {{ var out: [{ty}] = []; var i = 0; \
         while i < len(s) {{ var j = i; while j < len(s) && s[j] != 44 {{ j += 1; }} \
         push(out, {parse}(substr(s, i, j))); i = j + 1; }} return out; }}\n"
    )
}

/// The expression that recreates a value of type `ty` printed by
/// `print([x])` as `printed`. An `[int]` or `[float]` becomes a call that
/// decodes a string (`__repl_ints("1,2,3")`): an array literal of 100,000
/// elements would be 100,000 stores for the compiler to optimise in every
/// later line, a string constant is one. Anything else is [`toy_literal`].
fn value_expr(ty: &str, printed: &str) -> String {
    let decode = match ty {
        "[int]" => DECODE_INTS,
        "[float]" => DECODE_FLOATS,
        _ => return toy_literal(printed),
    };
    let inner = printed
        .strip_prefix("[[")
        .and_then(|s| s.strip_suffix("]]"))
        .unwrap_or("");
    format!("{decode}(\"{}\")", inner.replace(' ', ""))
}

/// A value as `print([x])` printed it (`[LITERAL]`), as a Toy expression:
/// the brackets removed, and the floats Toy has no literal for written as
/// divisions (`NaN` as `(0.0 / 0.0)`, `inf` as `(1.0 / 0.0)`).
fn toy_literal(printed: &str) -> String {
    let inner = printed
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(printed);
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    let mut in_str = false;
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        if c == '"' {
            in_str = true;
            out.push(c);
        } else if c.is_ascii_alphabetic() || c == '_' {
            let mut word = String::from(c);
            while let Some(&n) = chars
                .peek()
                .filter(|n| n.is_ascii_alphanumeric() || **n == '_')
            {
                word.push(n);
                chars.next();
            }
            out.push_str(match word.as_str() {
                "NaN" => "(0.0 / 0.0)",
                "inf" => "(1.0 / 0.0)",
                _ => &word,
            });
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_values_become_literals() {
        assert_eq!(toy_literal("[3]"), "3");
        assert_eq!(toy_literal("[[1, 2]]"), "[1, 2]");
        assert_eq!(toy_literal("[NaN]"), "(0.0 / 0.0)");
        assert_eq!(toy_literal("[-inf]"), "-(1.0 / 0.0)");
        assert_eq!(toy_literal("[\"inf \\\" NaN\"]"), "\"inf \\\" NaN\"");
        assert_eq!(
            toy_literal("[P { x: inf, name: \"a\" }]"),
            "P { x: (1.0 / 0.0), name: \"a\" }"
        );
    }

    #[test]
    fn number_arrays_are_kept_as_strings() {
        assert_eq!(
            value_expr("[int]", "[[1, -2, 3]]"),
            "__repl_ints(\"1,-2,3\")"
        );
        assert_eq!(value_expr("[int]", "[[]]"), "__repl_ints(\"\")");
        assert_eq!(
            value_expr("[float]", "[[NaN, -inf, 1e100]]"),
            "__repl_floats(\"NaN,-inf,1e100\")"
        );
        assert_eq!(value_expr("[str]", "[[\"a b\"]]"), "[\"a b\"]");
    }

    #[test]
    fn lines_are_classified_by_what_they_parse_as() {
        assert_eq!(classify("fn f() -> int { return 1; }").0, Form::Items);
        assert_eq!(classify("let x = 1;").0, Form::Items);
        assert_eq!(classify("import math;").0, Form::Items);
        assert_eq!(classify("print(1);").0, Form::Statements);
        assert_eq!(classify("x = 2;").0, Form::Statements);
        assert_eq!(classify("1 + 2").0, Form::Expression);
        assert_eq!(classify("f(3)").0, Form::Expression);
        assert_eq!(classify("1 +").0, Form::Statements);
    }
}
