//! Building an [`IrCode`] from a list of blocks, for tests of IR that the
//! IR text (`ir::parse`, which verifies what it reads) cannot hold, such as
//! IR the verifier rejects. IR is printed by `ir::print` alone.

use crate::ir::edges::cfg_from_ranges;
use crate::ir::edit::default_flags;
use crate::ir::{Cfg, Inst, InstructionStream, IrCode, Type};
use crate::span::Span;
use crate::types::FuncId;

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
