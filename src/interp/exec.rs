//! The interpreter's execution of one function at a time (see the module
//! doc of [`super`]). Unsafe code here only reads and writes heap objects
//! through the layouts of `runtime::object` / `runtime::heap`, on references
//! the IR has already checked (nil and bounds checks are explicit branches).

use super::Prepared;
use crate::ir::fold;
use crate::ir::{
    BinaryOp, BlockId, Inst, Loc, Module, Operand, RaiseKind, RuntimeFn, Type, UnaryOp,
};
use crate::runtime::gc::{self, roots::ShadowFrame};
use crate::runtime::{self, bril, heap, io, math, object, output, strings};
use cranelift_entity::EntityRef;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

fn bits(op: Operand) -> u64 {
    match op {
        Operand::Int(i) => i as u64,
        Operand::Float(f) => f.to_bits(),
        Operand::Bool(b) => b as u64,
        _ => 0,
    }
}

fn is_float_op(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::FAdd
            | BinaryOp::FSub
            | BinaryOp::FMul
            | BinaryOp::FDiv
            | BinaryOp::FRem
            | BinaryOp::FCmp(_)
    )
}

/// `a op b` on machine images; `None` only for an integer division by zero.
pub fn binary(op: BinaryOp, a: u64, b: u64) -> Option<u64> {
    let r = if is_float_op(op) {
        fold::binary(
            op,
            Operand::Float(f64::from_bits(a)),
            Operand::Float(f64::from_bits(b)),
        )
    } else {
        fold::binary(op, Operand::Int(a as i64), Operand::Int(b as i64))
    };
    r.map(bits)
}

pub fn unary(op: UnaryOp, a: u64) -> u64 {
    let x = match op {
        UnaryOp::INeg | UnaryOp::IntToFloat => Operand::Int(a as i64),
        UnaryOp::FNeg | UnaryOp::FloatToInt => Operand::Float(f64::from_bits(a)),
        UnaryOp::Not => Operand::Bool(a != 0),
    };
    fold::unary(op, x).map_or(0, bits)
}

/// Ends the process after an internal error in the interpreted IR.
fn internal(msg: &str) -> ! {
    output::flush();
    eprintln!("error: internal compiler error in the IR interpreter: {msg}");
    eprintln!("{}", crate::diag::ICE_HELP);
    std::process::exit(70);
}

/// A registered interpreter frame: the collector reads `slots[i]` for
/// every `i` in `refs` until the guard is dropped.
struct RootFrame;

impl RootFrame {
    /// Registers `slots` (which must stay valid and unmoved while the
    /// guard lives) with the reference indices `refs`.
    fn push(slots: *const u64, refs: &[u32]) -> RootFrame {
        gc::push_frame(ShadowFrame {
            slots,
            refs: refs.as_ptr(),
            nrefs: refs.len(),
        });
        RootFrame
    }
}

impl Drop for RootFrame {
    fn drop(&mut self) {
        gc::pop_frame();
    }
}

pub(crate) struct Machine<'a> {
    module: &'a Module,
    prep: &'a Prepared,
    profile: bool,
    pub dyn_insts: u64,
    globals: Vec<u64>,
    strs: HashMap<(usize, u32), u64>,
    stack_limit: usize,
}

impl<'a> Machine<'a> {
    pub fn new(module: &'a Module, prep: &'a Prepared, profile: bool) -> Machine<'a> {
        Machine {
            module,
            prep,
            profile,
            dyn_insts: 0,
            globals: vec![0; module.program.globals.len()],
            strs: HashMap::new(),
            stack_limit: 0,
        }
    }

    /// `<init>` then `main`; the exit code.
    pub fn run_program(&mut self, init: usize, main: usize) -> i32 {
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        self.stack_limit = here.saturating_sub(super::INTERP_STACK) + super::stack_margin();
        let globals = self.globals.as_ptr();
        let _globals_frame = RootFrame::push(globals, &self.prep.ref_globals);
        self.call(init, &[]);
        if let Some((msg, pos)) = runtime::pending() {
            return runtime::report_uncaught(&msg, &pos);
        }
        let r = self.call(main, &[]);
        if let Some((msg, pos)) = runtime::pending() {
            return runtime::report_uncaught(&msg, &pos);
        }
        match self.module.funcs.get(main).map(|f| &f.ret) {
            Some(Type::Int) => r as i64 as i32,
            _ => 0,
        }
    }

    fn str_const(&mut self, f: usize, s: u32, text: &str) -> u64 {
        *self.strs.entry((f, s)).or_insert_with(|| {
            let p = object::new_str(text.as_bytes()) as u64;
            gc::pin(p);
            p
        })
    }

    /// Calls function `f`; the result image (0 for void or after `Unwind`).
    pub fn call(&mut self, f: usize, args: &[u64]) -> u64 {
        let marker = 0u8;
        let here = std::hint::black_box(&marker) as *const u8 as usize;
        if here < self.stack_limit {
            runtime::toy_stack_overflow();
        }
        let module = self.module;
        let Some(code) = module.funcs.get(f) else {
            internal("call of an unknown function")
        };
        // The frame is dense: `vals[s]` is statement `s`'s value.
        let insts = code.stmts.inst.as_values_slice();
        let mut vals = vec![0u64; insts.len()];
        let _vals_frame = RootFrame::push(vals.as_ptr(), &self.prep.ref_stmts[f]);
        let _args_frame = RootFrame::push(args.as_ptr(), &self.prep.ref_params[f]);
        let mut phis: Vec<(usize, u64)> = Vec::new();
        let nblocks = code.cfg.blocks.len();
        let mut b = 0usize;
        let mut prev = u32::MAX;
        loop {
            let Some(bb) = code.cfg.blocks.get(BlockId::new(b)) else {
                internal("control left the function")
            };
            let (start, end) = (
                bb.stmts.start as usize,
                (bb.stmts.end as usize).min(insts.len()),
            );
            let mut s = start;
            // The φs at the head read their operands in parallel.
            phis.clear();
            while s < end {
                match &insts[s] {
                    Inst::Phi { edges, values } => {
                        let Some(i) = edges.iter().position(|e| e.0 == prev) else {
                            internal("φ without an operand for the incoming edge")
                        };
                        phis.push((s, self.val(&vals, args, &values[i])));
                    }
                    Inst::Nothing => {}
                    _ => break,
                }
                s += 1;
            }
            self.dyn_insts += phis.len() as u64;
            for &(p, v) in &phis {
                vals[p] = v;
            }
            let mut next = b + 1;
            while s < end {
                let inst = &insts[s];
                if !matches!(inst, Inst::Nothing) {
                    self.dyn_insts += 1;
                }
                match inst {
                    Inst::Goto(d) => {
                        next = d.0 as usize;
                        break;
                    }
                    Inst::GotoIfNot { cond, dest } => {
                        if self.val(&vals, args, cond) & 0xff == 0 {
                            next = dest.0 as usize;
                        }
                        break;
                    }
                    Inst::Return(r) => return r.as_ref().map_or(0, |r| self.val(&vals, args, r)),
                    Inst::Unwind => return 0,
                    Inst::Unreachable => internal("reached `unreachable`"),
                    _ => {
                        let v = self.exec(f, s, inst, &mut vals, args);
                        vals[s] = v;
                    }
                }
                s += 1;
            }
            if next >= nblocks {
                internal("control fell off the last block");
            }
            prev = b as u32;
            b = next;
        }
    }

    fn val(&self, vals: &[u64], args: &[u64], op: &Operand) -> u64 {
        match op {
            Operand::Value(v) => vals.get(v.0 as usize).copied().unwrap_or(0),
            Operand::Arg(i) => args.get(*i as usize).copied().unwrap_or(0),
            c => bits(*c),
        }
    }

    /// One non-terminator statement; its result image.
    fn exec(&mut self, f: usize, s: usize, inst: &Inst, vals: &mut [u64], args: &[u64]) -> u64 {
        let pos = || self.prep.pos_ids[f][s];
        let v = |op: &Operand| self.val(vals, args, op);
        match inst {
            Inst::Nothing | Inst::PhiC { .. } => vals[s],
            Inst::Copy(a) | Inst::Pi { value: a, .. } => v(a),
            Inst::Unary(op, a) => unary(*op, v(a)),
            Inst::Binary(op, a, b) => match binary(*op, v(a), v(b)) {
                Some(r) => r,
                None => internal("integer division by zero reached without its check"),
            },
            Inst::Phi {
                edges: _,
                values: _,
            } => internal("φ after the head of its block"),
            Inst::Upsilon(a) => {
                let x = v(a);
                if let Some(targets) = self.prep.upsilon_targets[f].get(&(s as u32)) {
                    for &t in targets {
                        if let Some(slot) = vals.get_mut(t as usize) {
                            *slot = x;
                        }
                    }
                }
                0
            }
            Inst::StrConst(text) => self.str_const(f, s as u32, text),
            Inst::Call { func, args: a } => {
                let argv: Vec<u64> = a.iter().map(v).collect();
                self.call(func.0 as usize, &argv)
            }
            Inst::Runtime { func, args: a } => {
                let argv: Vec<u64> = a.iter().map(v).collect();
                self.runtime(*func, &argv, pos(), self.prep.tags[f][s])
            }
            Inst::Load { loc, base, index } => {
                let (base, index) = (base.as_ref().map_or(0, v), index.as_ref().map_or(0, v));
                self.load(f, s, loc, base, index)
            }
            Inst::Store {
                loc,
                base,
                index,
                value,
            } => {
                let (base, index) = (base.as_ref().map_or(0, v), index.as_ref().map_or(0, v));
                self.store(loc, base, index, v(value));
                0
            }
            Inst::NewArray { elem, len, fill } => {
                let size = heap::elem_size(*elem == Type::Bool);
                heap::toy_array_new(self.prep.tags[f][s], v(len) as i64, v(fill), size) as u64
            }
            Inst::NewStruct { fields, .. } => {
                let p = object::toy_alloc(8 + 8 * fields.len() as u64, self.prep.tags[f][s])
                    as *mut u64;
                for (i, fld) in fields.iter().enumerate() {
                    // SAFETY: the object has one slot per field after its header.
                    unsafe { p.add(1 + i).write(v(fld)) };
                }
                p as u64
            }
            Inst::Raise { kind, args: a } => {
                let argv: Vec<u64> = a.iter().map(v).collect();
                raise(*kind, &argv, pos());
                0
            }
            Inst::NoException => (runtime::PENDING.load(Ordering::Relaxed) == 0) as u64,
            Inst::TakeException => runtime::toy_take_exception() as u64,
            // Any value of the type stands for an undefined one.
            Inst::Undef => 0,
            Inst::Goto(_)
            | Inst::GotoIfNot { .. }
            | Inst::Return(_)
            | Inst::Unwind
            | Inst::Unreachable => 0,
        }
    }

    /// The value `loc` holds (statement `s` of function `f` is the load).
    fn load(&self, f: usize, s: usize, loc: &Loc, base: u64, index: u64) -> u64 {
        let is_bool = matches!(
            self.module.funcs[f].stmts.ty.as_values_slice().get(s),
            Some(Type::Bool)
        );
        // SAFETY: the IR checked `base` non-nil and `index` in bounds
        // before this access; the layouts are the runtime's.
        let raw = unsafe {
            match loc {
                Loc::ArrayLen => (base as *const u64).add(1).read(),
                Loc::ArrayElem(_) => (*(base as *const heap::ArrayObj)).get(index as usize),
                Loc::Field { field, .. } => (base as *const u64).add(1 + *field as usize).read(),
                Loc::Global(g) => self.globals.get(g.0 as usize).copied().unwrap_or(0),
            }
        };
        if is_bool {
            (raw & 0xff != 0) as u64
        } else {
            raw
        }
    }

    /// Stores `x` into `loc`.
    fn store(&mut self, loc: &Loc, base: u64, index: u64, x: u64) {
        // SAFETY: as for loads.
        unsafe {
            match loc {
                Loc::ArrayLen => (base as *mut u64).add(1).write(x),
                Loc::ArrayElem(_) => (*(base as *mut heap::ArrayObj)).set(index as usize, x),
                Loc::Field { field, .. } => (base as *mut u64).add(1 + *field as usize).write(x),
                Loc::Global(g) => {
                    if let Some(slot) = self.globals.get_mut(g.0 as usize) {
                        *slot = x;
                    }
                }
            }
        }
    }

    fn runtime(&mut self, func: RuntimeFn, a: &[u64], pos: u64, tag: u64) -> u64 {
        use object::StrObj;
        let x = |i: usize| a.get(i).copied().unwrap_or(0);
        let fl = |i: usize| f64::from_bits(x(i));
        let sp = |i: usize| x(i) as *const StrObj;
        let fb = |r: f64| r.to_bits();
        match func {
            RuntimeFn::PrintInt => output::toy_print_int(x(0) as i64),
            RuntimeFn::PrintFloat => output::toy_print_float(fl(0)),
            RuntimeFn::PrintBool => output::toy_print_bool((x(0) & 0xff != 0) as u8),
            // SAFETY (this arm and the string and array arms below): the IR
            // type check makes each pointer operand a live runtime object of
            // the parameter's type, which is the functions' contract.
            RuntimeFn::PrintStr => unsafe { output::toy_print_str(sp(0)) },
            RuntimeFn::PrintValue => heap::toy_print_value(x(0), tag),
            RuntimeFn::PrintSpace => output::toy_print_space(),
            RuntimeFn::PrintNewline => output::toy_print_newline(),
            RuntimeFn::Clock => return fb(math::toy_clock()),
            RuntimeFn::Exit => {
                output::flush();
                if self.profile {
                    eprintln!("total_dyn_inst: {}", self.dyn_insts);
                }
                runtime::toy_exit(x(0) as i64)
            }
            RuntimeFn::Sqrt => return fb(fl(0).sqrt()),
            RuntimeFn::Floor => return fb(fl(0).floor()),
            RuntimeFn::Ceil => return fb(fl(0).ceil()),
            RuntimeFn::Fabs => return fb(fl(0).abs()),
            RuntimeFn::Sin => return fb(math::toy_sin(fl(0))),
            RuntimeFn::Cos => return fb(math::toy_cos(fl(0))),
            RuntimeFn::Tan => return fb(math::toy_tan(fl(0))),
            RuntimeFn::Atan => return fb(math::toy_atan(fl(0))),
            RuntimeFn::Exp => return fb(math::toy_exp(fl(0))),
            RuntimeFn::Ln => return fb(math::toy_ln(fl(0))),
            RuntimeFn::Atan2 => return fb(math::toy_atan2(fl(0), fl(1))),
            RuntimeFn::Pow => return fb(math::toy_pow(fl(0), fl(1))),
            RuntimeFn::FMod => return fb(math::toy_fmod(fl(0), fl(1))),
            RuntimeFn::StrConcat => return unsafe { strings::toy_str_concat(sp(0), sp(1)) } as u64,
            RuntimeFn::StrEq => return unsafe { strings::toy_str_eq(sp(0), sp(1)) != 0 } as u64,
            RuntimeFn::StrCmp => return unsafe { strings::toy_str_cmp(sp(0), sp(1)) } as u64,
            // SAFETY: the IR passes a live string (nil is checked before).
            RuntimeFn::StrLen => return unsafe { (*sp(0)).len } as u64,
            RuntimeFn::StrByte => {
                // SAFETY: the index is bounds-checked by explicit IR.
                return unsafe {
                    object::str_bytes(sp(0))
                        .get(x(1) as usize)
                        .copied()
                        .unwrap_or(0)
                } as u64;
            }
            RuntimeFn::StrOfInt => return strings::toy_str_of_int(x(0) as i64) as u64,
            RuntimeFn::StrOfFloat => return strings::toy_str_of_float(fl(0)) as u64,
            RuntimeFn::StrOfBool => {
                return strings::toy_str_of_bool((x(0) & 0xff != 0) as u8) as u64;
            }
            RuntimeFn::Substr => {
                return unsafe { strings::toy_substr(sp(0), x(1) as i64, x(2) as i64, pos) } as u64;
            }
            RuntimeFn::Chr => return strings::toy_chr(x(0) as i64, pos) as u64,
            RuntimeFn::Fixed => return strings::toy_fixed(fl(0), x(1) as i64) as u64,
            RuntimeFn::ParseInt => return unsafe { strings::toy_parse_int(sp(0), pos) } as u64,
            RuntimeFn::ParseFloat => return fb(unsafe { strings::toy_parse_float(sp(0), pos) }),
            RuntimeFn::ArrayPush => unsafe {
                heap::toy_array_push(x(0) as *mut heap::ArrayObj, x(1))
            },
            RuntimeFn::ArrayPop => {
                return unsafe { heap::toy_array_pop(x(0) as *mut heap::ArrayObj) };
            }
            RuntimeFn::Args => return heap::toy_args(tag) as u64,
            RuntimeFn::ReadLine => return io::toy_read_line(pos) as u64,
            RuntimeFn::AtEof => return (io::toy_at_eof() != 0) as u64,
            RuntimeFn::ReadAll => return io::toy_read_all() as u64,
            // SAFETY: `str` operands are live string objects (IR type check).
            RuntimeFn::ReadFile => return unsafe { io::toy_read_file(sp(0), pos) } as u64,
            // SAFETY: as for `ReadFile`.
            RuntimeFn::WriteFile => unsafe { io::toy_write_file(sp(0), sp(1), pos) },
            RuntimeFn::BrilAlloc => return bril::toy_bril_alloc(x(0) as i64, pos) as u64,
            RuntimeFn::BrilFree => bril::toy_bril_free(x(0) as i64, pos),
            RuntimeFn::BrilLoadInt => return bril::toy_bril_load_int(x(0) as i64, pos) as u64,
            RuntimeFn::BrilLoadFloat => return fb(bril::toy_bril_load_float(x(0) as i64, pos)),
            RuntimeFn::BrilLoadBool => return bril::toy_bril_load_bool(x(0) as i64, pos) as u64,
            RuntimeFn::BrilStoreInt => bril::toy_bril_store_int(x(0) as i64, x(1) as i64, pos),
            RuntimeFn::BrilStoreFloat => bril::toy_bril_store_float(x(0) as i64, fl(1), pos),
            RuntimeFn::BrilStoreBool => {
                bril::toy_bril_store_bool(x(0) as i64, (x(1) & 0xff != 0) as u8, pos)
            }
            RuntimeFn::BrilCheckLeaks => bril::toy_bril_check_leaks(pos),
            RuntimeFn::BrilPrintFloat => bril::toy_bril_print_float(fl(0)),
            RuntimeFn::BrilPrintChar => bril::toy_bril_print_char(x(0) as i64),
            RuntimeFn::BrilFloatToBits => return bril::toy_bril_float_to_bits(fl(0)) as u64,
            RuntimeFn::BrilBitsToFloat => return fb(bril::toy_bril_bits_to_float(x(0) as i64)),
        }
        0
    }
}

/// Raises the runtime error `kind` with its operands `argv` at position `pos`.
fn raise(kind: RaiseKind, argv: &[u64], pos: u64) {
    let arg = |i: usize| argv.get(i).copied().unwrap_or(0);
    match kind {
        RaiseKind::Throw => runtime::toy_raise_throw(arg(0) as *const object::StrObj, pos),
        RaiseKind::DivisionByZero => runtime::toy_raise_div_zero(pos),
        RaiseKind::IndexOutOfBounds => runtime::toy_raise_index(arg(0) as i64, arg(1) as i64, pos),
        RaiseKind::NilDereference => runtime::toy_raise_nil(pos),
        RaiseKind::NegativeArrayLength => runtime::toy_raise_negative_length(pos),
        RaiseKind::PopFromEmpty => runtime::toy_raise_pop_empty(pos),
        RaiseKind::AssertionFailed if argv.is_empty() => runtime::toy_raise_assert(pos),
        // SAFETY: the message operand is a `str` value (IR type check), so a live string object.
        RaiseKind::AssertionFailed => unsafe {
            runtime::toy_raise_assert_msg(arg(0) as *const object::StrObj, pos)
        },
    }
}
