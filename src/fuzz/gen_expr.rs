//! Expression generation for [`Gen`]: an expression of a wanted type, with
//! a depth budget.
//!
//! Invariants: the result has exactly the wanted type; `nil` (or an array
//! of only `nil`s) appears only where Toy knows the struct type from
//! context (see [`untyped`]); in `safe` mode (global initialisers) nothing
//! can throw and no variable or function is referenced; indices and counts
//! are mostly small so that most accesses are in bounds, but negative and
//! too large ones occur.

use super::ast::*;
use super::generate::Gen;

const INTS: &[i64] = &[
    0,
    1,
    2,
    3,
    -1,
    -2,
    5,
    7,
    10,
    42,
    63,
    64,
    65,
    100,
    255,
    -128,
    1 << 32,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];
const FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.5,
    0.1,
    0.3,
    3.0,
    100.0,
    1e16,
    1e15,
    1e-5,
    1e-4,
    1e300,
    1.5e10,
    123456789.0,
    5e-324,
    f64::MAX,
    0.30000000000000004,
    1e-7,
    4.5,
    0.125,
    2.675,
    std::f64::consts::TAU,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];
const STRS: &[&str] = &[
    "", "a", "b", "hi", "x y", "a\nb", "q\"", "back\\", "tab\t", "é", "0", "abc", "nul\0",
];

/// Whether Toy cannot know the type of `e` without context: `nil`, or an
/// array built only from such values.
pub fn untyped(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Nil(_) => true,
        ExprKind::ArrayLit(_, xs) => xs.iter().all(untyped),
        ExprKind::ArrayRep(x, _) => untyped(x),
        _ => false,
    }
}

impl Gen {
    /// A literal of `ty` (no variables).
    pub fn leaf(&mut self, ty: &Ty) -> Expr {
        let kind = match ty {
            Ty::Int => {
                if self.rng.chance(30) {
                    ExprKind::Int(self.rng.below(1000) as i64 - 300)
                } else if self.rng.chance(5) {
                    ExprKind::Int(self.rng.next_u64() as i64)
                } else {
                    ExprKind::Int(*self.rng.pick(INTS))
                }
            }
            Ty::Float => ExprKind::Float(*self.rng.pick(FLOATS)),
            Ty::Bool => ExprKind::Bool(self.rng.chance(50)),
            Ty::Str => ExprKind::Str(self.str_literal()),
            Ty::Arr(elem) => {
                let n = 1 + self.rng.below(3);
                let elems = (0..n).map(|_| self.leaf_typed(elem)).collect();
                ExprKind::ArrayLit((**elem).clone(), elems)
            }
            Ty::Struct(sid) => ExprKind::Nil(*sid),
        };
        Expr::new(kind)
    }

    /// A literal whose type Toy knows without context (a struct literal
    /// instead of `nil`).
    fn leaf_typed(&mut self, ty: &Ty) -> Expr {
        match ty {
            Ty::Struct(sid) => self.struct_lit(*sid, 0),
            _ => self.leaf(ty),
        }
    }

    pub fn str_literal(&mut self) -> String {
        self.rng.pick(STRS).to_string()
    }

    /// An expression of `ty` whose type Toy knows without context.
    pub fn typed_expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        let e = self.gen_expr(ty, depth);
        if untyped(&e) {
            self.leaf_typed_deep(ty)
        } else {
            e
        }
    }

    fn leaf_typed_deep(&mut self, ty: &Ty) -> Expr {
        match ty {
            Ty::Arr(elem) => {
                let x = self.leaf_typed(elem);
                Expr::new(ExprKind::ArrayLit((**elem).clone(), vec![x]))
            }
            _ => self.leaf_typed(ty),
        }
    }

    /// A variable of type `ty` or a literal.
    fn var_or_leaf(&mut self, ty: &Ty) -> Expr {
        if let Some(v) = self.some_var(ty, 65) {
            return v;
        }
        self.leaf(ty)
    }

    /// With `pct`% probability (never in `safe` mode) a visible variable
    /// of type `ty`, if there is one.
    pub fn some_var(&mut self, ty: &Ty, pct: u32) -> Option<Expr> {
        if self.safe || !self.rng.chance(pct) {
            return None;
        }
        let vars: Vec<String> = self
            .visible()
            .into_iter()
            .filter(|v| &v.ty == ty)
            .map(|v| v.name)
            .collect();
        if vars.is_empty() {
            return None;
        }
        Some(Expr::new(ExprKind::Var(self.rng.pick(&vars).clone())))
    }

    /// An expression of type `ty`.
    pub fn gen_expr(&mut self, ty: &Ty, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.var_or_leaf(ty);
        }
        if !self.safe
            && self.rng.chance(18)
            && let Some(e) = self.gen_access(ty, depth)
        {
            return e;
        }
        // Stdlib calls and the builtins of `gen_lib.rs`.
        if self.rng.chance(10)
            && let Some(e) = self.gen_lib_expr(ty, depth)
        {
            return e;
        }
        match ty {
            Ty::Int => self.gen_int(depth),
            Ty::Float => self.gen_float(depth),
            Ty::Bool => self.gen_bool(depth),
            Ty::Str => self.gen_str(depth),
            Ty::Arr(elem) => self.gen_array(elem, depth),
            Ty::Struct(sid) => {
                if self.rng.chance(20) {
                    Expr::new(ExprKind::Nil(*sid))
                } else {
                    self.struct_lit(*sid, depth)
                }
            }
        }
    }

    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::new(ExprKind::Binary(op, Box::new(l), Box::new(r)))
    }

    fn builtin(b: Builtin, args: Vec<Expr>) -> Expr {
        Expr::new(ExprKind::Builtin(b, args))
    }

    /// An element, field or call result of type `ty`.
    fn gen_access(&mut self, ty: &Ty, depth: u32) -> Option<Expr> {
        match self.rng.below(3) {
            0 => {
                let a = self.typed_expr(&Ty::Arr(Box::new(ty.clone())), depth - 1);
                let i = self.gen_index();
                Some(Expr::new(ExprKind::Index(Box::new(a), Box::new(i))))
            }
            1 => {
                let mut cands = Vec::new();
                for (s, def) in self.prog.structs.iter().enumerate() {
                    for (f, (_, t)) in def.fields.iter().enumerate() {
                        if t == ty {
                            cands.push((s, f));
                        }
                    }
                }
                if cands.is_empty() {
                    return None;
                }
                let (s, f) = *self.rng.pick(&cands);
                let p = self.typed_expr(&Ty::Struct(s), depth - 1);
                Some(Expr::new(ExprKind::Field(Box::new(p), s, f)))
            }
            _ => {
                let cands: Vec<usize> = (1..self.prog.funcs.len())
                    .filter(|&j| self.callable(j) && self.prog.funcs[j].ret.as_ref() == Some(ty))
                    .collect();
                if cands.is_empty() {
                    return None;
                }
                let f = *self.rng.pick(&cands);
                Some(self.gen_call(f))
            }
        }
    }

    /// Whether the current function may call `fnJ`.
    pub fn callable(&self, j: usize) -> bool {
        !self.safe && j != 0 && (j > self.cur || (j == self.cur && self.recursive[j]))
    }

    /// A call of `fnF` with arguments; a recursive callee's depth argument
    /// is `d - 1` in a self-call and a small literal otherwise.
    pub fn gen_call(&mut self, f: usize) -> Expr {
        let params = self.prog.funcs[f].params.clone();
        let mut args = Vec::new();
        for (k, (_, t)) in params.iter().enumerate() {
            if k == 0 && self.recursive[f] {
                let d = if f == self.cur {
                    Self::bin(
                        BinOp::Sub,
                        Expr::new(ExprKind::Var("d".into())),
                        Expr::new(ExprKind::Int(1)),
                    )
                } else {
                    Expr::new(ExprKind::Int(self.rng.below(4) as i64))
                };
                args.push(d);
            } else {
                args.push(self.gen_expr(t, 2));
            }
        }
        Expr::new(ExprKind::Call(f, args))
    }

    /// An index: mostly 0..3, sometimes negative or large or computed.
    pub fn gen_index(&mut self) -> Expr {
        let near_loop = if self.loop_vars.is_empty() { 0 } else { 25 };
        match self.rng.weighted(&[70, 6, 3, 10, 11, near_loop]) {
            0 => Expr::new(ExprKind::Int(*self.rng.pick(&[0, 0, 0, 1, 1, 2]))),
            1 => Expr::new(ExprKind::Int(3 + self.rng.below(3) as i64)),
            2 => Expr::new(ExprKind::Int(-1)),
            3 => self.var_or_leaf(&Ty::Int),
            4 => self.small_int(4),
            _ => {
                // `i`, `i + 1` or `i - 1` of an enclosing `for` loop.
                let i = Expr::new(ExprKind::Var(self.rng.pick(&self.loop_vars).clone()));
                match self.rng.below(4) {
                    0 => Self::bin(BinOp::Add, i, Expr::new(ExprKind::Int(1))),
                    1 => Self::bin(BinOp::Sub, i, Expr::new(ExprKind::Int(1))),
                    _ => i,
                }
            }
        }
    }

    /// `(e % m)`: an int in `-(m-1)..m`.
    pub fn small_int(&mut self, m: i64) -> Expr {
        let e = self.gen_expr(&Ty::Int, 1);
        Self::bin(BinOp::Rem, e, Expr::new(ExprKind::Int(m)))
    }

    fn gen_int(&mut self, depth: u32) -> Expr {
        use BinOp::*;
        let d = depth - 1;
        let w = if self.safe {
            [30, 0, 4, 0, 0, 4, 0, 0]
        } else {
            [30, 10, 4, 6, 3, 4, 2, 2]
        };
        match self.rng.weighted(&w) {
            0 => {
                let op = *self
                    .rng
                    .pick(&[Add, Sub, Mul, And, Or, Xor, Shl, Shr, Add, Sub]);
                let l = self.gen_expr(&Ty::Int, d);
                let r = self.gen_expr(&Ty::Int, d);
                Self::bin(op, l, r)
            }
            1 => {
                let op = if self.rng.chance(50) { Div } else { Rem };
                let l = self.gen_expr(&Ty::Int, d);
                let r = if self.rng.chance(70) {
                    Expr::new(ExprKind::Int(*self.rng.pick(&[1, 2, 3, -1, 7, -3, 10, 64])))
                } else {
                    self.gen_expr(&Ty::Int, d)
                };
                Self::bin(op, l, r)
            }
            2 => Expr::new(ExprKind::Neg(Box::new(self.gen_expr(&Ty::Int, d)))),
            3 => {
                let t = if self.rng.chance(60) {
                    Ty::Arr(Box::new(self.pick_ty(0)))
                } else {
                    Ty::Str
                };
                let x = self.typed_expr(&t, d);
                Self::builtin(Builtin::Len, vec![x])
            }
            4 => {
                let s = self.gen_expr(&Ty::Str, d);
                let i = self.gen_index();
                Expr::new(ExprKind::Index(Box::new(s), Box::new(i)))
            }
            5 => Self::builtin(Builtin::ToInt, vec![self.gen_expr(&Ty::Float, d)]),
            6 => Self::builtin(
                Builtin::Pop,
                vec![self.typed_expr(&Ty::Arr(Box::new(Ty::Int)), d)],
            ),
            _ => {
                // Mostly valid: the text of an int.
                let s = if self.rng.chance(70) {
                    Self::builtin(Builtin::ToStr, vec![self.gen_expr(&Ty::Int, d)])
                } else {
                    self.gen_expr(&Ty::Str, d)
                };
                Self::builtin(Builtin::ParseInt, vec![s])
            }
        }
    }

    fn gen_float(&mut self, depth: u32) -> Expr {
        use BinOp::*;
        let d = depth - 1;
        match self.rng.weighted(&[30, 5, 10, 8]) {
            0 => {
                let op = *self.rng.pick(&[Add, Sub, Mul, Div, Rem, Add, Mul]);
                let l = self.gen_expr(&Ty::Float, d);
                let r = self.gen_expr(&Ty::Float, d);
                Self::bin(op, l, r)
            }
            1 => Expr::new(ExprKind::Neg(Box::new(self.gen_expr(&Ty::Float, d)))),
            2 => Self::builtin(Builtin::ToFloat, vec![self.gen_expr(&Ty::Int, d)]),
            _ => {
                let b =
                    *self
                        .rng
                        .pick(&[Builtin::Sqrt, Builtin::Floor, Builtin::Ceil, Builtin::Fabs]);
                Self::builtin(b, vec![self.gen_expr(&Ty::Float, d)])
            }
        }
    }

    fn gen_bool(&mut self, depth: u32) -> Expr {
        use BinOp::*;
        let d = depth - 1;
        let cmp = [Eq, Ne, Lt, Le, Gt, Ge];
        match self.rng.weighted(&[20, 8, 6, 3, 6, 12, 6]) {
            k @ 0..=2 => {
                let t = [Ty::Int, Ty::Float, Ty::Str][k].clone();
                let op = *self.rng.pick(&cmp);
                let l = self.gen_expr(&t, d);
                let r = self.gen_expr(&t, d);
                Self::bin(op, l, r)
            }
            3 => {
                let op = *self.rng.pick(&[Eq, Ne]);
                let l = self.gen_expr(&Ty::Bool, d);
                let r = self.gen_expr(&Ty::Bool, d);
                Self::bin(op, l, r)
            }
            4 => {
                let sid = self.rng.below(self.prog.structs.len());
                let op = *self.rng.pick(&[Eq, Ne]);
                let l = self.typed_expr(&Ty::Struct(sid), d);
                let r = self.gen_expr(&Ty::Struct(sid), d);
                Self::bin(op, l, r)
            }
            5 => {
                let op = *self.rng.pick(&[LAnd, LOr]);
                let l = self.gen_expr(&Ty::Bool, d);
                let r = self.gen_expr(&Ty::Bool, d);
                Self::bin(op, l, r)
            }
            _ => Expr::new(ExprKind::Not(Box::new(self.gen_expr(&Ty::Bool, d)))),
        }
    }

    fn gen_str(&mut self, depth: u32) -> Expr {
        let d = depth - 1;
        if self.rng.chance(55) {
            let l = self.gen_expr(&Ty::Str, d);
            let r = self.gen_expr(&Ty::Str, d);
            Self::bin(BinOp::Add, l, r)
        } else {
            let t = self.rng.pick(&[Ty::Int, Ty::Float, Ty::Bool]).clone();
            Self::builtin(Builtin::ToStr, vec![self.gen_expr(&t, d)])
        }
    }

    fn gen_array(&mut self, elem: &Ty, depth: u32) -> Expr {
        let d = depth - 1;
        if self.rng.chance(70) {
            let n = 1 + self.rng.below(4);
            let elems = (0..n).map(|_| self.typed_expr(elem, d)).collect();
            Expr::new(ExprKind::ArrayLit(elem.clone(), elems))
        } else {
            let x = self.typed_expr(elem, d);
            let n = if self.safe || self.rng.chance(80) {
                let neg = !self.safe && self.rng.chance(5);
                Expr::new(ExprKind::Int(if neg {
                    -1
                } else {
                    self.rng.below(5) as i64
                }))
            } else {
                self.small_int(5)
            };
            Expr::new(ExprKind::ArrayRep(Box::new(x), Box::new(n)))
        }
    }

    /// `S { .. }` with the fields in a random order.
    pub fn struct_lit(&mut self, sid: usize, depth: u32) -> Expr {
        let fields = self.prog.structs[sid].fields.clone();
        let mut order: Vec<usize> = (0..fields.len()).collect();
        for k in (1..order.len()).rev() {
            let j = self.rng.below(k + 1);
            order.swap(k, j);
        }
        let vals = order
            .into_iter()
            .map(|f| {
                let t = &fields[f].1;
                let v = if depth == 0 {
                    self.leaf(t)
                } else {
                    self.gen_expr(t, depth - 1)
                };
                (f, v)
            })
            .collect();
        Expr::new(ExprKind::StructLit(sid, vals))
    }
}
