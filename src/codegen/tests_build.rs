//! A tiny builder of hand-written `IrCode` for the backend's unit tests.
//! Blocks are appended in order; `succs`/`preds` are computed at the end
//! from the terminators (fallthrough included).

use crate::ir::{
    BasicBlock, BlockId, Cfg, Flags, Inst, InstructionStream, IrCode, Module, Operand, Type,
};
use crate::sema::hir::{FuncId, Program};
use crate::span::{SourceMap, Span};
use std::sync::Arc;

pub struct FnBuilder {
    code: IrCode,
    block_start: u32,
    span: Span,
}

impl FnBuilder {
    pub fn new(name: &str, params: Vec<Type>, ret: Type) -> FnBuilder {
        FnBuilder {
            code: IrCode {
                name: name.into(),
                func: FuncId(0),
                params,
                ret,
                span: Span::default(),
                param_names: Vec::new(),
                stmts: InstructionStream::default(),
                cfg: Cfg::default(),
            },
            block_start: 0,
            span: Span::default(),
        }
    }

    /// Statements pushed from now on carry this span.
    pub fn at(&mut self, start: usize) -> &mut Self {
        self.span = Span::new(crate::span::FileId(0), start, start + 1);
        self
    }

    /// Appends a statement to the current block; returns its value.
    pub fn push(&mut self, inst: Inst, ty: Type) -> Operand {
        let v = self.code.stmts.push(inst, ty, self.span, Flags::default());
        Operand::Value(v)
    }

    /// Ends the current block (the next statement starts block `n + 1`).
    pub fn end_block(&mut self) -> BlockId {
        let end = self.code.stmts.len() as u32;
        self.code.cfg.blocks.push(BasicBlock {
            stmts: self.block_start..end,
            preds: vec![],
            succs: vec![],
        });
        self.block_start = end;
        BlockId(self.code.cfg.blocks.len() as u32 - 1)
    }

    pub fn finish(mut self) -> IrCode {
        if self.block_start < self.code.stmts.len() as u32 {
            self.end_block();
        }
        crate::ir::compact::rebuild_edges(&mut self.code);
        self.code
    }
}

/// A module of `funcs` (function `i` has `FuncId(i)`), with `main` and
/// `<init>` as given, and a source map with one file of `text`.
pub fn module(mut funcs: Vec<IrCode>, main: u32, init: u32, text: &str) -> (Module, SourceMap) {
    for (i, f) in funcs.iter_mut().enumerate() {
        f.func = FuncId(i as u32);
    }
    let program = Program {
        main: FuncId(main),
        init: FuncId(init),
        ..Program::default()
    };
    let mut sources = SourceMap::new();
    sources.add("test.toy".into(), None, text.into());
    (
        Module {
            funcs,
            program: Arc::new(program),
        },
        sources,
    )
}

/// An `<init>` that does nothing.
pub fn empty_init() -> IrCode {
    let mut b = FnBuilder::new("<init>", vec![], Type::Void);
    b.push(Inst::Return(None), Type::Void);
    b.finish()
}
