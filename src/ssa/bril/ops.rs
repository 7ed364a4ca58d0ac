//! The lowering of each Bril instruction (the function-level walk is in
//! the parent module). Operand types were checked before
//! (`bril::check`), so every variable read here has the type its op needs.
use super::{FnBuild, ir_type};
use crate::bril::ast::{BrilType, Instr, Literal};
use crate::ir::{BinaryOp, Cmp, Flags, Inst, Operand, RaiseKind, RuntimeFn, Type, UnaryOp};
use crate::span::Span;
use crate::ssa::builder::BuildTerm;
use crate::ssa::lower_expr::runtime_flags;

/// The IR operation of a Bril op that maps to one pure binary operation.
fn binary_op(op: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match op {
        "add" => IAdd,
        "sub" => ISub,
        "mul" => IMul,
        "and" => IAnd,
        "or" => IOr,
        "eq" | "ceq" => ICmp(Cmp::Eq),
        "lt" | "clt" => ICmp(Cmp::Lt),
        "le" | "cle" => ICmp(Cmp::Le),
        "gt" | "cgt" => ICmp(Cmp::Gt),
        "ge" | "cge" => ICmp(Cmp::Ge),
        "fadd" => FAdd,
        "fsub" => FSub,
        "fmul" => FMul,
        "fdiv" => FDiv,
        "feq" => FCmp(Cmp::Eq),
        "flt" => FCmp(Cmp::Lt),
        "fle" => FCmp(Cmp::Le),
        "fgt" => FCmp(Cmp::Gt),
        "fge" => FCmp(Cmp::Ge),
        "ptradd" => IAdd,
        _ => return None,
    })
}

impl<'a> FnBuild<'a> {
    pub(super) fn instr(&mut self, pos: usize, i: &'a Instr) {
        let span = i.span;
        let ty = i.ty.as_ref().map_or(Type::Void, ir_type);
        if let Some(op) = binary_op(&i.op) {
            let (a, b) = (self.read(&i.args[0]), self.read(&i.args[1]));
            let v = self.b.binary(op, a, b, ty, span);
            return self.set_dest(i, v);
        }
        let value = match i.op.as_str() {
            "const" => Some(self.constant(i)),
            "id" | "char2int" => Some(self.read(&i.args[0])),
            "not" => {
                let a = self.read(&i.args[0]);
                Some(self.b.unary(UnaryOp::Not, a, Type::Bool, span))
            }
            "div" => Some(self.div(i)),
            "int2char" => Some(self.int2char(i)),
            "float2bits" => Some(self.runtime(RuntimeFn::BrilFloatToBits, i, Type::Int)),
            "bits2float" => Some(self.runtime(RuntimeFn::BrilBitsToFloat, i, Type::Float)),
            "alloc" => Some(self.runtime(RuntimeFn::BrilAlloc, i, Type::Int)),
            "free" => Some(self.runtime(RuntimeFn::BrilFree, i, Type::Void)),
            "load" => {
                let f = match i.ty {
                    Some(BrilType::Float) => RuntimeFn::BrilLoadFloat,
                    Some(BrilType::Bool) => RuntimeFn::BrilLoadBool,
                    _ => RuntimeFn::BrilLoadInt,
                };
                Some(self.runtime(f, i, ty))
            }
            "store" => {
                let f = match self.bril_type(&i.args[1]) {
                    BrilType::Float => RuntimeFn::BrilStoreFloat,
                    BrilType::Bool => RuntimeFn::BrilStoreBool,
                    _ => RuntimeFn::BrilStoreInt,
                };
                Some(self.runtime(f, i, Type::Void))
            }
            "call" => Some(self.call(i)),
            "print" => {
                self.print(i);
                None
            }
            "set" => {
                let v = self.read(&i.args[1]);
                let shadow = self.shadow(&i.args[0]);
                let cur = self.b.cur;
                self.b.write_var(shadow, cur, v);
                None
            }
            "get" => {
                let shadow = self.shadow(i.dest.as_deref().unwrap_or(""));
                let cur = self.b.cur;
                Some(self.b.read_var(shadow, cur))
            }
            "undef" => Some(self.b.undef_of(&ty)),
            "phi" => {
                let hidden = self.phi_vars[&pos];
                let cur = self.b.cur;
                Some(self.b.read_var(hidden, cur))
            }
            _ => {
                self.control(i);
                None
            }
        };
        if let Some(v) = value {
            self.set_dest(i, v);
        }
    }

    fn set_dest(&mut self, i: &Instr, v: Operand) {
        if let Some(d) = &i.dest {
            self.write(d, v);
        }
    }

    /// `jmp`, `br`, `ret` (and `nop`, which does nothing).
    fn control(&mut self, i: &'a Instr) {
        let span = i.span;
        match i.op.as_str() {
            "jmp" => {
                self.phi_copies_here();
                let target = self.labels[i.labels[0].as_str()];
                self.b.jump(target, span);
                self.edge_done(&i.labels[0]);
            }
            "br" => {
                let c = self.read(&i.args[0]);
                self.phi_copies_here();
                let (t, e) = (
                    self.labels[i.labels[0].as_str()],
                    self.labels[i.labels[1].as_str()],
                );
                if t == e {
                    self.b.jump(t, span);
                } else {
                    self.b.branch(c, t, e, span);
                }
                self.edge_done(&i.labels[0]);
                self.edge_done(&i.labels[1]);
            }
            "ret" => {
                let v = i.args.first().map(|a| self.read(a));
                self.b.terminate(BuildTerm::Return(v), span);
            }
            _ => {}
        }
    }

    fn constant(&mut self, i: &Instr) -> Operand {
        match (&i.ty, i.value) {
            (Some(BrilType::Float), Some(Literal::Int(v))) => Operand::Float(v as f64),
            (Some(BrilType::Float), Some(Literal::Float(v))) => Operand::Float(v),
            // `brili` floors a fractional int constant.
            (_, Some(Literal::Float(v))) => Operand::Int(v.floor() as i64),
            (_, Some(Literal::Int(v))) => Operand::Int(v),
            (_, Some(Literal::Bool(v))) => Operand::Bool(v),
            (_, Some(Literal::Char(c))) => Operand::Int(c as i64),
            (_, None) => Operand::Int(0),
        }
    }

    /// `set`'s shadow of variable `name`.
    fn shadow(&mut self, name: &'a str) -> u32 {
        if let Some(v) = self.shadows.get(name) {
            return *v;
        }
        let ty = ir_type(&self.bril_type(name));
        let v = self.b.new_var(ty);
        self.shadows.insert(name, v);
        v
    }

    /// A runtime call with the instruction's arguments; one that may throw
    /// is followed by its `no_exception()` check.
    fn runtime(&mut self, func: RuntimeFn, i: &Instr, ty: Type) -> Operand {
        let args = i.args.iter().map(|a| self.read(a)).collect();
        self.rt(func, args, ty, i.span)
    }

    fn rt(&mut self, func: RuntimeFn, args: Vec<Operand>, ty: Type, span: Span) -> Operand {
        let v = self
            .b
            .push(Inst::Runtime { func, args }, ty, span, runtime_flags(func));
        if func.row().may_throw {
            super::after_may_throw(&mut self.b, &mut self.unwind, span);
        }
        v
    }

    fn call(&mut self, i: &Instr) -> Operand {
        let callee = self.cx.ids[i.funcs[0].as_str()];
        let args = i.args.iter().map(|a| self.read(a)).collect();
        let f = &self.cx.prog.functions[callee.0 as usize];
        let ty = f.ret.as_ref().map_or(Type::Void, ir_type);
        let throws = self.cx.throws[callee.0 as usize];
        let flags = if throws {
            Flags::default()
        } else {
            Flags::NOTHROW
        };
        let v = self
            .b
            .push(Inst::Call { func: callee, args }, ty, i.span, flags);
        if throws {
            super::after_may_throw(&mut self.b, &mut self.unwind, i.span);
        }
        v
    }

    /// Continues only when `ok` holds; otherwise `raise` runs on a cold
    /// path that leaves the function.
    fn check(&mut self, ok: Operand, span: Span, raise: impl FnOnce(&mut Self)) {
        if self.b.resolve(ok) == Operand::Bool(true) {
            return;
        }
        let cont = self.b.branch_else_cold(ok, span);
        raise(self);
        self.b.terminate(BuildTerm::Unwind, span);
        self.b.switch_to(cont);
    }

    /// `div`: the divisor is checked (`error: division by zero`).
    fn div(&mut self, i: &Instr) -> Operand {
        let span = i.span;
        let (a, d) = (self.read(&i.args[0]), self.read(&i.args[1]));
        let ok = self.b.binary(
            BinaryOp::ICmp(Cmp::Ne),
            d,
            Operand::Int(0),
            Type::Bool,
            span,
        );
        self.check(ok, span, |s| {
            let kind = RaiseKind::DivisionByZero;
            s.b.push(
                Inst::Raise { kind, args: vec![] },
                Type::Void,
                span,
                Flags::default(),
            );
        });
        self.b.binary(BinaryOp::IDiv, a, d, Type::Int, span)
    }

    /// `int2char`: the int must be a Unicode scalar value.
    fn int2char(&mut self, i: &Instr) -> Operand {
        let span = i.span;
        let x = self.read(&i.args[0]);
        let ult = BinaryOp::ICmp(Cmp::Ult);
        let in_range = self
            .b
            .binary(ult, x, Operand::Int(0x11_0000), Type::Bool, span);
        let off = self
            .b
            .binary(BinaryOp::ISub, x, Operand::Int(0xD800), Type::Int, span);
        let surrogate = self
            .b
            .binary(ult, off, Operand::Int(0x800), Type::Bool, span);
        let not_surrogate = self.b.unary(UnaryOp::Not, surrogate, Type::Bool, span);
        let ok = self
            .b
            .binary(BinaryOp::IAnd, in_range, not_surrogate, Type::Bool, span);
        self.check(ok, span, |s| {
            let text = s.rt(RuntimeFn::StrOfInt, vec![x], Type::Str, span);
            let head = s.b.str_const("value ", span);
            let tail = s.b.str_const(" cannot be converted to char", span);
            let m = s.rt(RuntimeFn::StrConcat, vec![head, text], Type::Str, span);
            let msg = s.rt(RuntimeFn::StrConcat, vec![m, tail], Type::Str, span);
            let kind = RaiseKind::Throw;
            s.b.push(
                Inst::Raise {
                    kind,
                    args: vec![msg],
                },
                Type::Void,
                span,
                Flags::default(),
            );
        });
        x
    }

    /// `print`: the values separated by spaces, then a newline.
    fn print(&mut self, i: &Instr) {
        let span = i.span;
        for (k, a) in i.args.iter().enumerate() {
            if k > 0 {
                self.rt(RuntimeFn::PrintSpace, vec![], Type::Void, span);
            }
            let f = match self.bril_type(a) {
                BrilType::Bool => RuntimeFn::PrintBool,
                BrilType::Float => RuntimeFn::BrilPrintFloat,
                BrilType::Char => RuntimeFn::BrilPrintChar,
                BrilType::Int | BrilType::Ptr(_) => RuntimeFn::PrintInt,
            };
            let v = self.read(a);
            self.rt(f, vec![v], Type::Void, span);
        }
        self.rt(RuntimeFn::PrintNewline, vec![], Type::Void, span);
    }
}
