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
use crate::ir::{BlockId, Inst, IrCode, Module, Operand, Value};
use crate::sema::hir::Program;
use cranelift_entity::{EntityRef, SecondaryMap};

#[path = "verify_types.rs"]
mod types;

/// Checks every function; returns every violation found, each naming the
/// function, the statement or block, and the invariant.
pub fn verify_module(module: &Module) -> Result<(), Vec<String>> {
    verify_module_by(module, |funcs| {
        funcs
            .iter()
            .map(|f| verify_function(f, &module.program))
            .collect()
    })
}

/// [`verify_module`], with the functions checked by `each`, which gives
/// [`verify_function`]'s errors of every function in module order (the
/// stages run it on their threads).
pub fn verify_module_by(
    module: &Module,
    each: impl FnOnce(&[IrCode]) -> Vec<Vec<String>>,
) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if module.funcs.len() != module.program.functions.len() {
        errors.push(format!(
            "module: {} functions in the IR but {} in the program",
            module.funcs.len(),
            module.program.functions.len()
        ));
    }
    errors.extend(each(&module.funcs).into_iter().flatten());
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
    if let Some((v, id)) = s.name.iter().find_map(|(v, id)| {
        id.filter(|id| id.index() >= s.names.len())
            .map(|id| (v, id))
    }) {
        errs.push(format!(
            "fn {name}: {v} has name {} of a table of {}",
            id.index(),
            s.names.len()
        ));
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
    for (b, blk) in blocks.iter() {
        if blk.stmts.start != expect {
            errs.push(format!(
                "fn {name}: {b}: block range starts at {} but the previous block ended at {}",
                Value(blk.stmts.start),
                Value(expect)
            ));
        }
        if blk.stmts.start >= blk.stmts.end {
            errs.push(format!("fn {name}: {b}: block is empty"));
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
    for (b, blk) in blocks.iter() {
        let bn = b.0 + 1;
        let last = Value(blk.stmts.end - 1);
        for i in blk.values().filter(|&i| i != last) {
            if s.inst[i].is_terminator() {
                errs.push(format!(
                    "fn {name}: {i}: terminator in the middle of block #{bn}"
                ));
            }
        }
        let next = if b.next().index() < blocks.len() {
            Some(b.0 + 1)
        } else {
            None
        };
        let succ = match &s.inst[last] {
            Inst::Goto(t) => vec![t.0],
            Inst::GotoIfNot { dest, .. } => {
                match next {
                    None => errs.push(format!(
                        "fn {name}: {last}: the last block ends in a conditional branch (no fallthrough block)"
                    )),
                    Some(nx) if nx == dest.0 => errs.push(format!(
                        "fn {name}: {last}: conditional branch whose two targets are both {dest}"
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
                    "fn {name}: {last}: branch to {} which does not exist",
                    BlockId(t)
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
    let mut inv: SecondaryMap<BlockId, Vec<u32>> = SecondaryMap::with_capacity(blocks.len());
    for (b, blk) in blocks.iter() {
        for &t in &blk.succs {
            if t.index() < blocks.len() {
                inv[t].push(b.0);
            }
        }
    }
    for (b, blk) in blocks.iter() {
        let mut have: Vec<u32> = blk.preds.iter().map(|x| x.0).collect();
        have.sort_unstable();
        inv[b].sort_unstable();
        if have != inv[b] {
            errs.push(format!(
                "fn {name}: {b}: preds {} are not the inverse of succs (expected {})",
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
    let blocks = &f.cfg.blocks;
    for (b, blk) in blocks.iter() {
        let mut head = true;
        for i in blk.values() {
            match &s.inst[i] {
                Inst::Phi { edges, values } => {
                    if !head {
                        errs.push(format!("fn {name}: {i}: φ after a non-φ statement in {b}"));
                    }
                    if values.is_empty() {
                        errs.push(format!("fn {name}: {i}: operandless φ"));
                    }
                    if edges.len() != values.len() {
                        errs.push(format!(
                            "fn {name}: {i}: φ has {} edges but {} values",
                            edges.len(),
                            values.len()
                        ));
                    }
                    let mut e: Vec<u32> = edges.iter().map(|x| x.0).collect();
                    e.sort_unstable();
                    let before = e.len();
                    e.dedup();
                    if e.len() != before {
                        errs.push(format!("fn {name}: {i}: φ lists an edge twice"));
                    }
                    let mut p: Vec<u32> = blk.preds.iter().map(|x| x.0).collect();
                    p.sort_unstable();
                    p.dedup();
                    if e != p {
                        errs.push(format!(
                            "fn {name}: {i}: φ edges {} differ from the preds {} of {b}",
                            list(&e),
                            list(&p)
                        ));
                    }
                }
                Inst::PhiC { upsilons } => {
                    if !head {
                        errs.push(format!("fn {name}: {i}: φᶜ after a non-φ statement in {b}"));
                    }
                    for u in upsilons {
                        let ok = matches!(s.inst.get(*u), Some(Inst::Upsilon(_)));
                        if !ok {
                            errs.push(format!(
                                "fn {name}: {i}: φᶜ operand {u} is not a ϒ statement"
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
    let mut block_of: SecondaryMap<Value, BlockId> = SecondaryMap::with_default(BlockId(0));
    block_of.resize(n);
    for (b, blk) in f.cfg.blocks.iter() {
        for i in blk.values() {
            block_of[i] = b;
        }
    }
    let dom = DomTree::new(&f.cfg);
    for (i, inst) in s.inst.iter() {
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
                        "fn {name}: {i}: uses _{} but the function has {} parameters",
                        a + 1,
                        f.params.len()
                    ));
                }
                Operand::Value(v) => {
                    let d = v;
                    if d.index() >= n {
                        errs.push(format!("fn {name}: {i}: uses {v}{what}, out of range"));
                        continue;
                    }
                    if !defines_value(&s.inst[d], &s.ty[d]) {
                        errs.push(format!(
                            "fn {name}: {i}: uses {v}{what}, which defines no value"
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
                            "fn {name}: {i}: use of {v}{what} is not dominated by its definition{at}"
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
