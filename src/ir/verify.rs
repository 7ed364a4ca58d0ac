//! The IR verifier: every invariant documented in `ir/mod.rs`.
//!
//! Structure (vectors, block ranges, terminators, CFG edges), φ placement
//! and edges, operand ranges, dominance of every use by its definition (a φ
//! operand at the end of its edge's block; a π fact bound is a use like any
//! other operand, see [`for_each_operand`]), φᶜ operands, and the type rule
//! of every instruction (in `verify_types.rs`). Each error names the
//! function, the statement `%n` or block `#n`, and the broken invariant.
use crate::ir::dom::DomTree;
use crate::ir::edit::for_each_operand;
use crate::ir::{BlockId, Inst, IrCode, Module, Operand};
use crate::sema::hir::Program;
use cranelift_entity::EntityRef;

#[path = "verify_types.rs"]
mod types;

/// Checks every function; returns every violation found, each naming the
/// function, the statement or block, and the invariant.
pub fn verify_module(module: &Module) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if module.funcs.len() != module.program.functions.len() {
        errors.push(format!(
            "module: {} functions in the IR but {} in the program",
            module.funcs.len(),
            module.program.functions.len()
        ));
    }
    for f in &module.funcs {
        errors.extend(verify_function(f, &module.program));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether the statement defines a usable value.
pub fn defines_value(inst: &Inst, ty: &crate::ir::Type) -> bool {
    *ty != crate::ir::Type::Void
        && !inst.is_terminator()
        && !matches!(
            inst,
            Inst::Nothing | Inst::Upsilon(_) | Inst::Store { .. } | Inst::Raise { .. }
        )
}

/// All violations in one function (empty when it is well formed). The
/// checks run in order, each assuming what the earlier ones established:
/// the statement vectors, the block ranges, terminators and edges, then
/// φ placement, operands and dominance, and types.
pub fn verify_function(f: &IrCode, program: &Program) -> Vec<String> {
    let mut errs = verify_structure(f);
    if errs.is_empty() {
        errs.extend(types::check(f, program));
    }
    errs
}

/// Every check of [`verify_function`] but the types (which need the
/// program's tables): for a function checked between the steps of a pass.
pub fn verify_structure(f: &IrCode) -> Vec<String> {
    let mut errs = Vec::new();
    if !check_lengths(f, &mut errs) || !check_block_ranges(f, &mut errs) {
        return errs;
    }
    check_terminators(f, &mut errs);
    check_preds(f, &mut errs);
    if !errs.is_empty() {
        return errs;
    }
    check_phis(f, &mut errs);
    check_operands(f, &mut errs);
    errs
}

/// The parallel statement vectors have one length.
fn check_lengths(f: &IrCode, errs: &mut Vec<String>) -> bool {
    let name = &f.name;
    let s = &f.stmts;
    let n = s.inst.len();
    if s.ty.len() != n || s.span.len() != n || s.flags.len() != n || s.name.len() != n {
        errs.push(format!(
            "fn {name}: the statement vectors differ in length (inst {}, ty {}, span {}, flags {}, name {})",
            n,
            s.ty.len(),
            s.span.len(),
            s.flags.len(),
            s.name.len()
        ));
        return false;
    }
    if !f.param_names.is_empty() && f.param_names.len() != f.params.len() {
        errs.push(format!(
            "fn {name}: {} parameter names for {} parameters",
            f.param_names.len(),
            f.params.len()
        ));
    }
    true
}

/// Blocks exist; their ranges are non-empty, contiguous, in order and
/// cover every statement.
fn check_block_ranges(f: &IrCode, errs: &mut Vec<String>) -> bool {
    let name = &f.name;
    let n = f.stmts.inst.len();
    let blocks = &f.cfg.blocks;
    if blocks.is_empty() {
        errs.push(format!("fn {name}: no blocks"));
        return false;
    }
    // Block ranges: non-empty, contiguous, in order, covering.
    let mut expect = 0u32;
    for (b, blk) in blocks.iter().enumerate() {
        if blk.stmts.start != expect {
            errs.push(format!(
                "fn {name}: #{}: block range starts at %{} but the previous block ended at %{}",
                b + 1,
                blk.stmts.start + 1,
                expect + 1
            ));
        }
        if blk.stmts.start >= blk.stmts.end {
            errs.push(format!("fn {name}: #{}: block is empty", b + 1));
        }
        expect = blk.stmts.end.max(expect);
    }
    if expect as usize != n {
        errs.push(format!(
            "fn {name}: blocks cover %1..%{} but there are {} statements",
            expect, n
        ));
    }
    errs.is_empty()
}

/// Terminators only at block ends; `succs` is what each terminator says.
fn check_terminators(f: &IrCode, errs: &mut Vec<String>) {
    let name = &f.name;
    let s = &f.stmts;
    let blocks = &f.cfg.blocks;
    let nb = blocks.len() as u32;
    // Terminators and successors.
    for (b, blk) in blocks.iter().enumerate() {
        let bn = b + 1;
        let last = blk.stmts.end as usize - 1;
        for i in blk.stmts.start as usize..last {
            if s.inst[i].is_terminator() {
                errs.push(format!(
                    "fn {name}: %{}: terminator in the middle of block #{bn}",
                    i + 1
                ));
            }
        }
        let next = if b + 1 < blocks.len() {
            Some(b as u32 + 1)
        } else {
            None
        };
        let succ = match &s.inst[last] {
            Inst::Goto(t) => vec![t.0],
            Inst::GotoIfNot { dest, .. } => {
                match next {
                    None => errs.push(format!(
                        "fn {name}: %{}: the last block ends in a conditional branch (no fallthrough block)",
                        last + 1
                    )),
                    Some(nx) if nx == dest.0 => errs.push(format!(
                        "fn {name}: %{}: conditional branch whose two targets are both #{}",
                        last + 1,
                        dest.0 + 1
                    )),
                    _ => {}
                }
                next.into_iter().chain([dest.0]).collect()
            }
            Inst::Return(_) | Inst::Unwind | Inst::Unreachable => Vec::new(),
            _ => match next {
                Some(nx) => vec![nx],
                None => {
                    errs.push(format!(
                        "fn {name}: #{bn}: the last block falls through past the end"
                    ));
                    Vec::new()
                }
            },
        };
        for &t in &succ {
            if t >= nb {
                errs.push(format!(
                    "fn {name}: %{}: branch to #{} which does not exist",
                    last + 1,
                    t + 1
                ));
            }
        }
        let mut have: Vec<u32> = blk.succs.iter().map(|x| x.0).collect();
        let mut want = succ;
        have.sort_unstable();
        want.sort_unstable();
        if have != want {
            errs.push(format!(
                "fn {name}: #{bn}: succs {} disagree with its terminator, which goes to {}",
                list(&have),
                list(&want)
            ));
        }
    }
}

/// `preds` is the inverse of `succs`.
fn check_preds(f: &IrCode, errs: &mut Vec<String>) {
    let name = &f.name;
    let blocks = &f.cfg.blocks;
    let mut inv: Vec<Vec<u32>> = vec![Vec::new(); blocks.len()];
    for (b, blk) in blocks.iter().enumerate() {
        for t in &blk.succs {
            if let Some(v) = inv.get_mut(t.index()) {
                v.push(b as u32);
            }
        }
    }
    for (b, blk) in blocks.iter().enumerate() {
        let mut have: Vec<u32> = blk.preds.iter().map(|x| x.0).collect();
        have.sort_unstable();
        inv[b].sort_unstable();
        if have != inv[b] {
            errs.push(format!(
                "fn {name}: #{}: preds {} are not the inverse of succs (expected {})",
                b + 1,
                list(&have),
                list(&inv[b])
            ));
        }
    }
}

/// φs and φᶜs stand at block heads; a φ's edges are its block's preds.
fn check_phis(f: &IrCode, errs: &mut Vec<String>) {
    let name = &f.name;
    let s = &f.stmts;
    let n = s.inst.len();
    let blocks = &f.cfg.blocks;
    for (b, blk) in blocks.iter().enumerate() {
        let mut head = true;
        for i in blk.stmts.clone() {
            let i = i as usize;
            match &s.inst[i] {
                Inst::Phi { edges, values } => {
                    if !head {
                        errs.push(format!(
                            "fn {name}: %{}: φ after a non-φ statement in #{}",
                            i + 1,
                            b + 1
                        ));
                    }
                    if values.is_empty() {
                        errs.push(format!("fn {name}: %{}: operandless φ", i + 1));
                    }
                    if edges.len() != values.len() {
                        errs.push(format!(
                            "fn {name}: %{}: φ has {} edges but {} values",
                            i + 1,
                            edges.len(),
                            values.len()
                        ));
                    }
                    let mut e: Vec<u32> = edges.iter().map(|x| x.0).collect();
                    e.sort_unstable();
                    let before = e.len();
                    e.dedup();
                    if e.len() != before {
                        errs.push(format!("fn {name}: %{}: φ lists an edge twice", i + 1));
                    }
                    let mut p: Vec<u32> = blk.preds.iter().map(|x| x.0).collect();
                    p.sort_unstable();
                    p.dedup();
                    if e != p {
                        errs.push(format!(
                            "fn {name}: %{}: φ edges {} differ from the preds {} of #{}",
                            i + 1,
                            list(&e),
                            list(&p),
                            b + 1
                        ));
                    }
                }
                Inst::PhiC { upsilons } => {
                    if !head {
                        errs.push(format!(
                            "fn {name}: %{}: φᶜ after a non-φ statement in #{}",
                            i + 1,
                            b + 1
                        ));
                    }
                    for u in upsilons {
                        let ok = (u.index()) < n && matches!(s.inst[u.index()], Inst::Upsilon(_));
                        if !ok {
                            errs.push(format!(
                                "fn {name}: %{}: φᶜ operand {u} is not a ϒ statement",
                                i + 1
                            ));
                        }
                    }
                }
                _ => head = false,
            }
        }
    }
}

/// Operands are in range, name statements that define a value, and are
/// dominated by their definitions (a φ operand at the end of its edge).
fn check_operands(f: &IrCode, errs: &mut Vec<String>) {
    let name = &f.name;
    let s = &f.stmts;
    let n = s.inst.len();
    let mut block_of = vec![BlockId(0); n];
    for (b, blk) in f.cfg.blocks.iter().enumerate() {
        for i in blk.stmts.clone() {
            block_of[i as usize] = BlockId(b as u32);
        }
    }
    let dom = DomTree::new(&f.cfg);
    for i in 0..n {
        let inst = &s.inst[i];
        let b = block_of[i];
        let uses: Vec<(Operand, Option<BlockId>)> = match inst {
            Inst::Phi { edges, values } => values
                .iter()
                .zip(edges.iter())
                .map(|(v, e)| (*v, Some(*e)))
                .collect(),
            _ => {
                let mut u = Vec::new();
                for_each_operand(inst, |o| u.push((*o, None)));
                u
            }
        };
        for (k, (op, edge)) in uses.into_iter().enumerate() {
            // A π's operands after its value are its fact's bounds.
            let what = if k > 0 && matches!(inst, Inst::Pi { .. }) {
                " (a π fact bound)"
            } else {
                ""
            };
            match op {
                Operand::Arg(a) if a as usize >= f.params.len() => {
                    errs.push(format!(
                        "fn {name}: %{}: uses _{} but the function has {} parameters",
                        i + 1,
                        a + 1,
                        f.params.len()
                    ));
                }
                Operand::Value(v) => {
                    let d = v.index();
                    if d >= n {
                        errs.push(format!(
                            "fn {name}: %{}: uses {v}{what}, out of range",
                            i + 1
                        ));
                        continue;
                    }
                    if !defines_value(&s.inst[d], &s.ty[d]) {
                        errs.push(format!(
                            "fn {name}: %{}: uses {v}{what}, which defines no value",
                            i + 1
                        ));
                        continue;
                    }
                    let db = block_of[d];
                    let ok = match edge {
                        Some(e) => db == e || dom.dominates(db, e),
                        None if db == b => d < i,
                        None => dom.dominates(db, b),
                    };
                    if !ok {
                        let at = match edge {
                            Some(e) => format!(" (at the end of the edge from {e})"),
                            None => String::new(),
                        };
                        errs.push(format!(
                            "fn {name}: %{}: use of {v}{what} is not dominated by its definition{at}",
                            i + 1
                        ));
                    }
                }
                _ => {}
            }
        }
    }
}

fn list(v: &[u32]) -> String {
    let parts: Vec<String> = v.iter().map(|b| format!("#{}", b + 1)).collect();
    format!("[{}]", parts.join(", "))
}
