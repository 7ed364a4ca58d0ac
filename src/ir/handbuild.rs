//! Building an [`IrCode`] from a list of blocks (for tests and CFG surgery)
//! and a compact one-line-per-statement dump (for tests and debugging).

use crate::ir::compact::cfg_from_ranges;
use crate::ir::edit::default_flags;
use crate::ir::{Cfg, Fact, Inst, InstructionStream, IrCode, Operand, Type};
use crate::span::Span;
use crate::types::FuncId;
use std::fmt::Write;

/// An IrCode whose block `b` holds `blocks[b]` in order (statements are
/// numbered consecutively); preds/succs come from the terminators, flags
/// from [`default_flags`]. An empty block gets one `Nothing`.
pub fn ir_from_blocks(
    name: &str,
    params: Vec<Type>,
    ret: Type,
    blocks: Vec<Vec<(Inst, Type)>>,
) -> IrCode {
    let mut stmts = InstructionStream::default();
    let mut ranges = Vec::with_capacity(blocks.len());
    for block in blocks {
        let start = stmts.len() as u32;
        for (inst, ty) in block {
            let flags = default_flags(&inst);
            stmts.push(inst, ty, Span::default(), flags);
        }
        if stmts.len() as u32 == start {
            stmts.push(
                Inst::Nothing,
                Type::Void,
                Span::default(),
                Default::default(),
            );
        }
        ranges.push(start..stmts.len() as u32);
    }
    let cfg: Cfg = cfg_from_ranges(&stmts.inst, ranges);
    IrCode {
        name: name.to_string(),
        func: FuncId(0),
        params,
        ret,
        span: Span::default(),
        param_names: Vec::new(),
        stmts,
        cfg,
    }
}

fn op(o: &Operand) -> String {
    match o {
        Operand::Value(v) => format!("{v}"),
        Operand::Arg(a) => format!("_{}", a + 1),
        Operand::Int(i) => format!("{i}"),
        Operand::Float(f) => format!("{f:?}"),
        Operand::Bool(b) => format!("{b}"),
        Operand::Nil => "nil".into(),
    }
}

fn ops(list: &[Operand]) -> String {
    list.iter().map(op).collect::<Vec<_>>().join(", ")
}

/// One statement, Julia-like (`φ (#1 => %2, #3 => 5)`, `goto #3 if not %4`);
/// other instructions print their variant name and operands.
pub fn inst_text(inst: &Inst) -> String {
    match inst {
        Inst::Nothing => "nothing".into(),
        Inst::Copy(a) => op(a),
        Inst::Unary(u, a) => format!("{u:?}({})", op(a)),
        Inst::Binary(b, x, y) => format!("{b:?}({}, {})", op(x), op(y)),
        Inst::Phi { edges, values } => {
            let parts: Vec<String> = edges
                .iter()
                .zip(values)
                .map(|(e, v)| format!("{e} => {}", op(v)))
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
        Inst::Upsilon(a) => format!("ϒ ({})", op(a)),
        Inst::Pi { value, fact } => match fact {
            Fact::NonNil => format!("π ({}, nonnil)", op(value)),
            Fact::Range { lo, hi } => format!(
                "π ({}, {}..{})",
                op(value),
                lo.as_ref().map(op).unwrap_or_default(),
                hi.as_ref().map(op).unwrap_or_default()
            ),
        },
        Inst::StrConst(s) => format!("{s:?}"),
        Inst::Call { func, args } => format!("call f{}({})", func.0, ops(args)),
        Inst::Runtime { func, args } => format!("{func:?}({})", ops(args)),
        Inst::Load { loc, base, index } => {
            format!(
                "load {loc:?}({})",
                ops(&base.iter().chain(index.iter()).copied().collect::<Vec<_>>())
            )
        }
        Inst::Store {
            loc,
            base,
            index,
            value,
        } => format!(
            "store {loc:?}({}) = {}",
            ops(&base.iter().chain(index.iter()).copied().collect::<Vec<_>>()),
            op(value)
        ),
        Inst::NewArray { elem, len, fill } => format!("new [{elem:?}]({}, {})", op(len), op(fill)),
        Inst::NewStruct { strukt, fields } => format!("new s{}({})", strukt.0, ops(fields)),
        Inst::Raise { kind, args } => format!("raise {kind:?}({})", ops(args)),
        Inst::NoException => "noexception".into(),
        Inst::TakeException => "takeexception".into(),
        Inst::Undef => "undef".into(),
        Inst::Goto(b) => format!("goto {b}"),
        Inst::GotoIfNot { cond, dest } => format!("goto {dest} if not {}", op(cond)),
        Inst::Return(Some(a)) => format!("return {}", op(a)),
        Inst::Return(None) => "return".into(),
        Inst::Unwind => "unwind".into(),
        Inst::Unreachable => "unreachable".into(),
    }
}

/// Every block as `#b (preds) -> (succs)` then its statements `%n = inst`,
/// 1-based like the printer. Stable, for exact test expectations.
pub fn dump(ir: &IrCode) -> String {
    let mut s = String::new();
    for (b, bb) in ir.cfg.blocks.iter() {
        let list = |l: &[crate::ir::BlockId]| {
            l.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let _ = writeln!(s, "{b} ({}) -> ({})", list(&bb.preds), list(&bb.succs));
        for i in bb.values() {
            let inst = ir.stmts.inst.get(i).unwrap_or(&Inst::Nothing);
            let _ = writeln!(s, "  {i} = {}", inst_text(inst));
        }
    }
    s
}

/// IR text of `depth(n) = if n == 0 { 0 } else { depth(n - 1) + 1 }`: the
/// recursion that the deep-stack tests of codegen and the interpreter run.
pub const DEPTH_IR: &str = "\
fn depth(_1::int) -> int
1 ─ %1 = ieq(_1, 0)::bool
└──      goto #3 if not %1
2 ─      return 0
3 ─ %4 = isub(_1, 1)::int
│   %5 = invoke depth(%4)::int
│   %6 = iadd(%5, 1)::int
└──      return %6
";
