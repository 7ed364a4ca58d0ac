//! The Julia-style IR printer.
//!
//! One header per function (`fn name(_1::int, _2::float) -> int`), then one
//! line per statement: the source line (when it changes) in the left
//! margin, the block marker (`1 ─` at a block's first statement, `┄`
//! instead of `─` for a block with several predecessors, `│` inside,
//! `└──` at the last statement), then `%n = inst::type` (no `::type` for
//! statements without a value) and `  # name` when the value has a source
//! name. Values and blocks print 1-based. The header ends in `  # a, b`,
//! the parameters' source names, when they are known.
use crate::ir::edit::default_flags;
use crate::ir::{
    BinaryOp, Cmp, Fact, Flags, Inst, IrCode, Loc, Module, Operand, RaiseKind, RuntimeFn, UnaryOp,
    Value,
};
use crate::sema::hir::Program;
use crate::span::SourceMap;
use crate::types::Type;
use cranelift_entity::EntityRef;
use std::fmt::Write;

/// Prints the module header ([`print_header`]) and every function (or
/// only the one named `only`).
pub fn print_module(module: &Module, sources: &SourceMap, only: Option<&str>) -> String {
    print_module_with(module, Some(sources), only, false)
}

/// [`print_module`] with the options of [`print_function_with`].
pub fn print_module_with(
    module: &Module,
    sources: Option<&SourceMap>,
    only: Option<&str>,
    flags: bool,
) -> String {
    print_module_by(module, only, |f| {
        print_function_with(f, &module.program, sources, flags)
    })
}

/// The module header ([`print_header`]), then `function(f)` for every
/// function `f` (or only the one named `only`), an empty line between two.
pub fn print_module_by(
    module: &Module,
    only: Option<&str>,
    mut function: impl FnMut(&IrCode) -> String,
) -> String {
    let mut out = print_header(module);
    let mut first = true;
    for f in &module.funcs {
        if only.is_some_and(|n| n != f.name) {
            continue;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(&function(f));
    }
    out
}

/// The module header: one line per struct (`struct Point { x::float,
/// y::float }`) and global (`let @LIMIT::int`, `var @count::int`) of the
/// program, then an empty line; empty when there is neither. The IR parser
/// (`ir::parse`) reads these tables back from it; the function table comes
/// from the `fn` headers.
pub fn print_header(module: &Module) -> String {
    let program = &*module.program;
    let mut out = String::new();
    for s in &program.structs {
        let fields: Vec<String> = s
            .fields
            .iter()
            .map(|f| format!("{}::{}", f.name, program.type_name(&f.ty)))
            .collect();
        let _ = writeln!(out, "struct {} {{ {} }}", s.name, fields.join(", "));
    }
    for g in &program.globals {
        let kw = if g.mutable { "var" } else { "let" };
        let _ = writeln!(out, "{kw} @{}::{}", g.name, program.type_name(&g.ty));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// `fn name(_1::int, _2::float) -> int` (no arrow for a void function).
fn signature(name: &str, params: &[Type], ret: &Type, program: &Program) -> String {
    let params: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("_{}::{}", i + 1, program.type_name(t)))
        .collect();
    let mut out = format!("fn {name}({})", params.join(", "));
    if *ret != Type::Void {
        let _ = write!(out, " -> {}", program.type_name(ret));
    }
    out
}

/// One function. Without `sources` the line margin stays empty.
pub fn print_function(f: &IrCode, program: &Program, sources: Option<&SourceMap>) -> String {
    print_function_with(f, program, sources, false)
}

/// One function; with `flags`, a statement whose flags differ from
/// [`default_flags`] of its instruction ends in `!flags(...)` naming all of
/// them (`!flags()` for none), so the text carries every flag.
pub fn print_function_with(
    f: &IrCode,
    program: &Program,
    sources: Option<&SourceMap>,
    flags: bool,
) -> String {
    let p = Printer { program };
    let mut out = signature(&f.name, &f.params, &f.ret, program);
    if !f.param_names.is_empty() {
        let _ = write!(out, "  # {}", f.param_names.join(", "));
    }
    out.push('\n');
    // Robust to malformed IR (the verifier reports it): only whole rows.
    let n = f
        .stmts
        .inst
        .len()
        .min(f.stmts.ty.len())
        .min(f.stmts.span.len());
    let line_of = |i: Value| -> Option<u32> {
        let sources = sources?;
        if matches!(
            f.stmts.inst.get(i),
            Some(Inst::Phi { .. } | Inst::PhiC { .. })
        ) {
            return None;
        }
        let span = *f.stmts.span.get(i)?;
        if (span.file.0 as usize) >= sources.files().count() {
            return None;
        }
        Some(sources.get(span.file).line_col(span.start).0)
    };
    let line_w = (0..n)
        .map(Value::new)
        .filter_map(line_of)
        .max()
        .map_or(0, |l| l.to_string().len());
    let blk_w = f.cfg.blocks.len().to_string().len();
    let val_w = n.to_string().len() + 1;
    let mut last_line = None;
    for (b, blk) in f.cfg.blocks.iter() {
        let range = blk.stmts.start..blk.stmts.end.min(n as u32);
        let len = range.len();
        for (k, i) in range.map(Value).enumerate() {
            let line = line_of(i);
            let margin = match line {
                Some(l) if Some(l) != last_line => l.to_string(),
                _ => String::new(),
            };
            if line.is_some() {
                last_line = line;
            }
            let marker = if k == 0 {
                let arrow = if blk.preds.len() > 1 { '┄' } else { '─' };
                format!("{:<bw$} {}", b.0 + 1, arrow, bw = blk_w)
            } else if k + 1 == len {
                format!("{:<bw$}", "└──", bw = blk_w + 2)
            } else {
                format!("{:<bw$}", "│", bw = blk_w + 2)
            };
            // A one-statement block shows its number, as Julia does.
            let ty = &f.stmts.ty[i];
            let inst = p.inst(&f.stmts.inst[i]);
            let mut suffix = String::new();
            if let Some(fl) = f.stmts.flags.get(i).filter(|_| flags)
                && *fl != default_flags(&f.stmts.inst[i])
            {
                let _ = write!(suffix, " !flags({})", flag_names(*fl).join(", "));
            }
            if let Some(name) = f.stmts.name_of(i) {
                let _ = write!(suffix, "  # {name}");
            }
            let body = if *ty == Type::Void {
                format!("{:vw$}   {}{}", "", inst, suffix, vw = val_w)
            } else {
                format!(
                    "{:<vw$} = {}::{}{}",
                    i.to_string(),
                    inst,
                    program.type_name(ty),
                    suffix,
                    vw = val_w
                )
            };
            let _ = writeln!(out, "{:>lw$} {} {}", margin, marker, body, lw = line_w);
        }
    }
    out
}

/// Statement `i` of `f` as one line without margin or block marker:
/// `%3 = iadd(%1, %2)::int`, or the instruction alone for a void one.
pub fn statement(f: &IrCode, program: &Program, i: Value) -> String {
    let p = Printer { program };
    let (Some(inst), Some(ty)) = (f.stmts.inst.get(i), f.stmts.ty.get(i)) else {
        return String::new();
    };
    if *ty == Type::Void {
        p.inst(inst)
    } else {
        format!("{i} = {}::{}", p.inst(inst), program.type_name(ty))
    }
}

/// The names of the flags in `f`, in bit order: `effect_free`, `nothrow`,
/// `cold` (the IR parser reads them back).
pub fn flag_names(f: Flags) -> Vec<&'static str> {
    FLAG_NAMES
        .iter()
        .filter(|(_, bit)| f.contains(*bit))
        .map(|(n, _)| *n)
        .collect()
}

/// Every flag with its printed name.
pub const FLAG_NAMES: &[(&str, Flags)] = &[
    ("effect_free", Flags::EFFECT_FREE),
    ("nothrow", Flags::NOTHROW),
    ("cold", Flags::COLD),
];

struct Printer<'a> {
    program: &'a Program,
}

/// A constant or value as the printer shows it.
pub fn operand(op: &Operand) -> String {
    match op {
        Operand::Value(v) => v.to_string(),
        Operand::Arg(a) => format!("_{}", a + 1),
        Operand::Int(i) => i.to_string(),
        // A NaN keeps its sign (`0.0 / 0.0` folds to `-NaN` on x86), so
        // the parser reads back the same bits for both common NaNs.
        Operand::Float(x) if x.is_nan() && x.is_sign_negative() => "-NaN".into(),
        Operand::Float(x) => format!("{x:?}"),
        Operand::Bool(b) => b.to_string(),
        Operand::Nil => "nil".into(),
    }
}

fn args(ops: &[Operand]) -> String {
    ops.iter().map(operand).collect::<Vec<_>>().join(", ")
}

pub fn cmp_name(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
        Cmp::Ult => "ult",
    }
}

pub fn binary_name(op: BinaryOp) -> String {
    use BinaryOp::*;
    match op {
        IAdd => "iadd".into(),
        ISub => "isub".into(),
        IMul => "imul".into(),
        IDiv => "idiv".into(),
        IRem => "irem".into(),
        IAnd => "iand".into(),
        IOr => "ior".into(),
        IXor => "ixor".into(),
        IShl => "ishl".into(),
        IShr => "ishr".into(),
        FAdd => "fadd".into(),
        FSub => "fsub".into(),
        FMul => "fmul".into(),
        FDiv => "fdiv".into(),
        FRem => "frem".into(),
        ICmp(c) => format!("i{}", cmp_name(c)),
        FCmp(c) => format!("f{}", cmp_name(c)),
    }
}

pub fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::INeg => "ineg",
        UnaryOp::FNeg => "fneg",
        UnaryOp::Not => "not",
        UnaryOp::IntToFloat => "int_to_float",
        UnaryOp::FloatToInt => "float_to_int",
    }
}

/// `print_int`, `str_concat`, ...: the runtime function's IR name (its
/// row of `rtfns::RUNTIME`).
pub fn runtime_name(f: RuntimeFn) -> &'static str {
    f.row().ir_name
}

pub fn raise_name(k: RaiseKind) -> &'static str {
    match k {
        RaiseKind::Throw => "throw",
        RaiseKind::DivisionByZero => "division_by_zero",
        RaiseKind::IndexOutOfBounds => "index_out_of_bounds",
        RaiseKind::NilDereference => "nil_dereference",
        RaiseKind::NegativeArrayLength => "negative_array_length",
        RaiseKind::PopFromEmpty => "pop_from_empty",
        RaiseKind::AssertionFailed => "assertion_failed",
    }
}

impl Printer<'_> {
    fn func_name(&self, id: crate::types::FuncId) -> String {
        self.program
            .functions
            .get(id.index())
            .map_or_else(|| format!("fn{}", id.0), |f| f.name.clone())
    }

    fn place(&self, loc: &Loc, base: &Option<Operand>, index: &Option<Operand>) -> String {
        let b = base.as_ref().map(operand).unwrap_or_default();
        match loc {
            Loc::ArrayLen => format!("len({b})"),
            Loc::ArrayElem(_) => {
                format!("{b}[{}]", index.as_ref().map(operand).unwrap_or_default())
            }
            Loc::Field { strukt, field } => {
                let def = self.program.structs.get(strukt.index());
                let name = def
                    .and_then(|s| s.fields.get(*field as usize))
                    .map_or_else(|| format!("{field}"), |f| f.name.clone());
                // A `nil` base (left by constant propagation on a path that
                // raises before it) names its struct, which the field needs.
                if let (Some(Operand::Nil), Some(def)) = (base, def) {
                    return format!("(nil::{}).{name}", def.name);
                }
                format!("{b}.{name}")
            }
            Loc::Global(g) => {
                let name = self
                    .program
                    .globals
                    .get(g.index())
                    .map_or_else(|| format!("g{}", g.0), |g| g.name.clone());
                format!("@{name}")
            }
        }
    }

    fn inst(&self, inst: &Inst) -> String {
        match inst {
            Inst::Nothing => "nothing".into(),
            Inst::Copy(a) => operand(a),
            Inst::Unary(op, a) => format!("{}({})", unary_name(*op), operand(a)),
            Inst::Binary(op, a, b) => {
                format!("{}({}, {})", binary_name(*op), operand(a), operand(b))
            }
            Inst::Phi { edges, values } => {
                let parts: Vec<String> = edges
                    .iter()
                    .zip(values)
                    .map(|(e, v)| format!("{e} => {}", operand(v)))
                    .collect();
                format!("φ ({})", parts.join(", "))
            }
            Inst::PhiC { upsilons } => {
                format!(
                    "φᶜ ({})",
                    upsilons
                        .iter()
                        .map(|u| u.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
            Inst::Upsilon(a) => format!("ϒ ({})", operand(a)),
            Inst::Pi { value, fact } => {
                let fact = match fact {
                    Fact::NonNil => "non-nil".to_string(),
                    Fact::Range { lo, hi } => format!(
                        "{}_{}",
                        lo.as_ref()
                            .map(|l| format!("{} <= ", operand(l)))
                            .unwrap_or_default(),
                        hi.as_ref()
                            .map(|h| format!(" < {}", operand(h)))
                            .unwrap_or_default()
                    ),
                };
                format!("π ({}, {fact})", operand(value))
            }
            Inst::StrConst(s) => format!("{s:?}"),
            Inst::Call { func, args: a } => {
                format!("invoke {}({})", self.func_name(*func), args(a))
            }
            Inst::Runtime { func, args: a } => {
                format!("runtime {}({})", runtime_name(*func), args(a))
            }
            Inst::Load { loc, base, index } => format!("load {}", self.place(loc, base, index)),
            Inst::Store {
                loc,
                base,
                index,
                value,
            } => {
                format!(
                    "store {} = {}",
                    self.place(loc, base, index),
                    operand(value)
                )
            }
            Inst::NewArray { elem, len, fill } => {
                format!(
                    "new [{}](len {}, fill {})",
                    self.program.type_name(elem),
                    operand(len),
                    operand(fill)
                )
            }
            Inst::NewStruct { strukt, fields } => {
                let name = self
                    .program
                    .structs
                    .get(strukt.index())
                    .map_or("?", |s| s.name.as_str());
                format!("new {name}({})", args(fields))
            }
            Inst::Raise { kind, args: a } => format!("raise {}({})", raise_name(*kind), args(a)),
            Inst::NoException => "no_exception()".into(),
            Inst::TakeException => "take_exception()".into(),
            Inst::Undef => "undef".into(),
            Inst::Goto(b) => format!("goto {b}"),
            Inst::GotoIfNot { cond, dest } => format!("goto {dest} if not {}", operand(cond)),
            Inst::Return(Some(v)) => format!("return {}", operand(v)),
            Inst::Return(None) => "return".into(),
            Inst::Unwind => "unwind".into(),
            Inst::Unreachable => "unreachable".into(),
        }
    }
}
