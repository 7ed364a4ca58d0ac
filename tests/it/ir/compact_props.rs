//! Property test of editing and compaction: on the SSA of random small Toy
//! programs, random semantics-preserving edits (dead pure inserts, inserted
//! equivalents that uses are redirected to, replacing a statement by a copy
//! of an inserted duplicate, deletions of unused pure statements, and edge
//! kills: a branch condition known at that point replaced by its constant,
//! and a `goto N if not true` guarding a new dead block `N` that feeds φs),
//! several per compaction and two rounds of compaction per function. After
//! each compaction the verifier must accept every function and the
//! interpreter must print and exit exactly as on the unedited program.
//!
//! 300 cases by default; `TOYC_COMPACT_CASES=N` runs N (from
//! `TOYC_COMPACT_FIRST`, default 0), `TOYC_COMPACT_TRACE` prints each seed.
//!
//! The ignored test `compact_scale` times `compact` on generated functions
//! of 10⁵ and 10⁶ statements (run it with bench/compact_scale.sh).
use crate::ssa_support;
use ssa_support::{Rng, ir_of};
use toyc::ir::compact::compact;
use toyc::ir::edit::{
    NewNodes, delete, for_each_operand, for_each_operand_mut, is_pure, replace_uses,
};
use toyc::ir::{BinaryOp, BlockId, Inst, IrCode, Module, Operand, Type, Value};

// ---------------------------------------------------------------- programs

/// Random Toy source: integer variables, a bool flag that guards nested
/// `if`s on the same condition (so the inner branch's condition is known),
/// bounded loops with `break`/`continue`, calls, prints and an exit code.
struct SrcGen {
    rng: Rng,
    budget: u32,
    loop_depth: u32,
    out: String,
}

impl SrcGen {
    fn atom(&mut self, vars: &[&str]) -> String {
        if self.rng.chance(55) {
            vars[self.rng.below(vars.len() as u64) as usize].to_string()
        } else {
            (self.rng.below(11) as i64 - 3).to_string()
        }
    }
    fn int_expr(&mut self, vars: &[&str], depth: u32) -> String {
        if depth == 0 || self.rng.chance(30) {
            return self.atom(vars);
        }
        let a = self.int_expr(vars, depth - 1);
        let b = self.int_expr(vars, depth - 1);
        match self.rng.below(9) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} / ({b} | 1))"),
            4 => format!("({a} & {b})"),
            5 => format!("({a} ^ {b})"),
            6 => format!("g({a}, {b})"),
            7 => format!("(-{a})"),
            _ => format!("({a} % 7)"),
        }
    }
    fn cond(&mut self, vars: &[&str]) -> String {
        match self.rng.below(6) {
            0 | 1 => "b".to_string(),
            2 => format!("!b && {} < {}", self.atom(vars), self.atom(vars)),
            _ => {
                let ops = ["<", "<=", "==", "!=", ">", ">="];
                let op = ops[self.rng.below(6) as usize];
                format!("{} {op} {}", self.int_expr(vars, 1), self.int_expr(vars, 1))
            }
        }
    }
    fn line(&mut self, indent: usize, s: &str) {
        self.out.push_str(&"    ".repeat(indent));
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn block(&mut self, vars: &[&str], indent: usize, depth: u32) {
        let n = 1 + self.rng.below(4);
        for _ in 0..n {
            self.stmt(vars, indent, depth);
        }
    }
    fn stmt(&mut self, vars: &[&str], indent: usize, depth: u32) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let k = self.rng.below(if depth == 0 { 4 } else { 9 });
        match k {
            0 | 1 => {
                let v = ["x0", "x1", "x2"][self.rng.below(3) as usize];
                let e = self.int_expr(vars, 2);
                self.line(indent, &format!("{v} = {e};"));
            }
            2 => {
                let e = self.int_expr(vars, 1);
                self.line(indent, &format!("print({e});"));
            }
            3 => {
                let c = self.cond(vars);
                self.line(indent, &format!("b = {c};"));
            }
            4 | 5 => {
                let c = self.cond(vars);
                self.line(indent, &format!("if {c} {{"));
                // Test the same flag again inside: its value is known there.
                if self.rng.chance(50) {
                    self.line(indent + 1, "if b {");
                    self.block(vars, indent + 2, depth - 1);
                    self.line(indent + 1, "} else {");
                    self.block(vars, indent + 2, depth - 1);
                    self.line(indent + 1, "}");
                }
                self.block(vars, indent + 1, depth - 1);
                if self.rng.chance(50) {
                    self.line(indent, "} else {");
                    self.block(vars, indent + 1, depth - 1);
                }
                self.line(indent, "}");
            }
            6 | 7 => {
                let i = format!("i{}", self.loop_depth);
                let hi = self.rng.below(5);
                self.line(indent, &format!("for {i} in 0..{hi} {{"));
                self.loop_depth += 1;
                let mut inner: Vec<&str> = vars.to_vec();
                inner.push(&i);
                if self.rng.chance(40) {
                    let c = self.cond(&inner);
                    let exit = if self.rng.chance(50) {
                        "break;"
                    } else {
                        "continue;"
                    };
                    self.line(indent + 1, &format!("if {c} {{ {exit} }}"));
                }
                self.block(&inner, indent + 1, depth - 1);
                self.loop_depth -= 1;
                self.line(indent, "}");
            }
            _ => {
                let c = self.cond(vars);
                let e = self.int_expr(vars, 1);
                self.line(indent, &format!("if {c} {{ return {e} & 63; }}"));
            }
        }
    }
}

fn random_source(seed: u64) -> String {
    let mut g = SrcGen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        budget: 30,
        loop_depth: 0,
        out: String::new(),
    };
    g.out.push_str("fn g(p: int, q: int) -> int {\n    if p < q { return p * 3 - q; }\n    return q + (p / 2);\n}\n\n");
    g.out.push_str("fn main() -> int {\n");
    let start = if seed % 2 == 1 { "len(args())" } else { "0" };
    g.out.push_str(&format!("    var x0 = {start} + 1;\n    var x1 = {start} + 2;\n    var x2 = 3;\n    var b = x0 < 2;\n"));
    let vars = ["x0", "x1", "x2"];
    g.block(&vars, 1, 3);
    g.block(&vars, 1, 2);
    g.out
        .push_str("    print(x0, x1, x2, b);\n    return x0 & 63;\n}\n");
    g.out
}

// ------------------------------------------------------------------- edits

/// Conditions known at the entry of each block: walking up a chain of
/// single predecessors, an edge out of `GotoIfNot c` tells `c`'s value.
fn known_conditions(ir: &IrCode, b: usize) -> Vec<(Value, bool)> {
    let mut facts = Vec::new();
    let mut cur = b;
    for _ in 0..64 {
        let blk = &ir.cfg.blocks[cur];
        if blk.preds.len() != 1 || cur == 0 {
            break;
        }
        let p = blk.preds[0].0 as usize;
        if p == cur {
            break;
        }
        let last = ir.cfg.blocks[p].stmts.end - 1;
        if let Inst::GotoIfNot {
            cond: Operand::Value(c),
            dest,
        } = &ir.stmts.inst[last as usize]
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
        .iter()
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
        ir.stmts.ty[v.0 as usize].clone()
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
    let inst = ir.stmts.inst[s].clone();
    match rng.below(6) {
        // A dead pure statement over an operand available at `s`.
        0 if !is_phi(&inst) => {
            let mut x = Operand::Int(rng.below(100) as i64);
            for_each_operand(&inst, |o| {
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
        // Redirect one operand of `s` to an inserted equivalent.
        1 | 2 if !matches!(inst, Inst::PhiC { .. }) => {
            let mut ops = Vec::new();
            let mut i = 0;
            for_each_operand(&inst, |o| {
                if let Operand::Value(_) = o {
                    ops.push(i);
                }
                i += 1;
            });
            if ops.is_empty() {
                return;
            }
            let which = ops[rng.below(ops.len() as u64) as usize];
            let (x, pred) = {
                let mut i = 0;
                let mut x = Operand::Nil;
                for_each_operand(&inst, |o| {
                    if i == which {
                        x = *o;
                    }
                    i += 1;
                });
                let pred = if let Inst::Phi { edges, .. } = &inst {
                    Some(edges[which])
                } else {
                    None
                };
                (x, pred)
            };
            let Operand::Value(xv) = x else { return };
            let ty = ty_of(ir, new, xv);
            let eq = identity(rng, x, &ty);
            // A φ operand's equivalent goes at the end of its predecessor.
            let (pos, after) = match pred {
                Some(p) => (Value(ir.cfg.blocks[p.0 as usize].stmts.end - 1), true),
                None => (Value(s as u32), false),
            };
            let nv = new.insert_node(ir, pos, eq, ty, after);
            let mut i = 0;
            for_each_operand_mut(&mut ir.stmts.inst[s], |o| {
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
        // Replace a pure binary statement by a copy of an inserted duplicate.
        3 => {
            if let Inst::Binary(..) = inst {
                let ty = ir.stmts.ty[s].clone();
                let dup = new.insert_node(ir, Value(s as u32), inst, ty, false);
                replace_uses(ir, Value(s as u32), Operand::Value(dup));
                t.dup_copies += 1;
            }
        }
        // Delete an unused pure statement.
        4 => {
            let uses = use_counts(ir, new);
            let start = rng.below(n) as usize;
            for k in 0..n as usize {
                let v = (start + k) % n as usize;
                let i = &ir.stmts.inst[v];
                if uses[v] == 0 && is_pure(i) && !matches!(i, Inst::Nothing) {
                    delete(ir, Value(v as u32));
                    t.deletions += 1;
                    return;
                }
            }
        }
        // Kill an edge: a branch whose condition is known there.
        _ => {
            let start = rng.below(ir.cfg.blocks.len() as u64) as usize;
            for k in 0..ir.cfg.blocks.len() {
                let b = (start + k) % ir.cfg.blocks.len();
                let last = (ir.cfg.blocks[b].stmts.end - 1) as usize;
                let Inst::GotoIfNot {
                    cond: Operand::Value(c),
                    dest,
                } = ir.stmts.inst[last].clone()
                else {
                    continue;
                };
                if let Some(&(_, val)) = known_conditions(ir, b).iter().find(|f| f.0 == c) {
                    ir.stmts.inst[last] = Inst::GotoIfNot {
                        cond: Operand::Bool(val),
                        dest,
                    };
                    t.edge_kills += 1;
                    return;
                }
            }
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
        let last = ir.cfg.blocks[b].stmts.end as usize - 1;
        !ir.stmts.inst[last].is_terminator() && b + 1 < nb
    });
    let d = (0..nb).map(|k| (start + 7 * k) % nb).find(|&b| {
        let r = ir.cfg.blocks[b].stmts.clone();
        b != 0
            && !r.clone().any(|s| {
                matches!(
                    ir.stmts.inst[s as usize],
                    Inst::PhiC { .. } | Inst::TakeException
                )
            })
            && r.clone()
                .any(|s| matches!(ir.stmts.inst[s as usize], Inst::Phi { .. }))
            && r.clone().all(|s| {
                !matches!(ir.stmts.inst[s as usize], Inst::Phi { .. })
                    || matches!(ir.stmts.ty[s as usize], Type::Int | Type::Bool)
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
        preds: vec![BlockId(p as u32)],
        succs: vec![BlockId(d as u32)],
    });
    ir.cfg.blocks[p].succs.push(n_label);
    ir.cfg.blocks[d].preds.push(n_label);
    for s in ir.cfg.blocks[d].stmts.clone() {
        let ty = ir.stmts.ty[s as usize].clone();
        if let Inst::Phi { edges, values } = &mut ir.stmts.inst[s as usize] {
            edges.push(n_label);
            values.push(if ty == Type::Int {
                Operand::Int(777)
            } else {
                Operand::Bool(true)
            });
        }
    }
    t.guarded_blocks += 1;
    Some((ir.cfg.blocks[p].stmts.end - 1, n_label))
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

/// Found by the property test: a branch whose condition becomes constant
/// only when a φ folds keeps both edges in that compaction (the φs of its
/// targets were pruned with both edges live), and the next compaction
/// folds it.
#[test]
fn branch_made_constant_by_phi_folding_keeps_its_edges() {
    use toyc::ir::handbuild::ir_from_blocks;
    use toyc::ir::{Cmp, RuntimeFn};
    let v = |n: u32| Operand::Value(Value(n - 1));
    let print = |x: i64| {
        (
            Inst::Runtime {
                func: RuntimeFn::PrintInt,
                args: vec![Operand::Int(x)],
            },
            Type::Void,
        )
    };
    let mut ir = ir_from_blocks(
        "f",
        vec![Type::Int],
        Type::Int,
        vec![
            vec![
                (
                    Inst::Binary(BinaryOp::ICmp(Cmp::Lt), Operand::Arg(0), Operand::Int(10)),
                    Type::Bool,
                ),
                (
                    Inst::GotoIfNot {
                        cond: v(1),
                        dest: BlockId(2),
                    },
                    Type::Void,
                ),
            ],
            vec![print(1), (Inst::Goto(BlockId(3)), Type::Void)],
            vec![print(2)],
            vec![
                (
                    Inst::Phi {
                        edges: vec![BlockId(1), BlockId(2)],
                        values: vec![Operand::Bool(true), Operand::Bool(true)],
                    },
                    Type::Bool,
                ),
                (
                    Inst::GotoIfNot {
                        cond: v(6),
                        dest: BlockId(5),
                    },
                    Type::Void,
                ),
            ],
            vec![print(5)],
            vec![
                (
                    Inst::Phi {
                        edges: vec![BlockId(3), BlockId(4)],
                        values: vec![Operand::Int(1), Operand::Int(2)],
                    },
                    Type::Int,
                ),
                (Inst::Return(Some(v(9))), Type::Void),
            ],
        ],
    );
    let program = toyc::sema::hir::Program::default();
    let verify = |ir: &IrCode| {
        let errs = toyc::ir::verify::verify_function(ir, &program);
        assert!(
            errs.is_empty(),
            "{errs:?}\n{}",
            toyc::ir::handbuild::dump(ir)
        );
    };
    verify(&ir);
    toyc::ir::compact::compact_only(&mut ir);
    verify(&ir);
    toyc::ir::compact::compact_only(&mut ir);
    verify(&ir);
    let expected = [
        "#1 () -> (#2,#3)",
        "  %1 = ICmp(Lt)(_1, 10)",
        "  %2 = goto #3 if not %1",
        "#2 (#1) -> (#4)",
        "  %3 = PrintInt(1)",
        "  %4 = goto #4",
        "#3 (#1) -> (#4)",
        "  %5 = PrintInt(2)",
        "#4 (#2,#3) -> (#5)",
        "  %6 = nothing",
        "#5 (#4) -> (#6)",
        "  %7 = PrintInt(5)",
        "#6 (#5) -> ()",
        "  %8 = return 2",
    ];
    assert_eq!(
        toyc::ir::handbuild::dump(&ir),
        expected
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
}

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
            let inst = ir.stmts.inst[base as usize + 6].clone();
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
            if let Inst::Binary(_, x, _) = &mut ir.stmts.inst[base as usize + 8] {
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
