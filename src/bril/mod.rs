//! Bril input: Cornell's educational IR, read as text (`.bril`, [`text`])
//! or as `bril2json`'s JSON (`.json`, [`json`]) into one [`ast::Program`],
//! then checked ([`check`]). SSA construction (`ssa::bril`) lowers it into
//! the same IR as Toy, so every later stage is shared. The semantics are
//! `brili`'s (docs/bril.md).
pub mod ast;
pub mod check;
pub mod json;
pub mod print;
pub mod text;

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap};

/// Whether `path` names a Bril program (by its extension).
pub fn is_bril_path(path: &std::path::Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("bril") | Some("json")
    )
}

/// Parses (text or JSON, by the file name's extension) and checks.
pub fn load(
    sources: &SourceMap,
    file: FileId,
) -> Result<(ast::Program, check::Checked), Vec<Diagnostic>> {
    let f = sources.get(file);
    let prog = if f.name.ends_with(".json") {
        json::parse(file, &f.text)?
    } else {
        text::parse(file, &f.text)?
    };
    let checked = check::check(&prog)?;
    Ok((prog, checked))
}

/// A value for a parameter of `main`, from a command-line argument parsed
/// as `brili` parses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MainArg {
    Int(i64),
    Float(f64),
    Bool(bool),
    Char(char),
}

/// `main`'s arguments from the command line: `int` as JavaScript's
/// `BigInt(Number(s))` (so `1e3` and `0x10` are accepted, a fraction is
/// not), `float` as `parseFloat` agreeing with `Number` (not NaN), `bool`
/// only `true`/`false`, `char` exactly one character.
pub fn parse_main_args(params: &[ast::Param], args: &[String]) -> Result<Vec<MainArg>, String> {
    if params.len() != args.len() {
        return Err(format!(
            "mismatched main argument arity: expected {}; got {}",
            params.len(),
            args.len()
        ));
    }
    params
        .iter()
        .zip(args)
        .map(|(p, s)| match p.ty {
            ast::BrilType::Int => js_number(s)
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.3e18)
                .map(|f| MainArg::Int(s.trim().parse::<i64>().unwrap_or(f as i64)))
                .ok_or_else(|| format!("int argument to main must be an integer; got {s}")),
            ast::BrilType::Float => js_number(s)
                .filter(|f| !f.is_nan())
                .map(MainArg::Float)
                .ok_or_else(|| format!("float argument to main must not be 'NaN'; got {s}")),
            ast::BrilType::Bool => match s.as_str() {
                "true" => Ok(MainArg::Bool(true)),
                "false" => Ok(MainArg::Bool(false)),
                _ => Err(format!(
                    "boolean argument to main must be 'true'/'false'; got {s}"
                )),
            },
            ast::BrilType::Char => {
                let mut cs = s.chars();
                match (cs.next(), cs.next()) {
                    (Some(c), None) => Ok(MainArg::Char(c)),
                    _ => Err(format!(
                        "char argument to main must have one character; got {s}"
                    )),
                }
            }
            ast::BrilType::Ptr(_) => Err("main cannot take a pointer argument".into()),
        })
        .collect()
}

/// JavaScript's `Number(s)` for the forms that matter here: surrounding
/// whitespace, the empty string (0), decimal with exponent, `Infinity`,
/// and `0x`/`0o`/`0b` integers.
fn js_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return Some(0.0);
    }
    for (prefix, radix) in [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ] {
        if let Some(digits) = t.strip_prefix(prefix) {
            return i64::from_str_radix(digits, radix).ok().map(|v| v as f64);
        }
    }
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => (-1.0, b),
        None => (1.0, t.strip_prefix('+').unwrap_or(t)),
    };
    if body == "Infinity" {
        return Some(sign * f64::INFINITY);
    }
    if !body
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}
