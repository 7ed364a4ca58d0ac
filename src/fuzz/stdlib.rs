//! The standard library modules (`math`, `arrays`, `strings`;
//! docs/language.md §9) as the fuzzer uses them: which functions exist,
//! their signatures, and what the reference evaluator computes for them.
//!
//! The results are written from §9 and the doc comments of `stdlib/*.toy`
//! (which fix the edge cases §9 leaves open: `fmin`/`fmax` return the
//! second operand when the comparison `a < b` / `a > b` is false, so also
//! for NaN; `ipow` with a negative exponent is 1; `isqrt` of a negative
//! number is 0; `abs(MIN) == MIN`), not from the Toy code of the modules.
//!
//! Invariants: no stdlib function can throw (none of them has a
//! precondition whose violation raises: negative counts and exponents give
//! the documented defaults), so an error position inside a module file
//! never has to be predicted. What the oracle cannot check exactly is
//! *skipped* (`Err(reason)`): `sort_float` of an array holding NaN (the
//! order then depends on the merge sort's comparisons), `is_prime` above
//! 10^10 (trial division would run too long), and results too big
//! (`range` of more than 10,000 elements, `repeat` past 64 KiB).

use super::ast::{ExprKind, Func, Global, Program, Ty};
use super::shrink::{walk_expr, walk_exprs_in};
use super::value::{Shared, Val};
use std::collections::BTreeSet;
use std::rc::Rc;

/// A module of the standard library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Module {
    Math,
    Arrays,
    Strings,
}

impl Module {
    pub fn name(self) -> &'static str {
        match self {
            Module::Math => "math",
            Module::Arrays => "arrays",
            Module::Strings => "strings",
        }
    }
}

/// Declares [`LibFn`] and [`ALL`], the list of its variants.
macro_rules! lib_fns {
    ($($f:ident),* $(,)?) => {
        /// A function (or, for `PI` and `E`, a global) of a stdlib module.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum LibFn {
            $($f),*
        }

        /// Every stdlib item the generator uses.
        pub const ALL: &[LibFn] = &[$(LibFn::$f),*];
    };
}

lib_fns! {
    Pi, E, Abs, Min, Max, Fmin, Fmax, Clamp, Gcd, Lcm, Ipow, Isqrt, IsPrime,
    Sort, SortFloat, Sum, Fsum, Reverse, Contains, IndexOf, Range, Copy,
    Join, Repeat, Split, StrContains, StartsWith, EndsWith, ToUpper, ToLower, Trim,
}

impl LibFn {
    pub fn module(self) -> Module {
        use LibFn::*;
        match self {
            Pi | E | Abs | Min | Max | Fmin | Fmax | Clamp | Gcd | Lcm | Ipow | Isqrt | IsPrime => {
                Module::Math
            }
            Sort | SortFloat | Sum | Fsum | Reverse | Contains | IndexOf | Range | Copy => {
                Module::Arrays
            }
            _ => Module::Strings,
        }
    }

    /// The item's name inside its module.
    pub fn name(self) -> &'static str {
        use LibFn::*;
        match self {
            Pi => "PI",
            E => "E",
            Abs => "abs",
            Min => "min",
            Max => "max",
            Fmin => "fmin",
            Fmax => "fmax",
            Clamp => "clamp",
            Gcd => "gcd",
            Lcm => "lcm",
            Ipow => "ipow",
            Isqrt => "isqrt",
            IsPrime => "is_prime",
            Sort => "sort",
            SortFloat => "sort_float",
            Sum => "sum",
            Fsum => "fsum",
            Reverse => "reverse",
            Contains | StrContains => "contains",
            IndexOf => "index_of",
            Range => "range",
            Copy => "copy",
            Join => "join",
            Repeat => "repeat",
            Split => "split",
            StartsWith => "starts_with",
            EndsWith => "ends_with",
            ToUpper => "to_upper",
            ToLower => "to_lower",
            Trim => "trim",
        }
    }

    /// A global (`math.PI`), written without parentheses.
    pub fn is_const(self) -> bool {
        matches!(self, LibFn::Pi | LibFn::E)
    }

    /// Parameter types and result type (`None`: the call is a statement).
    pub fn sig(self) -> (Vec<Ty>, Option<Ty>) {
        use LibFn::*;
        use Ty::{Bool as B, Float as F, Int as I, Str as S};
        let arr = |t: Ty| Ty::Arr(Box::new(t));
        match self {
            Pi | E => (vec![], Some(F)),
            Abs | Isqrt => (vec![I], Some(I)),
            Min | Max | Gcd | Lcm | Ipow => (vec![I, I], Some(I)),
            Fmin | Fmax => (vec![F, F], Some(F)),
            Clamp => (vec![I, I, I], Some(I)),
            IsPrime => (vec![I], Some(B)),
            Sort | Reverse => (vec![arr(I)], None),
            SortFloat => (vec![arr(F)], None),
            Sum => (vec![arr(I)], Some(I)),
            Fsum => (vec![arr(F)], Some(F)),
            Contains => (vec![arr(I), I], Some(B)),
            IndexOf => (vec![arr(I), I], Some(I)),
            Range => (vec![I, I], Some(arr(I))),
            Copy => (vec![arr(I)], Some(arr(I))),
            Join => (vec![arr(S), S], Some(S)),
            Repeat => (vec![S, I], Some(S)),
            Split => (vec![S, S], Some(arr(S))),
            StrContains | StartsWith | EndsWith => (vec![S, S], Some(B)),
            ToUpper | ToLower | Trim => (vec![S], Some(S)),
        }
    }
}

/// The modules `p` uses, in a fixed order (the printer imports them).
pub fn modules_used(p: &Program) -> Vec<Module> {
    modules_of(&p.globals, &p.funcs)
}

/// The modules that `globals` and `funcs` use, in a fixed order.
pub fn modules_of(globals: &[Global], funcs: &[Func]) -> Vec<Module> {
    let mut used = BTreeSet::new();
    let mut note = |e: &super::ast::Expr| {
        if let ExprKind::Lib(f, _) = &e.kind {
            used.insert(f.module());
        }
    };
    for g in globals {
        walk_expr(&g.init, &mut note);
    }
    for f in funcs {
        walk_exprs_in(&f.body, &mut note);
    }
    used.into_iter().collect()
}

fn new_arr(v: Vec<Val>) -> Val {
    Val::Arr(Shared::new(v))
}

fn text(s: String) -> Val {
    Val::Str(Rc::new(s))
}

fn ints(a: &Shared) -> Vec<i64> {
    a.borrow().iter().map(Val::int).collect()
}

/// The value of `f(args)`; `Err` means "skip this program" (see the module
/// docs). Arrays are updated in place where the function does so.
pub fn eval(f: LibFn, args: &[Val]) -> Result<Val, String> {
    use LibFn::*;
    let int = |k: usize| args[k].int();
    let flt = |k: usize| args[k].float();
    Ok(match f {
        Pi => Val::Float(std::f64::consts::PI),
        E => Val::Float(std::f64::consts::E),
        Abs => Val::Int(int(0).wrapping_abs()),
        Min => Val::Int(int(0).min(int(1))),
        Max => Val::Int(int(0).max(int(1))),
        Fmin => Val::Float(if flt(0) < flt(1) { flt(0) } else { flt(1) }),
        Fmax => Val::Float(if flt(0) > flt(1) { flt(0) } else { flt(1) }),
        Clamp => Val::Int(if int(0) < int(1) {
            int(1)
        } else if int(0) > int(2) {
            int(2)
        } else {
            int(0)
        }),
        Gcd => Val::Int(gcd(int(0), int(1))),
        Lcm => Val::Int(if int(0) == 0 || int(1) == 0 {
            0
        } else {
            int(0)
                .wrapping_div(gcd(int(0), int(1)))
                .wrapping_mul(int(1))
                .wrapping_abs()
        }),
        Ipow => Val::Int(ipow(int(0), int(1))),
        Isqrt => Val::Int(isqrt(int(0))),
        IsPrime => Val::Bool(is_prime(int(0))?),
        _ => return eval_arrays_strings(f, args),
    })
}

fn eval_arrays_strings(f: LibFn, args: &[Val]) -> Result<Val, String> {
    use LibFn::*;
    let s = |k: usize| args[k].str();
    Ok(match f {
        Sort => {
            let a = args[0].arr();
            let mut v = ints(&a);
            v.sort();
            *a.borrow_mut() = v.into_iter().map(Val::Int).collect();
            Val::Unit
        }
        SortFloat => {
            let a = args[0].arr();
            let mut v: Vec<f64> = a.borrow().iter().map(Val::float).collect();
            if v.iter().any(|x| x.is_nan()) {
                return Err("sort_float of NaN".into());
            }
            // Stable: -0.0 and 0.0 keep their order.
            v.sort_by(|x, y| x.partial_cmp(y).expect("no NaN"));
            *a.borrow_mut() = v.into_iter().map(Val::Float).collect();
            Val::Unit
        }
        Sum => Val::Int(
            ints(&args[0].arr())
                .iter()
                .fold(0i64, |t, x| t.wrapping_add(*x)),
        ),
        Fsum => Val::Float(
            args[0]
                .arr()
                .borrow()
                .iter()
                .fold(0.0, |t, x| t + x.float()),
        ),
        Reverse => {
            args[0].arr().borrow_mut().reverse();
            Val::Unit
        }
        Contains => Val::Bool(ints(&args[0].arr()).contains(&args[1].int())),
        IndexOf => {
            let x = args[1].int();
            Val::Int(
                ints(&args[0].arr())
                    .iter()
                    .position(|y| *y == x)
                    .map_or(-1, |k| k as i64),
            )
        }
        Range => {
            let (lo, hi) = (args[0].int(), args[1].int());
            if hi as i128 - lo as i128 > 10_000 {
                return Err("range too long".into());
            }
            new_arr((lo..hi).map(Val::Int).collect())
        }
        Copy => new_arr(args[0].arr().borrow().clone()),
        Join => {
            let parts: Vec<String> = args[0]
                .arr()
                .borrow()
                .iter()
                .map(|v| v.str().to_string())
                .collect();
            text(parts.join(s(1).as_str()))
        }
        Repeat => {
            let n = args[1].int().max(0) as u64;
            if (s(0).len() as u64).saturating_mul(n) > 1 << 16 {
                return Err("string too long".into());
            }
            text(s(0).repeat(n as usize))
        }
        // Rust's `str::split`, as §9 says (an empty separator matches at
        // every character boundary).
        Split => new_arr(
            s(0).split(s(1).as_str())
                .map(|p| text(p.to_string()))
                .collect(),
        ),
        StrContains => Val::Bool(s(0).contains(s(1).as_str())),
        StartsWith => Val::Bool(s(0).starts_with(s(1).as_str())),
        EndsWith => Val::Bool(s(0).ends_with(s(1).as_str())),
        ToUpper => text(s(0).to_ascii_uppercase()),
        ToLower => text(s(0).to_ascii_lowercase()),
        Trim => text(
            s(0).trim_matches([' ', '\t', '\n', '\x0c', '\r'])
                .to_string(),
        ),
        _ => unreachable!("math functions are evaluated by `eval`"),
    })
}

/// Euclid's algorithm on the wrapping absolute values (`gcd(MIN, 0)` is
/// `MIN`, as `abs(MIN)` is).
fn gcd(a: i64, b: i64) -> i64 {
    let (mut x, mut y) = (a.wrapping_abs(), b.wrapping_abs());
    while y != 0 {
        let t = x.wrapping_rem(y);
        x = y;
        y = t;
    }
    x
}

/// `b` to the power `e` modulo 2^64 (wrapping); 1 for `e <= 0`.
fn ipow(b: i64, e: i64) -> i64 {
    let (mut result, mut base, mut n) = (1i64, b, e.max(0) as u64);
    while n > 0 {
        if n & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        n >>= 1;
    }
    result
}

/// The largest `r` with `r * r <= n` (0 for `n <= 0`), by bisection.
fn isqrt(n: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    let (mut lo, mut hi) = (0i128, 1i128 << 32);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if mid * mid <= n as i128 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo as i64
}

fn is_prime(n: i64) -> Result<bool, String> {
    if n > 10_000_000_000 {
        return Err("is_prime of a big number".into());
    }
    Ok(n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_helpers_at_the_edges() {
        assert_eq!(gcd(12, -18), 6);
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(gcd(i64::MIN, 0), i64::MIN);
        assert_eq!(ipow(3, 4), 81);
        assert_eq!(ipow(2, 64), 0);
        assert_eq!(ipow(-2, 63), i64::MIN);
        assert_eq!(ipow(5, -1), 1);
        assert_eq!(isqrt(i64::MAX), 3037000499);
        assert_eq!(isqrt(15), 3);
        assert_eq!(isqrt(16), 4);
        assert_eq!(isqrt(-4), 0);
        assert_eq!(is_prime(97), Ok(true));
        assert_eq!(is_prime(1), Ok(false));
        assert_eq!(is_prime(91), Ok(false));
        assert!(is_prime(i64::MAX).is_err());
    }
}
