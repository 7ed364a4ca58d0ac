//! Prints a fuzz [`Program`] as Toy source and records, in every node's
//! `pos`, the line and column where its text starts.
//!
//! Invariants: the output parses as Toy and means the program; a binary or
//! unary operand that is itself an operator expression is parenthesised, and
//! a node's `pos` is the position of its first character *including* the
//! parentheses printed around it (that is where toyc reports a runtime
//! error thrown by the node). Columns count characters, not bytes.

use super::ast::*;
use super::stdlib;
use std::collections::HashSet;

struct Printer {
    out: String,
    line: u32,
    col: u32,
    indent: usize,
    /// Function names, for calls.
    names: Vec<String>,
    /// Printing the module file (positions say so).
    in_module: bool,
    /// Printing the main file of a split program: globals and calls of
    /// `funcs[module_from..]` are written qualified, `fzm.NAME`.
    qualify: Option<(usize, HashSet<String>)>,
}

/// The text of a program: its main file and, for a split program, the
/// module file [`MODULE`]`.toy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sources {
    pub main: String,
    pub module: Option<String>,
}

impl Sources {
    /// Both files, for reports: the main file, then the module after a
    /// `// fzm.toy` line.
    pub fn text(&self) -> String {
        match &self.module {
            Some(m) => format!("{}// {MODULE}.toy\n{m}", self.main),
            None => self.main.clone(),
        }
    }
}

/// Prints `p` and fills every `pos` field.
pub fn print_program(p: &mut Program) -> Sources {
    let names: Vec<String> = p.funcs.iter().map(|f| f.name.clone()).collect();
    let new = |in_module, qualify| Printer {
        out: String::new(),
        line: 1,
        col: 1,
        indent: 0,
        names: names.clone(),
        in_module,
        qualify,
    };
    let structs = p.structs.clone();
    let Some(k) = p.module_from else {
        let mut pr = new(false, None);
        pr.imports(&stdlib::modules_of(&p.globals, &p.funcs), false);
        pr.items(&structs, &structs, &mut p.globals, &mut p.funcs);
        return Sources {
            main: pr.out,
            module: None,
        };
    };
    let k = k.min(p.funcs.len());
    let (main_funcs, module_funcs) = p.funcs.split_at_mut(k);
    let mut md = new(true, None);
    md.imports(&stdlib::modules_of(&p.globals, module_funcs), false);
    md.items(&structs, &structs, &mut p.globals, module_funcs);
    let globals = p.globals.iter().map(|g| g.name.clone()).collect();
    let mut pr = new(false, Some((k, globals)));
    pr.imports(&stdlib::modules_of(&[], main_funcs), true);
    let mut qualified = structs.clone();
    for s in &mut qualified {
        s.name = format!("{MODULE}.{}", s.name);
    }
    pr.items(&qualified, &[], &mut [], main_funcs);
    Sources {
        main: pr.out,
        module: Some(md.out),
    }
}

impl Printer {
    /// The `import` lines: the user module (if `user`) and the standard
    /// library modules used.
    fn imports(&mut self, used: &[stdlib::Module], user: bool) {
        if user {
            self.put(&format!("import {MODULE};"));
            self.newline();
        }
        for m in used {
            self.put(&format!("import {};", m.name()));
            self.newline();
        }
    }

    /// Struct declarations, globals and functions; `st` names the structs
    /// as this file spells them.
    fn items(
        &mut self,
        st: &[StructDef],
        decls: &[StructDef],
        globals: &mut [Global],
        funcs: &mut [Func],
    ) {
        for s in decls {
            let fields = typed_names(st, &s.fields);
            self.put(&format!("struct {} {{ {fields} }}", s.name));
            self.newline();
        }
        for g in globals {
            g.pos = self.pos();
            let kw = if g.mutable { "var" } else { "let" };
            self.put(&format!("{kw} {}: {} = ", g.name, ty_text(st, &g.ty)));
            self.expr(st, &mut g.init);
            self.put(";");
            self.newline();
        }
        for f in funcs {
            let params = typed_names(st, &f.params);
            self.put(&format!("fn {}({params})", f.name));
            if let Some(t) = &f.ret {
                self.put(&format!(" -> {}", ty_text(st, t)));
            }
            self.put(" ");
            self.block(st, &mut f.body);
            self.newline();
        }
    }

    /// A variable's name as this file spells it (a global of the module is
    /// qualified in the main file).
    fn var_name(&self, n: &str) -> String {
        match &self.qualify {
            Some((_, globals)) if globals.contains(n) => format!("{MODULE}.{n}"),
            _ => n.to_string(),
        }
    }

    /// A function's name as this file spells it.
    fn func_name(&self, f: usize) -> String {
        match &self.qualify {
            Some((k, _)) if f >= *k => format!("{MODULE}.{}", self.names[f]),
            _ => self.names[f].clone(),
        }
    }
}

/// `a: int, b: [S0]`: fields or parameters with their types.
fn typed_names(st: &[StructDef], list: &[(String, Ty)]) -> String {
    let typed: Vec<String> = list
        .iter()
        .map(|(n, t)| format!("{n}: {}", ty_text(st, t)))
        .collect();
    typed.join(", ")
}

/// The Toy spelling of a type.
pub fn ty_text(structs: &[StructDef], t: &Ty) -> String {
    match t {
        Ty::Int => "int".into(),
        Ty::Float => "float".into(),
        Ty::Bool => "bool".into(),
        Ty::Str => "str".into(),
        Ty::Arr(e) => format!("[{}]", ty_text(structs, e)),
        Ty::Struct(i) => structs[*i].name.clone(),
    }
}

/// A Toy string literal for `s`.
pub fn str_lit(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Toy float literal for a finite, non-negative `f`.
fn float_lit(f: f64) -> String {
    format!("{f:?}")
}

impl Printer {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
            in_module: self.in_module,
        }
    }
    fn put(&mut self, s: &str) {
        for c in s.chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.out.push_str(s);
    }
    fn newline(&mut self) {
        self.put("\n");
    }
    fn start_line(&mut self) {
        let pad = "    ".repeat(self.indent);
        self.put(&pad);
    }

    fn block(&mut self, st: &[StructDef], body: &mut [Stmt]) {
        self.put("{");
        self.newline();
        self.indent += 1;
        for s in body.iter_mut() {
            self.start_line();
            self.stmt(st, s);
            self.newline();
        }
        self.indent -= 1;
        self.start_line();
        self.put("}");
    }

    fn label(&mut self, label: &Option<String>) {
        if let Some(l) = label {
            self.put(&format!("'{l}: "));
        }
    }

    fn stmt(&mut self, st: &[StructDef], s: &mut Stmt) {
        s.pos = self.pos();
        match &mut s.kind {
            StmtKind::Let {
                name,
                mutable,
                ty,
                annotate,
                init,
            } => {
                let kw = if *mutable { "var" } else { "let" };
                self.put(&format!("{kw} {name}"));
                if *annotate {
                    self.put(&format!(": {}", ty_text(st, ty)));
                }
                self.put(" = ");
                self.expr(st, init);
                self.put(";");
            }
            StmtKind::Assign { place, op, value } => self.assign(st, place, *op, value),
            StmtKind::Print { newline, args } => {
                self.put(if *newline { "print(" } else { "write(" });
                self.args(st, args);
                self.put(");");
            }
            StmtKind::Push(a, v) => {
                self.put("push(");
                self.expr(st, a);
                self.put(", ");
                self.expr(st, v);
                self.put(");");
            }
            StmtKind::Expr(e) => {
                self.expr(st, e);
                self.put(";");
            }
            StmtKind::Exit(c) => {
                self.put("exit(");
                self.expr(st, c);
                self.put(");");
            }
            StmtKind::Assert(c, msg) => {
                self.put("assert(");
                self.expr(st, c);
                if let Some(m) = msg {
                    self.put(&format!(", {}", str_lit(m)));
                }
                self.put(");");
            }
            StmtKind::If(..)
            | StmtKind::While { .. }
            | StmtKind::ForRange { .. }
            | StmtKind::ForEach { .. }
            | StmtKind::Try { .. } => self.control(st, &mut s.kind),
            StmtKind::Break(l) => self.put(&jump("break", l)),
            StmtKind::Continue(l) => self.put(&jump("continue", l)),
            StmtKind::Return(e) => {
                self.put("return");
                if let Some(e) = e {
                    self.put(" ");
                    self.expr(st, e);
                }
                self.put(";");
            }
            StmtKind::Throw(e) => {
                self.put("throw ");
                self.expr(st, e);
                self.put(";");
            }
            StmtKind::Block(b) => self.block(st, b),
        }
    }

    /// A statement with blocks: `if`, the loops and `try`.
    fn control(&mut self, st: &[StructDef], kind: &mut StmtKind) {
        match kind {
            StmtKind::If(c, then, els) => {
                self.put("if ");
                self.expr(st, c);
                self.put(" ");
                self.block(st, then);
                if let Some(e) = els {
                    self.put(" else ");
                    self.block(st, e);
                }
            }
            StmtKind::While { label, cond, body } => {
                self.label(label);
                self.put("while ");
                self.expr(st, cond);
                self.put(" ");
                self.block(st, body);
            }
            StmtKind::ForRange {
                label,
                var,
                lo,
                hi,
                body,
            } => {
                self.label(label);
                self.put(&format!("for {var} in "));
                self.expr(st, lo);
                self.put("..");
                self.expr(st, hi);
                self.put(" ");
                self.block(st, body);
            }
            StmtKind::ForEach {
                label,
                var,
                arr,
                body,
                ..
            } => {
                self.label(label);
                self.put(&format!("for {var} in "));
                self.expr(st, arr);
                self.put(" ");
                self.block(st, body);
            }
            StmtKind::Try { body, var, handler } => {
                self.put("try ");
                self.block(st, body);
                self.put(&format!(" catch {var} "));
                self.block(st, handler);
            }
            _ => unreachable!("not a control statement"),
        }
    }

    fn assign(&mut self, st: &[StructDef], place: &mut Place, op: Option<BinOp>, value: &mut Expr) {
        match place {
            Place::Var(n) => self.put(&self.var_name(n)),
            Place::Index(a, i) => {
                self.postfix_base(st, a);
                self.put("[");
                self.expr(st, i);
                self.put("]");
            }
            Place::Field(p, sid, f) => {
                self.postfix_base(st, p);
                self.put(&format!(".{}", st[*sid].fields[*f].0));
            }
        }
        match op {
            Some(op) => self.put(&format!(" {}= ", op.text())),
            None => self.put(" = "),
        }
        self.expr(st, value);
        self.put(";");
    }

    fn args(&mut self, st: &[StructDef], args: &mut [Expr]) {
        for (k, a) in args.iter_mut().enumerate() {
            if k > 0 {
                self.put(", ");
            }
            self.expr(st, a);
        }
    }

    /// An operand of an operator: parenthesised if it is an operator itself.
    fn operand(&mut self, st: &[StructDef], e: &mut Expr) {
        let paren = matches!(
            e.kind,
            ExprKind::Binary(..) | ExprKind::Neg(_) | ExprKind::Not(_)
        );
        self.maybe_paren(st, e, paren);
    }

    /// The base of `a[i]` / `p.f`: parenthesised unless it is a name,
    /// call, index or field.
    fn postfix_base(&mut self, st: &[StructDef], e: &mut Expr) {
        let plain = matches!(
            e.kind,
            ExprKind::Var(_)
                | ExprKind::Call(..)
                | ExprKind::Builtin(..)
                | ExprKind::Lib(..)
                | ExprKind::Index(..)
                | ExprKind::Field(..)
        );
        self.maybe_paren(st, e, !plain);
    }

    fn maybe_paren(&mut self, st: &[StructDef], e: &mut Expr, paren: bool) {
        if paren {
            let start = self.pos();
            self.put("(");
            self.expr(st, e);
            self.put(")");
            e.pos = start;
        } else {
            self.expr(st, e);
        }
    }

    fn expr(&mut self, st: &[StructDef], e: &mut Expr) {
        e.pos = self.pos();
        match &mut e.kind {
            ExprKind::Int(v) if *v < 0 => self.put(&format!("({v})")),
            // Some literals in hexadecimal or binary, to cover the lexer.
            ExprKind::Int(v) if *v > 1 && *v % 7 == 3 => self.put(&format!("{v:#x}")),
            ExprKind::Int(v) if *v > 1 && *v % 7 == 5 && *v < 1 << 20 => {
                self.put(&format!("{v:#b}"))
            }
            ExprKind::Int(v) => self.put(&v.to_string()),
            ExprKind::Float(f) => self.put(&float_expr(*f)),
            ExprKind::Bool(b) => self.put(if *b { "true" } else { "false" }),
            ExprKind::Str(s) => self.put(&str_lit(s)),
            ExprKind::Nil(_) => self.put("nil"),
            ExprKind::Var(n) => self.put(&self.var_name(n)),
            ExprKind::Neg(x) => {
                self.put("-");
                self.operand(st, x);
            }
            ExprKind::Not(x) => {
                self.put("!");
                self.operand(st, x);
            }
            ExprKind::Binary(op, l, r) => {
                self.operand(st, l);
                self.put(&format!(" {} ", op.text()));
                self.operand(st, r);
            }
            ExprKind::Call(f, args) => {
                self.put(&format!("{}(", self.func_name(*f)));
                self.args(st, args);
                self.put(")");
            }
            ExprKind::Builtin(b, args) => {
                self.put(&format!("{}(", b.name()));
                self.args(st, args);
                self.put(")");
            }
            ExprKind::Lib(f, _) if f.is_const() => {
                self.put(&format!("{}.{}", f.module().name(), f.name()))
            }
            ExprKind::Lib(f, args) => {
                self.put(&format!("{}.{}(", f.module().name(), f.name()));
                self.args(st, args);
                self.put(")");
            }
            ExprKind::Index(a, i) => {
                self.postfix_base(st, a);
                self.put("[");
                self.expr(st, i);
                self.put("]");
            }
            ExprKind::Field(p, sid, f) => {
                self.postfix_base(st, p);
                self.put(&format!(".{}", st[*sid].fields[*f].0));
            }
            ExprKind::ArrayLit(_, elems) => {
                self.put("[");
                self.args(st, elems);
                self.put("]");
            }
            ExprKind::ArrayRep(x, n) => {
                self.put("[");
                self.expr(st, x);
                self.put("; ");
                self.expr(st, n);
                self.put("]");
            }
            ExprKind::StructLit(sid, fields) => {
                // Always parenthesised: a struct literal may not stand bare
                // in an `if`/`while` condition.
                self.put(&format!("({} {{ ", st[*sid].name));
                for (k, (f, v)) in fields.iter_mut().enumerate() {
                    if k > 0 {
                        self.put(", ");
                    }
                    self.put(&format!("{}: ", st[*sid].fields[*f].0));
                    self.expr(st, v);
                }
                self.put(" })");
            }
        }
    }
}

fn jump(kw: &str, label: &Option<String>) -> String {
    match label {
        Some(l) => format!("{kw} '{l};"),
        None => format!("{kw};"),
    }
}

/// Toy text for any float value: literals for finite non-negative values,
/// expressions for the rest.
fn float_expr(f: f64) -> String {
    if f.is_nan() {
        "(0.0 / 0.0)".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "(1.0 / 0.0)".into()
        } else {
            "(-1.0 / 0.0)".into()
        }
    } else if f.is_sign_negative() {
        format!("(-{})", float_lit(-f))
    } else {
        float_lit(f)
    }
}
