//! Function bodies: one statement per line, `[line] [block ─|┄] [│|└──]
//! [%n =] instruction [::type] [!flags(..)] [# name]`, then the resolution of value
//! and block numbers to positions.
//!
//! While a body is read, `Operand::Value(Value(n))` and `BlockId(n)` hold
//! the numbers *as written*; [`resolve`] maps them to statement and block
//! positions, and only then are element types and field indices (which
//! depend on the base operand's type) filled in.

use super::ParseError;
use super::cursor::Cursor;
use super::lexer::{Tok, Token};
use super::names;
use crate::ir::edges::cfg_from_ranges;
use crate::ir::edit::{default_flags, for_each_operand_mut};
use crate::ir::print::FLAG_NAMES;
use crate::ir::{
    BlockId, Fact, Flags, Inst, InstructionStream, IrCode, Loc, NameIndex, Operand, Value, VarName,
    operand_type_with,
};
use crate::sema::hir::Program;
use crate::span::Span;
use crate::types::{FuncId, StructId, Type};
use cranelift_entity::EntityRef;
use std::collections::HashMap;

/// A function's signature.
pub struct Head {
    pub name: String,
    /// The line and column of its `fn`.
    pub at: (u32, u32),
    pub func: FuncId,
    pub params: Vec<Type>,
    pub ret: Type,
    /// The parameters' source names (`# a, n` after the signature).
    pub param_names: Vec<VarName>,
}

/// A statement as read, before [`resolve`].
struct Parsed {
    inst: Inst,
    ty: Type,
    flags: Option<Flags>,
    /// The field name of a `load`/`store` of `base.name` (or the global
    /// name of `@name`), looked up by [`fill_loc`].
    field: Option<String>,
    /// Whether it was written `%n = ...`.
    named: bool,
    /// The source name (`# i` at the end of the line).
    source_name: Option<VarName>,
    line: u32,
    col: u32,
}

/// The statements and blocks of a body as read.
#[derive(Default)]
struct Body {
    stmts: Vec<Parsed>,
    /// Written value number ↦ statement position.
    values: HashMap<u32, u32>,
    /// Written block number ↦ block position.
    blocks: HashMap<u32, u32>,
    /// The first statement of each block.
    starts: Vec<u32>,
}

/// Parses and resolves the body `lines` of the function `head`.
pub fn parse_body(head: Head, lines: &[&[Token]], program: &Program) -> Result<IrCode, ParseError> {
    let mut body = Body::default();
    for line in lines {
        parse_line(&mut body, line, &head, program)?;
    }
    if body.stmts.is_empty() {
        let msg = format!("function `{}` has no statements", head.name);
        return Err(ParseError::new(head.at.0, head.at.1, msg));
    }
    resolve(body, head, program)
}

fn parse_line(
    body: &mut Body,
    line: &[Token],
    head: &Head,
    program: &Program,
) -> Result<(), ParseError> {
    let mut c = Cursor::new(line);
    let pos = body.stmts.len() as u32;
    let margin = |t: &Token| matches!(t.tok, Tok::Cont | Tok::Int(_));
    if line.iter().all(margin) && line.iter().any(|t| t.tok == Tok::Cont) {
        // Only a margin (`│ ; MemoryUse(2)` of `toyc ir --memssa`).
        return Ok(());
    }
    if let Some(b) = margin_and_block(&mut c)? {
        if body.blocks.insert(b, body.starts.len() as u32).is_some() {
            return Err(c.err(format!("block #{b} is defined twice")));
        }
        body.starts.push(pos);
    } else if body.starts.is_empty() {
        return Err(c.err("the first statement must start a block (`1 ─ ...`)"));
    }
    c.eat_cont();
    let (line_no, col) = c.position();
    let label = match (c.peek(), c.peek_at(1)) {
        (Some(Tok::Value(n)), Some(Tok::Punct("="))) => {
            c.next();
            c.next();
            Some(*n)
        }
        _ => None,
    };
    if let Some(n) = label
        && body.values.insert(n, pos).is_some()
    {
        return Err(ParseError::new(
            line_no,
            col,
            format!("value %{n} is defined twice"),
        ));
    }
    let (inst, field) = inst(&mut c, head, program)?;
    let ty = if c.eat_punct("::") {
        c.ty(program)?
    } else {
        Type::Void
    };
    if label.is_some() && ty == Type::Void {
        return Err(c.err("a statement defining a value needs its type (`::int`)"));
    }
    let flags = if c.eat_punct("!") {
        Some(flags(&mut c)?)
    } else {
        None
    };
    let source_name = c.source_names().map(|s| VarName::from(s.as_str()));
    c.expect_end()?;
    body.stmts.push(Parsed {
        inst,
        ty,
        flags,
        field,
        named: label.is_some(),
        source_name,
        line: line_no,
        col,
    });
    Ok(())
}

/// Skips the line-number margin and reads a block start `N ─` (or `┄`,
/// `-`), returning the block's written number.
fn margin_and_block(c: &mut Cursor) -> Result<Option<u32>, ParseError> {
    let block_at = |c: &Cursor, k: usize| -> Option<u32> {
        match (c.peek_at(k), c.peek_at(k + 1)) {
            (Some(Tok::Int(n)), Some(Tok::BlockStart)) => u32::try_from(*n).ok(),
            _ => None,
        }
    };
    if block_at(c, 0).is_none() && matches!(c.peek(), Some(Tok::Int(_))) {
        c.next(); // the line margin
    }
    match block_at(c, 0) {
        Some(0) => Err(c.err("blocks are numbered from 1")),
        Some(b) => {
            c.next();
            c.next();
            Ok(Some(b))
        }
        None => Ok(None),
    }
}

/// `!flags(name, ...)`, after the `!`.
fn flags(c: &mut Cursor) -> Result<Flags, ParseError> {
    c.expect_ident("flags")?;
    let names = c.list(|c| {
        let err = c.err(format!("expected a flag name, found {}", c.found()));
        let n = c.name("a flag")?;
        FLAG_NAMES
            .iter()
            .find(|(f, _)| *f == n)
            .map(|(_, bit)| *bit)
            .ok_or(err)
    })?;
    let mut out = Flags::default();
    names.into_iter().for_each(|f| out.insert(f));
    Ok(out)
}

/// One operand: `%n`, `_n`, an int, float, `true`, `false`, `nil`.
pub fn operand(c: &mut Cursor) -> Result<Operand, ParseError> {
    let op = match c.peek() {
        Some(Tok::Value(n)) => Operand::Value(Value(*n)),
        Some(Tok::Arg(n)) => Operand::Arg(n - 1),
        Some(Tok::Int(i)) => Operand::Int(*i),
        Some(Tok::Float(x)) => Operand::Float(*x),
        Some(Tok::Ident(s)) => match s.as_str() {
            "true" => Operand::Bool(true),
            "false" => Operand::Bool(false),
            "nil" => Operand::Nil,
            "NaN" => Operand::Float(f64::NAN),
            "inf" => Operand::Float(f64::INFINITY),
            _ => return Err(c.err(format!("expected an operand, found {}", c.found()))),
        },
        _ => return Err(c.err(format!("expected an operand, found {}", c.found()))),
    };
    c.next();
    Ok(op)
}

fn is_operand_start(t: Option<&Tok>) -> bool {
    match t {
        Some(Tok::Value(_) | Tok::Arg(_) | Tok::Int(_) | Tok::Float(_)) => true,
        Some(Tok::Ident(s)) => matches!(s.as_str(), "true" | "false" | "nil" | "NaN" | "inf"),
        _ => false,
    }
}

fn block(c: &mut Cursor) -> Result<BlockId, ParseError> {
    match c.peek() {
        Some(Tok::Block(n)) => {
            let b = BlockId(*n);
            c.next();
            Ok(b)
        }
        _ => Err(c.err(format!("expected a block (`#n`), found {}", c.found()))),
    }
}

/// One instruction, and the field name of a `base.field` place.
fn inst(
    c: &mut Cursor,
    head: &Head,
    program: &Program,
) -> Result<(Inst, Option<String>), ParseError> {
    if is_operand_start(c.peek()) {
        return Ok((Inst::Copy(operand(c)?), None));
    }
    if let Some(Tok::Str(s)) = c.peek() {
        c.next();
        return Ok((Inst::StrConst(s.as_str().into()), None));
    }
    let err = c.err(format!("expected an instruction, found {}", c.found()));
    let at = c.position();
    let name = c.name("an instruction").map_err(|_| err.clone())?;
    let inst = match name.as_str() {
        "load" | "store" => return memory(c, name == "store", program),
        "φ" | "phi" | "φᶜ" | "phic" | "ϒ" | "upsilon" | "π" | "pi" => ssa_node(c, &name)?,
        "goto" | "return" | "unwind" | "unreachable" => terminator(c, &name, head)?,
        _ => call_like(c, &name, at, program)?.ok_or(err)?,
    };
    Ok((inst, None))
}

/// φ, φᶜ, ϒ and π (also written `phi`, `phic`, `upsilon`, `pi`).
fn ssa_node(c: &mut Cursor, name: &str) -> Result<Inst, ParseError> {
    Ok(match name {
        "φ" | "phi" => {
            let pairs = c.list(|c| {
                let b = block(c)?;
                c.expect_punct("=>")?;
                Ok((b, operand(c)?))
            })?;
            let (edges, values) = pairs.into_iter().unzip();
            Inst::Phi { edges, values }
        }
        "φᶜ" | "phic" => {
            let upsilons = c.list(|c| match operand(c)? {
                Operand::Value(v) => Ok(v),
                _ => Err(c.err("a φᶜ lists ϒ statements (`%n`)")),
            })?;
            Inst::PhiC { upsilons }
        }
        "ϒ" | "upsilon" => {
            c.expect_punct("(")?;
            let v = operand(c)?;
            c.expect_punct(")")?;
            Inst::Upsilon(v)
        }
        _ => {
            c.expect_punct("(")?;
            let value = operand(c)?;
            c.expect_punct(",")?;
            let fact = fact(c)?;
            c.expect_punct(")")?;
            Inst::Pi { value, fact }
        }
    })
}

/// `non-nil`, or `[lo <=] _ [< hi]`.
fn fact(c: &mut Cursor) -> Result<Fact, ParseError> {
    if c.eat_ident("non-nil") {
        return Ok(Fact::NonNil);
    }
    let lo = if c.is_punct("_") {
        None
    } else {
        let lo = operand(c)?;
        c.expect_punct("<=")?;
        Some(lo)
    };
    c.expect_punct("_")?;
    let hi = if c.eat_punct("<") {
        Some(operand(c)?)
    } else {
        None
    };
    Ok(Fact::Range { lo, hi })
}

fn terminator(c: &mut Cursor, name: &str, head: &Head) -> Result<Inst, ParseError> {
    Ok(match name {
        "goto" => {
            let dest = block(c)?;
            if c.eat_ident("if") {
                c.expect_ident("not")?;
                Inst::GotoIfNot {
                    cond: operand(c)?,
                    dest,
                }
            } else {
                Inst::Goto(dest)
            }
        }
        "return" if is_operand_start(c.peek()) => Inst::Return(Some(operand(c)?)),
        "return" if head.ret != Type::Void => {
            return Err(c.err(format!("`{}` returns a value: `return %n`", head.name)));
        }
        "return" => Inst::Return(None),
        "unwind" => Inst::Unwind,
        _ => Inst::Unreachable,
    })
}

/// Calls, allocations, raises, and the named pure operations; `None` when
/// `name` names no instruction. `at` is the position of the name, where
/// arity errors point.
fn call_like(
    c: &mut Cursor,
    name: &str,
    at: (u32, u32),
    program: &Program,
) -> Result<Option<Inst>, ParseError> {
    let arity = |n: &str| {
        ParseError::new(
            at.0,
            at.1,
            format!(
                "`{name}` takes {n} operand{}",
                if n == "one" { "" } else { "s" }
            ),
        )
    };
    let unknown = |c: &Cursor, what: &str, n: &str| c.err(format!("unknown {what} `{n}`"));
    Ok(Some(match name {
        "nothing" => Inst::Nothing,
        "undef" => Inst::Undef,
        "no_exception" | "take_exception" => {
            c.expect_punct("(")?;
            c.expect_punct(")")?;
            if name == "no_exception" {
                Inst::NoException
            } else {
                Inst::TakeException
            }
        }
        "invoke" => {
            let f = c.name("a function name")?;
            let Some(i) = program.functions.iter().position(|g| g.name == f) else {
                return Err(unknown(c, "function", &f));
            };
            let args = c.list(operand)?;
            Inst::Call {
                func: FuncId(i as u32),
                args,
            }
        }
        "runtime" => {
            let f = c.name("a runtime function")?;
            let func = names::runtime(&f).ok_or_else(|| unknown(c, "runtime function", &f))?;
            Inst::Runtime {
                func,
                args: c.list(operand)?,
            }
        }
        "raise" => {
            let k = c.name("an error kind")?;
            let kind = names::raise(&k).ok_or_else(|| unknown(c, "error kind", &k))?;
            Inst::Raise {
                kind,
                args: c.list(operand)?,
            }
        }
        "new" => allocation(c, program)?,
        _ => {
            if let Some(op) = names::unary(name) {
                let mut a = c.list(operand)?;
                if a.len() != 1 {
                    return Err(arity("one"));
                }
                Inst::Unary(op, a.remove(0))
            } else if let Some(op) = names::binary(name) {
                let a = c.list(operand)?;
                let [x, y] = a[..] else {
                    return Err(arity("two"));
                };
                Inst::Binary(op, x, y)
            } else {
                return Ok(None);
            }
        }
    }))
}

/// `new [T](len a, fill b)` or `new Struct(a, b, ...)`.
fn allocation(c: &mut Cursor, program: &Program) -> Result<Inst, ParseError> {
    if c.is_punct("[") {
        let Type::Array(elem) = c.ty(program)? else {
            return Err(c.err("expected an array type"));
        };
        c.expect_punct("(")?;
        c.expect_ident("len")?;
        let len = operand(c)?;
        c.expect_punct(",")?;
        c.expect_ident("fill")?;
        let fill = operand(c)?;
        c.expect_punct(")")?;
        return Ok(Inst::NewArray {
            elem: *elem,
            len,
            fill,
        });
    }
    let err = c.err(format!("expected a struct name, found {}", c.found()));
    let name = c.name("a struct name").map_err(|_| err.clone())?;
    let Some(i) = program.structs.iter().position(|s| s.name == name) else {
        return Err(ParseError {
            msg: format!("unknown struct `{name}`"),
            ..err
        });
    };
    Ok(Inst::NewStruct {
        strukt: StructId(i as u32),
        fields: c.list(operand)?,
    })
}

/// `load PLACE` / `store PLACE = value`, where PLACE is `len(a)`, `a[i]`,
/// `a.field` or `@global`. Element types and field indices are filled in
/// by [`resolve`]; the field's name is returned.
fn memory(
    c: &mut Cursor,
    store: bool,
    program: &Program,
) -> Result<(Inst, Option<String>), ParseError> {
    let (loc, base, index, field) = place(c, program)?;
    let inst = if store {
        c.expect_punct("=")?;
        Inst::Store {
            loc,
            base,
            index,
            value: operand(c)?,
        }
    } else {
        Inst::Load { loc, base, index }
    };
    Ok((inst, field))
}

type Place = (Loc, Option<Operand>, Option<Operand>, Option<String>);

fn place(c: &mut Cursor, program: &Program) -> Result<Place, ParseError> {
    if let Some(Tok::Global(g)) = c.peek() {
        c.next();
        return Ok((
            Loc::Global(crate::types::GlobalId(u32::MAX)),
            None,
            None,
            Some(g.clone()),
        ));
    }
    if c.is_ident("len") && c.peek_at(1) == Some(&Tok::Punct("(")) {
        c.next();
        c.next();
        let base = operand(c)?;
        c.expect_punct(")")?;
        return Ok((Loc::ArrayLen, Some(base), None, None));
    }
    if c.eat_punct("(") {
        // `(nil::S).field`: a nil base names its struct.
        c.expect_ident("nil")?;
        c.expect_punct("::")?;
        let err = c.err("expected a struct type");
        let Type::Struct(s) = c.ty(program)? else {
            return Err(err);
        };
        c.expect_punct(")")?;
        c.expect_punct(".")?;
        let name = c.name("a field name")?;
        let field = program.strukt(s).fields.iter().position(|f| f.name == name);
        let field = field
            .ok_or_else(|| c.err(format!("no field `{name}` in `{}`", program.strukt(s).name)))?;
        let loc = Loc::Field {
            strukt: s,
            field: field as u32,
        };
        return Ok((loc, Some(Operand::Nil), None, None));
    }
    let base = operand(c)?;
    if c.eat_punct("[") {
        let index = operand(c)?;
        c.expect_punct("]")?;
        return Ok((Loc::ArrayElem(Type::Void), Some(base), Some(index), None));
    }
    c.expect_punct(".")?;
    let field = c.name("a field name")?;
    let loc = Loc::Field {
        strukt: StructId(u32::MAX),
        field: u32::MAX,
    };
    Ok((loc, Some(base), None, Some(field)))
}

/// Maps written numbers to positions, fills in element types, fields and
/// globals, flags, and builds the CFG.
fn resolve(mut body: Body, head: Head, program: &Program) -> Result<IrCode, ParseError> {
    // An unnamed statement (a `ϒ`, which a `φᶜ` lists) is `%k` at
    // position k, as the printer numbers it, unless a label claims `%k`.
    for (k, p) in body.stmts.iter().enumerate() {
        if !p.named {
            body.values.entry(k as u32 + 1).or_insert(k as u32);
        }
    }
    let tys: Vec<Type> = body.stmts.iter().map(|s| s.ty.clone()).collect();
    let mut stmts = InstructionStream::default();
    let mut name_ids = NameIndex::default();
    for p in body.stmts {
        let at = |msg: String| ParseError::new(p.line, p.col, msg);
        let mut inst = p.inst;
        renumber(&mut inst, &body.values, &body.blocks).map_err(at)?;
        let value_ty = |v: Value| tys.get(v.index()).cloned();
        let base_ty = |b: &Option<Operand>| {
            b.as_ref()
                .and_then(|b| operand_type_with(b, &head.params, value_ty))
        };
        if let Inst::Load { loc, base, .. } | Inst::Store { loc, base, .. } = &mut inst {
            let ty = base_ty(base);
            fill_loc(loc, ty, p.field.as_deref(), program).map_err(at)?;
        }
        let flags = p.flags.unwrap_or_else(|| default_flags(&inst));
        let name = p.source_name.map(|n| name_ids.id(&mut stmts.names, n));
        stmts.push_named(inst, p.ty, Span::default(), flags, name);
    }
    let n = stmts.len() as u32;
    let mut ranges: Vec<std::ops::Range<u32>> = Vec::new();
    for (k, &s) in body.starts.iter().enumerate() {
        ranges.push(s..body.starts.get(k + 1).copied().unwrap_or(n));
    }
    let cfg = cfg_from_ranges(&stmts.inst, ranges);
    Ok(IrCode {
        name: head.name,
        func: head.func,
        params: head.params,
        ret: head.ret,
        span: Span::default(),
        param_names: head.param_names,
        stmts,
        cfg,
    })
}

/// Written value and block numbers in `inst` to positions.
fn renumber(
    inst: &mut Inst,
    values: &HashMap<u32, u32>,
    blocks: &HashMap<u32, u32>,
) -> Result<(), String> {
    let mut bad = None;
    let value = |v: &mut Value, bad: &mut Option<String>| match values.get(&v.0) {
        Some(&p) => v.0 = p,
        None => *bad = Some(format!("value %{} is not defined", v.0)),
    };
    for_each_operand_mut(inst, |op| {
        if let Operand::Value(v) = op {
            value(v, &mut bad);
        }
    });
    let mut block = |b: &mut BlockId| match blocks.get(&b.0) {
        Some(&p) => b.0 = p,
        None => bad = Some(format!("block #{} is not defined", b.0)),
    };
    match inst {
        Inst::Phi { edges, .. } => edges.iter_mut().for_each(&mut block),
        Inst::Goto(b) | Inst::GotoIfNot { dest: b, .. } => block(b),
        Inst::PhiC { upsilons } => {
            let mut b2 = None;
            upsilons.iter_mut().for_each(|u| value(u, &mut b2));
            bad = bad.or(b2);
        }
        _ => {}
    }
    bad.map_or(Ok(()), Err)
}

/// The element type of an `a[i]` place (from `a`'s type), the struct and
/// index of an `a.field` place, the id of a `@global`.
fn fill_loc(
    loc: &mut Loc,
    base: Option<Type>,
    name: Option<&str>,
    program: &Program,
) -> Result<(), String> {
    match loc {
        Loc::ArrayElem(elem) => match base {
            Some(Type::Array(t)) => *elem = *t,
            _ => return Err("an element place `a[i]` needs an array `a`".into()),
        },
        Loc::Field { .. } if name.is_none() => {}
        Loc::Field { strukt, field } => {
            let name = name.unwrap_or_default();
            let Some(Type::Struct(s)) = base else {
                return Err(format!("a field place `a.{name}` needs a struct `a`"));
            };
            let def = program.strukt(s);
            let Some(i) = def.fields.iter().position(|f| f.name == name) else {
                return Err(format!("struct `{}` has no field `{name}`", def.name));
            };
            (*strukt, *field) = (s, i as u32);
        }
        Loc::Global(g) => {
            let name = name.unwrap_or_default();
            let Some(i) = program.globals.iter().position(|x| x.name == name) else {
                return Err(format!("unknown global `@{name}`"));
            };
            *g = crate::types::GlobalId(i as u32);
        }
        Loc::ArrayLen => {}
    }
    Ok(())
}
