//! The reference evaluator: computes what a fuzz [`Program`] must print
//! (stdout, stderr, exit code) straight from the fuzz AST, following
//! docs/language.md. It shares no code with toyc's syntax, sema, ssa, ir or
//! interp; it is the independent oracle of the differential fuzzer.
//!
//! Invariants: evaluation is left to right as the reference says; every
//! runtime error carries the `pos` the printer recorded for the throwing
//! node (so the program must have been printed first); a program that runs
//! out of fuel (steps), recursion depth or output budget, builds a string
//! longer than 64 KiB, or prints a cyclic struct, is *skipped*
//! (`Err(reason)`), never guessed.

use super::ast::*;
use super::builtins::{Stop, builtin};
use super::io::World;
use super::value::{Shared, Val, format_top, int_div, int_rem};
use std::collections::HashMap;
use std::rc::Rc;

/// What a run of a program shows: the contract toyc is compared on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

const FUEL: u64 = 400_000;
const MAX_CALL_DEPTH: u32 = 200;
const MAX_OUTPUT: usize = 1 << 16;

/// Runs `p` (already printed, so positions are filled) as if it were the
/// file `file`. `Err` means the program is unsuitable (too long, cyclic
/// output) and must be skipped.
pub fn evaluate(p: &Program, file: &str) -> Result<Outcome, String> {
    // A struct of an imported module prints with the module's name.
    let prefix = match p.module_from {
        Some(_) => format!("{MODULE}."),
        None => String::new(),
    };
    let structs = p
        .structs
        .iter()
        .map(|s| {
            (
                format!("{prefix}{}", s.name),
                s.fields.iter().map(|f| f.0.clone()).collect(),
            )
        })
        .collect();
    let mut ev = Eval {
        prog: p,
        structs,
        out: String::new(),
        globals: HashMap::new(),
        fuel: FUEL,
        depth: 0,
        world: World::new(&p.stdin),
    };
    let result = ev.run_main();
    let stdout = std::mem::take(&mut ev.out);
    match result {
        Ok(code) => Ok(Outcome {
            stdout,
            stderr: String::new(),
            code,
        }),
        Err(Ctl::Throw(msg, pos)) => {
            let module_file = format!("{MODULE}.toy");
            let file = if pos.in_module { &module_file } else { file };
            Ok(Outcome {
                stdout,
                stderr: format!("error: {msg}\n  at {file}:{}:{}\n", pos.line, pos.col),
                code: 101,
            })
        }
        Err(Ctl::Exit(code)) => Ok(Outcome {
            stdout,
            stderr: String::new(),
            code,
        }),
        Err(Ctl::Skip(why)) => Err(why),
    }
}

/// Why evaluation stopped early.
enum Ctl {
    /// A Toy exception: message and the position of the throwing node.
    Throw(String, Pos),
    /// The program is unsuitable for fuzzing.
    Skip(String),
    /// `exit(code)`: not catchable.
    Exit(i32),
}

/// How a statement list ended.
enum Flow {
    Next,
    Break(Option<String>),
    Continue(Option<String>),
    Return(Val),
}

type R<T> = Result<T, Ctl>;

struct Eval<'a> {
    prog: &'a Program,
    structs: Vec<(String, Vec<String>)>,
    out: String,
    globals: HashMap<String, Val>,
    fuel: u64,
    depth: u32,
    world: World,
}

type Frame = HashMap<String, Val>;

fn throw<T>(msg: impl Into<String>, pos: Pos) -> R<T> {
    Err(Ctl::Throw(msg.into(), pos))
}

fn oob<T>(i: i64, len: usize, pos: Pos) -> R<T> {
    throw(format!("index out of bounds: index {i}, length {len}"), pos)
}

fn new_shared(v: Vec<Val>) -> Shared {
    Shared::new(v)
}

impl Eval<'_> {
    fn run_main(&mut self) -> R<i32> {
        let mut frame = Frame::new();
        for g in &self.prog.globals {
            let v = self.expr(&mut frame, &g.init)?;
            self.globals.insert(g.name.clone(), v);
        }
        match self.call(0, Vec::new())? {
            Val::Int(code) => Ok(code as i32),
            _ => Ok(0),
        }
    }

    fn tick(&mut self) -> R<()> {
        if self.fuel == 0 {
            return Err(Ctl::Skip("out of fuel".into()));
        }
        self.fuel -= 1;
        Ok(())
    }

    fn call(&mut self, f: usize, args: Vec<Val>) -> R<Val> {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Ctl::Skip("recursion too deep".into()));
        }
        let func = &self.prog.funcs[f];
        let mut frame: Frame = func
            .params
            .iter()
            .map(|(n, _)| n.clone())
            .zip(args)
            .collect();
        self.depth += 1;
        let flow = self.block(&mut frame, &func.body);
        self.depth -= 1;
        match flow? {
            Flow::Return(v) => Ok(v),
            _ => Ok(Val::Unit),
        }
    }

    fn block(&mut self, fr: &mut Frame, body: &[Stmt]) -> R<Flow> {
        for s in body {
            self.tick()?;
            match self.stmt(fr, s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn lookup(&self, fr: &Frame, name: &str) -> Val {
        match fr.get(name) {
            Some(v) => v.clone(),
            None => self
                .globals
                .get(name)
                .cloned()
                .unwrap_or_else(|| panic!("fuzz oracle: unknown variable {name}")),
        }
    }

    fn set_var(&mut self, fr: &mut Frame, name: &str, v: Val) {
        if let Some(slot) = fr.get_mut(name) {
            *slot = v;
        } else if let Some(slot) = self.globals.get_mut(name) {
            *slot = v;
        } else {
            fr.insert(name.to_string(), v);
        }
    }

    fn emit(&mut self, s: &str) -> R<()> {
        self.out.push_str(s);
        if self.out.len() > MAX_OUTPUT {
            return Err(Ctl::Skip("too much output".into()));
        }
        Ok(())
    }

    fn stmt(&mut self, fr: &mut Frame, s: &Stmt) -> R<Flow> {
        match &s.kind {
            StmtKind::Let { name, init, .. } => {
                let v = self.expr(fr, init)?;
                fr.insert(name.clone(), v);
            }
            StmtKind::Assign { place, op, value } => self.assign(fr, place, *op, value, s.pos)?,
            StmtKind::Print { newline, args } => {
                // A call: every argument is evaluated before anything is
                // formatted (a later argument may change an earlier array).
                let vals = self.exprs(fr, args)?;
                let mut parts = Vec::new();
                for v in &vals {
                    parts.push(
                        format_top(v, &self.structs)
                            .ok_or_else(|| Ctl::Skip("cyclic value".into()))?,
                    );
                }
                let text = if *newline {
                    parts.join(" ") + "\n"
                } else {
                    parts.concat()
                };
                self.emit(&text)?;
            }
            StmtKind::Push(a, v) => {
                let arr = self.expr(fr, a)?.arr();
                let v = self.expr(fr, v)?;
                if arr.borrow().len() > 10_000 {
                    return Err(Ctl::Skip("array too long".into()));
                }
                arr.borrow_mut().push(v);
            }
            StmtKind::Expr(e) => {
                self.expr(fr, e)?;
            }
            StmtKind::Exit(c) => return Err(Ctl::Exit(self.expr(fr, c)?.int() as i32)),
            StmtKind::Assert(c, msg) => {
                if !self.expr(fr, c)?.bool() {
                    let m = match msg {
                        Some(m) => format!("assertion failed: {m}"),
                        None => "assertion failed".to_string(),
                    };
                    return throw(m, s.pos);
                }
            }
            StmtKind::If(c, then, els) => {
                if self.expr(fr, c)?.bool() {
                    return self.block(fr, then);
                } else if let Some(e) = els {
                    return self.block(fr, e);
                }
            }
            StmtKind::While { .. } | StmtKind::ForRange { .. } | StmtKind::ForEach { .. } => {
                return self.loop_stmt(fr, s);
            }
            StmtKind::Break(l) => return Ok(Flow::Break(l.clone())),
            StmtKind::Continue(l) => return Ok(Flow::Continue(l.clone())),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.expr(fr, e)?,
                    None => Val::Unit,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Throw(e) => {
                let msg = self.expr(fr, e)?.str();
                return throw(msg.as_str(), s.pos);
            }
            StmtKind::Try { body, var, handler } => match self.block(fr, body) {
                Err(Ctl::Throw(msg, _)) => {
                    fr.insert(var.clone(), Val::Str(Rc::new(msg)));
                    return self.block(fr, handler);
                }
                other => return other,
            },
            StmtKind::Block(b) => return self.block(fr, b),
        }
        Ok(Flow::Next)
    }

    /// `while`, `for i in a..b` and `for x in a`.
    fn loop_stmt(&mut self, fr: &mut Frame, s: &Stmt) -> R<Flow> {
        match &s.kind {
            StmtKind::While { label, cond, body } => {
                while self.expr(fr, cond)?.bool() {
                    self.tick()?;
                    match self.loop_body(fr, label, body)? {
                        Some(flow) => return Ok(flow),
                        None => continue,
                    }
                }
            }
            StmtKind::ForRange {
                label,
                var,
                lo,
                hi,
                body,
            } => {
                let lo = self.expr(fr, lo)?.int();
                let hi = self.expr(fr, hi)?.int();
                let mut i = lo;
                while i < hi {
                    self.tick()?;
                    fr.insert(var.clone(), Val::Int(i));
                    if let Some(flow) = self.loop_body(fr, label, body)? {
                        return Ok(flow);
                    }
                    i += 1;
                }
            }
            StmtKind::ForEach {
                label,
                var,
                arr,
                body,
                ..
            } => {
                let arr = self.expr(fr, arr)?.arr();
                let mut k = 0;
                loop {
                    self.tick()?;
                    let item = match arr.borrow().get(k) {
                        Some(v) => v.clone(),
                        None => break,
                    };
                    fr.insert(var.clone(), item);
                    if let Some(flow) = self.loop_body(fr, label, body)? {
                        return Ok(flow);
                    }
                    k += 1;
                }
            }
            _ => unreachable!("not a loop"),
        }
        Ok(Flow::Next)
    }

    /// Runs one iteration of a loop body: `None` to go on with the loop,
    /// `Some(flow)` to leave the loop statement with `flow`.
    fn loop_body(
        &mut self,
        fr: &mut Frame,
        label: &Option<String>,
        body: &[Stmt],
    ) -> R<Option<Flow>> {
        let mine = |l: &Option<String>| l.is_none() || l == label;
        Ok(match self.block(fr, body)? {
            Flow::Next => None,
            Flow::Break(l) if mine(&l) => Some(Flow::Next),
            Flow::Continue(l) if mine(&l) => None,
            other => Some(other),
        })
    }

    /// Assignment in the order of docs/language.md §4: the place's parts,
    /// then (for compound forms) the old value, then the right-hand side,
    /// then the check and the store.
    fn assign(
        &mut self,
        fr: &mut Frame,
        place: &Place,
        op: Option<BinOp>,
        value: &Expr,
        pos: Pos,
    ) -> R<()> {
        match place {
            Place::Var(name) => {
                let new = match op {
                    Some(op) => {
                        let old = self.lookup(fr, name);
                        let rhs = self.expr(fr, value)?;
                        too_long(binary(op, old, rhs, pos)?)?
                    }
                    None => self.expr(fr, value)?,
                };
                self.set_var(fr, name, new);
            }
            Place::Index(a, i) => {
                let arr = self.expr(fr, a)?.arr();
                let i = self.expr(fr, i)?.int();
                let new = match op {
                    Some(op) => {
                        let old = checked_get(&arr.borrow(), i, pos)?;
                        let rhs = self.expr(fr, value)?;
                        too_long(binary(op, old, rhs, pos)?)?
                    }
                    None => self.expr(fr, value)?,
                };
                let len = arr.borrow().len();
                if i < 0 || i as usize >= len {
                    return oob(i, len, pos);
                }
                arr.borrow_mut()[i as usize] = new;
            }
            Place::Field(p, _, f) => {
                let obj = self.expr(fr, p)?;
                let Val::Struct(_, obj) = obj else {
                    panic!("fuzz oracle: field of non-struct")
                };
                let new = match op {
                    Some(op) => {
                        let Some(o) = &obj else {
                            return throw("nil dereference", pos);
                        };
                        let old = o.borrow()[*f].clone();
                        let rhs = self.expr(fr, value)?;
                        too_long(binary(op, old, rhs, pos)?)?
                    }
                    None => self.expr(fr, value)?,
                };
                let Some(o) = obj else {
                    return throw("nil dereference", pos);
                };
                o.borrow_mut()[*f] = new;
            }
        }
        Ok(())
    }

    fn exprs(&mut self, fr: &mut Frame, es: &[Expr]) -> R<Vec<Val>> {
        es.iter().map(|e| self.expr(fr, e)).collect()
    }

    fn expr(&mut self, fr: &mut Frame, e: &Expr) -> R<Val> {
        self.tick()?;
        Ok(match &e.kind {
            ExprKind::Int(i) => Val::Int(*i),
            // The printer writes NaN as `(0.0 / 0.0)`: its value, sign bit
            // included, is what that division gives on this machine.
            ExprKind::Float(f) if f.is_nan() => {
                Val::Float(std::hint::black_box(0.0f64) / std::hint::black_box(0.0f64))
            }
            ExprKind::Float(f) => Val::Float(*f),
            ExprKind::Bool(b) => Val::Bool(*b),
            ExprKind::Str(s) => Val::Str(Rc::new(s.clone())),
            ExprKind::Nil(sid) => Val::Struct(*sid, None),
            ExprKind::Var(n) => self.lookup(fr, n),
            ExprKind::Neg(x) => match self.expr(fr, x)? {
                Val::Int(i) => Val::Int(i.wrapping_neg()),
                Val::Float(f) => Val::Float(-f),
                v => panic!("fuzz oracle: negate {v:?}"),
            },
            ExprKind::Not(x) => Val::Bool(!self.expr(fr, x)?.bool()),
            ExprKind::Binary(BinOp::LAnd, l, r) => {
                Val::Bool(self.expr(fr, l)?.bool() && self.expr(fr, r)?.bool())
            }
            ExprKind::Binary(BinOp::LOr, l, r) => {
                Val::Bool(self.expr(fr, l)?.bool() || self.expr(fr, r)?.bool())
            }
            ExprKind::Binary(op, l, r) => {
                let l = self.expr(fr, l)?;
                let r = self.expr(fr, r)?;
                too_long(binary(*op, l, r, e.pos)?)?
            }
            ExprKind::Call(f, args) => {
                let args = self.exprs(fr, args)?;
                self.call(*f, args)?
            }
            ExprKind::Builtin(b, args) => {
                let args = self.exprs(fr, args)?;
                match builtin(*b, &args, &mut self.world) {
                    Ok(v) => too_long(v)?,
                    Err(Stop::Throw(msg)) => return throw(msg, e.pos),
                    Err(Stop::Skip(why)) => return Err(Ctl::Skip(why)),
                }
            }
            ExprKind::Lib(f, args) => {
                let args = self.exprs(fr, args)?;
                super::stdlib::eval(*f, &args).map_err(Ctl::Skip)?
            }
            ExprKind::Index(a, i) => {
                let a = self.expr(fr, a)?;
                let i = self.expr(fr, i)?.int();
                match a {
                    Val::Str(s) => {
                        match usize::try_from(i).ok().and_then(|k| s.as_bytes().get(k)) {
                            Some(b) => Val::Int(*b as i64),
                            None => return oob(i, s.len(), e.pos),
                        }
                    }
                    Val::Arr(arr) => checked_get(&arr.borrow(), i, e.pos)?,
                    v => panic!("fuzz oracle: index into {v:?}"),
                }
            }
            ExprKind::Field(p, _, f) => match self.expr(fr, p)? {
                Val::Struct(_, Some(o)) => o.borrow()[*f].clone(),
                Val::Struct(_, None) => return throw("nil dereference", e.pos),
                v => panic!("fuzz oracle: field of {v:?}"),
            },
            ExprKind::ArrayLit(_, elems) => Val::Arr(new_shared(self.exprs(fr, elems)?)),
            ExprKind::ArrayRep(x, n) => {
                let x = self.expr(fr, x)?;
                let n = self.expr(fr, n)?.int();
                if n < 0 {
                    return throw("negative array length", e.pos);
                }
                if n > 10_000 {
                    return Err(Ctl::Skip("array too long".into()));
                }
                Val::Arr(new_shared(vec![x; n as usize]))
            }
            ExprKind::StructLit(sid, fields) => {
                let mut vals = vec![Val::Unit; self.prog.structs[*sid].fields.len()];
                for (f, x) in fields {
                    vals[*f] = self.expr(fr, x)?;
                }
                Val::Struct(*sid, Some(new_shared(vals)))
            }
        })
    }
}

/// Skips programs whose strings grow too long (`s = s + s` in loops grows
/// exponentially).
fn too_long(v: Val) -> R<Val> {
    match &v {
        Val::Str(s) if s.len() > MAX_OUTPUT => Err(Ctl::Skip("string too long".into())),
        _ => Ok(v),
    }
}

fn checked_get(arr: &[Val], i: i64, pos: Pos) -> R<Val> {
    match usize::try_from(i).ok().and_then(|k| arr.get(k)) {
        Some(v) => Ok(v.clone()),
        None => oob(i, arr.len(), pos),
    }
}

/// A binary operator on evaluated operands (not `&&`/`||`).
fn binary(op: BinOp, l: Val, r: Val, pos: Pos) -> R<Val> {
    use BinOp::*;
    Ok(match (l, r) {
        (Val::Int(a), Val::Int(b)) => match op {
            Add => Val::Int(a.wrapping_add(b)),
            Sub => Val::Int(a.wrapping_sub(b)),
            Mul => Val::Int(a.wrapping_mul(b)),
            Div => {
                Val::Int(int_div(a, b).ok_or_else(|| Ctl::Throw("division by zero".into(), pos))?)
            }
            Rem => {
                Val::Int(int_rem(a, b).ok_or_else(|| Ctl::Throw("division by zero".into(), pos))?)
            }
            And => Val::Int(a & b),
            Or => Val::Int(a | b),
            Xor => Val::Int(a ^ b),
            Shl => Val::Int(a.wrapping_shl((b & 63) as u32)),
            Shr => Val::Int(a.wrapping_shr((b & 63) as u32)),
            _ => Val::Bool(compare(op, a.cmp(&b))),
        },
        (Val::Float(a), Val::Float(b)) => match op {
            Add => Val::Float(a + b),
            Sub => Val::Float(a - b),
            Mul => Val::Float(a * b),
            Div => Val::Float(a / b),
            Rem => Val::Float(a % b),
            Eq => Val::Bool(a == b),
            Ne => Val::Bool(a != b),
            Lt => Val::Bool(a < b),
            Le => Val::Bool(a <= b),
            Gt => Val::Bool(a > b),
            Ge => Val::Bool(a >= b),
            _ => panic!("fuzz oracle: float {op:?}"),
        },
        (Val::Str(a), Val::Str(b)) => match op {
            Add => Val::Str(Rc::new(format!("{a}{b}"))),
            _ => Val::Bool(compare(op, a.as_bytes().cmp(b.as_bytes()))),
        },
        (Val::Bool(a), Val::Bool(b)) => match op {
            Eq => Val::Bool(a == b),
            Ne => Val::Bool(a != b),
            _ => panic!("fuzz oracle: bool {op:?}"),
        },
        (Val::Struct(_, a), Val::Struct(_, b)) => {
            let same = match (&a, &b) {
                (None, None) => true,
                (Some(x), Some(y)) => Shared::ptr_eq(x, y),
                _ => false,
            };
            Val::Bool(if op == Eq { same } else { !same })
        }
        (l, r) => panic!("fuzz oracle: {op:?} on {l:?} and {r:?}"),
    })
}

fn compare(op: BinOp, ord: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => ord == Equal,
        BinOp::Ne => ord != Equal,
        BinOp::Lt => ord == Less,
        BinOp::Le => ord != Greater,
        BinOp::Gt => ord == Greater,
        BinOp::Ge => ord != Less,
        _ => panic!("fuzz oracle: not a comparison: {op:?}"),
    }
}
