//! Translation of one `IrCode` function to a Cranelift function.
//!
//! - One Cranelift block per reachable IR block, emitted in reverse
//!   postorder (so every definition is translated before its uses), plus a
//!   separate entry block holding the function parameters and, in functions
//!   that call Toy functions, the stack-limit check.
//! - A `φ` is a parameter of its block; every branch (explicit, or the
//!   fallthrough of a block / of a true `GotoIfNot`) passes, per `φ` of the
//!   target, the operand of the edge it leaves from.
//! - A `φᶜ` owns an 8-byte stack slot: each `ϒ` listing it stores there and
//!   the `φᶜ` loads it at the handler's head.
//! - A nonzero float constant used in a block that lies on a cycle of the
//!   CFG is a load from a read-only data object, placed out of the loops
//!   like the arrays' buffer addresses ([`super::invariant`]), so the value
//!   stays in a register; an `f64const` would be rematerialised at every
//!   use instead (`movabs` and `movq` per use and iteration on x86-64).
//! - Cranelift's own SSA variables are not used.

use super::Compiler;
use super::block_order;
use super::fixed_data::MovableData;
use super::invariant::{Invariant, Invariants, Root, Site};
use super::ops;
use super::rtfn::{self, Lowering, RtSig};
use super::signature::cl_type;
use crate::ir::{BlockId, Inst, IrCode, Operand, RuntimeFn, Type, Value};
use crate::rtfns::Ty;
use cranelift_codegen::ir::condcodes::{CondCode, IntCC};
use cranelift_codegen::ir::{
    self as cl, BlockArg, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind,
    TrapCode, types,
};
use cranelift_entity::SecondaryMap;
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{DataId, FuncId as ClFuncId, Module};
use std::collections::HashMap;

pub(super) struct FnTrans<'c, 'a, 'f> {
    pub cx: &'c mut Compiler<'a>,
    pub b: FunctionBuilder<'f>,
    pub code: &'a IrCode,
    pub(super) blocks: SecondaryMap<BlockId, Option<cl::Block>>,
    pub(super) vals: SecondaryMap<Value, Option<cl::Value>>,
    params: Vec<cl::Value>,
    phic_slot: SecondaryMap<Value, Option<StackSlot>>,
    /// The `φᶜ` slots that hold references (listed in every stack map).
    pub(super) ref_phic_slots: Vec<StackSlot>,
    /// Reference values and calls that may collect, for the stack maps.
    pub(super) roots: super::gc::FrameRoots,
    upsilon_slots: SecondaryMap<Value, Vec<StackSlot>>,
    func_refs: HashMap<ClFuncId, cl::FuncRef>,
    data_gvs: HashMap<DataId, cl::GlobalValue>,
    /// For each `φ` with many edges: its operand index per source block,
    /// so that passing the arguments of all `k` edges costs O(k), not O(k²).
    phi_edges: HashMap<Value, HashMap<Option<BlockId>, usize>>,
    /// Per IR block: an error path (a `COLD` statement or a `Raise`).
    cold: SecondaryMap<BlockId, bool>,
    /// Per IR block: it lies on a cycle of the CFG (in a loop).
    on_cycle: SecondaryMap<BlockId, bool>,
    /// Per IR block: the loop header its fallthrough predecessor branches
    /// to instead ([`block_order::bypassed_latches`]).
    bypass: SecondaryMap<BlockId, Option<BlockId>>,
    /// Whether the block being translated lies on a cycle.
    in_loop: bool,
    /// How many times each value is used ([`crate::ir::edit::use_counts`]).
    uses: Vec<u32>,
    /// The arrays whose buffer may move while the function runs.
    pub(super) movable: super::fixed_data::MovableData,
    /// The slot a raise passes its operands in (`raise.rs`), made on first use.
    pub(super) raise_slot: Option<StackSlot>,
    /// The block being translated.
    pub(super) site: Site,
    /// The invariant loads emitted so far and where they may go.
    pub(super) inv: Invariants,
    /// The block being translated, in translation order
    /// ([`super::schedule::block_order`]), and that function's scratch.
    order: Vec<Value>,
    starts: Vec<(u32, Value)>,
}

/// A `φ` with more edges than this gets an edge index in `phi_edges`.
const PHI_EDGE_SCAN: usize = 8;

/// Translates `code` into `b`'s function (whose signature is already set).
pub(super) fn translate<'a>(
    cx: &mut Compiler<'a>,
    code: &'a IrCode,
    b: FunctionBuilder<'_>,
) -> Result<super::gc::FrameRoots, String> {
    let movable = match &cx.summaries {
        Some(sums) => MovableData::of_function(code, sums),
        None => MovableData::anything(),
    };
    let inv = Invariants::new(code, cx.opts.optimize);
    let mut t = FnTrans {
        cx,
        b,
        code,
        blocks: SecondaryMap::with_capacity(code.cfg.blocks.len()),
        vals: SecondaryMap::with_capacity(code.stmts.len()),
        params: Vec::new(),
        phic_slot: SecondaryMap::new(),
        ref_phic_slots: Vec::new(),
        roots: Default::default(),
        upsilon_slots: SecondaryMap::new(),
        func_refs: HashMap::new(),
        data_gvs: HashMap::new(),
        phi_edges: HashMap::new(),
        cold: block_order::cold_blocks(code),
        on_cycle: block_order::cycle_blocks(code),
        bypass: block_order::bypassed_latches(code),
        in_loop: false,
        uses: crate::ir::edit::use_counts(code, None),
        movable,
        raise_slot: None,
        site: Site::Entry,
        inv,
        order: Vec::new(),
        starts: Vec::new(),
    };
    t.run()?;
    let config = t.cx.module.isa().frontend_config();
    t.b.seal_all_blocks();
    t.b.finalize(config);
    Ok(t.roots)
}

impl<'c, 'a, 'f> FnTrans<'c, 'a, 'f> {
    fn run(&mut self) -> Result<(), String> {
        let code = self.code;
        let mut order = block_order::reverse_postorder(code);
        order.retain(|&b| self.bypass[b].is_none());
        if order.is_empty() {
            return Err(format!("function `{}` has no blocks", code.name));
        }
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.params = self.b.block_params(entry).to_vec();
        let param_types: Vec<Type> = code
            .params
            .iter()
            .filter(|t| cl_type(t).is_some())
            .cloned()
            .collect();
        for (t, v) in param_types.iter().zip(self.params.clone()) {
            self.track(t, v);
        }
        for &bi in &order {
            self.create_block(bi);
        }
        self.create_phic_slots();
        self.entry_block(entry)?;
        self.inv
            .ended(Site::Entry, self.b.func.layout.last_inst(entry));
        for &bi in &order {
            self.site = Site::Block(bi);
            self.block_body(bi)?;
            let end = self
                .b
                .current_block()
                .and_then(|c| self.b.func.layout.last_inst(c));
            self.inv.ended(self.site, end);
        }
        Ok(())
    }

    /// The Cranelift block of IR block `bi`, with one parameter per `φ`.
    fn create_block(&mut self, bi: BlockId) {
        let code = self.code;
        let blk = self.b.create_block();
        self.blocks[bi] = Some(blk);
        for s in code.cfg.blocks[bi].values() {
            match &code.stmts.inst[s] {
                Inst::Phi { .. } => {
                    if let Some(ty) = cl_type(&code.stmts.ty[s]) {
                        let v = self.b.append_block_param(blk, ty);
                        self.track(&code.stmts.ty[s], v);
                        self.vals[s] = Some(v);
                    }
                }
                Inst::PhiC { .. } | Inst::Nothing => {}
                _ => break,
            }
        }
    }

    /// One stack slot per `φᶜ`, which each of its `ϒ`s stores to.
    fn create_phic_slots(&mut self) {
        let code = self.code;
        for (s, inst) in code.stmts.inst.iter() {
            if let Inst::PhiC { upsilons } = inst {
                let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8,
                    3,
                ));
                self.phic_slot[s] = Some(slot);
                if code.stmts.ty[s].is_ref() {
                    self.ref_phic_slots.push(slot);
                }
                for u in upsilons {
                    self.upsilon_slots[*u].push(slot);
                }
            }
        }
    }

    /// The entry block: reference φᶜ slots zeroed (they are in every stack
    /// map), the stack check (when the function calls Toy functions), then
    /// a jump to block 0.
    fn entry_block(&mut self, entry: cl::Block) -> Result<(), String> {
        let code = self.code;
        self.b.switch_to_block(entry);
        if !self.ref_phic_slots.is_empty() {
            let zero = self.b.ins().iconst(types::I64, 0);
            for slot in self.ref_phic_slots.clone() {
                self.b.ins().stack_store(types::I64, zero, slot, 0);
            }
        }
        let first = self.block(BlockId(0))?;
        if code
            .stmts
            .inst
            .values()
            .any(|i| matches!(i, Inst::Call { .. }))
        {
            // The limit is written before any compiled code runs and never
            // changes while it runs.
            let addr = self.data_addr(self.cx.stack_limit_data)?;
            let flags = MemFlagsData::trusted().with_readonly().with_can_move();
            let limit = self.b.ins().load(types::I64, flags, addr, 0);
            let sp = self.b.ins().get_stack_pointer(types::I64);
            let over = self.b.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
            let cold = self.b.create_block();
            self.b.set_cold_block(cold);
            let args = self.edge_args(None, BlockId(0))?;
            self.b.ins().brif(over, cold, &[], first, &args);
            self.b.switch_to_block(cold);
            self.call_rt(rtfn::internal::STACK_OVERFLOW, &[])?;
            self.b.ins().trap(TrapCode::STACK_OVERFLOW);
        } else {
            let args = self.edge_args(None, BlockId(0))?;
            self.b.ins().jump(first, &args);
        }
        Ok(())
    }

    pub(super) fn block(&self, b: BlockId) -> Result<cl::Block, String> {
        self.blocks
            .get(b)
            .copied()
            .flatten()
            .ok_or_else(|| format!("branch to missing block {b}"))
    }

    /// The block arguments for the edge `from → to` (one per `φ` of `to`;
    /// `from` is `None` for the entry's jump to block 0).
    pub(super) fn edge_args(
        &mut self,
        from: Option<BlockId>,
        to: BlockId,
    ) -> Result<Vec<BlockArg>, String> {
        let code = self.code;
        let mut args = Vec::new();
        let Some(bb) = code.cfg.blocks.get(to) else {
            return Err(format!("branch to missing block {to}"));
        };
        for s in bb.values() {
            match &code.stmts.inst[s] {
                Inst::Phi { edges, values } => {
                    if cl_type(&code.stmts.ty[s]).is_none() {
                        continue;
                    }
                    let Some(i) = self.phi_edge(s, edges, from) else {
                        let from = from.map_or("the entry".to_string(), |f| f.to_string());
                        return Err(format!(
                            "φ {s} in {to} has no operand for the edge from {from}"
                        ));
                    };
                    let v = self.operand(&values[i])?;
                    args.push(BlockArg::Value(v));
                }
                Inst::PhiC { .. } | Inst::Nothing => {}
                _ => break,
            }
        }
        Ok(args)
    }

    /// The index in `edges` (those of `φ` statement `s`) of the edge from
    /// block `from`.
    pub(super) fn phi_edge(
        &mut self,
        s: Value,
        edges: &[BlockId],
        from: Option<BlockId>,
    ) -> Option<usize> {
        if edges.len() <= PHI_EDGE_SCAN {
            return edges.iter().position(|e| Some(*e) == from);
        }
        let index = self.phi_edges.entry(s).or_insert_with(|| {
            let mut m = HashMap::with_capacity(edges.len());
            for (i, e) in edges.iter().enumerate() {
                m.entry(Some(*e)).or_insert(i);
            }
            m
        });
        index.get(&from).copied()
    }

    pub(super) fn block_body(&mut self, bi: BlockId) -> Result<(), String> {
        let code = self.code;
        let blk = self.block(bi)?;
        self.b.switch_to_block(blk);
        let bb = &code.cfg.blocks[bi];
        let cold = self.cold[bi];
        self.in_loop = self.on_cycle[bi];
        let mut order = std::mem::take(&mut self.order);
        if self.cx.opts.optimize {
            super::schedule::block_order(code, bi, &mut order, &mut self.starts);
        } else {
            order.clear();
            order.extend(bb.values());
        }
        let mut stmts = order.iter().copied().peekable();
        while let Some(s) = stmts.next() {
            if let Some(&t) = stmts.peek()
                && let Some(pair) =
                    ops::fdiv_pair_operands(&code.stmts.inst[s], &code.stmts.inst[t], s)
            {
                let [a, b, c, d] = pair;
                let num = self.pair_numerators(&a, &c)?;
                let bv = self.operand(&b)?;
                let dv = if d == b { bv } else { self.operand(&d)? };
                let den = ops::f64x2(&mut self.b, [bv, dv]);
                let (q0, q1) = ops::fdiv_pair(&mut self.b, num, den);
                self.set(s, Some(q0));
                self.set(t, Some(q1));
                stmts.next();
                continue;
            }
            match &code.stmts.inst[s] {
                Inst::Goto(d) => {
                    let target = self.block(*d)?;
                    let args = self.edge_args(Some(bi), *d)?;
                    self.b.ins().jump(target, &args);
                }
                Inst::GotoIfNot { cond, dest } => self.goto_if_not(bi, cond, *dest)?,
                Inst::Return(op) => {
                    let rets = match op {
                        Some(o) if cl_type(&code.ret).is_some() => vec![self.operand(o)?],
                        _ => vec![],
                    };
                    self.b.ins().return_(&rets);
                }
                Inst::Unwind => {
                    let rets: Vec<cl::Value> = match cl_type(&code.ret) {
                        None => vec![],
                        Some(t) if t == types::F64 => vec![self.b.ins().f64const(0.0)],
                        Some(t) => vec![self.b.ins().iconst(t, 0)],
                    };
                    self.b.ins().return_(&rets);
                }
                Inst::Unreachable => {
                    self.b.ins().trap(TrapCode::unwrap_user(1));
                }
                _ => self.stmt(s)?,
            }
        }
        self.order = order;
        if cold && bi != BlockId(0) {
            self.b.set_cold_block(blk);
        }
        let last = bb.last().ok_or_else(|| format!("block {bi} is empty"))?;
        if !code.stmts.inst[last].is_terminator() {
            let next = self.block(bi.next())?;
            let args = self.edge_args(Some(bi), bi.next())?;
            self.b.ins().jump(next, &args);
        }
        Ok(())
    }

    /// The end of IR block `from` (or of a copy of it): `GotoIfNot cond,
    /// dest`, i.e. to `from + 1` when `cond` holds, else to `dest`.
    ///
    /// Cranelift lowers and allocates registers in a reverse postorder of
    /// its CFG whose depth-first search enters a branch's first target
    /// first, so the target entered last ends up right after the branch.
    /// With `brif cond, from+1, dest`, a loop header would enter its body
    /// first; the body ends at the back edge, the exit then takes in the
    /// rest of the function, and every loop's body is placed after all
    /// that follows the loop. With thousands of loops, each header's values
    /// are then live across the whole function, which makes the single-pass
    /// allocator quadratic. So `dest` (later in our layout) is the first
    /// target, with the condition inverted, and Cranelift's order follows
    /// ours. A cold `dest` (an error path) stays the second target: entered
    /// last, it sits right after its branch, where the values it uses are
    /// live anyway.
    pub(super) fn goto_if_not(
        &mut self,
        from: BlockId,
        cond: &Operand,
        dest: BlockId,
    ) -> Result<(), String> {
        let c = self.operand(cond)?;
        let bypass = self.bypass[from.next()];
        let (next, next_args) = match bypass {
            Some(h) => (self.block(h)?, self.edge_args(Some(from.next()), h)?),
            None => (
                self.block(from.next())?,
                self.edge_args(Some(from), from.next())?,
            ),
        };
        let other = self.block(dest)?;
        let other_args = self.edge_args(Some(from), dest)?;
        if bypass.is_some() || self.cold.get(dest).copied().unwrap_or(false) {
            self.b.ins().brif(c, next, &next_args, other, &other_args);
        } else {
            // A condition this branch alone reads is complemented in place.
            let only_use =
                matches!(cond, Operand::Value(v) if self.uses.get(v.0 as usize) == Some(&1));
            let not_c = self.negate(c, only_use);
            self.b
                .ins()
                .brif(not_c, other, &other_args, next, &next_args);
        }
        Ok(())
    }

    /// `!c` for a branch condition: the complementary comparison when `c`
    /// is one, else `c == 0`. With `in_place` (nothing else reads `c`), the
    /// comparison itself is complemented and `c` returned, so no dead
    /// comparison is left in the function.
    fn negate(&mut self, c: cl::Value, in_place: bool) -> cl::Value {
        /// The comparison `c` is the result of.
        enum Compare {
            Int(IntCC),
            Float(cl::condcodes::FloatCC),
        }
        let dfg = &self.b.func.dfg;
        let cl::ValueDef::Result(inst, 0) = dfg.value_def(c) else {
            return self.b.ins().icmp_imm_u(IntCC::Equal, c, 0);
        };
        let (compare, args) = match dfg.insts[inst] {
            cl::InstructionData::IntCompare {
                opcode: cl::Opcode::Icmp,
                cond,
                args,
            } => (Compare::Int(cond), args),
            cl::InstructionData::FloatCompare {
                opcode: cl::Opcode::Fcmp,
                cond,
                args,
            } => (Compare::Float(cond), args),
            _ => return self.b.ins().icmp_imm_u(IntCC::Equal, c, 0),
        };
        let (x, y) = (args[0], args[1]);
        match (compare, in_place) {
            (Compare::Int(cc), true) => self.b.func.replace(inst).icmp(cc.complement(), x, y),
            (Compare::Int(cc), false) => self.b.ins().icmp(cc.complement(), x, y),
            (Compare::Float(cc), true) => self.b.func.replace(inst).fcmp(cc.complement(), x, y),
            (Compare::Float(cc), false) => self.b.ins().fcmp(cc.complement(), x, y),
        }
    }

    /// The Cranelift value of an operand (constants are materialised here).
    pub(super) fn operand(&mut self, op: &Operand) -> Result<cl::Value, String> {
        Ok(match op {
            Operand::Value(v) => {
                self.vals.get(*v).copied().flatten().ok_or_else(|| {
                    format!("use of {v} before its definition (or of a void value)")
                })?
            }
            Operand::Arg(i) => *self
                .params
                .get(*i as usize)
                .ok_or_else(|| format!("argument _{} out of range", i + 1))?,
            Operand::Int(i) => self.b.ins().iconst(types::I64, *i),
            Operand::Float(f) if self.in_loop && f.to_bits() != 0 => {
                self.invariant(Invariant::Float(f.to_bits()), None)?
            }
            Operand::Float(f) => self.b.ins().f64const(*f),
            Operand::Bool(x) => self.b.ins().iconst(types::I8, *x as i64),
            Operand::Nil => self.b.ins().iconst(types::I64, 0),
        })
    }

    /// The numerators `[a, c]` of a paired division as an `f64x2`. One
    /// numerator for both lanes (`x / b` beside `x / d`) is one splat,
    /// placed like an invariant load (`invariant.rs`): before the loops
    /// that do not define it.
    fn pair_numerators(&mut self, a: &Operand, c: &Operand) -> Result<cl::Value, String> {
        if a != c {
            let (x, y) = (self.operand(a)?, self.operand(c)?);
            return Ok(ops::f64x2(&mut self.b, [x, y]));
        }
        match (a, Root::of(a)) {
            (Operand::Float(f), _) if self.in_loop && f.to_bits() != 0 => {
                self.invariant(Invariant::FloatSplat(f.to_bits()), None)
            }
            (_, Some(root)) => {
                let x = self.operand(a)?;
                self.invariant(Invariant::Splat(root), Some(x))
            }
            _ => {
                let x = self.operand(a)?;
                Ok(ops::f64x2(&mut self.b, [x, x]))
            }
        }
    }

    pub(super) fn operands(&mut self, ops: &[Operand]) -> Result<Vec<cl::Value>, String> {
        ops.iter().map(|o| self.operand(o)).collect()
    }

    pub(super) fn data_addr(&mut self, id: DataId) -> Result<cl::Value, String> {
        let gv = self.data_gv(id);
        Ok(self.b.ins().symbol_value(types::I64, gv))
    }

    /// The global value of data object `id` in this function.
    pub(super) fn data_gv(&mut self, id: DataId) -> cl::GlobalValue {
        match self.data_gvs.get(&id) {
            Some(gv) => *gv,
            None => {
                let gv = self.cx.module.declare_data_in_func(id, self.b.func);
                self.data_gvs.insert(id, gv);
                gv
            }
        }
    }

    fn func_ref(&mut self, id: ClFuncId) -> cl::FuncRef {
        match self.func_refs.get(&id) {
            Some(f) => *f,
            None => {
                let f = self.cx.module.declare_func_in_func(id, self.b.func);
                self.func_refs.insert(id, f);
                f
            }
        }
    }

    /// Calls a runtime function; returns its result, if any.
    pub(super) fn call_rt(
        &mut self,
        sig: RtSig,
        args: &[cl::Value],
    ) -> Result<Option<cl::Value>, String> {
        let collects = sig.collects;
        let id = self.cx.runtime_func(sig)?;
        let f = self.func_ref(id);
        let call = if collects {
            self.safepoint_call(f, args)
        } else {
            self.b.ins().call(f, args)
        };
        Ok(self.b.inst_results(call).first().copied())
    }

    pub(super) fn position_arg(&mut self, s: Value) -> cl::Value {
        let id = self.cx.position_id(self.code.stmts.span[s]);
        let tagged = crate::runtime::POSITION_TAG | id;
        self.b.ins().iconst(types::I64, tagged as i64)
    }

    /// Records the value of statement `s`.
    pub(super) fn define(&mut self, s: Value, v: cl::Value) {
        self.set(s, Some(v));
    }

    fn set(&mut self, s: Value, v: Option<cl::Value>) {
        let code = self.code;
        if cl_type(&code.stmts.ty[s]).is_some() {
            if let Some(v) = v {
                self.track(&code.stmts.ty[s], v);
            }
            self.vals[s] = v;
        }
    }

    pub(super) fn stmt(&mut self, s: Value) -> Result<(), String> {
        let code = self.code;
        match &code.stmts.inst[s] {
            Inst::Nothing | Inst::Phi { .. } => {}
            // Any value of the type stands for an undefined one.
            Inst::Undef => {
                let ty = code.stmts.ty[s].clone();
                let zero = match ty {
                    Type::Float => Operand::Float(0.0),
                    Type::Bool => Operand::Bool(false),
                    _ => Operand::Int(0),
                };
                let v = self.operand(&zero)?;
                self.set(s, Some(v));
            }
            Inst::Copy(op) | Inst::Pi { value: op, .. } => {
                if cl_type(&code.stmts.ty[s]).is_some() {
                    let v = self.operand(op)?;
                    self.set(s, Some(v));
                }
            }
            Inst::Unary(op, x) => {
                let x = self.operand(x)?;
                let v = ops::unary(&mut self.b, *op, x);
                self.set(s, Some(v));
            }
            Inst::Binary(crate::ir::BinaryOp::FRem, x, y) => {
                let args = self.operands(&[*x, *y])?;
                let v = self.call_rt(fmod_sig()?, &args)?;
                self.set(s, v);
            }
            Inst::Binary(op, x, y) => {
                let v = if let Some(d) = ops::doubled(*op, x, y) {
                    let dv = self.operand(d)?;
                    self.b.ins().fadd(dv, dv)
                } else {
                    let xv = self.operand(x)?;
                    let rhs = match y {
                        Operand::Int(c) => ops::Rhs::Int(*c),
                        y => ops::Rhs::Value(self.operand(y)?),
                    };
                    ops::binary(&mut self.b, *op, xv, rhs, self.cx.opts.optimize)?
                };
                self.set(s, Some(v));
            }
            Inst::PhiC { .. } => {
                let slot = self.phic_slot[s].ok_or_else(|| format!("φᶜ {s} has no slot"))?;
                if let Some(ty) = cl_type(&code.stmts.ty[s]) {
                    let v = self.b.ins().stack_load(types::I64, ty, slot, 0);
                    self.set(s, Some(v));
                }
            }
            Inst::Upsilon(op) => {
                let slots = self.upsilon_slots[s].clone();
                // A ϒ that no φᶜ lists stores nothing (and reads nothing).
                if !slots.is_empty() {
                    let v = self.operand(op)?;
                    for slot in slots {
                        self.b.ins().stack_store(types::I64, v, slot, 0);
                    }
                }
            }
            Inst::StrConst(text) => {
                let id = self.cx.str_const(text)?;
                let v = self.data_addr(id)?;
                self.set(s, Some(v));
            }
            Inst::Call { func, args } => self.call(s, *func, args)?,
            Inst::Runtime { func, args } => self.runtime(s, *func, args)?,
            Inst::Raise { kind, args } => self.raise(s, *kind, args)?,
            Inst::NoException => {
                let addr = self.data_addr(self.cx.pending_data)?;
                let flag = self
                    .b
                    .ins()
                    .load(types::I8, MemFlagsData::trusted(), addr, 0);
                let ok = self.b.ins().icmp_imm_s(IntCC::Equal, flag, 0);
                self.set(s, Some(ok));
            }
            Inst::TakeException => {
                let v = self.call_rt(rtfn::internal::TAKE_EXCEPTION, &[])?;
                self.set(s, v);
            }
            Inst::Load { .. }
            | Inst::Store { .. }
            | Inst::NewArray { .. }
            | Inst::NewStruct { .. } => {
                self.heap_stmt(s)?;
            }
            Inst::Goto(_)
            | Inst::GotoIfNot { .. }
            | Inst::Return(_)
            | Inst::Unwind
            | Inst::Unreachable => {
                return Err(format!("terminator {s} in the middle of a block"));
            }
        }
        Ok(())
    }

    /// A call of a Toy function (a safepoint).
    fn call(
        &mut self,
        s: Value,
        func: crate::types::FuncId,
        args: &[Operand],
    ) -> Result<(), String> {
        let id = *self
            .cx
            .funcs
            .get(func.0 as usize)
            .ok_or_else(|| format!("call of unknown function {}", func.0))?;
        // Void arguments have no machine value.
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            if self
                .code
                .operand_type(a)
                .is_some_and(|t| cl_type(&t).is_none())
            {
                continue;
            }
            vals.push(self.operand(a)?);
        }
        let f = self.func_ref(id);
        let call = self.safepoint_call(f, &vals);
        let r = self.b.inst_results(call).first().copied();
        self.set(s, r);
        Ok(())
    }

    fn runtime(&mut self, s: Value, func: RuntimeFn, args: &[Operand]) -> Result<(), String> {
        if self.bril_access(s, func, args)? {
            return Ok(());
        }
        match rtfn::lowering(func) {
            Lowering::Call { sig } => {
                let vals = self.runtime_args(s, func, args)?;
                if vals.len() != sig.params.len() {
                    return Err(format!(
                        "runtime call {s} has {} arguments, expected {}",
                        vals.len(),
                        sig.params.len()
                    ));
                }
                let r = self.call_rt(sig, &vals)?;
                let r = match (func.row().ret, r) {
                    (Ty::Elem, Some(bits)) => {
                        Some(self.value_of_slot(bits, &code_ty(self.code, s)))
                    }
                    (_, r) => r,
                };
                self.set(s, r);
            }
            Lowering::Inline => {
                let vals = self.operands(args)?;
                let arg = |i: usize| {
                    vals.get(i)
                        .copied()
                        .ok_or_else(|| format!("runtime call {s} lacks operand {}", i + 1))
                };
                let v = match func {
                    RuntimeFn::Sqrt => self.b.ins().sqrt(arg(0)?),
                    RuntimeFn::Floor => self.b.ins().floor(arg(0)?),
                    RuntimeFn::Ceil => self.b.ins().ceil(arg(0)?),
                    RuntimeFn::Fabs => self.b.ins().fabs(arg(0)?),
                    RuntimeFn::StrLen => self.b.ins().load(
                        types::I64,
                        MemFlagsData::trusted(),
                        arg(0)?,
                        crate::runtime::object::STR_LEN_OFFSET,
                    ),
                    RuntimeFn::StrByte => {
                        // A string's data pointer never changes (runtime::object),
                        // so its load is invariant; the byte load stays behind
                        // the index check.
                        let data = match args.first().and_then(Root::of) {
                            Some(root) => {
                                let offset = crate::runtime::object::STR_DATA_OFFSET;
                                let what = Invariant::Address { root, offset };
                                self.invariant(what, Some(arg(0)?))?
                            }
                            None => return Err(format!("str_byte {s} without a string")),
                        };
                        let p = self.b.ins().iadd(data, arg(1)?);
                        let byte = self.b.ins().load(
                            types::I8,
                            MemFlagsData::trusted().with_readonly(),
                            p,
                            0,
                        );
                        self.b.ins().uextend(types::I64, byte)
                    }
                    other => return Err(format!("no inline lowering for {other:?}")),
                };
                self.set(s, Some(v));
            }
        }
        Ok(())
    }
}

fn code_ty(code: &IrCode, s: Value) -> Type {
    code.stmts.ty[s].clone()
}

/// `%` on floats calls the runtime's fmod.
fn fmod_sig() -> Result<RtSig, String> {
    match rtfn::lowering(RuntimeFn::FMod) {
        Lowering::Call { sig } => Ok(sig),
        Lowering::Inline => Err("fmod has no call lowering".into()),
    }
}
