//! Snapshot tests (insta) of the printed IR of Toy programs after SSA
//! construction and after each pass of the -O2 pipeline, with each pass's
//! counters. The verifier runs after every pass.

use crate::memssa_support;
use toyc::opt::{self, PassCtx};

fn pipeline_text(name: &str, source: &str) -> String {
    let mut module = memssa_support::compile(name, source);
    let user: Vec<usize> = (0..module.funcs.len())
        .filter(|&i| !module.funcs[i].name.contains('<'))
        .collect();
    let show = |m: &toyc::ir::Module| -> String {
        user.iter()
            .map(|&i| toyc::ir::print::print_function(&m.funcs[i], &m.program, None))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut out = format!("=== ssa\n{}", show(&module));
    for pass in opt::default_passes(2) {
        // The module's call summaries as of this pass, as the pipeline has them.
        let mut ctx = PassCtx::new(&module, true);
        let p = opt::find_pass(pass).expect("pass");
        match p.run {
            opt::PassFn::Function(run) => {
                for &i in &user {
                    run(&mut module.funcs[i], &mut ctx);
                }
            }
            opt::PassFn::Module(run) => run(&mut module, &mut ctx),
        }
        assert!(
            ctx.errors.is_empty(),
            "MemorySSA verifier after {pass}: {:?}",
            ctx.errors
        );
        if let Err(e) = toyc::ir::verify::verify_module(&module) {
            panic!("verifier after {pass}: {e:?}\n{}", show(&module));
        }
        out += &format!(
            "\n=== after {pass}\n{}{}",
            ctx.counters.render(),
            show(&module)
        );
    }
    out
}

#[test]
fn sccp_folds_constants_and_branches() {
    insta::assert_snapshot!(pipeline_text(
        "sccp",
        r#"
fn f(n: int) -> int {
    var c = 3;
    var s = 0;
    for i in 0..n {
        if c != 3 { c = c + 1; }
        s += c << 65;
    }
    if c == 3 { return s; }
    return -1;
}
fn main() { print(f(3)); }
"#
    ));
}

#[test]
fn division_by_constant_zero_keeps_its_raise() {
    insta::assert_snapshot!(pipeline_text(
        "divzero",
        r#"
fn g() -> int {
    let z = 0;
    return 10 / z;
}
fn main() { print(g()); }
"#
    ));
}

#[test]
fn simplifycfg_and_loops_on_nested_control_flow() {
    insta::assert_snapshot!(pipeline_text(
        "loops",
        r#"
fn h(a: [int], t: int) -> int {
    var found = -1;
    var i = 0;
    while i < len(a) {
        if a[i] == t { found = i; break; }
        if a[i] < 0 { i += 2; continue; }
        i += 1;
    }
    return found;
}
fn main() { print(h([1, -2, 3, 4, 5], 4)); }
"#
    ));
}
