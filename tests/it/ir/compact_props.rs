//! Property test of editing and compaction: on the SSA of random small Toy
//! programs, random semantics-preserving edits (dead pure inserts, inserted
//! equivalents that uses are redirected to, replacing a statement by a copy
//! of an inserted duplicate, deletions of unused pure statements, and edge
//! kills: a branch condition known at that point replaced by its constant,
//! and a `goto N if not true` guarding a new dead block `N` that feeds φs),
//! several per compaction and two rounds of compaction per function. After
//! each compaction the verifier must accept every function, the function
//! must be compacted (another compaction changes nothing, `is_compacted`
//! accepts it), and the interpreter must print and exit exactly as on the
//! unedited program.
//!
//! 300 cases by default; `TOYC_COMPACT_CASES=N` runs N (from
//! `TOYC_COMPACT_FIRST`, default 0), `TOYC_COMPACT_TRACE` prints each seed.
//!
//! The random programs come from [`compact_gen`](super::compact_gen); the
//! timing of `compact` at scale is `compact_scale`.

use super::compact_gen::random_source;
use crate::ssa_support::{Rng, ir_of};
use cranelift_entity::EntityRef;
use toyc::ir::compact::{compact, compact_only};
use toyc::ir::compacted::is_compacted;
use toyc::ir::edit::{
    NewNodes, delete, for_each_operand, for_each_operand_mut, is_pure, replace_uses,
};
use toyc::ir::{BinaryOp, BlockId, Inst, IrCode, Module, Operand, Type, Value};

/// Conditions known at the entry of each block: walking up a chain of
/// single predecessors, an edge out of `GotoIfNot c` tells `c`'s value.
fn known_conditions(ir: &IrCode, b: usize) -> Vec<(Value, bool)> {
    let mut facts = Vec::new();
    let mut cur = b;
    for _ in 0..64 {
        let blk = &ir.cfg.blocks[BlockId::new(cur)];
        if blk.preds.len() != 1 || cur == 0 {
            break;
        }
        let p = blk.preds[0].0 as usize;
        if p == cur {
            break;
        }
        let last = ir.cfg.blocks[BlockId::new(p)].stmts.end - 1;
        if let Inst::GotoIfNot {
            cond: Operand::Value(c),
            dest,
        } = &ir.stmts.inst[Value(last)]
        {
            let falls = cur == p + 1;
            let jumps = *dest == BlockId(cur as u32);
            if falls != jumps {
                facts.push((*c, falls));
            }
        }
        cur = p;
    }
    facts
}

fn use_counts(ir: &IrCode, new: &NewNodes) -> Vec<u32> {
    let mut uses = vec![0u32; new.value_count()];
    let mut count = |o: &Operand| {
        if let Operand::Value(v) = o
            && let Some(u) = uses.get_mut(v.0 as usize)
        {
            *u += 1;
        }
    };
    for inst in ir
        .stmts
        .inst
        .values()
        .chain(new.nodes.iter().map(|n| &n.inst))
    {
        for_each_operand(inst, &mut count);
        if let Inst::PhiC { upsilons } = inst {
            for u in upsilons {
                count(&Operand::Value(*u));
            }
        }
    }
    uses
}

fn ty_of(ir: &IrCode, new: &NewNodes, v: Value) -> Type {
    if v.0 < new.base {
        ir.stmts.ty[Value(v.0)].clone()
    } else {
        new.nodes[(v.0 - new.base) as usize].ty.clone()
    }
}

fn is_phi(inst: &Inst) -> bool {
    matches!(inst, Inst::Phi { .. } | Inst::PhiC { .. })
}

/// An instruction equal to `x` of type `ty`.
fn identity(rng: &mut Rng, x: Operand, ty: &Type) -> Inst {
    if *ty == Type::Int {
        match rng.below(5) {
            0 => Inst::Binary(BinaryOp::IAdd, x, Operand::Int(0)),
            1 => Inst::Binary(BinaryOp::ISub, x, Operand::Int(0)),
            2 => Inst::Binary(BinaryOp::IMul, Operand::Int(1), x),
            3 => Inst::Binary(BinaryOp::IXor, x, Operand::Int(0)),
            _ => Inst::Copy(x),
        }
    } else {
        Inst::Copy(x)
    }
}

#[derive(Default, Debug)]
struct Tally {
    dead_inserts: u32,
    redirects: u32,
    phi_redirects: u32,
    dup_copies: u32,
    deletions: u32,
    edge_kills: u32,
    guarded_blocks: u32,
}

/// One random semantics-preserving edit of `ir` (pending in `new`).
fn random_edit(rng: &mut Rng, ir: &mut IrCode, new: &mut NewNodes, t: &mut Tally) {
    let n = ir.stmts.len() as u64;
    let s = rng.below(n) as usize;
    let inst = ir.stmts.inst[Value::new(s)].clone();
    match rng.below(6) {
        0 if !is_phi(&inst) => insert_dead(rng, ir, new, t, s, &inst),
        1 | 2 if !matches!(inst, Inst::PhiC { .. }) => redirect_operand(rng, ir, new, t, s, &inst),
        3 => copy_of_duplicate(ir, new, t, s, inst),
        4 => delete_unused(rng, ir, new, t),
        _ => kill_edge(rng, ir, t),
    }
}

/// A dead pure statement over an operand available at `s`.
fn insert_dead(
    rng: &mut Rng,
    ir: &IrCode,
    new: &mut NewNodes,
    t: &mut Tally,
    s: usize,
    inst: &Inst,
) {
    let mut x = Operand::Int(rng.below(100) as i64);
    for_each_operand(inst, |o| {
        if let Operand::Value(v) = o
            && ty_of(ir, new, *v) == Type::Int
        {
            x = *o;
        }
    });
    let node = Inst::Binary(BinaryOp::IMul, x, Operand::Int(rng.below(9) as i64));
    new.insert_node(ir, Value(s as u32), node, Type::Int, false);
    t.dead_inserts += 1;
}

/// Redirects one value operand of `s` to an inserted equivalent (for a φ
/// operand, placed at the end of its predecessor).
fn redirect_operand(
    rng: &mut Rng,
    ir: &mut IrCode,
    new: &mut NewNodes,
    t: &mut Tally,
    s: usize,
    inst: &Inst,
) {
    let mut ops = Vec::new();
    let mut i = 0;
    for_each_operand(inst, |o| {
        if let Operand::Value(_) = o {
            ops.push(i);
        }
        i += 1;
    });
    if ops.is_empty() {
        return;
    }
    let which = ops[rng.below(ops.len() as u64) as usize];
    let mut i = 0;
    let mut x = Operand::Nil;
    for_each_operand(inst, |o| {
        if i == which {
            x = *o;
        }
        i += 1;
    });
    let pred = if let Inst::Phi { edges, .. } = inst {
        Some(edges[which])
    } else {
        None
    };
    let Operand::Value(xv) = x else { return };
    let ty = ty_of(ir, new, xv);
    let eq = identity(rng, x, &ty);
    let (pos, after) = match pred {
        Some(p) => (Value(ir.cfg.blocks[BlockId(p.0)].stmts.end - 1), true),
        None => (Value(s as u32), false),
    };
    let nv = new.insert_node(ir, pos, eq, ty, after);
    let mut i = 0;
    for_each_operand_mut(&mut ir.stmts.inst[Value::new(s)], |o| {
        if i == which {
            *o = Operand::Value(nv);
        }
        i += 1;
    });
    if pred.is_some() {
        t.phi_redirects += 1
    } else {
        t.redirects += 1
    }
}

/// Replaces a pure binary statement `s` by a copy of an inserted duplicate.
fn copy_of_duplicate(ir: &mut IrCode, new: &mut NewNodes, t: &mut Tally, s: usize, inst: Inst) {
    if let Inst::Binary(..) = inst {
        let ty = ir.stmts.ty[Value::new(s)].clone();
        let dup = new.insert_node(ir, Value(s as u32), inst, ty, false);
        replace_uses(ir, Value(s as u32), Operand::Value(dup));
        t.dup_copies += 1;
    }
}

/// Deletes an unused pure statement (the first from a random start).
fn delete_unused(rng: &mut Rng, ir: &mut IrCode, new: &NewNodes, t: &mut Tally) {
    let n = ir.stmts.len();
    let uses = use_counts(ir, new);
    let start = rng.below(n as u64) as usize;
    for k in 0..n {
        let v = (start + k) % n;
        let i = &ir.stmts.inst[Value::new(v)];
        if uses[v] == 0 && is_pure(i) && !matches!(i, Inst::Nothing) {
            delete(ir, Value(v as u32));
            t.deletions += 1;
            return;
        }
    }
}

/// Kills an edge: a branch whose condition is known there gets it as a
/// constant (the first such branch from a random block on).
fn kill_edge(rng: &mut Rng, ir: &mut IrCode, t: &mut Tally) {
    let start = rng.below(ir.cfg.blocks.len() as u64) as usize;
    for k in 0..ir.cfg.blocks.len() {
        let b = (start + k) % ir.cfg.blocks.len();
        let last = (ir.cfg.blocks[BlockId::new(b)].stmts.end - 1) as usize;
        let Inst::GotoIfNot {
            cond: Operand::Value(c),
            dest,
        } = ir.stmts.inst[Value::new(last)].clone()
        else {
            continue;
        };
        if let Some(&(_, val)) = known_conditions(ir, b).iter().find(|f| f.0 == c) {
            ir.stmts.inst[Value::new(last)] = Inst::GotoIfNot {
                cond: Operand::Bool(val),
                dest,
            };
            t.edge_kills += 1;
            return;
        }
    }
}

/// Appends a block `N` (`print(999); goto D`) that only a new
/// `GotoIfNot true, N` at the end of a fall-through block `P` reaches, and
/// gives `D`'s φs an operand for `N`: compaction must kill the edge, drop
/// `N` and `D`'s φ operands for it. Appending keeps every value's number;
/// returns where the guard goes (after P's last statement) and `N`: the
/// caller inserts it as the buffer's last node, so that it ends `P`.
fn add_guarded_dead_block(rng: &mut Rng, ir: &mut IrCode, t: &mut Tally) -> Option<(u32, BlockId)> {
    let nb = ir.cfg.blocks.len();
    let start = rng.below(nb as u64) as usize;
    let p = (0..nb).map(|k| (start + k) % nb).find(|&b| {
        let last = ir.cfg.blocks[BlockId::new(b)].stmts.end as usize - 1;
        !ir.stmts.inst[Value::new(last)].is_terminator() && b + 1 < nb
    });
    let d = (0..nb).map(|k| (start + 7 * k) % nb).find(|&b| {
        let r = ir.cfg.blocks[BlockId::new(b)].stmts.clone();
        b != 0
            && !r.clone().any(|s| {
                matches!(
                    ir.stmts.inst[Value(s)],
                    Inst::PhiC { .. } | Inst::TakeException
                )
            })
            && r.clone()
                .any(|s| matches!(ir.stmts.inst[Value(s)], Inst::Phi { .. }))
            && r.clone().all(|s| {
                !matches!(ir.stmts.inst[Value(s)], Inst::Phi { .. })
                    || matches!(ir.stmts.ty[Value(s)], Type::Int | Type::Bool)
            })
    });
    let (Some(p), Some(d)) = (p, d) else {
        return None;
    };
    let n_label = BlockId(nb as u32);
    let first = ir.stmts.len() as u32;
    let span = ir.span;
    let flags = toyc::ir::Flags::default();
    let print = Inst::Runtime {
        func: toyc::ir::RuntimeFn::PrintInt,
        args: vec![Operand::Int(999)],
    };
    ir.stmts.push(print, Type::Void, span, flags);
    ir.stmts
        .push(Inst::Goto(BlockId(d as u32)), Type::Void, span, flags);
    ir.cfg.blocks.push(toyc::ir::BasicBlock {
        stmts: first..first + 2,
        preds: [BlockId(p as u32)].into_iter().collect(),
        succs: [BlockId(d as u32)].into_iter().collect(),
    });
    ir.cfg.blocks[BlockId::new(p)].succs.push(n_label);
    ir.cfg.blocks[BlockId::new(d)].preds.push(n_label);
    for s in ir.cfg.blocks[BlockId::new(d)].stmts.clone() {
        let ty = ir.stmts.ty[Value(s)].clone();
        if let Inst::Phi { edges, values } = &mut ir.stmts.inst[Value(s)] {
            edges.push(n_label);
            values.push(if ty == Type::Int {
                Operand::Int(777)
            } else {
                Operand::Bool(true)
            });
        }
    }
    t.guarded_blocks += 1;
    Some((ir.cfg.blocks[BlockId::new(p)].stmts.end - 1, n_label))
}

// ------------------------------------------------------------------- tests

fn sources() -> toyc::span::SourceMap {
    let mut s = toyc::span::SourceMap::new();
    s.add("test.toy".into(), None, "x".into());
    s
}

fn interp(m: &Module) -> (i32, Vec<u8>) {
    let (c, o, _) = toyc::interp::run(m, &sources(), &[], false, true).expect("interpreter runs");
    (c, o)
}

fn check(m: &Module, seed: u64, round: u32, reference: &(i32, Vec<u8>), src: &str) {
    for f in &m.funcs {
        let errs = toyc::ir::verify::verify_function(f, &m.program);
        assert!(
            errs.is_empty(),
            "seed {seed} round {round}: verifier on {}: {errs:?}\n{}\nsource:\n{src}",
            f.name,
            toyc::ir::print::print_function(f, &m.program, None)
        );
    }
    assert_eq!(
        &interp(m),
        reference,
        "seed {seed} round {round}: output differs\nsource:\n{src}"
    );
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_edits_then_compaction_preserve_semantics() {
    let first = env_u64("TOYC_COMPACT_FIRST", 0);
    let cases = env_u64("TOYC_COMPACT_CASES", 300);
    let mut t = Tally::default();
    for seed in first..first + cases {
        if std::env::var_os("TOYC_COMPACT_TRACE").is_some() {
            eprintln!("compact seed {seed}");
        }
        let src = random_source(seed);
        let mut m = ir_of(&src);
        let reference = interp(&m);
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
        for round in 0..2 {
            let program = m.program.clone();
            for f in m.funcs.iter_mut() {
                if f.stmts.is_empty() {
                    continue;
                }
                let guard = if rng.chance(40) {
                    add_guarded_dead_block(&mut rng, f, &mut t)
                } else {
                    None
                };
                let mut new = NewNodes::new(f);
                let edits = 1 + rng.below(12);
                for _ in 0..edits {
                    random_edit(&mut rng, f, &mut new, &mut t);
                }
                // Last, so that it ends its block after the other nodes.
                if let Some((pos, n_label)) = guard {
                    let guard = Inst::GotoIfNot {
                        cond: Operand::Bool(true),
                        dest: n_label,
                    };
                    new.insert_node(f, Value(pos), guard, Type::Void, true);
                }
                if std::env::var_os("TOYC_COMPACT_DUMP").is_some() {
                    eprintln!(
                        "{}\nnew nodes (base {}): {:?}",
                        toyc::ir::print::print_function(f, &program, None),
                        new.base,
                        new.nodes
                    );
                }
                compact(f, new);
                // One compaction leaves the function compacted: another
                // changes nothing, and `is_compacted` says so.
                let mut again = f.clone();
                compact_only(&mut again);
                assert!(
                    again == *f,
                    "seed {seed} round {round}: a second compaction changed fn {}",
                    f.name
                );
                assert!(
                    is_compacted(f),
                    "seed {seed} round {round}: is_compacted rejects fn {} as compacted",
                    f.name
                );
            }
            check(&m, seed, round, &reference, &src);
        }
    }
    eprintln!("{t:?}");
    if cases >= 100 {
        for (name, n) in [
            ("dead_inserts", t.dead_inserts),
            ("redirects", t.redirects),
            ("phi_redirects", t.phi_redirects),
            ("dup_copies", t.dup_copies),
            ("deletions", t.deletions),
            ("edge_kills", t.edge_kills),
            ("guarded_blocks", t.guarded_blocks),
        ] {
            assert!(n > 0, "edit kind {name} never applied: {t:?}");
        }
    }
}
