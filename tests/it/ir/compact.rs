//! Julia-style editing (`insert_node`, copies, `nothing`) and compaction,
//! on functions written as IR text. Values and blocks below are written
//! 1-based, as printed.

use toyc::ir::compact::{CompactStats, IncrementalCompact, compact, compact_only};
use toyc::ir::edit::{NewNodes, delete, replace_uses};
use toyc::ir::handbuild::ir_from_blocks;
use toyc::ir::{BinaryOp, BlockId, Cmp, Inst, IrCode, Operand, Type, Value};

/// The function of `text` (IR text, verified by the parser).
fn ir(text: &str) -> IrCode {
    toyc::ir::parse::parse_function(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}
fn v(n: u32) -> Operand {
    Operand::Value(Value(n - 1))
}
fn val(n: u32) -> Value {
    Value(n - 1)
}
fn b(n: u32) -> BlockId {
    BlockId(n - 1)
}
fn print(x: Operand) -> Inst {
    Inst::Runtime {
        func: toyc::ir::RuntimeFn::PrintInt,
        args: vec![x],
    }
}
/// `ir` as the IR printer writes it, after checking it with the verifier
/// and checking that the text is the whole function: parsed back, it gives
/// the same statements and the same CFG, predecessor and successor lists
/// in their order included.
fn printed(ir: &IrCode) -> String {
    let program = toyc::sema::hir::Program::default();
    let printed = toyc::ir::print::print_function(ir, &program, None);
    let errors = toyc::ir::verify::verify_function(ir, &program);
    assert!(errors.is_empty(), "verifier: {errors:?}\n{printed}");
    let back =
        toyc::ir::parse::parse_function(&printed).unwrap_or_else(|e| panic!("{e:?}\n{printed}"));
    assert_eq!(
        (&back.stmts.inst, &back.stmts.ty),
        (&ir.stmts.inst, &ir.stmts.ty),
        "{printed}"
    );
    assert_eq!(back.cfg, ir.cfg, "{printed}");
    printed
}

#[test]
fn insert_node_before_and_after_then_compact() {
    let mut ir = ir("fn f(_1::int) -> int
1 ─ %1 = iadd(_1, 1)::int
│        runtime print_int(%1)
└──      return %1
");
    let mut new = NewNodes::new(&ir);
    // Numbered after the last statement; usable at once.
    let a = new.insert_node(
        &ir,
        val(2),
        Inst::Binary(BinaryOp::IMul, v(1), Operand::Int(2)),
        Type::Int,
        false,
    );
    assert_eq!(a, Value(3));
    let c = new.insert_node(
        &ir,
        val(1),
        Inst::Binary(BinaryOp::ISub, v(1), Operand::Int(3)),
        Type::Int,
        true,
    );
    assert_eq!(c, Value(4));
    // Inserting after a terminator places the node before it.
    let d = new.insert_node(
        &ir,
        val(3),
        Inst::Binary(BinaryOp::IAdd, Operand::Value(a), Operand::Value(c)),
        Type::Int,
        true,
    );
    // Nothing moved yet.
    assert_eq!(ir.stmts.len(), 3);
    ir.stmts.inst[Value(2)] = Inst::Return(Some(Operand::Value(d)));
    let stats = compact(&mut ir, new);
    assert_eq!(stats.nodes_inserted, 3);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─ %1 = iadd(_1, 1)::int
 │   %2 = isub(%1, 3)::int
 │   %3 = imul(%1, 2)::int
 │        runtime print_int(%1)
 │   %5 = iadd(%3, %2)::int
 └──      return %5
"
    );
}

#[test]
fn insert_relative_to_a_new_node_keeps_its_place() {
    let mut ir = ir("fn f() -> int
1 ─      runtime print_int(0)
└──      return 0
");
    let mut new = NewNodes::new(&ir);
    let a = new.insert_node(&ir, val(2), Inst::Copy(Operand::Int(7)), Type::Int, false);
    let x = new.insert_node(&ir, a, print(Operand::Value(a)), Type::Void, false);
    assert_eq!(x, Value(3));
    compact(&mut ir, new);
    assert_eq!(
        printed(&ir),
        "\
fn f() -> int
 1 ─      runtime print_int(0)
 │        runtime print_int(7)
 └──      return 0
"
    );
}

#[test]
fn copies_forward_and_dead_chains_vanish() {
    let mut ir = ir("fn f(_1::int) -> int
1 ─ %1 = iadd(_1, 1)::int
│   %2 = iadd(%1, 2)::int           ; a dead chain
│   %3 = iadd(%2, 3)::int
│   %4 = iadd(%1, %1)::int          ; replaced by %1
│        runtime print_int(%4)
│        nothing
└──      return %4
");
    replace_uses(&mut ir, val(4), v(1));
    delete(&mut ir, val(6));
    let stats = compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─ %1 = iadd(_1, 1)::int
 │        runtime print_int(%1)
 └──      return %1
"
    );
    assert_eq!(stats.copies_forwarded, 1);
    assert_eq!(stats.dead_removed, 2);
}

/// if _1 < 10 { x = 1 } else { x = 2 }; return x, with the condition
/// replaced by a constant: the dead edge and its φ operand go, the φ folds.
fn diamond() -> IrCode {
    ir("fn f(_1::int) -> int
1 ─ %1 = ilt(_1, 10)::bool
└──      goto #3 if not %1
2 ─      runtime print_int(1)
└──      goto #4
3 ─      runtime print_int(2)
4 ┄ %6 = φ (#2 => 1, #3 => 2)::int
└──      return %6
")
}

#[test]
fn constant_branch_kills_the_false_edge() {
    let mut ir = diamond();
    replace_uses(&mut ir, val(1), Operand::Bool(true));
    let stats = compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      nothing
 2 ─      runtime print_int(1)
 └──      goto #3
 3 ─      return 1
"
    );
    assert_eq!(
        stats,
        CompactStats {
            copies_forwarded: 1,
            phis_folded: 1,
            dead_removed: 0,
            branches_folded: 1,
            blocks_removed: 1,
            nodes_inserted: 0
        }
    );
}

#[test]
fn constant_branch_kills_the_true_edge() {
    let mut ir = diamond();
    replace_uses(&mut ir, val(1), Operand::Bool(false));
    compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      goto #2
 2 ─      runtime print_int(2)
 3 ─      return 2
"
    );
}

#[test]
fn phi_edges_renumbered_after_block_deletion() {
    // #1: br -> #4 or #2 ; #2 dead (after folding) ; #3 unreachable junk ;
    // #4 three-way join stays a φ with renumbered edges.
    let mut ir = ir("fn f(_1::int) -> int
1 ─ %1 = ilt(_1, 0)::bool
└──      goto #4 if not %1
2 ─      goto #5 if not false
3 ─      runtime print_int(3)
└──      goto #5
4 ─      runtime print_int(4)
5 ┄ %7 = φ (#2 => 20, #3 => 30, #4 => _1)::int
└──      return %7
");
    let stats = compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─ %1 = ilt(_1, 0)::bool
 └──      goto #3 if not %1
 2 ─      goto #4
 3 ─      runtime print_int(4)
 4 ┄ %5 = φ (#2 => 20, #3 => _1)::int
 └──      return %5
"
    );
    assert_eq!(stats.blocks_removed, 1);
    assert_eq!(stats.branches_folded, 1);
}

#[test]
fn chain_of_dead_blocks_goes_at_once() {
    let mut ir = ir("fn f() -> int
1 ─      goto #5
2 ┄      runtime print_int(2)   ; #2 to #4 are dead
└──      goto #3
3 ─      runtime print_int(3)
4 ─ %6 = iadd(1, 2)::int
└──      goto #2
5 ─      return 0
");
    let stats = compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f() -> int
 1 ─      goto #2
 2 ─      return 0
"
    );
    assert_eq!(stats.blocks_removed, 3);
}

#[test]
fn killed_self_edge_of_the_current_block_leaves_no_stale_phi_operand() {
    // JuliaLang/julia#60660: the edge removed leads into the block being
    // compacted (a self loop); its φ must lose that operand.
    let mut ir = ir("fn f(_1::int) -> int
1 ─      runtime print_int(0)
2 ┄ %2 = φ (#1 => _1, #2 => %3)::int
│   %3 = iadd(%2, 1)::int
└──      goto #2 if not false
3 ─      return 0
");
    // Rewrite: the loop branch becomes "always exit": cond true falls through.
    ir.stmts.inst[Value(3)] = Inst::GotoIfNot {
        cond: Operand::Bool(true),
        dest: b(2),
    };
    compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      runtime print_int(0)
 2 ─      nothing
 3 ─      return 0
"
    );
}

#[test]
fn self_loop_kept_when_branch_is_not_constant() {
    let mut ir = ir("fn f(_1::int) -> int
1 ─      runtime print_int(0)
2 ┄ %2 = φ (#1 => _1, #2 => %3)::int
│   %3 = iadd(%2, 1)::int
│   %4 = ilt(%3, 9)::bool
└──      goto #2 if not %4
3 ─      return %3
");
    let before = printed(&ir);
    let stats = compact_only(&mut ir);
    assert_eq!(printed(&ir), before);
    assert_eq!(stats, CompactStats::default());
}

/// A new node attached after the last statement of block 2 (`print(6)`),
/// then the branch ending block 1 made constant `cond`: the function
/// printed after compaction.
fn pending_node_then_constant_branch(cond: bool) -> String {
    let mut ir = ir("fn f(_1::int) -> int
1 ─ %1 = ilt(_1, 0)::bool
└──      goto #3 if not %1
2 ─      runtime print_int(5)
3 ┄ %4 = φ (#1 => 1, #2 => 2)::int
└──      return %4
");
    let mut new = NewNodes::new(&ir);
    new.insert_node(&ir, val(3), print(Operand::Int(6)), Type::Void, true);
    ir.stmts.inst[Value(1)] = Inst::GotoIfNot {
        cond: Operand::Bool(cond),
        dest: b(3),
    };
    compact(&mut ir, new);
    printed(&ir)
}

#[test]
fn pending_node_at_the_end_of_the_previous_block_stays_there() {
    // JuliaLang/julia#52858: the edge into block 3 (with φs) is killed.
    assert_eq!(
        pending_node_then_constant_branch(false),
        "\
fn f(_1::int) -> int
 1 ─      goto #2
 2 ─      return 1
"
    );
}

#[test]
fn pending_node_in_previous_block_with_live_phi_block() {
    assert_eq!(
        pending_node_then_constant_branch(true),
        "\
fn f(_1::int) -> int
 1 ─      nothing
 2 ─      runtime print_int(5)
 └──      runtime print_int(6)
 3 ─      return 2
"
    );
}

#[test]
fn nothing_before_phis_does_not_hang_edge_removal() {
    // JuliaLang/julia#62818: a `nothing` at the head of the target block.
    // Not valid IR (a φ after a non-φ), so not IR text: built directly.
    let blocks = vec![
        vec![
            (
                Inst::Binary(BinaryOp::ICmp(Cmp::Lt), Operand::Arg(0), Operand::Int(0)),
                Type::Bool,
            ),
            (
                Inst::GotoIfNot {
                    cond: Operand::Bool(false),
                    dest: b(3),
                },
                Type::Void,
            ),
        ],
        vec![(print(Operand::Int(5)), Type::Void)],
        vec![
            (Inst::Nothing, Type::Void),
            (
                Inst::Phi {
                    edges: vec![b(1), b(2)],
                    values: vec![Operand::Arg(0), Operand::Int(2)],
                },
                Type::Int,
            ),
            (Inst::Return(Some(v(5))), Type::Void),
        ],
    ];
    let mut ir = ir_from_blocks("f", vec![Type::Int], Type::Int, blocks);
    let stats = compact_only(&mut ir);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      goto #2
 2 ─      return _1
"
    );
    assert_eq!(stats.dead_removed, 1); // the unused comparison
}

#[test]
fn loop_phis_fold_through_each_other() {
    // %2 = φ(#1 => _1, #2 => %2) is _1; then %3 = φ(#1 => _1, #2 => %2)
    // (visited first, not foldable then) is revisited as a user and folds.
    let mut ir = ir("fn f(_1::int) -> int
1 ─      runtime print_int(0)
2 ┄ %2 = φ (#1 => _1, #2 => %2)::int
│   %3 = φ (#1 => _1, #2 => %2)::int
│   %4 = ilt(%2, 3)::bool
└──      goto #2 if not %4
3 ─      return %3
");
    let stats = compact_only(&mut ir);
    assert_eq!(stats.phis_folded, 2);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      runtime print_int(0)
 2 ┄ %2 = ilt(_1, 3)::bool
 └──      goto #2 if not %2
 3 ─      return _1
"
    );
}

#[test]
fn float_phi_operands_compare_bitwise() {
    let mut ir = ir("fn f(_1::bool) -> float
1 ─      goto #3 if not _1
2 ─      goto #4
3 ─      goto #4
4 ┄ %4 = φ (#2 => 0.0, #3 => -0.0)::float
└──      return %4
");
    let stats = compact_only(&mut ir);
    assert_eq!(stats.phis_folded, 0);
}

#[test]
fn incremental_compact_rewrites_during_the_sweep() {
    let mut ir = diamond();
    let mut seen = Vec::new();
    let mut ic = IncrementalCompact::new(&mut ir, NewNodes::default());
    while let Some(x) = ic.next_value() {
        seen.push(x.0 + 1);
        // A pass that knows `_1 < 10` is false here.
        if matches!(ic.inst(x), Inst::Binary(BinaryOp::ICmp(_), ..))
            && let Some(i) = ic.inst_mut(x)
        {
            *i = Inst::Copy(Operand::Bool(false));
        }
        // Operands already forwarded through the copy seen before.
        if let Inst::GotoIfNot { cond, .. } = ic.inst(x) {
            assert_eq!(*cond, Operand::Bool(false));
        }
    }
    ic.finish();
    assert_eq!(seen, vec![1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(
        printed(&ir),
        "\
fn f(_1::int) -> int
 1 ─      goto #2
 2 ─      runtime print_int(2)
 3 ─      return 2
"
    );
}

/// A branch whose condition becomes constant only when a φ folds is
/// folded by the same compaction, in a second round of reachability, φ
/// pruning and folding (the property test once found it folded at
/// emission with its targets' φs pruned for both edges): the result is
/// compacted, and compacting it again changes nothing.
#[test]
fn branch_made_constant_by_phi_folding_is_folded_at_once() {
    let mut ir = ir("fn f(_1::int) -> int
1 ─ %1 = ilt(_1, 10)::bool
└──      goto #3 if not %1
2 ─      runtime print_int(1)
└──      goto #4
3 ─      runtime print_int(2)
4 ┄ %6 = φ (#2 => true, #3 => true)::bool
└──      goto #6 if not %6
5 ─      runtime print_int(5)
6 ┄ %9 = φ (#4 => 1, #5 => 2)::int
└──      return %9
");
    compact_only(&mut ir);
    let want = "\
fn f(_1::int) -> int
 1 ─ %1 = ilt(_1, 10)::bool
 └──      goto #3 if not %1
 2 ─      runtime print_int(1)
 └──      goto #4
 3 ─      runtime print_int(2)
 4 ┄      nothing
 5 ─      runtime print_int(5)
 6 ─      return 2
";
    assert_eq!(printed(&ir), want);
    assert!(toyc::ir::compacted::is_compacted(&ir));
    compact_only(&mut ir);
    assert_eq!(printed(&ir), want);
}

/// `is_compacted` rejects each thing one compaction would change, and
/// accepts the result of that compaction.
#[test]
fn is_compacted_names_what_compaction_would_change() {
    use toyc::ir::compacted::is_compacted;
    let cases = [
        // A dead statement (SSA construction leaves unused constants).
        "fn f() -> int
1 ─ %1 = \"unused\"::str
└──      return 1
",
        // A copy.
        "fn f(_1::int) -> int
1 ─ %1 = _1::int
└──      return %1
",
        // A branch on a constant.
        "fn f() -> int
1 ─      goto #3 if not true
2 ─      return 1
3 ─      return 2
",
        // A φ of one value.
        "fn f(_1::bool) -> int
1 ─      goto #3 if not _1
2 ─      goto #3
3 ┄ %3 = φ (#1 => 7, #2 => 7)::int
└──      return %3
",
        // An unreachable block.
        "fn f() -> int
1 ─      return 1
2 ─      return 2
",
    ];
    for text in cases {
        let mut f = ir(text);
        assert!(!is_compacted(&f), "accepted:\n{text}");
        compact_only(&mut f);
        assert!(
            is_compacted(&f),
            "rejected after compaction:\n{}",
            printed(&f)
        );
    }
    let mut f = diamond();
    compact_only(&mut f);
    assert!(is_compacted(&f));
    // Predecessors out of block order (as SSA construction listed them
    // before it sorted them): compaction lists them in order.
    let mut g = f.clone();
    let join = g.cfg.blocks.values_mut().last().expect("blocks");
    join.preds.reverse();
    assert!(!is_compacted(&g));
    compact_only(&mut g);
    assert_eq!(g, f);
}
