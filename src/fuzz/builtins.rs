//! The builtin functions of docs/language.md §6 for the reference
//! evaluator ([`super::oracle`]), written from the reference alone.
//!
//! Choices where the reference is not exact on its own (docs/fuzzing.md,
//! "Oracle"):
//! - `sin cos tan atan atan2 exp ln pow` are "the usual float functions":
//!   the oracle calls Rust's `f64` methods, i.e. the platform's libm, which
//!   is what the usual functions are on the machine toyc runs on. (`sqrt`
//!   is correctly rounded by IEEE; `floor ceil fabs` are exact.)
//! - `fixed(x, d)` is C's `%.*f`: the exact decimal value of `x` rounded to
//!   `d` decimals, ties to even (glibc), which is what Rust's `{:.d$}`
//!   computes; a negative `d` means 6 as in C; `inf`, `-inf`, and `NaN`
//!   whatever its sign bit, as `print` writes them. `d > 100` is skipped
//!   (toyc caps huge precisions; C does not).
//! - `parse_float` accepts an optional sign and then a decimal number
//!   (digits with an optional `.` and fraction, or `.` and digits, then an
//!   optional exponent) or `inf`, `infinity`, `nan` in any case — so every
//!   text `str(x)` makes parses back to `x`; the value is the nearest
//!   float.
//! - Strings are Rust `String`s: a builtin whose result is not UTF-8
//!   (`chr(200)`, a `substr` cutting `é` in two) makes the program skipped.
//!
//! Invariant: every throw carries exactly the message of §8.

use super::ast::Builtin;
use super::io::World;
use super::value::{Val, to_str};
use std::rc::Rc;

/// Why a builtin did not return a value.
pub enum Stop {
    /// A Toy exception with this message.
    Throw(String),
    /// The program is to be skipped (see the module docs).
    Skip(String),
}

fn throw<T>(msg: String) -> Result<T, Stop> {
    Err(Stop::Throw(msg))
}

fn text(s: String) -> Val {
    Val::Str(Rc::new(s))
}

/// `b(args)`; arrays are updated in place (`pop`), input is consumed and
/// files are written in `world`.
pub fn builtin(b: Builtin, args: &[Val], world: &mut World) -> Result<Val, Stop> {
    let f = |k: usize| args[k].float();
    Ok(match b {
        Builtin::Len => match &args[0] {
            Val::Str(s) => Val::Int(s.len() as i64),
            Val::Arr(a) => Val::Int(a.borrow().len() as i64),
            v => panic!("fuzz oracle: len of {v:?}"),
        },
        Builtin::Pop => match args[0].arr().borrow_mut().pop() {
            Some(v) => v,
            None => return throw("pop from empty array".into()),
        },
        Builtin::ToFloat => Val::Float(args[0].int() as f64),
        Builtin::ToInt => Val::Int(f(0) as i64),
        Builtin::ToStr => text(to_str(&args[0])),
        Builtin::Sqrt => Val::Float(f(0).sqrt()),
        Builtin::Floor => Val::Float(f(0).floor()),
        Builtin::Ceil => Val::Float(f(0).ceil()),
        Builtin::Fabs => Val::Float(f(0).abs()),
        Builtin::Sin => Val::Float(f(0).sin()),
        Builtin::Cos => Val::Float(f(0).cos()),
        Builtin::Tan => Val::Float(f(0).tan()),
        Builtin::Atan => Val::Float(f(0).atan()),
        Builtin::Atan2 => Val::Float(f(0).atan2(f(1))),
        Builtin::Exp => Val::Float(f(0).exp()),
        Builtin::Ln => Val::Float(f(0).ln()),
        Builtin::Pow => Val::Float(f(0).powf(f(1))),
        Builtin::Args => Val::Arr(super::value::Shared::new(Vec::new())),
        Builtin::ParseInt => {
            let s = args[0].str();
            match parse_int(&s) {
                Some(v) => Val::Int(v),
                None => return throw(format!("parse_int: invalid integer {:?}", s.as_str())),
            }
        }
        Builtin::ParseFloat => {
            let s = args[0].str();
            match parse_float(&s) {
                Some(v) => Val::Float(v),
                None => return throw(format!("parse_float: invalid float {:?}", s.as_str())),
            }
        }
        Builtin::Chr => {
            let n = args[0].int();
            if !(0..=255).contains(&n) {
                return throw(format!("chr: byte out of range: {n}"));
            }
            match char::from_u32(n as u32) {
                Some(c) if n < 128 => text(c.to_string()),
                _ => return Err(Stop::Skip("chr of a non-ASCII byte".into())),
            }
        }
        Builtin::Substr => substr(&args[0].str(), args[1].int(), args[2].int())?,
        Builtin::Fixed => text(fixed(f(0), args[1].int())?),
        Builtin::ReadLine => world.read_line()?,
        Builtin::AtEof => world.at_eof(),
        Builtin::ReadAll => world.read_all(),
        Builtin::ReadFile => world.read_file(&args[0].str())?,
        Builtin::WriteFile => world.write_file(&args[0].str(), &args[1].str())?,
    })
}

/// `parse_int`: an optional sign and decimal digits, nothing else, in range.
pub fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `parse_float` (see the module docs for the accepted texts).
pub fn parse_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let word = body.to_ascii_lowercase();
    let valid = matches!(word.as_str(), "inf" | "infinity" | "nan") || {
        let (mantissa, exp) = match body.find(['e', 'E']) {
            Some(k) => (&body[..k], Some(&body[k + 1..])),
            None => (body, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        let exp_ok = exp.is_none_or(|e| {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        });
        digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty()) && exp_ok
    };
    if !valid {
        return None;
    }
    s.parse().ok()
}

/// `substr(s, start, end)`: bytes `start..end`, or the error of §8.
fn substr(s: &str, start: i64, end: i64) -> Result<Val, Stop> {
    let len = s.len() as i64;
    if start < 0 || end > len || start > end {
        return throw(format!(
            "substr: range {start}..{end} out of bounds for length {len}"
        ));
    }
    match String::from_utf8(s.as_bytes()[start as usize..end as usize].to_vec()) {
        Ok(t) => Ok(text(t)),
        Err(_) => Err(Stop::Skip("substr cuts a character".into())),
    }
}

/// `fixed(x, digits)`: C's `%.*f` (see the module docs).
pub fn fixed(x: f64, digits: i64) -> Result<String, Stop> {
    if digits > 100 {
        return Err(Stop::Skip("fixed with over 100 decimals".into()));
    }
    let d = if digits < 0 { 6 } else { digits as usize };
    Ok(if x.is_nan() {
        "NaN".to_string()
    } else {
        format!("{x:.d$}")
    })
}
