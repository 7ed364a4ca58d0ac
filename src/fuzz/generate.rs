//! The random program generator: well-typed, terminating Toy programs as a
//! fuzz [`Program`] (structs, globals, functions, statements; expressions
//! are in `gen_expr.rs`, loops in `gen_loops.rs`).
//!
//! Invariants of a generated program:
//! - names are unique per function (`v7`, `i8`, `e9`, labels `l10`), so
//!   there is no shadowing and the oracle can key variables by name;
//! - a variable is used only inside the scope that declares it, only `var`
//!   locals, parameters and `var` globals are assigned;
//! - calls go from `fnI` to `fnJ` with `J > I` only, plus self-calls of a
//!   recursive function, whose first parameter `d` decreases and whose body
//!   starts with `if d <= 0 { return ...; }` — so the call graph is finite;
//! - every `while` loop is bounded by a counter incremented first thing in
//!   its body, `for` ranges have small bounds; what might still run long
//!   (nested loops, pushes in a `for x in a` loop) is caught by the
//!   oracle's fuel and skipped;
//! - `break`, `continue`, `return` and `throw` are only ever the last
//!   statement of a block (no unreachable code); a function with a return
//!   type ends with `return e;`.

use super::ast::*;
use super::gen_lib;
use super::rng::Rng;
use super::shrink::calls_in;

/// A visible variable.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
}

/// Generator state while building one program.
pub struct Gen {
    pub rng: Rng,
    pub prog: Program,
    /// Which functions are recursive (first parameter `d: int`).
    pub recursive: Vec<bool>,
    /// Local scopes of the current function, innermost last.
    pub scopes: Vec<Vec<Var>>,
    /// Labels of the enclosing loops (None: unlabelled), innermost last.
    pub loops: Vec<Option<String>>,
    /// The function being generated.
    pub cur: usize,
    pub fresh: usize,
    /// Statements left for the current function.
    pub budget: usize,
    /// Inside a `for x in a` body: no `push` statements.
    pub in_foreach: usize,
    /// Generating a global initialiser: no variables, calls or throwing ops.
    pub safe: bool,
    /// Variables of the enclosing `for i in a..b` loops (favoured as indices).
    pub loop_vars: Vec<String>,
    /// Whether this program calls the standard library (about a third do:
    /// importing the modules makes every run of toyc slower).
    pub lib: bool,
    /// Whether this program reads standard input and files (about one in
    /// five; it then gets an input text).
    pub io: bool,
}

/// Generates the program of `seed`.
pub fn generate(seed: u64) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        prog: Program {
            structs: Vec::new(),
            globals: Vec::new(),
            funcs: Vec::new(),
            stdin: String::new(),
            module_from: None,
        },
        recursive: Vec::new(),
        scopes: Vec::new(),
        loops: Vec::new(),
        cur: 0,
        fresh: 0,
        budget: 0,
        in_foreach: 0,
        safe: false,
        loop_vars: Vec::new(),
        lib: false,
        io: false,
    };
    g.lib = g.rng.chance(35);
    // Input is decided with an RNG of its own, so a program without
    // input is the same as before input was generated at all.
    let mut io_rng = Rng::new(seed ^ 0x05ee_d1a9_0000_0000);
    if io_rng.chance(20) {
        g.io = true;
        g.prog.stdin = gen_lib::input_text(&mut io_rng);
    }
    g.gen_structs();
    g.gen_globals();
    g.gen_signatures();
    for f in 0..g.prog.funcs.len() {
        g.gen_body(f);
    }
    g.call_uncalled();
    // Whether to split the program into two files, with an RNG of its
    // own: the split changes only how the program is printed.
    let mut split_rng = Rng::new(seed ^ 0x0d0c_0000_0000_0000);
    if split_rng.chance(20) {
        g.prog.module_from = Some(1 + split_rng.below(g.prog.funcs.len()));
    }
    g.prog
}

impl Gen {
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    /// A new scope holding only a fresh immutable variable (`prefix` and a
    /// number) of type `ty`, whose name it returns: a loop variable or a
    /// caught exception. The caller pops the scope.
    pub(super) fn fresh_scope(&mut self, prefix: &str, ty: Ty) -> String {
        let name = self.fresh(prefix);
        self.scopes.push(vec![Var {
            name: name.clone(),
            ty,
            mutable: false,
        }]);
        name
    }

    /// Makes `main` call every helper nothing calls yet (at its end, in a
    /// `try`), so that no function is dead.
    fn call_uncalled(&mut self) {
        self.cur = 0;
        self.scopes.clear();
        for j in 1..self.prog.funcs.len() {
            let called = (0..self.prog.funcs.len())
                .any(|i| i != j && calls_in(&self.prog.funcs[i].body).contains(&j));
            if called {
                continue;
            }
            let params = self.prog.funcs[j].params.clone();
            let args = params
                .iter()
                .enumerate()
                .map(|(k, (_, t))| {
                    if k == 0 && self.recursive[j] {
                        Expr::new(ExprKind::Int(self.rng.below(4) as i64))
                    } else {
                        self.leaf(t)
                    }
                })
                .collect();
            let call = Stmt::new(StmtKind::Expr(Expr::new(ExprKind::Call(j, args))));
            let var = self.fresh("e");
            let msg = vec![
                Expr::new(ExprKind::Str("main caught".into())),
                Expr::new(ExprKind::Var(var.clone())),
            ];
            let handler = vec![Stmt::new(StmtKind::Print {
                newline: true,
                args: msg,
            })];
            let stmt = Stmt::new(StmtKind::Try {
                body: vec![call],
                var,
                handler,
            });
            let body = &mut self.prog.funcs[0].body;
            let at = if matches!(body.last().map(|s| &s.kind), Some(StmtKind::Return(_))) {
                body.len() - 1
            } else {
                body.len()
            };
            body.insert(at, stmt);
        }
    }

    fn gen_structs(&mut self) {
        let n = 1 + self.rng.below(2);
        for s in 0..n {
            self.prog.structs.push(StructDef {
                name: format!("S{s}"),
                fields: Vec::new(),
            });
        }
        for s in 0..n {
            let nf = 1 + self.rng.below(3);
            let mut fields = Vec::new();
            for f in 0..nf {
                let ty = match self.rng.below(8) {
                    0 | 1 => Ty::Int,
                    2 => Ty::Float,
                    3 => Ty::Str,
                    4 => Ty::Bool,
                    5 => Ty::Arr(Box::new(Ty::Int)),
                    _ => Ty::Struct(self.rng.below(n)),
                };
                fields.push((format!("f{f}"), ty));
            }
            self.prog.structs[s].fields = fields;
        }
    }

    /// A random type; `depth` bounds nesting of arrays.
    pub fn pick_ty(&mut self, depth: u32) -> Ty {
        let n = self.prog.structs.len();
        match self
            .rng
            .weighted(&[30, 12, 12, 13, if depth > 0 { 20 } else { 0 }, 13])
        {
            0 => Ty::Int,
            1 => Ty::Float,
            2 => Ty::Bool,
            3 => Ty::Str,
            4 => {
                let elem = match self.rng.weighted(&[50, 10, 15, 5, 10, 10]) {
                    0 => Ty::Int,
                    1 => Ty::Float,
                    2 => Ty::Str,
                    3 => Ty::Bool,
                    4 => Ty::Struct(self.rng.below(n)),
                    _ => Ty::Arr(Box::new(Ty::Int)),
                };
                Ty::Arr(Box::new(elem))
            }
            _ => Ty::Struct(self.rng.below(n)),
        }
    }

    fn gen_globals(&mut self) {
        let n = self.rng.below(4);
        self.safe = true;
        for _ in 0..n {
            let ty = self.pick_ty(1);
            let init = self.gen_expr(&ty, 2);
            let name = self.fresh("G");
            let mutable = self.rng.chance(60);
            self.prog.globals.push(Global {
                name,
                mutable,
                ty,
                init,
                pos: Pos::default(),
            });
        }
        self.safe = false;
    }

    fn gen_signatures(&mut self) {
        let n = 1 + self.rng.below(4);
        let main_ret = if self.rng.chance(20) {
            Some(Ty::Int)
        } else {
            None
        };
        self.prog.funcs.push(Func {
            name: "main".into(),
            params: Vec::new(),
            ret: main_ret,
            body: Vec::new(),
        });
        self.recursive.push(false);
        for f in 1..n {
            let rec = self.rng.chance(35);
            let mut params = Vec::new();
            if rec {
                params.push(("d".to_string(), Ty::Int));
            }
            for _ in 0..self.rng.below(3) {
                let ty = self.pick_ty(1);
                params.push((self.fresh("p"), ty));
            }
            let ret = if self.rng.chance(65) {
                Some(self.pick_ty(1))
            } else {
                None
            };
            self.prog.funcs.push(Func {
                name: format!("fn{f}"),
                params,
                ret,
                body: Vec::new(),
            });
            self.recursive.push(rec);
        }
    }

    fn gen_body(&mut self, f: usize) {
        self.cur = f;
        self.budget = if f == 0 {
            14 + self.rng.below(12)
        } else {
            4 + self.rng.below(8)
        };
        let params: Vec<Var> = self.prog.funcs[f]
            .params
            .iter()
            .map(|(n, t)| Var {
                name: n.clone(),
                ty: t.clone(),
                mutable: true,
            })
            .collect();
        self.scopes = vec![params];
        self.loops.clear();
        self.loop_vars.clear();
        let ret = self.prog.funcs[f].ret.clone();
        let mut body = Vec::new();
        if self.recursive[f] {
            let base = Stmt::new(StmtKind::Return(ret.as_ref().map(|t| self.leaf(t))));
            let cond = Expr::new(ExprKind::Binary(
                BinOp::Le,
                Box::new(Expr::new(ExprKind::Var("d".into()))),
                Box::new(Expr::new(ExprKind::Int(0))),
            ));
            body.push(Stmt::new(StmtKind::If(cond, vec![base], None)));
        }
        while self.budget > 0 {
            let mut one = Vec::new();
            self.gen_stmt(&mut one, 3);
            // Half of main's statements run in a `try`, so that one runtime
            // error does not end most programs early.
            if f == 0
                && one.len() == 1
                && !matches!(one[0].kind, StmtKind::Let { .. })
                && self.rng.chance(50)
            {
                let var = self.fresh("e");
                let msg = vec![
                    Expr::new(ExprKind::Str("main caught".into())),
                    Expr::new(ExprKind::Var(var.clone())),
                ];
                let handler = vec![Stmt::new(StmtKind::Print {
                    newline: true,
                    args: msg,
                })];
                one = vec![Stmt::new(StmtKind::Try {
                    body: one,
                    var,
                    handler,
                })];
            }
            body.extend(one);
        }
        if let Some(t) = ret {
            let e = self.return_value(&t);
            body.push(Stmt::new(StmtKind::Return(Some(e))));
        }
        self.prog.funcs[f].body = body;
    }

    /// The value of a `return`: in `main` a small exit code.
    fn return_value(&mut self, t: &Ty) -> Expr {
        if self.cur == 0 {
            Expr::new(ExprKind::Int(self.rng.below(4) as i64))
        } else {
            self.gen_expr(t, 2)
        }
    }

    /// Every visible variable (locals innermost first, then globals).
    pub fn visible(&self) -> Vec<Var> {
        let mut out: Vec<Var> = self.scopes.iter().rev().flatten().cloned().collect();
        for g in &self.prog.globals {
            out.push(Var {
                name: g.name.clone(),
                ty: g.ty.clone(),
                mutable: g.mutable,
            });
        }
        out
    }

    pub(super) fn declare(&mut self, name: String, ty: Ty, mutable: bool) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push(Var { name, ty, mutable });
    }

    /// A block of up to `n` statements in a new scope, maybe ending with a
    /// jump (`break`, `continue`, `return`, `throw`).
    pub fn gen_block(&mut self, n: usize, depth: u32) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        let n = 1 + self.rng.below(n.max(1));
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.gen_stmt(&mut out, depth);
        }
        if self.rng.chance(25)
            && let Some(j) = self.gen_jump()
        {
            out.push(j);
        }
        self.scopes.pop();
        out
    }

    fn gen_jump(&mut self) -> Option<Stmt> {
        let kind = match self.rng.below(4) {
            0 | 1 if !self.loops.is_empty() => {
                let labels: Vec<String> = self.loops.iter().flatten().cloned().collect();
                let label = if !labels.is_empty() && self.rng.chance(50) {
                    Some(self.rng.pick(&labels).clone())
                } else {
                    None
                };
                if self.rng.chance(50) {
                    StmtKind::Break(label)
                } else {
                    StmtKind::Continue(label)
                }
            }
            2 => {
                let ret = self.prog.funcs[self.cur].ret.clone();
                StmtKind::Return(ret.map(|t| self.return_value(&t)))
            }
            3 => StmtKind::Throw(self.gen_expr(&Ty::Str, 1)),
            _ => return None,
        };
        Some(Stmt::new(kind))
    }

    /// Appends one statement (sometimes two: a loop counter and its loop).
    fn gen_stmt(&mut self, out: &mut Vec<Stmt>, depth: u32) {
        self.budget = self.budget.saturating_sub(1);
        let nested = if depth > 0 { 1 } else { 0 };
        let top = if depth == 3 { 3 } else { 1 };
        let w = [
            20,
            16,
            14,
            4,
            6,
            2,
            10 * nested,
            5 * nested,
            6 * nested,
            4 * nested,
            8 * nested * top,
            1,
            nested,
            1,
            2 * nested,
        ];
        let kind = match self.rng.weighted(&w) {
            0 => return self.gen_let(out),
            1 => match self.gen_assign() {
                Some(k) => k,
                None => return self.gen_let(out),
            },
            2 => self.gen_print(),
            3 => match self.gen_push() {
                Some(k) => k,
                None => return self.gen_let(out),
            },
            4 => match self.gen_call_stmt() {
                Some(k) => k,
                None => self.gen_print(),
            },
            5 if self.io && self.rng.chance(40) => self.gen_write_file(),
            5 if self.lib && self.rng.chance(50) => self.gen_lib_stmt(),
            5 => {
                let ty = Ty::Arr(Box::new(self.pick_ty(1)));
                let a = self.typed_expr(&ty, 1);
                StmtKind::Expr(Expr::new(ExprKind::Builtin(Builtin::Pop, vec![a])))
            }
            6 => self.gen_if(depth),
            7 => return self.gen_while(out, depth),
            8 => self.gen_for_range(depth),
            9 => self.gen_for_each(depth),
            10 => self.gen_try(depth),
            11 => {
                let c = self.gen_expr(&Ty::Bool, 2);
                let msg = if self.rng.chance(50) {
                    Some(self.str_literal())
                } else {
                    None
                };
                StmtKind::Assert(c, msg)
            }
            12 => StmtKind::Block(self.gen_block(3, depth - 1)),
            13 => StmtKind::Exit(Expr::new(ExprKind::Int(self.rng.below(4) as i64))),
            _ => return self.gen_series(out),
        };
        out.push(Stmt::new(kind));
    }

    fn gen_let(&mut self, out: &mut Vec<Stmt>) {
        let ty = self.pick_ty(1);
        let empty_ok = matches!(ty, Ty::Arr(_)) && self.rng.chance(15);
        let init = if empty_ok {
            Expr::new(ExprKind::ArrayLit(ty.clone(), Vec::new()))
        } else {
            self.gen_expr(&ty, 2)
        };
        let name = self.fresh("v");
        let mutable = self.rng.chance(50);
        let annotate = empty_ok || super::gen_expr::untyped(&init) || self.rng.chance(20);
        out.push(Stmt::new(StmtKind::Let {
            name: name.clone(),
            mutable,
            ty: ty.clone(),
            annotate,
            init,
        }));
        self.declare(name, ty, mutable);
    }

    fn gen_assign(&mut self) -> Option<StmtKind> {
        let vars = self.visible();
        let choice = self.rng.below(3);
        let (place, ty) = if choice == 0 {
            let cands: Vec<&Var> = vars.iter().filter(|v| v.mutable).collect();
            if cands.is_empty() {
                return None;
            }
            let v = *self.rng.pick(&cands);
            (Place::Var(v.name.clone()), v.ty.clone())
        } else if choice == 1 {
            let cands: Vec<&Var> = vars.iter().filter(|v| matches!(v.ty, Ty::Arr(_))).collect();
            if cands.is_empty() {
                return None;
            }
            let v = *self.rng.pick(&cands);
            let Ty::Arr(elem) = v.ty.clone() else {
                unreachable!()
            };
            let idx = self.gen_index();
            (
                Place::Index(Expr::new(ExprKind::Var(v.name.clone())), idx),
                *elem,
            )
        } else {
            let sid = self.rng.below(self.prog.structs.len());
            let obj = self.gen_expr(&Ty::Struct(sid), 1);
            if !matches!(
                obj.kind,
                ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::Call(..)
            ) {
                return None;
            }
            let f = self.rng.below(self.prog.structs[sid].fields.len());
            let ty = self.prog.structs[sid].fields[f].1.clone();
            (Place::Field(obj, sid, f), ty)
        };
        let op = self.compound_op(&ty);
        let value = match &place {
            // Sometimes the right-hand side shrinks the very array being
            // stored into: the store must check the index again.
            Place::Index(a, _) if self.rng.chance(15) => {
                Expr::new(ExprKind::Builtin(Builtin::Pop, vec![a.clone()]))
            }
            _ => self.gen_expr(&ty, 2),
        };
        Some(StmtKind::Assign { place, op, value })
    }

    /// Sometimes a compound operator valid for `ty`.
    fn compound_op(&mut self, ty: &Ty) -> Option<BinOp> {
        use BinOp::*;
        if self.rng.chance(55) {
            return None;
        }
        match ty {
            Ty::Int => Some(
                *self
                    .rng
                    .pick(&[Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr]),
            ),
            Ty::Float => Some(*self.rng.pick(&[Add, Sub, Mul, Div, Rem])),
            Ty::Str => Some(Add),
            _ => None,
        }
    }

    fn gen_print(&mut self) -> StmtKind {
        let n = self.rng.below(4);
        let mut args = Vec::new();
        for _ in 0..n {
            let ty = self.pick_ty(1);
            args.push(self.typed_expr(&ty, 2));
        }
        StmtKind::Print {
            newline: self.rng.chance(85),
            args,
        }
    }

    fn gen_push(&mut self) -> Option<StmtKind> {
        if self.in_foreach > 0 {
            return None;
        }
        let cands: Vec<Var> = self
            .visible()
            .into_iter()
            .filter(|v| matches!(v.ty, Ty::Arr(_)))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = self.rng.pick(&cands).clone();
        let Ty::Arr(elem) = v.ty else { unreachable!() };
        let x = self.gen_expr(&elem, 2);
        Some(StmtKind::Push(Expr::new(ExprKind::Var(v.name)), x))
    }

    fn gen_call_stmt(&mut self) -> Option<StmtKind> {
        let cands: Vec<usize> = (1..self.prog.funcs.len())
            .filter(|&j| self.callable(j))
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = *self.rng.pick(&cands);
        Some(StmtKind::Expr(self.gen_call(f)))
    }

    fn gen_if(&mut self, depth: u32) -> StmtKind {
        let c = self.gen_expr(&Ty::Bool, 3);
        let then = self.gen_block(3, depth - 1);
        let els = if self.rng.chance(40) {
            Some(self.gen_block(3, depth - 1))
        } else {
            None
        };
        StmtKind::If(c, then, els)
    }

    fn gen_try(&mut self, depth: u32) -> StmtKind {
        let body = self.gen_block(4, depth - 1);
        let var = self.fresh_scope("e", Ty::Str);
        let caught = vec![
            Expr::new(ExprKind::Str("caught".into())),
            Expr::new(ExprKind::Var(var.clone())),
        ];
        let mut handler = vec![Stmt::new(StmtKind::Print {
            newline: true,
            args: caught,
        })];
        if self.rng.chance(30) {
            handler.extend(self.gen_block(2, depth - 1));
        }
        self.scopes.pop();
        StmtKind::Try { body, var, handler }
    }
}
