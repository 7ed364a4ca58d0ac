//! Braun SSA construction on Bril's arbitrary control flow: the φs built
//! for irreducible CFGs (and a few reducible ones) are exactly as many as
//! the minimal pruned SSA form has, computed here independently in the
//! Cytron et al. way: dominators, dominance frontiers, iterated dominance
//! frontiers of each variable's definitions, restricted to the blocks
//! where the variable is live on entry.
use crate::ssa_support::{COUNTDOWN, COUNTDOWN_JSON};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use toyc::bril::ast::{Item, Program};
use toyc::ir::{Inst, Module};

fn build(text: &str) -> (Program, Module) {
    let mut sources = toyc::span::SourceMap::new();
    let file = sources.add("t.bril".into(), None, text.to_string());
    let (prog, checked) = toyc::bril::load(&sources, file).expect("the program checks");
    let module = toyc::ssa::bril::build_bril_module(&prog, &checked, None);
    if let Err(errs) = toyc::ir::verify::verify_module(&module) {
        panic!("verifier: {}", errs.join("; "));
    }
    (prog, module)
}

fn phi_count(m: &Module, name: &str) -> usize {
    let f = m.funcs.iter().find(|f| f.name == name).expect("function");
    f.stmts
        .inst
        .values()
        .filter(|i| matches!(i, Inst::Phi { .. }))
        .count()
}

/// A basic block of the Bril function as this test sees it: the variables
/// it reads before writing them, the ones it writes, and its successors.
#[derive(Default, Debug)]
struct Block {
    upward_uses: BTreeSet<String>,
    defs: BTreeSet<String>,
    succs: Vec<usize>,
}

/// The CFG of function `name`: block 0 is the entry (the code before the
/// first label), then one block per label in order. The test programs
/// have no code after a terminator within a block.
fn cfg(prog: &Program, name: &str) -> Vec<Block> {
    let f = prog.functions.iter().find(|f| f.name == name).unwrap();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for it in &f.items {
        if let Item::Label { name, .. } = it {
            let n = index.len() + 1;
            index.insert(name, n);
        }
    }
    let mut blocks: Vec<Block> = (0..=index.len()).map(|_| Block::default()).collect();
    for p in &f.params {
        blocks[0].defs.insert(p.name.clone());
    }
    let mut cur = 0;
    let mut open = true;
    for it in &f.items {
        match it {
            Item::Label { name, .. } => {
                let next = index[name.as_str()];
                if open {
                    blocks[cur].succs.push(next);
                }
                cur = next;
                open = true;
            }
            Item::Instr(i) => {
                for a in &i.args {
                    if !blocks[cur].defs.contains(a) {
                        blocks[cur].upward_uses.insert(a.clone());
                    }
                }
                if let Some(d) = &i.dest {
                    blocks[cur].defs.insert(d.clone());
                }
                if matches!(i.op.as_str(), "jmp" | "br") {
                    for l in &i.labels {
                        blocks[cur].succs.push(index[l.as_str()]);
                    }
                }
                open = !matches!(i.op.as_str(), "jmp" | "br" | "ret");
            }
        }
    }
    blocks
}

/// Immediate dominators by the iterative data-flow definition (sets of
/// dominators), over the blocks reachable from 0.
fn idoms(blocks: &[Block]) -> Vec<Option<usize>> {
    let n = blocks.len();
    let mut preds = vec![Vec::new(); n];
    for (b, blk) in blocks.iter().enumerate() {
        for &s in &blk.succs {
            preds[s].push(b);
        }
    }
    let all: BTreeSet<usize> = (0..n).collect();
    let mut dom: Vec<BTreeSet<usize>> = vec![all.clone(); n];
    dom[0] = [0].into();
    loop {
        let mut changed = false;
        for b in 1..n {
            let mut d = all.clone();
            for &p in &preds[b] {
                d = d.intersection(&dom[p]).copied().collect();
            }
            d.insert(b);
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // The immediate dominator is the strict dominator dominated by all
    // the others.
    (0..n)
        .map(|b| {
            let strict: Vec<usize> = dom[b].iter().copied().filter(|&d| d != b).collect();
            strict
                .iter()
                .copied()
                .find(|&c| strict.iter().all(|&o| dom[c].contains(&o)))
        })
        .collect()
}

/// The number of φs of minimal pruned SSA for function `name`.
fn cytron_pruned_phis(prog: &Program, name: &str) -> usize {
    let blocks = cfg(prog, name);
    let n = blocks.len();
    let idom = idoms(&blocks);
    let mut preds = vec![Vec::new(); n];
    for (b, blk) in blocks.iter().enumerate() {
        for &s in &blk.succs {
            if !preds[s].contains(&b) {
                preds[s].push(b);
            }
        }
    }
    // Dominance frontiers (Cooper, Harvey and Kennedy's runner walk).
    let mut df: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for b in 0..n {
        if preds[b].len() < 2 || (b != 0 && idom[b].is_none()) {
            continue;
        }
        for &p in &preds[b] {
            let mut runner = Some(p);
            while let Some(r) = runner {
                if Some(r) == idom[b] || (r != 0 && idom[r].is_none()) {
                    break;
                }
                df[r].insert(b);
                runner = idom[r];
            }
        }
    }
    // Liveness on entry of each block.
    let vars: BTreeSet<String> = blocks.iter().flat_map(|b| b.defs.iter().cloned()).collect();
    let mut live_in: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let mut out: BTreeSet<String> = BTreeSet::new();
            for &s in &blocks[b].succs {
                out.extend(live_in[s].iter().cloned());
            }
            let mut inn = blocks[b].upward_uses.clone();
            for v in out {
                if !blocks[b].defs.contains(&v) {
                    inn.insert(v);
                }
            }
            if inn != live_in[b] {
                live_in[b] = inn;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let reachable = |b: usize| b == 0 || idom[b].is_some();
    let mut total = 0;
    for v in &vars {
        let mut phis: BTreeSet<usize> = BTreeSet::new();
        let mut work: Vec<usize> = (0..n)
            .filter(|&b| reachable(b) && blocks[b].defs.contains(v))
            .collect();
        let mut seen: BTreeSet<usize> = work.iter().copied().collect();
        while let Some(b) = work.pop() {
            for &d in &df[b] {
                if phis.insert(d) && seen.insert(d) {
                    work.push(d);
                }
            }
        }
        total += phis.iter().filter(|&&b| live_in[b].contains(v)).count();
    }
    total
}

fn assert_minimal(text: &str, name: &str, expected: usize) {
    let (prog, module) = build(text);
    let cytron = cytron_pruned_phis(&prog, name);
    assert_eq!(cytron, expected, "the independent count");
    let braun = phi_count(&module, name);
    assert_eq!(
        braun,
        cytron,
        "Braun built {braun} φs, minimal pruned SSA has {cytron}:\n{}",
        toyc::ir::print::print_module(&module, &toyc::span::SourceMap::new(), Some(name))
    );
}

/// The classic irreducible loop: two entries `.a` and `.b`, each the
/// other's successor; `x` is redefined in both.
const TWO_ENTRY: &str = "
@f(c: bool, d: bool, n: int) {
  x: int = add n n;
  br c .a .b;
.a:
  x: int = mul x n;
  br d .b .out;
.b:
  x: int = sub x n;
  br d .a .out;
.out:
  print x;
}
@main {
}
";

#[test]
fn two_entry_loop_gets_the_minimal_phis() {
    assert_minimal(TWO_ENTRY, "f", 3);
}

/// The same loop where `x` is not changed inside: the φs at `.a` and `.b`
/// only feed each other, a redundant φ-SCC that only SCC removal finds.
#[test]
fn two_entry_loop_invariant_variable_has_no_phi() {
    let text = "
@f(c: bool, d: bool, n: int) {
  x: int = add n n;
  y: int = sub n n;
  br c .a .b;
.a:
  y: int = mul y n;
  br d .b .out;
.b:
  br d .a .out;
.out:
  print x y;
}
@main {
}
";
    assert_minimal(text, "f", 3);
}

/// A three-entry cycle `.a → .b → .c → .a`, entered at each of them; `x`
/// changes only in `.a` and `y` only in `.b`, and each needs a φ at every
/// block of the cycle and at the exit.
#[test]
fn three_entry_cycle() {
    let text = "
@f(c: bool, d: bool, e: bool, n: int) {
  x: int = add n n;
  y: int = mul n n;
  br c .a .rest;
.rest:
  br d .b .c;
.a:
  x: int = add x n;
  br e .b .out;
.b:
  y: int = add y n;
  br e .c .out;
.c:
  br e .a .out;
.out:
  print x y;
}
@main {
}
";
    assert_minimal(text, "f", 8);
}

/// A reducible nest: an outer loop with an inner one, and a variable dead
/// after the inner loop (pruned: it gets no φ where it is dead).
#[test]
fn nested_loops_and_a_dead_variable() {
    let text = "
@f(n: int) {
  one: int = const 1;
  i: int = const 0;
  s: int = const 5;
.outer:
  c: bool = lt i n;
  br c .init .done;
.init:
  j: int = const 0;
  t: int = mul i n;
.inner:
  d: bool = lt j i;
  br d .step .next;
.step:
  s: int = add s j;
  j: int = add j one;
  t: int = add t one;
  jmp .inner;
.next:
  i: int = add i one;
  jmp .outer;
.done:
  print s;
}
@main {
}
";
    assert_minimal(text, "f", 5);
}

/// `x` is assigned on one path only: the read after the join is a φ of
/// its value and an explicit `undef`.
#[test]
fn read_undefined_on_one_path_is_an_explicit_undef() {
    let text = "
@f(c: bool, n: int) {
  br c .a .join;
.a:
  x: int = add n n;
.join:
  print x;
}
@main {
}
";
    assert_minimal(text, "f", 1);
    let (_, module) = build(text);
    let printed = toyc::ir::print::print_module(&module, &toyc::span::SourceMap::new(), Some("f"));
    assert!(printed.contains("%1 = undef::int"), "{printed}");
    assert!(
        printed.contains("%4 = φ (#1 => %1, #2 => %3)::int"),
        "{printed}"
    );
}

/// Two diamonds in a row, one without an else block (a label entered both
/// by a jump and by falling through).
#[test]
fn phis_per_join_of_a_diamond_chain() {
    let text = "
@f(a: bool, b: bool, n: int) {
  x: int = add n n;
  br a .l1 .r1;
.l1:
  x: int = mul x n;
  jmp .j1;
.r1:
  x: int = sub x n;
.j1:
  br b .l2 .j2;
.l2:
  x: int = add x n;
.j2:
  print x;
}
@main {
}
";
    assert_minimal(text, "f", 2);
}

#[test]
fn bril_json_and_text_build_the_same_ir() {
    let ir_of = |name: &str, src: &str| {
        let mut sources = toyc::span::SourceMap::new();
        let file = sources.add(name.into(), None, src.to_string());
        let (prog, checked) = toyc::bril::load(&sources, file).expect("checks");
        let m = toyc::ssa::bril::build_bril_module(&prog, &checked, None);
        toyc::ir::print::print_module_with(&m, None, None, false)
    };
    assert_eq!(ir_of("p.json", COUNTDOWN_JSON), ir_of("p.bril", COUNTDOWN));
}

#[test]
fn bril_json_errors_name_where_they_are() {
    let mut sources = toyc::span::SourceMap::new();
    let bad = sources.add(
        "p.json".into(),
        None,
        "{\"functions\": [\n  {\"name\": 3}\n]}".into(),
    );
    let errs = toyc::bril::load(&sources, bad).unwrap_err();
    assert_eq!(errs[0].message, "function 1 has no `name`");
    let rendered = toyc::diag::render(&sources, &errs, false);
    assert!(rendered.contains("p.json:2:3"), "{rendered}");
    let typo = sources.add(
        "t.json".into(),
        None,
        "{\"functions\": [{\"name\": \"main\", \"instrs\": [\n  {\"op\": \"nop\"},\n  {\"op\": \"frob\", \"args\": [\"{\"]}]}]}".into(),
    );
    let errs = toyc::bril::load(&sources, typo).unwrap_err();
    let rendered = toyc::diag::render(&sources, &errs, false);
    assert!(
        rendered.contains("t.json:3:3: unknown Bril op `frob`"),
        "{rendered}"
    );
    let broken = sources.add("q.json".into(), None, "{\"functions\": [\n  {,\n]}".into());
    let errs = toyc::bril::load(&sources, broken).unwrap_err();
    assert!(
        errs[0]
            .message
            .starts_with("invalid JSON: key must be a string at line 2"),
        "{}",
        errs[0].message
    );
    let rendered = toyc::diag::render(&sources, &errs, false);
    assert!(rendered.contains("q.json:2:4"), "{rendered}");
}

/// The test's own CFG and dominators for the two-entry loop.
#[test]
fn the_independent_count_sees_definitions_and_liveness() {
    let (prog, _) = build(TWO_ENTRY);
    let blocks = cfg(&prog, "f");
    assert_eq!(blocks.len(), 4);
    let succs: BTreeMap<usize, Vec<usize>> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (i, b.succs.clone()))
        .collect();
    assert_eq!(succs[&0], vec![1, 2]);
    assert_eq!(succs[&1], vec![2, 3]);
    assert_eq!(succs[&2], vec![1, 3]);
    assert_eq!(idoms(&blocks), vec![None, Some(0), Some(0), Some(0)]);
}
