//! Lowers a `hir::Function` straight into Cranelift IR with
//! cranelift-frontend's own SSA construction (`declare_var` / `def_var` /
//! `use_var`). This is the yardstick for our Braun builder and lives in bench
//! code only; the compiler never uses it.
//!
//! Supported: int/float/bool locals and parameters, arithmetic, bitwise ops,
//! comparisons, `&&`/`||`, `float()`/`int()`/`sqrt`, calls between Toy
//! functions, `if`, `while`, `for` over a range, `break`/`continue` (labelled
//! too), `return`, blocks. Anything else (globals, strings, arrays, structs,
//! exceptions, printing) makes [`lower`] return `Err` naming the construct;
//! such functions are left out of both sides of the comparison.
//!
//! Blocks are sealed as soon as all their predecessors exist (a loop header
//! after its back edges), which is how cranelift-frontend is meant to be
//! driven and what Braun et al.'s algorithm assumes.
//!
//! Semantics at run time are not the point (the IR is never executed):
//! integer `/` and `%` become `sdiv`/`srem` without Toy's zero check.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, ExtFuncData, ExternalName, FuncRef, Function, InstBuilder,
    Signature, UserExternalName, UserFuncName, Value, types,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use std::collections::HashMap;
use toyc::sema::hir::{
    self, BinOp, Builtin, ExprKind, FuncId, LoopId, Place, StmtKind, Type, UnOp,
};

/// The Cranelift type of a scalar Toy type.
fn clif_type(ty: &Type) -> Result<types::Type, String> {
    match ty {
        Type::Int => Ok(types::I64),
        Type::Float => Ok(types::F64),
        Type::Bool => Ok(types::I8),
        other => Err(format!("type {other:?}")),
    }
}

/// The signature of `f` (SystemV), or `Err` if it is not scalar.
pub fn signature(f: &hir::Function) -> Result<Signature, String> {
    let mut sig = Signature::new(CallConv::SystemV);
    for p in &f.params {
        sig.params
            .push(AbiParam::new(clif_type(&f.locals[p.0 as usize].ty)?));
    }
    if f.ret != Type::Void {
        sig.returns.push(AbiParam::new(clif_type(&f.ret)?));
    }
    Ok(sig)
}

pub fn frontend_config() -> TargetFrontendConfig {
    TargetFrontendConfig {
        default_call_conv: CallConv::SystemV,
        pointer_width: target_lexicon::PointerWidth::U64,
        page_size_align_log2: 12,
    }
}

struct Lower<'a, 'b> {
    program: &'a hir::Program,
    b: FunctionBuilder<'b>,
    vars: Vec<Option<Variable>>,
    /// (loop, continue target, exit block).
    loops: Vec<(LoopId, Block, Block)>,
    callees: HashMap<FuncId, FuncRef>,
    /// The current block has been terminated (following statements are dead).
    dead: bool,
}

/// Lowers function `id` into `func` (whose signature must be
/// [`signature`]'s). Uses and clears `ctx`.
pub fn lower(
    program: &hir::Program,
    id: FuncId,
    func: &mut Function,
    ctx: &mut FunctionBuilderContext,
) -> Result<(), String> {
    let f = program.func(id);
    func.name = UserFuncName::user(0, id.0);
    let mut b = FunctionBuilder::new(func, ctx);
    let mut vars = vec![None; f.locals.len()];
    for (i, l) in f.locals.iter().enumerate() {
        if let Ok(t) = clif_type(&l.ty) {
            vars[i] = Some(b.declare_var(t));
        }
    }
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let params: Vec<Value> = b.block_params(entry).to_vec();
    let mut l = Lower {
        program,
        b,
        vars,
        loops: Vec::new(),
        callees: HashMap::new(),
        dead: false,
    };
    for (p, v) in f.params.iter().zip(params) {
        let var = l.var(*p)?;
        l.b.def_var(var, v);
    }
    let result = l.block(&f.body).map(|()| {
        if !l.dead {
            if f.ret == Type::Void {
                l.b.ins().return_(&[]);
            } else {
                l.b.ins()
                    .trap(cranelift_codegen::ir::TrapCode::unwrap_user(1));
            }
        }
    });
    // A failed lowering leaves unfinished blocks: finalize only on success
    // (the context is cleared either way by creating the next builder).
    if result.is_ok() {
        l.b.finalize(frontend_config());
    }
    result
}

impl Lower<'_, '_> {
    fn var(&self, id: hir::LocalId) -> Result<Variable, String> {
        self.vars
            .get(id.0 as usize)
            .copied()
            .flatten()
            .ok_or_else(|| "non-scalar local".to_string())
    }

    /// Starts `blk` as the current block.
    fn start(&mut self, blk: Block) {
        self.b.switch_to_block(blk);
        self.dead = false;
    }

    fn jump(&mut self, target: Block) {
        if !self.dead {
            self.b.ins().jump(target, &[]);
            self.dead = true;
        }
    }

    fn block(&mut self, block: &hir::Block) -> Result<(), String> {
        for s in &block.stmts {
            if self.dead {
                break;
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &hir::Stmt) -> Result<(), String> {
        match &s.kind {
            StmtKind::Let { local, init } => {
                let v = self.expr(init)?;
                let var = self.var(*local)?;
                self.b.def_var(var, v);
            }
            StmtKind::Assign {
                place: Place::Local(local),
                op,
                value,
            } => {
                let var = self.var(*local)?;
                let v = match op {
                    None => self.expr(value)?,
                    Some(op) => {
                        let old = self.b.use_var(var);
                        let rhs = self.expr(value)?;
                        self.binary(*op, &value.ty, old, rhs)?
                    }
                };
                self.b.def_var(var, v);
            }
            StmtKind::Assign { .. } => return Err("assignment to a non-local".into()),
            StmtKind::Expr(e) => {
                self.expr_any(e)?;
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => self.if_stmt(cond, then_block, else_block)?,
            StmtKind::While { id, cond, body } => self.while_loop(*id, cond, body)?,
            StmtKind::ForRange {
                id,
                var,
                start,
                end,
                body,
            } => self.for_range(*id, *var, start, end, body)?,
            StmtKind::Break(id) | StmtKind::Continue(id) => {
                let &(_, cont, exit) = self
                    .loops
                    .iter()
                    .rev()
                    .find(|l| l.0 == *id)
                    .ok_or("break outside its loop")?;
                let target = if matches!(s.kind, StmtKind::Break(_)) {
                    exit
                } else {
                    cont
                };
                self.jump(target);
            }
            StmtKind::Return(e) => {
                match e {
                    Some(e) => {
                        let v = self.expr(e)?;
                        self.b.ins().return_(&[v]);
                    }
                    None => {
                        self.b.ins().return_(&[]);
                    }
                }
                self.dead = true;
            }
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::ForEach { .. } => return Err("for over an array".into()),
            StmtKind::Throw(_) | StmtKind::Try { .. } => return Err("exceptions".into()),
        }
        Ok(())
    }

    fn if_stmt(
        &mut self,
        cond: &hir::Expr,
        then_block: &hir::Block,
        else_block: &hir::Block,
    ) -> Result<(), String> {
        let c = self.expr(cond)?;
        let then_b = self.b.create_block();
        let else_b = self.b.create_block();
        let merge = self.b.create_block();
        self.b.ins().brif(c, then_b, &[], else_b, &[]);
        self.b.seal_block(then_b);
        self.b.seal_block(else_b);
        self.start(then_b);
        self.block(then_block)?;
        self.jump(merge);
        self.start(else_b);
        self.block(else_block)?;
        self.jump(merge);
        self.b.seal_block(merge);
        self.start(merge);
        Ok(())
    }

    fn while_loop(
        &mut self,
        id: LoopId,
        cond: &hir::Expr,
        body: &hir::Block,
    ) -> Result<(), String> {
        let header = self.b.create_block();
        let body_b = self.b.create_block();
        let exit = self.b.create_block();
        self.jump(header);
        self.start(header);
        let c = self.expr(cond)?;
        self.b.ins().brif(c, body_b, &[], exit, &[]);
        self.b.seal_block(body_b);
        self.start(body_b);
        self.loops.push((id, header, exit));
        self.block(body)?;
        self.loops.pop();
        self.jump(header);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.start(exit);
        Ok(())
    }

    fn for_range(
        &mut self,
        id: LoopId,
        var: hir::LocalId,
        start: &hir::Expr,
        end: &hir::Expr,
        body: &hir::Block,
    ) -> Result<(), String> {
        let i = self.var(var)?;
        let s0 = self.expr(start)?;
        let e0 = self.expr(end)?;
        self.b.def_var(i, s0);
        let header = self.b.create_block();
        let body_b = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();
        self.jump(header);
        self.start(header);
        let cur = self.b.use_var(i);
        let c = self.b.ins().icmp(IntCC::SignedLessThan, cur, e0);
        self.b.ins().brif(c, body_b, &[], exit, &[]);
        self.b.seal_block(body_b);
        self.start(body_b);
        self.loops.push((id, latch, exit));
        self.block(body)?;
        self.loops.pop();
        self.jump(latch);
        self.b.seal_block(latch);
        self.start(latch);
        let cur = self.b.use_var(i);
        let next = self.b.ins().iadd_imm_s(cur, 1);
        self.b.def_var(i, next);
        self.jump(header);
        self.b.seal_block(header);
        self.b.seal_block(exit);
        self.start(exit);
        Ok(())
    }

    /// An expression with a value.
    fn expr(&mut self, e: &hir::Expr) -> Result<Value, String> {
        self.expr_any(e)?
            .ok_or_else(|| "void value used".to_string())
    }

    fn expr_any(&mut self, e: &hir::Expr) -> Result<Option<Value>, String> {
        let v = match &e.kind {
            ExprKind::Int(i) => self.b.ins().iconst(types::I64, *i),
            ExprKind::Float(x) => self.b.ins().f64const(*x),
            ExprKind::Bool(x) => self.b.ins().iconst(types::I8, *x as i64),
            ExprKind::Local(id) => {
                let var = self.var(*id)?;
                self.b.use_var(var)
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                match (op, &x.ty) {
                    (UnOp::Neg, Type::Float) => self.b.ins().fneg(v),
                    (UnOp::Neg, _) => self.b.ins().ineg(v),
                    (UnOp::Not, _) => self.b.ins().bxor_imm_s(v, 1),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let a = self.expr(l)?;
                let c = self.expr(r)?;
                self.binary(*op, &l.ty, a, c)?
            }
            ExprKind::And(l, r) | ExprKind::Or(l, r) => {
                let is_and = matches!(e.kind, ExprKind::And(..));
                let a = self.expr(l)?;
                let rhs_b = self.b.create_block();
                let merge = self.b.create_block();
                let out = self.b.append_block_param(merge, types::I8);
                if is_and {
                    self.b
                        .ins()
                        .brif(a, rhs_b, &[], merge, &[BlockArg::Value(a)]);
                } else {
                    self.b
                        .ins()
                        .brif(a, merge, &[BlockArg::Value(a)], rhs_b, &[]);
                }
                self.b.seal_block(rhs_b);
                self.start(rhs_b);
                let c = self.expr(r)?;
                self.b.ins().jump(merge, &[BlockArg::Value(c)]);
                self.b.seal_block(merge);
                self.start(merge);
                out
            }
            ExprKind::Call { func, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.expr(a)?);
                }
                let fref = self.callee(*func)?;
                let call = self.b.ins().call(fref, &vals);
                return Ok(self.b.inst_results(call).first().copied());
            }
            ExprKind::Builtin { builtin, args } => match (builtin, args.as_slice()) {
                (Builtin::ToFloat, [x]) if x.ty == Type::Int => {
                    let v = self.expr(x)?;
                    self.b.ins().fcvt_from_sint(types::F64, v)
                }
                (Builtin::ToInt, [x]) if x.ty == Type::Float => {
                    let v = self.expr(x)?;
                    self.b.ins().fcvt_to_sint_sat(types::I64, v)
                }
                (Builtin::Sqrt, [x]) => {
                    let v = self.expr(x)?;
                    self.b.ins().sqrt(v)
                }
                _ => return Err(format!("builtin {}", builtin.name())),
            },
            ExprKind::Global(_) => return Err("globals".into()),
            _ => return Err("heap values".into()),
        };
        Ok(Some(v))
    }

    fn callee(&mut self, id: FuncId) -> Result<FuncRef, String> {
        if let Some(r) = self.callees.get(&id) {
            return Ok(*r);
        }
        let sig = signature(self.program.func(id))?;
        let sigref = self.b.import_signature(sig);
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName::new(0, id.0));
        let r = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature: sigref,
            colocated: true,
            patchable: false,
        });
        self.callees.insert(id, r);
        Ok(r)
    }

    fn binary(&mut self, op: BinOp, ty: &Type, a: Value, c: Value) -> Result<Value, String> {
        let ins = self.b.ins();
        let float = *ty == Type::Float;
        Ok(match op {
            BinOp::Add if float => ins.fadd(a, c),
            BinOp::Sub if float => ins.fsub(a, c),
            BinOp::Mul if float => ins.fmul(a, c),
            BinOp::Div if float => ins.fdiv(a, c),
            BinOp::Add => ins.iadd(a, c),
            BinOp::Sub => ins.isub(a, c),
            BinOp::Mul => ins.imul(a, c),
            BinOp::Div => ins.sdiv(a, c),
            BinOp::Rem if !float => ins.srem(a, c),
            BinOp::BitAnd => ins.band(a, c),
            BinOp::BitOr => ins.bor(a, c),
            BinOp::BitXor => ins.bxor(a, c),
            BinOp::Shl => ins.ishl(a, c),
            BinOp::Shr => ins.sshr(a, c),
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge if float => {
                let cc = match op {
                    BinOp::Eq => FloatCC::Equal,
                    BinOp::Ne => FloatCC::NotEqual,
                    BinOp::Lt => FloatCC::LessThan,
                    BinOp::Le => FloatCC::LessThanOrEqual,
                    BinOp::Gt => FloatCC::GreaterThan,
                    _ => FloatCC::GreaterThanOrEqual,
                };
                ins.fcmp(cc, a, c)
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let cc = match op {
                    BinOp::Eq => IntCC::Equal,
                    BinOp::Ne => IntCC::NotEqual,
                    BinOp::Lt => IntCC::SignedLessThan,
                    BinOp::Le => IntCC::SignedLessThanOrEqual,
                    BinOp::Gt => IntCC::SignedGreaterThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                ins.icmp(cc, a, c)
            }
            other => return Err(format!("operator {other:?} on {ty:?}")),
        })
    }
}
