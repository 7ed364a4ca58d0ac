//! Bril's canonical JSON form (what `bril2json` writes), read with
//! `serde_json` into the same [`ast::Program`] as the text format.
//!
//! `serde_json` values carry no positions, so [`object_starts`] finds them
//! in the text: every function and instruction gets the span of the `{`
//! that opens its object, and an error inside one points there (and names
//! it). A JSON syntax error has serde's line and column.
use super::ast::{BrilType, Function, Instr, Item, Literal, Param, Program};
use crate::diag::Diagnostic;
use crate::span::{FileId, Span};
use serde_json::{Map, Value};

/// Parses a whole JSON file.
pub fn parse(file: FileId, text: &str) -> Result<Program, Vec<Diagnostic>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let at = offset_of(text, e.line(), e.column());
        vec![Diagnostic::error(
            Span::new(file, at, at),
            format!("invalid JSON: {e}"),
        )]
    })?;
    let cx = Cx {
        file,
        starts: object_starts(text),
        at: std::cell::Cell::new(0),
    };
    cx.program(&value)
        .map_err(|msg| vec![Diagnostic::error(cx.here(), msg)])
}

/// Where each function's object starts (`{` inside the root's
/// `functions` list), with where each of its instructions starts, in
/// document order. Strings are skipped, so their contents never count.
fn object_starts(text: &str) -> Vec<(usize, Vec<usize>)> {
    let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut stack: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.bytes().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                if b == b'{' && stack == b"{[" {
                    out.push((i, Vec::new()));
                } else if b == b'{'
                    && stack == b"{[{["
                    && let Some(f) = out.last_mut()
                {
                    f.1.push(i);
                }
                stack.push(b);
            }
            b'}' | b']' => {
                stack.pop();
            }
            _ => {}
        }
    }
    out
}

/// The byte offset of a 1-based line and column (serde counts columns in
/// bytes).
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + col.saturating_sub(1)).min(text.len())
}

struct Cx {
    file: FileId,
    starts: Vec<(usize, Vec<usize>)>,
    /// The start of the object being read (the error position).
    at: std::cell::Cell<usize>,
}

type R<T> = Result<T, String>;

fn obj<'v>(v: &'v Value, what: &str) -> R<&'v Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| format!("{what} must be a JSON object"))
}

fn string_list(o: &Map<String, Value>, key: &str, what: &str) -> R<Vec<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(String::from)
                    .ok_or_else(|| format!("{what}: `{key}` must list strings"))
            })
            .collect(),
        Some(_) => Err(format!("{what}: `{key}` must be a list of strings")),
    }
}

fn bril_type(v: &Value, what: &str) -> R<BrilType> {
    match v {
        Value::String(s) => match s.as_str() {
            "int" => Ok(BrilType::Int),
            "bool" => Ok(BrilType::Bool),
            "float" => Ok(BrilType::Float),
            "char" => Ok(BrilType::Char),
            other => Err(format!(
                "{what}: unknown type `{other}` (Bril's types are int, bool, float, char and ptr<T>)"
            )),
        },
        Value::Object(o) if o.len() == 1 && o.contains_key("ptr") => {
            Ok(BrilType::Ptr(Box::new(bril_type(&o["ptr"], what)?)))
        }
        _ => Err(format!("{what}: a type is a string or {{\"ptr\": type}}")),
    }
}

fn literal(v: &Value, what: &str) -> R<Literal> {
    match v {
        Value::Bool(b) => Ok(Literal::Bool(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Ok(Literal::Int(i)),
            (None, Some(f)) => Ok(Literal::Float(f)),
            _ => Err(format!("{what}: number `{n}` does not fit")),
        },
        Value::String(s) => {
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => Ok(Literal::Char(c)),
                _ => Err(format!("{what}: char must have one character")),
            }
        }
        _ => Err(format!(
            "{what}: `value` must be a number, bool or one-character string"
        )),
    }
}

impl Cx {
    fn here(&self) -> Span {
        let at = self.at.get();
        Span::new(self.file, at, at + 1)
    }

    /// Moves the error position to function `f`'s object, or to its
    /// instruction `i`.
    fn enter(&self, f: usize, i: Option<usize>) -> Span {
        let pos = self.starts.get(f).map(|(start, instrs)| match i {
            Some(i) => instrs.get(i).copied().unwrap_or(*start),
            None => *start,
        });
        if let Some(p) = pos {
            self.at.set(p);
        }
        self.here()
    }

    fn program(&self, v: &Value) -> R<Program> {
        let o = obj(v, "the program")?;
        let funcs = match o.get("functions") {
            Some(Value::Array(a)) => a,
            _ => return Err("the program needs a `functions` list".into()),
        };
        let functions = funcs
            .iter()
            .enumerate()
            .map(|(i, f)| self.function(f, i))
            .collect::<R<Vec<_>>>()?;
        Ok(Program { functions })
    }

    fn function(&self, v: &Value, index: usize) -> R<Function> {
        let span = self.enter(index, None);
        let o = obj(v, &format!("function {}", index + 1))?;
        let name = o
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("function {} has no `name`", index + 1))?
            .to_string();
        let what = format!("function `@{name}`");
        let params = match o.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|p| {
                    let p = obj(p, &what)?;
                    Ok(Param {
                        name: p
                            .get("name")
                            .and_then(Value::as_str)
                            .ok_or_else(|| format!("{what}: a parameter has no `name`"))?
                            .to_string(),
                        ty: bril_type(p.get("type").unwrap_or(&Value::Null), &what)?,
                        span,
                    })
                })
                .collect::<R<Vec<_>>>()?,
            Some(_) => return Err(format!("{what}: `args` must be a list")),
        };
        let ret = match o.get("type") {
            None | Some(Value::Null) => None,
            Some(t) => Some(bril_type(t, &what)?),
        };
        let items = match o.get("instrs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let at = self.enter(index, Some(i));
                    self.item(x, &format!("{what}, instruction {}", i + 1), at)
                })
                .collect::<R<Vec<_>>>()?,
            Some(_) => return Err(format!("{what}: `instrs` must be a list")),
        };
        Ok(Function {
            name,
            params,
            ret,
            items,
            span,
        })
    }

    fn item(&self, v: &Value, what: &str, span: Span) -> R<Item> {
        let o = obj(v, what)?;
        if let Some(l) = o.get("label") {
            let name = l
                .as_str()
                .ok_or_else(|| format!("{what}: `label` must be a string"))?;
            return Ok(Item::Label {
                name: name.to_string(),
                span,
            });
        }
        let op = o
            .get("op")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{what}: an instruction needs `op` (or `label`)"))?
            .to_string();
        let dest = match o.get("dest") {
            None | Some(Value::Null) => None,
            Some(d) => Some(
                d.as_str()
                    .ok_or_else(|| format!("{what}: `dest` must be a string"))?
                    .to_string(),
            ),
        };
        let ty = match o.get("type") {
            None | Some(Value::Null) => None,
            Some(t) => Some(bril_type(t, what)?),
        };
        let value = match o.get("value") {
            None => None,
            Some(v) => Some(literal(v, what)?),
        };
        Ok(Item::Instr(Instr {
            op,
            dest,
            ty,
            args: string_list(o, "args", what)?,
            funcs: string_list(o, "funcs", what)?,
            labels: string_list(o, "labels", what)?,
            value,
            span,
        }))
    }
}
