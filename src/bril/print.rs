//! Writing a Bril program: the text format as `bril2txt` prints it, and
//! JSON as `bril2json` writes it (keys sorted, two-space indent). Both read
//! back with [`super::text::parse`] and [`super::json::parse`] into an
//! equal program (spans aside).
//!
//! A float literal is written as Rust's `{:?}` writes an `f64` (`1.5`,
//! `1e100`, `-0.0`): the shortest text that reads back as the same number,
//! in a form both `bril2json` and toyc accept. Non-finite floats have no
//! literal in either format; the caller never asks for one.
use super::ast::{BrilType, Function, Instr, Item, Literal, Program};
use serde_json::{Map, Value, json};
use std::fmt::Write as _;

/// The text format: each function as `@name(a: int): int {`, a label per
/// line as `.name:`, each instruction indented by two spaces and ended by
/// `;`. Operands are written in `bril2txt`'s order: callees, variables,
/// labels.
pub fn to_text(prog: &Program) -> String {
    let mut out = String::new();
    for f in &prog.functions {
        function_text(&mut out, f);
    }
    out
}

fn function_text(out: &mut String, f: &Function) {
    out.push('@');
    out.push_str(&f.name);
    if !f.params.is_empty() {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name, p.ty))
            .collect();
        let _ = write!(out, "({})", params.join(", "));
    }
    if let Some(t) = &f.ret {
        let _ = write!(out, ": {t}");
    }
    out.push_str(" {\n");
    for item in &f.items {
        match item {
            Item::Label { name, .. } => {
                let _ = writeln!(out, ".{name}:");
            }
            Item::Instr(i) => {
                let _ = writeln!(out, "  {};", instr_text(i));
            }
        }
    }
    out.push_str("}\n");
}

fn instr_text(i: &Instr) -> String {
    let mut rhs = i.op.clone();
    if let Some(v) = &i.value {
        rhs.push(' ');
        rhs.push_str(&literal_text(v));
    }
    for f in &i.funcs {
        let _ = write!(rhs, " @{f}");
    }
    for a in &i.args {
        let _ = write!(rhs, " {a}");
    }
    for l in &i.labels {
        let _ = write!(rhs, " .{l}");
    }
    match (&i.dest, &i.ty) {
        (Some(d), Some(t)) => format!("{d}: {t} = {rhs}"),
        (Some(d), None) => format!("{d} = {rhs}"),
        _ => rhs,
    }
}

fn literal_text(v: &Literal) -> String {
    match v {
        Literal::Int(n) => n.to_string(),
        Literal::Float(x) => format!("{x:?}"),
        Literal::Bool(b) => b.to_string(),
        Literal::Char(c) => match c {
            '\0' => "'\\0'".into(),
            '\u{7}' => "'\\a'".into(),
            '\u{8}' => "'\\b'".into(),
            '\t' => "'\\t'".into(),
            '\n' => "'\\n'".into(),
            '\u{b}' => "'\\v'".into(),
            '\u{c}' => "'\\f'".into(),
            '\r' => "'\\r'".into(),
            c => format!("'{c}'"),
        },
    }
}

/// `bril2json`'s JSON: `{"functions": [...]}`, each instruction an object
/// with only the keys it has (`op`, `dest`, `type`, `args`, `funcs`,
/// `labels`, `value`), a label as `{"label": name}`, `ptr<T>` as
/// `{"ptr": T}`.
pub fn to_json(prog: &Program) -> String {
    let funcs: Vec<Value> = prog.functions.iter().map(function_json).collect();
    let mut text = serde_json::to_string_pretty(&json!({ "functions": funcs }))
        .unwrap_or_else(|e| unreachable!("a JSON value always serializes: {e}"));
    text.push('\n');
    text
}

fn function_json(f: &Function) -> Value {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(f.name));
    if !f.params.is_empty() {
        let params: Vec<Value> = f
            .params
            .iter()
            .map(|p| json!({ "name": p.name, "type": type_json(&p.ty) }))
            .collect();
        obj.insert("args".into(), Value::Array(params));
    }
    if let Some(t) = &f.ret {
        obj.insert("type".into(), type_json(t));
    }
    let instrs: Vec<Value> = f
        .items
        .iter()
        .map(|item| match item {
            Item::Label { name, .. } => json!({ "label": name }),
            Item::Instr(i) => instr_json(i),
        })
        .collect();
    obj.insert("instrs".into(), Value::Array(instrs));
    Value::Object(obj)
}

fn instr_json(i: &Instr) -> Value {
    let mut obj = Map::new();
    obj.insert("op".into(), json!(i.op));
    if let Some(d) = &i.dest {
        obj.insert("dest".into(), json!(d));
    }
    if let Some(t) = &i.ty {
        obj.insert("type".into(), type_json(t));
    }
    for (key, list) in [
        ("args", &i.args),
        ("funcs", &i.funcs),
        ("labels", &i.labels),
    ] {
        if !list.is_empty() {
            obj.insert(key.into(), json!(list));
        }
    }
    if let Some(v) = &i.value {
        let v = match v {
            Literal::Int(n) => json!(n),
            Literal::Float(x) => json!(x),
            Literal::Bool(b) => json!(b),
            Literal::Char(c) => json!(c.to_string()),
        };
        obj.insert("value".into(), v);
    }
    Value::Object(obj)
}

fn type_json(t: &BrilType) -> Value {
    match t {
        BrilType::Ptr(inner) => json!({ "ptr": type_json(inner) }),
        t => json!(t.to_string()),
    }
}
