//! The verifier: a well-formed function passes; each test breaks one
//! invariant on purpose and expects the verifier to name it.
use toyc::ir::handbuild::ir_from_blocks;
use toyc::ir::verify::verify_function;
use toyc::ir::{BinaryOp, BlockId, Fact, Inst, IrCode, NameId, Operand, Type, Value};
use toyc::sema::hir::Program;

fn v(n: u32) -> Operand {
    Operand::Value(Value(n))
}

/// ```text
/// #1: %1 = iadd(_1, 1); goto #3 if not _2
/// #2: %3 = imul(%1, 2); goto #4
/// #3: %5 = isub(%1, 1)            (falls through)
/// #4: %6 = φ (#2 => %3, #3 => %5); return %6
/// ```
fn base() -> IrCode {
    ir_from_blocks("f", vec![Type::Int, Type::Bool], Type::Int, base_blocks())
}

/// The blocks of [`base`].
fn base_blocks() -> Vec<Vec<(Inst, Type)>> {
    vec![
        vec![
            (
                Inst::Binary(BinaryOp::IAdd, Operand::Arg(0), Operand::Int(1)),
                Type::Int,
            ),
            (
                Inst::GotoIfNot {
                    cond: Operand::Arg(1),
                    dest: BlockId(2),
                },
                Type::Void,
            ),
        ],
        vec![
            (
                Inst::Binary(BinaryOp::IMul, v(0), Operand::Int(2)),
                Type::Int,
            ),
            (Inst::Goto(BlockId(3)), Type::Void),
        ],
        vec![(
            Inst::Binary(BinaryOp::ISub, v(0), Operand::Int(1)),
            Type::Int,
        )],
        vec![
            (
                Inst::Phi {
                    edges: vec![BlockId(1), BlockId(2)],
                    values: vec![v(2), v(4)],
                },
                Type::Int,
            ),
            (Inst::Return(Some(v(5))), Type::Void),
        ],
    ]
}

fn errors(f: &IrCode) -> Vec<String> {
    verify_function(f, &Program::default())
}

/// The verifier rejects `f` with a message containing `needle`.
fn rejects(f: &IrCode, needle: &str) {
    let errs = errors(f);
    assert!(
        errs.iter()
            .any(|e| e.contains(needle) && e.starts_with("fn f: ")),
        "expected `{needle}` in {errs:#?}"
    );
}

#[test]
fn the_base_function_is_well_formed() {
    assert_eq!(errors(&base()), Vec::<String>::new());
}

#[test]
fn parallel_vectors_must_have_equal_length() {
    let mut f = base();
    let n = f.stmts.ty.len();
    f.stmts.ty = f.stmts.ty.values().take(n - 1).cloned().collect();
    rejects(&f, "statement vectors differ in length");
}

#[test]
fn statement_names_must_be_in_the_names_table() {
    let mut f = base();
    let id = f.stmts.add_name("x".into());
    f.stmts.name[Value(2)] = Some(id);
    assert_eq!(errors(&f), Vec::<String>::new());
    // The table has one name (index 0); index 1 is past its end.
    f.stmts.name[Value(2)] = Some(NameId::new(1));
    rejects(&f, "%3 has name 1 of a table of 1");
}

#[test]
fn block_ranges_must_be_non_empty() {
    let mut f = base();
    f.cfg.blocks[BlockId(2)].stmts = 4..4;
    rejects(&f, "#3: block is empty");
}

#[test]
fn block_ranges_must_be_contiguous() {
    let mut f = base();
    f.cfg.blocks[BlockId(1)].stmts = 3..4;
    rejects(&f, "#2: block range starts at %4");
}

#[test]
fn block_ranges_must_cover_every_statement() {
    let mut f = base();
    f.cfg.blocks[BlockId(3)].stmts = 5..6;
    f.stmts.push(
        Inst::Nothing,
        Type::Void,
        Default::default(),
        Default::default(),
    );
    rejects(&f, "there are 8 statements");
}

#[test]
fn succs_must_match_the_terminator() {
    let mut f = base();
    f.cfg.blocks[BlockId(1)].succs = [BlockId(2)].into_iter().collect();
    rejects(
        &f,
        "#2: succs [#3] disagree with its terminator, which goes to [#4]",
    );
}

#[test]
fn fallthrough_is_a_successor() {
    let mut f = base();
    f.cfg.blocks[BlockId(2)].succs.clear();
    rejects(
        &f,
        "#3: succs [] disagree with its terminator, which goes to [#4]",
    );
}

#[test]
fn preds_must_be_the_inverse_of_succs() {
    let mut f = base();
    f.cfg.blocks[BlockId(3)].preds = [BlockId(1)].into_iter().collect();
    rejects(&f, "#4: preds [#2] are not the inverse of succs");
}

#[test]
fn terminators_only_at_block_ends() {
    let mut f = base();
    f.stmts.inst[Value(2)] = Inst::Return(Some(Operand::Int(0)));
    rejects(&f, "%3: terminator in the middle of block #2");
}

#[test]
fn terminator_values_are_never_used() {
    let mut f = base();
    f.stmts.inst[Value(6)] = Inst::Return(Some(v(3)));
    rejects(&f, "%7: uses %4, which defines no value");
}

#[test]
fn conditional_branch_needs_two_distinct_targets() {
    let mut f = base();
    f.stmts.inst[Value(1)] = Inst::GotoIfNot {
        cond: Operand::Arg(1),
        dest: BlockId(1),
    };
    toyc::ir::edges::rebuild_edges(&mut f);
    rejects(&f, "%2: conditional branch whose two targets are both #2");
}

#[test]
fn the_last_block_cannot_fall_through() {
    let mut f = base();
    f.stmts.inst[Value(6)] = Inst::Nothing;
    rejects(&f, "#4: the last block falls through past the end");
}

#[test]
fn the_last_block_cannot_end_in_a_conditional_branch() {
    let mut f = base();
    f.stmts.inst[Value(6)] = Inst::GotoIfNot {
        cond: Operand::Arg(1),
        dest: BlockId(0),
    };
    rejects(&f, "%7: the last block ends in a conditional branch");
}

#[test]
fn phis_only_at_block_heads() {
    let mut f = base();
    // #3 becomes: isub; φ — a φ after a non-φ statement.
    f.cfg.blocks[BlockId(2)].stmts = 4..6;
    f.cfg.blocks[BlockId(3)].stmts = 6..7;
    rejects(&f, "φ after a non-φ statement in #3");
}

#[test]
fn phi_edges_must_equal_the_preds() {
    let mut f = base();
    f.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![BlockId(1), BlockId(0)],
        values: vec![v(2), v(0)],
    };
    rejects(
        &f,
        "%6: φ edges [#1, #2] differ from the preds [#2, #3] of #4",
    );
}

#[test]
fn phi_needs_one_value_per_edge() {
    let mut f = base();
    f.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![BlockId(1), BlockId(2)],
        values: vec![v(2)],
    };
    rejects(&f, "%6: φ has 2 edges but 1 values");
}

#[test]
fn phi_lists_each_edge_once() {
    let mut f = base();
    f.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![BlockId(1), BlockId(1), BlockId(2)],
        values: vec![v(2), v(2), v(4)],
    };
    rejects(&f, "%6: φ lists an edge twice");
}

#[test]
fn no_operandless_phi() {
    let mut f = base();
    f.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![],
        values: vec![],
    };
    rejects(&f, "%6: operandless φ");
}

#[test]
fn operands_must_be_in_range() {
    let mut f = base();
    f.stmts.inst[Value(2)] = Inst::Binary(BinaryOp::IMul, v(40), Operand::Int(2));
    rejects(&f, "%3: uses %41, out of range");
    let mut g = base();
    g.stmts.inst[Value(2)] = Inst::Binary(BinaryOp::IMul, Operand::Arg(5), Operand::Int(2));
    rejects(&g, "%3: uses _6 but the function has 2 parameters");
}

#[test]
fn definitions_dominate_uses() {
    let mut f = base();
    // %3 is defined in #2, which does not dominate #4.
    f.stmts.inst[Value(6)] = Inst::Return(Some(v(2)));
    rejects(&f, "%7: use of %3 is not dominated by its definition");
    // Within a block, the definition must come first.
    let mut g = base();
    g.stmts.inst[Value(0)] = Inst::Binary(BinaryOp::IAdd, v(0), Operand::Int(1));
    rejects(&g, "%1: use of %1 is not dominated by its definition");
}

#[test]
fn phi_operands_dominate_the_end_of_their_edge() {
    let mut f = base();
    // The value flowing in from #2 is defined in #3.
    f.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![BlockId(1), BlockId(2)],
        values: vec![v(4), v(4)],
    };
    rejects(
        &f,
        "%6: use of %5 is not dominated by its definition (at the end of the edge from #2)",
    );
}

/// [`base`] with `%7 = π (%6, lo <= %6 < hi)` before the return, which
/// returns `%7`.
fn with_pi(lo: Operand, hi: Operand) -> IrCode {
    let mut blocks = base_blocks();
    let last = blocks.last_mut().expect("block #4");
    let pi = Inst::Pi {
        value: v(5),
        fact: Fact::Range {
            lo: Some(lo),
            hi: Some(hi),
        },
    };
    last.insert(1, (pi, Type::Int));
    last[2] = (Inst::Return(Some(v(6))), Type::Void);
    ir_from_blocks("f", vec![Type::Int, Type::Bool], Type::Int, blocks)
}

#[test]
fn pi_fact_bounds_are_uses_that_definitions_dominate() {
    // %1 (in #1) dominates the π in #4; _1 is an argument.
    assert_eq!(
        errors(&with_pi(v(0), Operand::Arg(0))),
        Vec::<String>::new()
    );
    // %3 is defined in #2, which does not dominate #4: the bound would not
    // be available where the π stands.
    rejects(
        &with_pi(v(0), v(2)),
        "%7: use of %3 (a π fact bound) is not dominated by its definition",
    );
    rejects(
        &with_pi(v(8), Operand::Arg(0)),
        "%7: uses %9 (a π fact bound), out of range",
    );
    let mut f = with_pi(v(0), Operand::Arg(0));
    // A bound that is the π itself (a use before its definition).
    f.stmts.inst[Value(6)] = Inst::Pi {
        value: v(5),
        fact: Fact::Range {
            lo: Some(v(6)),
            hi: None,
        },
    };
    rejects(
        &f,
        "%7: use of %7 (a π fact bound) is not dominated by its definition",
    );
    // The bound is a value, not a terminator.
    rejects(
        &with_pi(v(3), Operand::Arg(0)),
        "%7: uses %4 (a π fact bound), which defines no value",
    );
}

#[test]
fn pi_facts_follow_their_type_rule() {
    rejects(
        &with_pi(v(0), Operand::Arg(1)),
        "%7: a π fact bound has type bool but must be int",
    );
    let mut f = with_pi(v(0), Operand::Arg(0));
    f.stmts.inst[Value(6)] = Inst::Pi {
        value: v(5),
        fact: Fact::NonNil,
    };
    rejects(
        &f,
        "%7: a π non-nil fact on a value of type int, which cannot be nil",
    );
    let mut g = with_pi(v(0), Operand::Arg(0));
    g.stmts.inst[Value(6)] = Inst::Pi {
        value: Operand::Arg(1),
        fact: Fact::Range { lo: None, hi: None },
    };
    g.stmts.ty[Value(6)] = Type::Bool;
    g.stmts.inst[Value(7)] = Inst::Return(Some(Operand::Int(0)));
    rejects(
        &g,
        "%7: a π range fact on a value of type bool (ranges are on int)",
    );
}

#[test]
fn phic_operands_are_upsilons() {
    // #1: %1 = ϒ (_1); goto #2 if not _2 ... #2: return; #3: %4 = φᶜ (%1, %2); return %4
    let mut f = ir_from_blocks(
        "f",
        vec![Type::Int, Type::Bool],
        Type::Int,
        vec![
            vec![
                (Inst::Upsilon(Operand::Arg(0)), Type::Void),
                (
                    Inst::GotoIfNot {
                        cond: Operand::Arg(1),
                        dest: BlockId(2),
                    },
                    Type::Void,
                ),
            ],
            vec![(Inst::Return(Some(Operand::Int(0))), Type::Void)],
            vec![
                (
                    Inst::PhiC {
                        upsilons: vec![Value(0)],
                    },
                    Type::Int,
                ),
                (Inst::Return(Some(v(3))), Type::Void),
            ],
        ],
    );
    assert_eq!(errors(&f), Vec::<String>::new());
    f.stmts.inst[Value(3)] = Inst::PhiC {
        upsilons: vec![Value(0), Value(1)],
    };
    rejects(&f, "%4: φᶜ operand %2 is not a ϒ statement");
}

#[test]
fn operand_types_follow_each_instruction_rule() {
    let mut f = base();
    f.stmts.inst[Value(2)] = Inst::Binary(BinaryOp::IMul, v(0), Operand::Float(2.0));
    rejects(&f, "%3: the right operand has type float but must be int");
    let mut g = base();
    g.stmts.ty[Value(2)] = Type::Bool;
    rejects(&g, "%3: statement type bool but the instruction gives int");
    let mut h = base();
    h.stmts.inst[Value(5)] = Inst::Phi {
        edges: vec![BlockId(1), BlockId(2)],
        values: vec![v(2), Operand::Bool(true)],
    };
    rejects(&h, "%6: a φ operand has type bool but must be int");
}

#[test]
fn branch_conditions_are_bool() {
    let mut f = base();
    f.stmts.inst[Value(1)] = Inst::GotoIfNot {
        cond: Operand::Arg(0),
        dest: BlockId(2),
    };
    rejects(&f, "%2: the branch condition has type int but must be bool");
}

#[test]
fn return_type_matches_the_function() {
    let mut f = base();
    f.stmts.inst[Value(6)] = Inst::Return(Some(Operand::Float(1.0)));
    rejects(&f, "%7: the returned value has type float but must be int");
    let mut g = base();
    g.stmts.inst[Value(6)] = Inst::Return(None);
    rejects(&g, "%7: return without a value in a function returning int");
}

/// `fn f(_1) -> ty: return x`.
fn returns(ty: Type, x: Operand) -> IrCode {
    ir_from_blocks(
        "f",
        vec![ty.clone()],
        ty,
        vec![vec![(Inst::Return(Some(x)), Type::Void)]],
    )
}

#[test]
fn nil_is_a_value_of_struct_types_only() {
    use toyc::sema::hir::StructId;
    let point = Type::Struct(StructId(0));
    assert_eq!(
        errors(&returns(point.clone(), Operand::Nil)),
        Vec::<String>::new()
    );
    // LANGUAGE.md: "`nil` is a value of every struct type and of no other
    // type": arrays and strings are references, but never nil.
    rejects(
        &returns(Type::Array(Box::new(Type::Int)), Operand::Nil),
        "%1: the returned value is nil but must be [int]",
    );
    rejects(
        &returns(Type::Str, Operand::Nil),
        "%1: the returned value is nil but must be str",
    );
    rejects(
        &returns(Type::Int, Operand::Nil),
        "%1: the returned value is nil but must be int",
    );
    let empty_of_arrays = |fill: Operand| {
        let arr = Type::Array(Box::new(Type::Array(Box::new(Type::Int))));
        let new = Inst::NewArray {
            elem: Type::Array(Box::new(Type::Int)),
            len: Operand::Int(0),
            fill,
        };
        ir_from_blocks(
            "f",
            vec![],
            arr.clone(),
            vec![vec![(new, arr), (Inst::Return(Some(v(0))), Type::Void)]],
        )
    };
    rejects(
        &empty_of_arrays(Operand::Nil),
        "%1: the fill value is nil but must be [int]",
    );
    let mut f = with_pi(v(0), Operand::Arg(0));
    f.stmts.inst[Value(6)] = Inst::Pi {
        value: Operand::Arg(0),
        fact: Fact::NonNil,
    };
    f.params[0] = Type::Str;
    f.stmts.ty[Value(6)] = Type::Str;
    f.stmts.inst[Value(7)] = Inst::Return(Some(Operand::Int(0)));
    rejects(
        &f,
        "%7: a π non-nil fact on a value of type str, which cannot be nil",
    );
}
