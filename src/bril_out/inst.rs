//! The statements of a block: one IR statement becomes one Bril
//! instruction, or a few for the ops Bril lacks (`%`, `!=`, `==` on
//! booleans, negation), or none (a `print` line is one instruction at its
//! `print_newline`).
use super::{FnEmitter, instr, value_name};
use crate::bril::ast::{BrilType, Item};
use crate::ir::{BinaryOp, Cmp, Inst, Operand, RaiseKind, RuntimeFn, Type, UnaryOp, Value};
use crate::span::Span;
use cranelift_entity::EntityRef;

impl FnEmitter<'_> {
    /// A statement that is not a terminator.
    pub(super) fn stmt(&mut self, v: Value) {
        let span = self.span(v);
        match &self.code.stmts.inst[v] {
            Inst::Nothing => {}
            Inst::Copy(x) | Inst::Pi { value: x, .. } => self.op(v, "id", &[*x]),
            Inst::Phi { .. } => self.op(v, "get", &[]),
            Inst::Undef => self.op(v, "undef", &[]),
            Inst::Unary(u, x) => self.unary(v, *u, x),
            Inst::Binary(o, x, y) => self.binary(v, *o, x, y),
            Inst::Call { func, args } => {
                self.end_of_output();
                let callee = self.module.funcs[func.index()].name.clone();
                let args: Vec<String> = args.iter().map(|a| self.operand(a, span)).collect();
                let mut i = instr("call", span);
                i.funcs = vec![callee];
                i.args = args;
                if self.code.stmts.ty[v] != Type::Void {
                    self.set_dest(&mut i, v);
                }
                self.items.push(Item::Instr(i));
            }
            Inst::Runtime { func, args } => self.runtime(v, *func, args),
            // A raise stops the program in Bril, so no exception is ever
            // pending after a call.
            Inst::NoException => self.op(v, "id", &[Operand::Bool(true)]),
            Inst::Raise {
                kind: RaiseKind::DivisionByZero,
                ..
            } => {
                self.end_of_output();
                let zero = Operand::Int(0);
                let (z, z2) = (self.operand(&zero, span), self.operand(&zero, span));
                let mut i = instr("div", span);
                i.dest = Some(value_name(v));
                i.ty = Some(BrilType::Int);
                i.args = vec![z, z2];
                self.items.push(Item::Instr(i));
            }
            Inst::Raise { kind, .. } => {
                let what = match kind {
                    RaiseKind::Throw => "`throw`".to_string(),
                    RaiseKind::AssertionFailed => "`assert`".to_string(),
                    k => format!("the runtime check `{}`", raise_name(*k)),
                };
                self.fail(span, &what);
            }
            Inst::PhiC { .. } | Inst::Upsilon(_) | Inst::TakeException => {
                self.fail(span, "exceptions (`try`/`catch`)");
            }
            Inst::StrConst(_) => {
                self.fail(span, "strings");
            }
            Inst::Load { loc, .. } | Inst::Store { loc, .. } => {
                let what = match loc {
                    crate::ir::Loc::Global(g) => format!(
                        "global variables (`{}`)",
                        self.module.program.globals[g.index()].name
                    ),
                    crate::ir::Loc::Field { .. } => "structs".into(),
                    _ => "arrays".into(),
                };
                self.fail(span, &what);
            }
            Inst::NewArray { .. } => {
                self.fail(span, "arrays");
            }
            Inst::NewStruct { .. } => {
                self.fail(span, "structs");
            }
            Inst::Goto(_)
            | Inst::GotoIfNot { .. }
            | Inst::Return(_)
            | Inst::Unwind
            | Inst::Unreachable => unreachable!("terminators are emitted by `terminator`"),
        }
    }

    /// Names `v` as `i`'s destination, with its Bril type.
    fn set_dest(&mut self, i: &mut crate::bril::ast::Instr, v: Value) {
        let ty = self.code.stmts.ty[v].clone();
        i.ty = Some(self.ty(&ty, i.span));
        i.dest = Some(value_name(v));
    }

    /// `v = op args` with `v`'s own type.
    fn op(&mut self, v: Value, op: &str, args: &[Operand]) {
        let span = self.span(v);
        let mut i = instr(op, span);
        i.args = args.iter().map(|a| self.operand(a, span)).collect();
        self.set_dest(&mut i, v);
        self.items.push(Item::Instr(i));
    }

    /// `dest: ty = op args` where the arguments are Bril variables.
    fn raw(&mut self, dest: String, ty: BrilType, op: &str, args: Vec<String>, span: Span) {
        let mut i = instr(op, span);
        i.dest = Some(dest);
        i.ty = Some(ty);
        i.args = args;
        self.items.push(Item::Instr(i));
    }

    fn unary(&mut self, v: Value, u: UnaryOp, x: &Operand) {
        match u {
            UnaryOp::INeg => self.op(v, "sub", &[Operand::Int(0), *x]),
            // `x * -1.0` flips the sign of every float, zeros included.
            UnaryOp::FNeg => self.op(v, "fmul", &[*x, Operand::Float(-1.0)]),
            UnaryOp::Not => self.op(v, "not", &[*x]),
            UnaryOp::IntToFloat => {
                self.fail(self.span(v), "the conversion `float(int)`");
            }
            UnaryOp::FloatToInt => {
                self.fail(self.span(v), "the conversion `int(float)`");
            }
        }
    }

    fn binary(&mut self, v: Value, o: BinaryOp, x: &Operand, y: &Operand) {
        let span = self.span(v);
        let is_bool = self.code.operand_type(x) == Some(Type::Bool);
        let simple = match o {
            BinaryOp::IAdd => "add",
            BinaryOp::ISub => "sub",
            BinaryOp::IMul => "mul",
            BinaryOp::IDiv => "div",
            BinaryOp::IAnd if is_bool => "and",
            BinaryOp::IOr if is_bool => "or",
            BinaryOp::FAdd => "fadd",
            BinaryOp::FSub => "fsub",
            BinaryOp::FMul => "fmul",
            BinaryOp::FDiv => "fdiv",
            BinaryOp::ICmp(c) if !is_bool => match int_cmp(c) {
                Some(op) => op,
                None => return self.negated_or_fail(v, c, "eq", x, y),
            },
            BinaryOp::FCmp(c) => match float_cmp(c) {
                Some(op) => op,
                None => return self.negated_or_fail(v, c, "feq", x, y),
            },
            BinaryOp::ICmp(c @ (Cmp::Eq | Cmp::Ne)) => return self.bool_eq(v, c == Cmp::Ne, x, y),
            BinaryOp::IXor if is_bool => return self.bool_eq(v, true, x, y),
            BinaryOp::IRem => return self.remainder(v, x, y),
            BinaryOp::FRem => return self.fail_unit(span, "float `%`"),
            BinaryOp::IAnd | BinaryOp::IOr | BinaryOp::IXor => {
                return self.fail_unit(span, "bitwise operations on int");
            }
            BinaryOp::IShl | BinaryOp::IShr => return self.fail_unit(span, "shifts"),
            BinaryOp::ICmp(_) => return self.fail_unit(span, "ordering booleans"),
        };
        self.op(v, simple, &[*x, *y])
    }

    fn fail_unit(&mut self, span: Span, what: &str) {
        self.fail(span, what);
    }

    /// `!=` as `not (eq x y)`; an unsigned comparison (only bounds checks
    /// make one) has no Bril form.
    fn negated_or_fail(&mut self, v: Value, c: Cmp, eq: &str, x: &Operand, y: &Operand) {
        let span = self.span(v);
        if c != Cmp::Ne {
            return self.fail_unit(span, "an unsigned comparison");
        }
        let (a, b) = (self.operand(x, span), self.operand(y, span));
        let t = temp(v, 1);
        self.raw(t.clone(), BrilType::Bool, eq, vec![a, b], span);
        self.raw(value_name(v), BrilType::Bool, "not", vec![t], span);
    }

    /// `x == y` on booleans as `(x and y) or not (x or y)`; with `negate`,
    /// its `not`.
    fn bool_eq(&mut self, v: Value, negate: bool, x: &Operand, y: &Operand) {
        let span = self.span(v);
        let (a, b) = (self.operand(x, span), self.operand(y, span));
        let t: Vec<String> = (1..=4).map(|k| temp(v, k)).collect();
        let bool_op = |s: &mut Self, dest: String, op: &str, args: Vec<String>| {
            s.raw(dest, BrilType::Bool, op, args, span)
        };
        bool_op(self, t[0].clone(), "and", vec![a.clone(), b.clone()]);
        bool_op(self, t[1].clone(), "or", vec![a, b]);
        bool_op(self, t[2].clone(), "not", vec![t[1].clone()]);
        let eq = if negate { t[3].clone() } else { value_name(v) };
        bool_op(self, eq.clone(), "or", vec![t[0].clone(), t[2].clone()]);
        if negate {
            bool_op(self, value_name(v), "not", vec![eq]);
        }
    }

    /// `x % y` as `x - (x / y) * y`: with division truncating toward zero
    /// that is the remainder of LANGUAGE.md, `MIN % -1 == 0` included (all
    /// three ops wrap).
    fn remainder(&mut self, v: Value, x: &Operand, y: &Operand) {
        let span = self.span(v);
        let (a, b) = (self.operand(x, span), self.operand(y, span));
        let (q, p) = (temp(v, 1), temp(v, 2));
        self.raw(
            q.clone(),
            BrilType::Int,
            "div",
            vec![a.clone(), b.clone()],
            span,
        );
        self.raw(p.clone(), BrilType::Int, "mul", vec![q, b], span);
        self.raw(value_name(v), BrilType::Int, "sub", vec![a, p], span);
    }

    /// A runtime call: a piece of a `print` line, or an error.
    fn runtime(&mut self, v: Value, func: RuntimeFn, args: &[Operand]) {
        let span = self.span(v);
        use RuntimeFn::{PrintBool, PrintInt, PrintNewline, PrintSpace};
        if self.broken_line && matches!(func, PrintInt | PrintBool | PrintSpace | PrintNewline) {
            self.broken_line = func != PrintNewline;
            return;
        }
        match func {
            RuntimeFn::PrintInt | RuntimeFn::PrintBool => {
                let x = self.operand(&args[0], span);
                match &mut self.pending {
                    None => {
                        self.pending = Some(super::PrintLine {
                            args: vec![x],
                            after_space: false,
                            span,
                        })
                    }
                    Some(line) if line.after_space => {
                        line.args.push(x);
                        line.after_space = false;
                    }
                    Some(_) => self.fail_unit(span, WRITE),
                }
            }
            RuntimeFn::PrintSpace => match &mut self.pending {
                Some(line) if !line.after_space => line.after_space = true,
                _ => self.fail_unit(span, WRITE),
            },
            RuntimeFn::PrintNewline => {
                let line = self.pending.take();
                if line.as_ref().is_some_and(|l| l.after_space) {
                    return self.fail_unit(span, WRITE);
                }
                let mut i = instr("print", span);
                i.args = line.map(|l| l.args).unwrap_or_default();
                self.items.push(Item::Instr(i));
            }
            // The line cannot be printed: say why, not that it is unfinished.
            RuntimeFn::PrintFloat | RuntimeFn::PrintStr | RuntimeFn::PrintValue => {
                self.pending = None;
                self.broken_line = true;
                self.fail_unit(span, &runtime_what(func));
            }
            f => {
                self.end_of_output();
                self.fail_unit(span, &runtime_what(f));
            }
        }
    }

    /// Where output may happen or the program may stop: a `print` line
    /// still open here would come out in another order, so it is an error.
    pub(super) fn end_of_output(&mut self) {
        self.broken_line = false;
        if let Some(line) = self.pending.take() {
            self.fail_unit(line.span, WRITE);
        }
    }
}

/// Output that Bril's `print` cannot make: it always separates its
/// arguments by a space and ends the line.
const WRITE: &str = "output without a newline (`write`)";

/// A temporary of the instructions that `v` expands to: `%N.k`.
fn temp(v: Value, k: u32) -> String {
    format!("{}.{k}", value_name(v))
}

fn int_cmp(c: Cmp) -> Option<&'static str> {
    Some(match c {
        Cmp::Eq => "eq",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
        Cmp::Ne | Cmp::Ult => return None,
    })
}

fn float_cmp(c: Cmp) -> Option<&'static str> {
    Some(match c {
        Cmp::Eq => "feq",
        Cmp::Lt => "flt",
        Cmp::Le => "fle",
        Cmp::Gt => "fgt",
        Cmp::Ge => "fge",
        Cmp::Ne | Cmp::Ult => return None,
    })
}

/// The message of a runtime check, as LANGUAGE.md words it.
fn raise_name(k: RaiseKind) -> &'static str {
    match k {
        RaiseKind::Throw => "throw",
        RaiseKind::DivisionByZero => "division by zero",
        RaiseKind::IndexOutOfBounds => "index out of bounds",
        RaiseKind::NilDereference => "nil dereference",
        RaiseKind::NegativeArrayLength => "negative array length",
        RaiseKind::PopFromEmpty => "pop from empty array",
        RaiseKind::AssertionFailed => "assertion failed",
    }
}

/// What a runtime function other than the `print` pieces stands for.
fn runtime_what(f: RuntimeFn) -> String {
    use RuntimeFn as R;
    match f {
        R::PrintFloat => "printing a float (Toy prints `0.1`, Bril `0.10000000000000001`)".into(),
        R::PrintStr
        | R::StrConcat
        | R::StrEq
        | R::StrCmp
        | R::StrLen
        | R::StrByte
        | R::StrOfInt
        | R::StrOfFloat
        | R::StrOfBool
        | R::Substr
        | R::Chr
        | R::Fixed
        | R::ParseInt
        | R::ParseFloat => "strings".into(),
        R::PrintValue => "printing an array or struct".into(),
        R::ArrayPush | R::ArrayPop => "arrays".into(),
        R::ReadLine | R::AtEof | R::ReadAll | R::ReadFile | R::WriteFile | R::Args => {
            "input, files and `args()`".into()
        }
        f => format!("the builtin `{}`", f.row().ir_name),
    }
}
