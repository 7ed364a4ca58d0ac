//! Over every program of `lang-tests/` and `examples/` that compiles: the
//! constructed IR verifies, and its φs are minimal and pruned — no φ is
//! trivial (it merges at least two distinct values other than itself) and
//! every φ is used by something other than itself.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toyc::ir::{Inst, IrCode, Operand, Value};

fn toy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            toy_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toy") {
            out.push(p);
        }
    }
}

fn same(a: &Operand, b: &Operand) -> bool {
    match (a, b) {
        (Operand::Float(x), Operand::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Problems with the φs of `f` (empty when minimal and pruned).
fn phi_problems(f: &IrCode) -> Vec<String> {
    let mut used = cranelift_entity::SecondaryMap::<Value, bool>::new();
    for (i, inst) in f.stmts.inst.iter() {
        toyc::ir::edit::for_each_operand(inst, |op| {
            if let Operand::Value(v) = *op
                && v != i
            {
                used[v] = true;
            }
        });
    }
    let mut out = Vec::new();
    for (i, inst) in f.stmts.inst.iter() {
        if let Inst::Phi { values, .. } = inst {
            let me = Operand::Value(i);
            let mut distinct: Vec<&Operand> = Vec::new();
            for v in values {
                if !same(v, &me) && !distinct.iter().any(|d| same(d, v)) {
                    distinct.push(v);
                }
            }
            if distinct.len() < 2 {
                out.push(format!("fn {}: {i} is a trivial φ", f.name));
            }
            if !used[i] {
                out.push(format!("fn {}: {i} is an unused φ", f.name));
            }
        }
    }
    out
}

#[test]
fn constructed_ir_is_minimal_and_pruned() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    toy_files(&root.join("lang-tests"), &mut files);
    toy_files(&root.join("examples"), &mut files);
    let mut checked = 0;
    let mut problems = Vec::new();
    for path in &files {
        let mut sources = toyc::span::SourceMap::new();
        let Ok(program) = toyc::driver::check_file(path, &mut sources) else {
            continue;
        };
        let m = toyc::ssa::build_module(Arc::new(program));
        if let Err(errs) = toyc::ir::verify::verify_module(&m) {
            problems.push(format!("{}: verifier: {}", path.display(), errs.join("; ")));
        }
        for f in &m.funcs {
            for p in phi_problems(f) {
                problems.push(format!("{}: {p}", path.display()));
            }
        }
        checked += 1;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The corpus is there (this test must not pass vacuously).
    assert!(checked >= 50, "only {checked} programs found");
}
