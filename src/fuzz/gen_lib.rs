//! Generation of the builtins added for issue 13's coverage (`parse_float`,
//! `chr`, `substr`, `fixed`, the transcendental functions, `args()`) and
//! of calls into the standard library modules (`math.gcd(a, b)`,
//! `math.PI`, `arrays.sort(a);`, `strings.split(s, sep)`).
//!
//! Invariants: an expression made here has exactly the wanted type; in
//! `safe` mode (global initialisers) only calls that cannot throw are made
//! (stdlib functions never throw, see `stdlib.rs`); arguments are chosen
//! so that most calls succeed and what the oracle skips stays rare (`chr`
//! gets ASCII bytes or bytes out of range, never 128..=255; `is_prime`,
//! `range` and `repeat` get small numbers), while the error paths of
//! `chr`, `substr` and `parse_float` are still taken often.

use super::ast::*;
use super::generate::Gen;
use super::io;
use super::rng::Rng;
use super::stdlib::{ALL, LibFn};

/// A callee: a builtin or a stdlib function.
#[derive(Clone, Copy)]
enum Callee {
    B(Builtin),
    L(LibFn),
}

/// The builtins made here, with their result types.
fn builtin_ret(b: Builtin) -> Ty {
    match b {
        Builtin::Chr
        | Builtin::Substr
        | Builtin::Fixed
        | Builtin::ReadLine
        | Builtin::ReadAll
        | Builtin::ReadFile => Ty::Str,
        Builtin::AtEof => Ty::Bool,
        Builtin::Args => Ty::Arr(Box::new(Ty::Str)),
        _ => Ty::Float,
    }
}

const BUILTINS: &[Builtin] = &[
    Builtin::Sin,
    Builtin::Cos,
    Builtin::Tan,
    Builtin::Atan,
    Builtin::Atan2,
    Builtin::Exp,
    Builtin::Ln,
    Builtin::Pow,
    Builtin::ParseFloat,
    Builtin::Chr,
    Builtin::Substr,
    Builtin::Fixed,
    Builtin::Args,
    Builtin::ReadLine,
    Builtin::AtEof,
    Builtin::ReadAll,
    Builtin::ReadFile,
];

/// Whether a call of `b` may throw.
fn throws(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::ParseFloat
            | Builtin::Chr
            | Builtin::Substr
            | Builtin::ReadLine
            | Builtin::ReadFile
    )
}

/// Whether `b` reads input or files (made only in programs with input).
fn is_io(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::ReadLine | Builtin::AtEof | Builtin::ReadAll | Builtin::ReadFile
    )
}

/// Lines of standard input for a program that reads it: 0 to 5 short ASCII
/// lines, sometimes ending in `\r\n`, sometimes with the last line
/// unterminated; some are numbers, so `parse_int` of a line can succeed.
pub fn input_text(rng: &mut Rng) -> String {
    const LINES: &[&str] = &["", "hello", "a b c", "42", "-7", "3.5", "x,y", "  pad  "];
    let mut text = String::new();
    for _ in 0..rng.below(6) {
        text.push_str(rng.pick::<&str>(LINES));
        text.push_str(if rng.chance(15) { "\r\n" } else { "\n" });
    }
    if rng.chance(30) {
        text.push_str(rng.pick::<&str>(LINES));
    }
    text
}

impl Gen {
    /// A call of a new builtin or (in a program that uses the standard
    /// library) a stdlib function with result type `ty`, if there is one.
    pub fn gen_lib_expr(&mut self, ty: &Ty, depth: u32) -> Option<Expr> {
        let mut cands: Vec<Callee> = BUILTINS
            .iter()
            .filter(|&&b| {
                &builtin_ret(b) == ty && !(self.safe && throws(b)) && (self.io || !is_io(b))
            })
            .map(|&b| Callee::B(b))
            .collect();
        cands.extend(
            ALL.iter()
                .filter(|f| self.lib && f.sig().1.as_ref() == Some(ty))
                .map(|&f| Callee::L(f)),
        );
        if cands.is_empty() {
            return None;
        }
        let d = depth.saturating_sub(1);
        Some(match *self.rng.pick(&cands) {
            Callee::B(b) => {
                let args = self.builtin_args(b, d);
                Expr::new(ExprKind::Builtin(b, args))
            }
            Callee::L(f) => {
                let args = self.lib_args(f, d);
                Expr::new(ExprKind::Lib(f, args))
            }
        })
    }

    /// `arrays.sort(a);`, `arrays.sort_float(a);` or `arrays.reverse(a);`,
    /// mostly on a variable so that the effect is seen later.
    pub fn gen_lib_stmt(&mut self) -> StmtKind {
        let f = *self
            .rng
            .pick(&[LibFn::Sort, LibFn::SortFloat, LibFn::Reverse]);
        let args = self.lib_args(f, 1);
        StmtKind::Expr(Expr::new(ExprKind::Lib(f, args)))
    }

    /// `write_file(path, s);` with one of the fuzzer's paths (a missing
    /// folder's throws).
    pub fn gen_write_file(&mut self) -> StmtKind {
        let path = self.path_arg();
        let text = self.gen_expr(&Ty::Str, 2);
        StmtKind::Expr(Expr::new(ExprKind::Builtin(
            Builtin::WriteFile,
            vec![path, text],
        )))
    }

    /// One of the paths of [`io::PATHS`], as a literal.
    fn path_arg(&mut self) -> Expr {
        Expr::new(ExprKind::Str(self.rng.pick(&io::PATHS).to_string()))
    }

    fn int_lit(v: i64) -> Expr {
        Expr::new(ExprKind::Int(v))
    }

    /// A small int: mostly a literal in `lo..hi`, else `(e % m)`.
    fn small(&mut self, lo: i64, hi: i64, m: i64) -> Expr {
        if self.safe || self.rng.chance(75) {
            Self::int_lit(lo + self.rng.below((hi - lo) as usize) as i64)
        } else {
            self.small_int(m)
        }
    }

    fn builtin_args(&mut self, b: Builtin, d: u32) -> Vec<Expr> {
        match b {
            Builtin::Args | Builtin::ReadLine | Builtin::AtEof | Builtin::ReadAll => Vec::new(),
            Builtin::ReadFile => vec![self.path_arg()],
            Builtin::Atan2 | Builtin::Pow => {
                vec![self.gen_expr(&Ty::Float, d), self.gen_expr(&Ty::Float, d)]
            }
            Builtin::ParseFloat => {
                let s = match self.rng.below(4) {
                    0 | 1 => self.str_call_of(&Ty::Float, d),
                    2 => self.str_call_of(&Ty::Int, d),
                    _ => self.gen_expr(&Ty::Str, d),
                };
                vec![s]
            }
            Builtin::Chr => {
                let n = match self.rng.weighted(&[70, 12, 10, 8]) {
                    0 => Self::int_lit(32 + self.rng.below(95) as i64),
                    // `(e % 128)`: ASCII, or negative (an error).
                    1 if !self.safe => self.small_int(128),
                    2 => Self::int_lit(*self.rng.pick(&[0, 10, 127])),
                    _ if !self.safe => Self::int_lit(*self.rng.pick(&[-1, 256, 1000, i64::MIN])),
                    _ => Self::int_lit(65),
                };
                vec![n]
            }
            Builtin::Substr => {
                let s = self.gen_expr(&Ty::Str, d);
                let start = self.gen_index();
                let end = if self.rng.chance(50) {
                    Self::int_lit(self.rng.below(4) as i64)
                } else {
                    self.gen_index()
                };
                vec![s, start, end]
            }
            Builtin::Fixed => {
                let x = self.gen_expr(&Ty::Float, d);
                let digits = if self.rng.chance(80) {
                    Self::int_lit(*self.rng.pick(&[0, 0, 1, 2, 2, 3, 5, 17, 20, -1]))
                } else {
                    self.small(0, 10, 25)
                };
                vec![x, digits]
            }
            _ => vec![self.gen_expr(&Ty::Float, d)],
        }
    }

    /// `str(e)` for an `e` of type `t`.
    fn str_call_of(&mut self, t: &Ty, d: u32) -> Expr {
        let e = self.gen_expr(t, d);
        Expr::new(ExprKind::Builtin(Builtin::ToStr, vec![e]))
    }

    fn lib_args(&mut self, f: LibFn, d: u32) -> Vec<Expr> {
        let (params, _) = f.sig();
        match f {
            LibFn::Ipow => {
                let e = self.small(0, 70, 70);
                vec![self.gen_expr(&Ty::Int, d), e]
            }
            LibFn::IsPrime => vec![self.small(-2, 200, 1000)],
            LibFn::Range => vec![self.small(-3, 4, 4), self.small(0, 9, 10)],
            LibFn::Repeat => vec![self.gen_expr(&Ty::Str, d), self.small(-1, 5, 5)],
            _ => params
                .iter()
                .map(|t| match t {
                    Ty::Arr(_) => self.array_arg(t, d),
                    _ => self.gen_expr(t, d),
                })
                .collect(),
        }
    }

    /// An array argument: often a visible variable (so that in-place
    /// changes are observed), else an expression.
    fn array_arg(&mut self, t: &Ty, d: u32) -> Expr {
        match self.some_var(t, 60) {
            Some(v) => v,
            None => self.typed_expr(t, d),
        }
    }
}
