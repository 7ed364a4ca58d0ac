//! The type rule of every instruction (see `Inst` in `ir/mod.rs`).
//!
//! `nil` is accepted exactly where LANGUAGE.md allows it: as a value of a
//! struct type ([`admits_nil`]). Arrays and strings are pointers too, but
//! never null (an empty array literal of arrays is filled with an empty
//! array, not `nil`).
use crate::ir::{
    BinaryOp, Cmp, Fact, Inst, IrCode, Loc, Operand, RaiseKind, RuntimeFn, Type, UnaryOp, Value,
};
use crate::rtfns::Ty;
use crate::sema::hir::Program;
use crate::types::{FuncId, StructId};
use cranelift_entity::EntityRef;

/// Whether `nil` is a value of type `t`: exactly the struct types
/// (LANGUAGE.md: "`nil` is a value of every struct type and of no other
/// type"). Arrays and strings are references too, but never null.
pub fn admits_nil(t: &Type) -> bool {
    matches!(t, Type::Struct(_))
}

struct Ctx<'a> {
    f: &'a IrCode,
    program: &'a Program,
    errs: Vec<String>,
    i: Value,
}

impl Ctx<'_> {
    fn err(&mut self, msg: String) {
        self.errs
            .push(format!("fn {}: {}: {}", self.f.name, self.i, msg));
    }

    fn name(&self, t: &Type) -> String {
        self.program.type_name(t)
    }

    /// `op` must have type `want`.
    fn expect(&mut self, what: &str, op: &Operand, want: &Type) {
        match self.f.operand_type(op) {
            None if matches!(op, Operand::Nil) && !admits_nil(want) => {
                let w = self.name(want);
                self.err(format!("{what} is nil but must be {w}"));
            }
            None => {}
            Some(t) if t == *want => {}
            Some(t) => {
                let (t, w) = (self.name(&t), self.name(want));
                self.err(format!("{what} has type {t} but must be {w}"));
            }
        }
    }

    fn result(&mut self, want: &Type) {
        let have = self.f.stmts.ty[self.i].clone();
        if have != *want {
            let (h, w) = (self.name(&have), self.name(want));
            self.err(format!("statement type {h} but the instruction gives {w}"));
        }
    }

    fn arity(&mut self, what: &str, args: &[Operand], want: usize) -> bool {
        if args.len() != want {
            self.err(format!("{what} takes {want} operands, has {}", args.len()));
            return false;
        }
        true
    }
}

pub fn check(f: &IrCode, program: &Program) -> Vec<String> {
    let mut c = Ctx {
        f,
        program,
        errs: Vec::new(),
        i: Value(0),
    };
    for (i, inst) in f.stmts.inst.iter() {
        c.i = i;
        check_inst(&mut c, inst);
    }
    c.errs
}

fn check_inst(c: &mut Ctx, inst: &Inst) {
    use Type::*;
    let f = c.f;
    match inst {
        Inst::Nothing | Inst::Goto(_) | Inst::Unwind | Inst::Unreachable => c.result(&Void),
        Inst::Undef => {
            if !matches!(f.stmts.ty[c.i], Int | Float | Bool) {
                c.err("undef must have type int, float or bool".into());
            }
        }
        Inst::Copy(a) => {
            let t = f.stmts.ty[c.i].clone();
            c.expect("the copied operand", a, &t);
        }
        Inst::Unary(op, a) => {
            let (arg, res) = match op {
                UnaryOp::INeg => (Int, Int),
                UnaryOp::FNeg => (Float, Float),
                UnaryOp::Not => (Bool, Bool),
                UnaryOp::IntToFloat => (Int, Float),
                UnaryOp::FloatToInt => (Float, Int),
            };
            c.expect("the operand", a, &arg);
            c.result(&res);
        }
        Inst::Binary(op, a, b) => check_binary(c, *op, a, b),
        Inst::Phi { values, .. } => {
            let t = f.stmts.ty[c.i].clone();
            for v in values {
                c.expect("a φ operand", v, &t);
            }
        }
        Inst::PhiC { upsilons } => {
            let t = f.stmts.ty[c.i].clone();
            for u in upsilons {
                if let Some(Inst::Upsilon(x)) = f.stmts.get(*u) {
                    c.expect("a ϒ operand of this φᶜ", x, &t);
                }
            }
        }
        Inst::Upsilon(_) | Inst::Store { .. } | Inst::Raise { .. } => {
            c.result(&Void);
            check_effect(c, inst);
        }
        Inst::Pi { value, fact } => check_pi(c, value, fact),
        Inst::StrConst(_) | Inst::TakeException => c.result(&Str),
        Inst::NoException => c.result(&Bool),
        Inst::Call { func, args } => check_call(c, *func, args),
        Inst::Runtime { func, args } => check_runtime(c, *func, args),
        Inst::Load { loc, base, index } => {
            let t = loc_type(c, loc, base, index);
            if let Some(t) = t {
                c.result(&t);
            }
        }
        Inst::NewArray { elem, len, fill } => {
            c.expect("the length", len, &Int);
            c.expect("the fill value", fill, elem);
            c.result(&Array(Box::new(elem.clone())));
        }
        Inst::NewStruct { strukt, fields } => check_new_struct(c, *strukt, fields),
        Inst::GotoIfNot { cond, .. } => {
            c.expect("the branch condition", cond, &Bool);
            c.result(&Void);
        }
        Inst::Return(v) => check_return(c, v.as_ref()),
    }
}

/// An integer, float or boolean binary operation: operand and result types.
fn check_binary(c: &mut Ctx, op: BinaryOp, a: &Operand, b: &Operand) {
    use Type::*;
    let f = c.f;
    match op {
        BinaryOp::ICmp(cmp) => {
            let t = f.operand_type(a).or_else(|| f.operand_type(b));
            match &t {
                Some(Int) => {}
                Some(Bool) | Some(Struct(_)) | Some(Array(_)) | Some(Str) | None
                    if matches!(cmp, Cmp::Eq | Cmp::Ne) => {}
                Some(t) => {
                    let t = c.name(t);
                    c.err(format!("integer comparison {cmp:?} of {t} operands"));
                }
                None => c.err(format!("integer comparison {cmp:?} of nil operands")),
            }
            if let Some(t) = t {
                c.expect("the left operand", a, &t);
                c.expect("the right operand", b, &t);
            }
            c.result(&Bool);
        }
        BinaryOp::FCmp(_) => {
            c.expect("the left operand", a, &Float);
            c.expect("the right operand", b, &Float);
            c.result(&Bool);
        }
        BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv | BinaryOp::FRem => {
            c.expect("the left operand", a, &Float);
            c.expect("the right operand", b, &Float);
            c.result(&Float);
        }
        BinaryOp::IAnd | BinaryOp::IOr | BinaryOp::IXor if f.operand_type(a) == Some(Bool) => {
            c.expect("the right operand", b, &Bool);
            c.result(&Bool);
        }
        _ => {
            c.expect("the left operand", a, &Int);
            c.expect("the right operand", b, &Int);
            c.result(&Int);
        }
    }
}

/// `π (value, fact)`: the value's type, and a fact that fits it.
fn check_pi(c: &mut Ctx, value: &Operand, fact: &Fact) {
    use Type::*;
    let f = c.f;
    let t = f.stmts.ty[c.i].clone();
    c.expect("the π operand", value, &t);
    match fact {
        Fact::Range { lo, hi } => {
            if t != Int {
                let n = c.name(&t);
                c.err(format!(
                    "a π range fact on a value of type {n} (ranges are on int)"
                ));
            }
            for b in lo.iter().chain(hi.iter()) {
                c.expect("a π fact bound", b, &Int);
            }
        }
        Fact::NonNil => {
            if !admits_nil(&t) {
                let n = c.name(&t);
                c.err(format!(
                    "a π non-nil fact on a value of type {n}, which cannot be nil"
                ));
            }
        }
    }
}

/// A call: the callee exists, and the arguments match its parameters.
fn check_call(c: &mut Ctx, func: FuncId, args: &[Operand]) {
    use Type::*;
    let Some(callee) = c.program.functions.get(func.index()) else {
        c.err(format!("call of function {} which does not exist", func.0));
        return;
    };
    let params: Vec<Type> = callee
        .params
        .iter()
        .map(|p| {
            callee
                .locals
                .get(p.0 as usize)
                .map_or(Void, |l| l.ty.clone())
        })
        .collect();
    if c.arity("the call", args, params.len()) {
        for (k, (a, t)) in args.iter().zip(&params).enumerate() {
            c.expect(&format!("argument {}", k + 1), a, t);
        }
    }
    c.result(&callee.ret.clone());
}

/// A struct allocation: the struct exists and every field has its type.
fn check_new_struct(c: &mut Ctx, strukt: StructId, fields: &[Operand]) {
    let Some(def) = c.program.structs.get(strukt.index()) else {
        c.err("struct that does not exist".into());
        return;
    };
    let tys: Vec<Type> = def.fields.iter().map(|fd| fd.ty.clone()).collect();
    if c.arity("the struct", fields, tys.len()) {
        for (k, (a, t)) in fields.iter().zip(&tys).enumerate() {
            c.expect(&format!("field {}", k + 1), a, t);
        }
    }
    c.result(&Type::Struct(strukt));
}

/// `return`: with a value exactly when the function returns one.
fn check_return(c: &mut Ctx, v: Option<&Operand>) {
    use Type::*;
    let f = c.f;
    c.result(&Void);
    match (v, &f.ret) {
        (None, Void) => {}
        (None, t) => {
            let t = c.name(t);
            c.err(format!(
                "return without a value in a function returning {t}"
            ));
        }
        (Some(_), Void) => c.err("return with a value in a function returning nothing".into()),
        (Some(v), t) => c.expect("the returned value", v, &t.clone()),
    }
}

fn check_effect(c: &mut Ctx, inst: &Inst) {
    match inst {
        Inst::Store {
            loc,
            base,
            index,
            value,
        } => {
            if let Some(t) = loc_type(c, loc, base, index) {
                c.expect("the stored value", value, &t);
            }
        }
        Inst::Raise { kind, args } => {
            let want: Vec<Type> = match kind {
                RaiseKind::Throw => vec![Type::Str],
                RaiseKind::IndexOutOfBounds => vec![Type::Int, Type::Int],
                RaiseKind::AssertionFailed if args.len() == 1 => vec![Type::Str],
                _ => vec![],
            };
            if c.arity("the raise", args, want.len()) {
                for (a, t) in args.iter().zip(&want) {
                    c.expect("a raise argument", a, t);
                }
            }
        }
        _ => {}
    }
}

/// The type stored at `loc`, after checking its base and index operands.
fn loc_type(
    c: &mut Ctx,
    loc: &Loc,
    base: &Option<Operand>,
    index: &Option<Operand>,
) -> Option<Type> {
    let f = c.f;
    let base_ty = base.as_ref().and_then(|b| f.operand_type(b));
    match loc {
        Loc::Global(g) => {
            if base.is_some() || index.is_some() {
                c.err("a global location has no base or index".into());
            }
            match c.program.globals.get(g.index()) {
                Some(gd) => Some(gd.ty.clone()),
                None => {
                    c.err("global that does not exist".into());
                    None
                }
            }
        }
        Loc::ArrayLen => {
            if !matches!(base_ty, Some(Type::Array(_))) || index.is_some() {
                c.err("an array length location needs an array base and no index".into());
            }
            Some(Type::Int)
        }
        Loc::ArrayElem(t) => {
            match &base_ty {
                Some(Type::Array(e)) if **e == *t => {}
                _ => c.err(format!(
                    "an element location of [{}] needs a base of that type",
                    c.name(t)
                )),
            }
            match index {
                Some(i) => c.expect("the index", i, &Type::Int),
                None => c.err("an element location needs an index".into()),
            }
            Some(t.clone())
        }
        Loc::Field { strukt, field } => {
            if base_ty
                .as_ref()
                .is_some_and(|t| *t != Type::Struct(*strukt))
                || base.is_none()
            {
                c.err("a field location needs a base of its struct type".into());
            }
            let t = c
                .program
                .structs
                .get(strukt.index())
                .and_then(|s| s.fields.get(*field as usize))
                .map(|fd| fd.ty.clone());
            if t.is_none() {
                c.err("field that does not exist".into());
            }
            t
        }
    }
}

/// A runtime call against its row of `rtfns::RUNTIME`: a generic `Array`
/// parameter binds the element type `Elem` stands for; `Ref` is any
/// reference.
fn check_runtime(c: &mut Ctx, func: RuntimeFn, args: &[Operand]) {
    let f = c.f;
    let row = func.row();
    let name = format!("runtime {func:?}");
    let mut elem: Option<Type> = None;
    if c.arity(&name, args, row.params.len()) {
        for (k, (a, t)) in args.iter().zip(row.params).enumerate() {
            let what = format!("argument {} of {name}", k + 1);
            match (t.concrete(), t) {
                (Some(t), _) => c.expect(&what, a, &t),
                (None, Ty::Ref) => {
                    if f.operand_type(a).is_some_and(|t| !t.is_ref()) {
                        c.err(format!("{what} is not a reference"));
                    }
                }
                (None, Ty::Array) => match f.operand_type(a) {
                    Some(Type::Array(e)) => elem = Some(*e),
                    _ => c.err(format!("{what} is not an array")),
                },
                (None, _) => {
                    if let Some(e) = elem.clone() {
                        c.expect(&what, a, &e);
                    }
                }
            }
        }
    }
    match (row.ret.concrete(), elem) {
        (Some(t), _) => c.result(&t),
        (None, Some(e)) => c.result(&e),
        (None, None) => {}
    }
}
