//! The ignored test `compact_scale`: `compact` time on generated functions
//! of 10⁵ and 10⁶ statements (run it with bench/compact_scale.sh).

use toyc::ir::compact::compact;
use toyc::ir::edit::{NewNodes, delete, replace_uses};
use toyc::ir::{BinaryOp, BlockId, Inst, IrCode, Operand, Type, Value};

/// A function of about `n` statements: a chain of diamonds, each with a φ,
/// arithmetic on the φ and one unused statement.
fn diamond_chain(n: usize) -> IrCode {
    use toyc::ir::Cmp;
    let chunks = n / 10;
    let mut blocks: Vec<Vec<(Inst, Type)>> = Vec::with_capacity(3 * chunks + 1);
    let mut next = 0u32; // the next statement number
    let mut acc = Operand::Arg(0);
    for i in 0..chunks {
        let a = blocks.len() as u32;
        let c = Value(next);
        blocks.push(vec![
            (
                Inst::Binary(BinaryOp::ICmp(Cmp::Lt), acc, Operand::Int(i as i64)),
                Type::Bool,
            ),
            (
                Inst::GotoIfNot {
                    cond: Operand::Value(c),
                    dest: BlockId(a + 2),
                },
                Type::Void,
            ),
        ]);
        let t = Value(next + 2);
        blocks.push(vec![
            (
                Inst::Binary(BinaryOp::IAdd, acc, Operand::Int(1)),
                Type::Int,
            ),
            (
                Inst::Binary(BinaryOp::IMul, Operand::Value(t), Operand::Int(3)),
                Type::Int,
            ),
        ]);
        let u = Operand::Value(Value(next + 3));
        let p = Operand::Value(Value(next + 4));
        let (a1, a2, a3) = (
            Operand::Value(Value(next + 5)),
            Operand::Value(Value(next + 6)),
            Operand::Value(Value(next + 7)),
        );
        blocks.push(vec![
            (
                Inst::Phi {
                    edges: vec![BlockId(a), BlockId(a + 1)],
                    values: vec![acc, u],
                },
                Type::Int,
            ),
            (Inst::Binary(BinaryOp::IAdd, p, Operand::Int(1)), Type::Int),
            (Inst::Binary(BinaryOp::IXor, a1, Operand::Int(5)), Type::Int),
            (Inst::Binary(BinaryOp::ISub, a2, p), Type::Int),
            (Inst::Binary(BinaryOp::IAdd, a3, a1), Type::Int),
            (Inst::Binary(BinaryOp::IAdd, p, Operand::Int(7)), Type::Int),
        ]);
        acc = Operand::Value(Value(next + 8));
        next += 10;
    }
    blocks.push(vec![(Inst::Return(Some(acc)), Type::Void)]);
    toyc::ir::handbuild::ir_from_blocks("chain", vec![Type::Int], Type::Int, blocks)
}

/// Pending edits spread through `diamond_chain`'s function: a dead insert
/// in every chunk, a statement replaced by a copy of an inserted duplicate
/// in every 3rd, a use redirected to an inserted equivalent in every 5th,
/// the unused statement deleted in every 2nd, a branch made constant in
/// every 11th: never taken, its fall-through block and φ operand go.
fn spread_edits(ir: &mut IrCode) -> NewNodes {
    let mut new = NewNodes::new(ir);
    let chunks = (ir.stmts.len() - 1) / 10;
    for i in 0..chunks {
        let base = (i * 10) as u32;
        let p = Operand::Value(Value(base + 4));
        new.insert_node(
            ir,
            Value(base + 5),
            Inst::Binary(BinaryOp::IMul, p, Operand::Int(9)),
            Type::Int,
            false,
        );
        if i % 3 == 0 {
            let inst = ir.stmts.inst[Value(base + 6)].clone();
            let dup = new.insert_node(ir, Value(base + 6), inst, Type::Int, false);
            replace_uses(ir, Value(base + 6), Operand::Value(dup));
        }
        if i % 5 == 0 {
            let a3 = Operand::Value(Value(base + 7));
            let eq = new.insert_node(
                ir,
                Value(base + 8),
                Inst::Binary(BinaryOp::IAdd, a3, Operand::Int(0)),
                Type::Int,
                false,
            );
            if let Inst::Binary(_, x, _) = &mut ir.stmts.inst[Value(base + 8)] {
                *x = Operand::Value(eq);
            }
        }
        if i % 2 == 0 {
            delete(ir, Value(base + 9));
        }
        if i % 11 == 0 {
            replace_uses(ir, Value(base), Operand::Bool(false));
        }
    }
    new
}

/// `compact` time on 10⁵ and 10⁶ statements (run in release:
/// bench/compact_scale.sh). Prints the best of 3 runs for each size.
#[test]
#[ignore]
fn compact_scale() {
    let program = toyc::sema::hir::Program::default();
    let mut per_stmt = Vec::new();
    for n in [100_000usize, 1_000_000] {
        let base = diamond_chain(n);
        assert!(toyc::ir::verify::verify_function(&base, &program).is_empty());
        let mut best = f64::MAX;
        let mut pending = 0;
        let mut after = 0;
        for _ in 0..3 {
            let mut ir = base.clone();
            let new = spread_edits(&mut ir);
            pending = new.nodes.len();
            let t = std::time::Instant::now();
            let stats = compact(&mut ir, new);
            let secs = t.elapsed().as_secs_f64();
            best = best.min(secs);
            after = ir.stmts.len();
            let errs = toyc::ir::verify::verify_function(&ir, &program);
            assert!(errs.is_empty(), "{:?}", &errs[..errs.len().min(5)]);
            assert!(
                stats.blocks_removed > 0 && stats.phis_folded > 0 && stats.copies_forwarded > 0
            );
        }
        let stmts = base.stmts.len();
        println!(
            "compact_scale: {stmts} statements, {pending} pending nodes -> {after} statements: best {:.1} ms ({:.0} ns/statement)",
            best * 1e3,
            best * 1e9 / (stmts + pending) as f64
        );
        per_stmt.push(best / (stmts + pending) as f64);
    }
    println!(
        "compact_scale: time per statement, 10^6 / 10^5 = {:.2}",
        per_stmt[1] / per_stmt[0]
    );
}
