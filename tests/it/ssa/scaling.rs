//! SSA construction does work linear in the function's size: the blocks
//! visited by variable lookups (`ssa::build_function_counted`) stay within
//! a constant per variable on functions with thousands of variables, in
//! the shapes that made Braun et al.'s walk quadratic (long chains of
//! structured regions between a definition and its reads, loops, try
//! regions). Not timed: a quadratic walk shows as ~N² steps.
use toyc::sema::hir::FuncId;

/// The same shapes as bench/gen_vars.py (which measures their time).
fn program(n: usize, shape: &str) -> String {
    let mut out = vec![
        "fn main() {".to_string(),
        "    let c = len(args()) == 0;".to_string(),
    ];
    for i in 0..n {
        out.push(format!("    var v{i} = {i};"));
    }
    let arm = |i: usize| {
        format!(
            "if k > {} {{ v{i} += k; }} else {{ v{i} = v{} - 1; }}",
            i % 3,
            (i * 7 + 1) % n
        )
    };
    match shape {
        "seq" => {
            for i in 0..n {
                out.push(format!(
                    "    if c {{ v{i} += {}; }} else {{ v{i} -= 1; }}",
                    i % 7 + 1
                ));
            }
        }
        "loop" => {
            out.push("    var k = 0;\n    while k < 3 {\n        k += 1;".into());
            for i in 0..n {
                out.push(format!("        {}", arm(i)));
            }
            out.push("    }".into());
        }
        "try" => {
            out.push("    var k = 0;\n    while k < 3 {\n        k += 1;".into());
            for g in (0..n).step_by(10) {
                out.push("        try {".into());
                for i in g..(g + 10).min(n) {
                    out.push(format!("            {}", arm(i)));
                }
                out.push(format!("            if v{g} == -12345 {{ throw \"x\"; }}"));
                out.push(format!("        }} catch e{g} {{ v{g} += len(e{g}); }}"));
            }
            out.push("    }".into());
        }
        _ => unreachable!("unknown shape"),
    }
    out.push("    var s = 0;".into());
    for i in 0..n {
        out.push(format!("    s ^= v{i};"));
    }
    out.push("    print(s);\n}".into());
    out.join("\n") + "\n"
}

/// The lookup steps of building `main`.
fn steps(src: &str) -> u64 {
    let mut sources = toyc::span::SourceMap::new();
    let file = sources.add("scale.toy".into(), None, src.to_string());
    let program = match toyc::sema::analyze(&mut sources, file) {
        Ok(p) => p,
        Err(d) => panic!(
            "does not compile:\n{}",
            toyc::diag::render(&sources, &d, false)
        ),
    };
    let may_throw = toyc::ssa::throws::may_throw(&program);
    let main = program.main;
    let (code, steps) = toyc::ssa::build_function_counted(&program, FuncId(main.0), &may_throw);
    assert!(!code.stmts.inst.is_empty());
    steps
}

#[test]
fn lookups_are_linear_in_the_number_of_variables() {
    for shape in ["seq", "loop", "try"] {
        let small = steps(&program(200, shape));
        let large = steps(&program(2000, shape));
        // Measured: 9 (seq), 17 (loop), 23 (try) steps per variable. A walk
        // along the chain of regions (no shortcut through `env`) takes
        // 4,000 per variable here (8,023,999 steps for `seq`).
        assert!(
            large <= 30 * 2000,
            "{shape}: {large} lookup steps for 2000 variables"
        );
        assert!(
            large <= 12 * small,
            "{shape}: {small} steps for 200 variables, {large} for 2000"
        );
    }
}
