//! The differential fuzzer (`src/fuzz/`): its oracle on hand-written
//! programs with exact expected output, the printer's positions, the
//! shrinker on a deliberately failing predicate, and a short fuzzing run of
//! the built binary.

use std::process::Command;
use toyc::fuzz::ast::*;
use toyc::fuzz::{oracle, print, shrink};

pub(crate) fn e(kind: ExprKind) -> Expr {
    Expr::new(kind)
}
pub(crate) fn int(v: i64) -> Expr {
    e(ExprKind::Int(v))
}
pub(crate) fn flt(v: f64) -> Expr {
    e(ExprKind::Float(v))
}
pub(crate) fn s(v: &str) -> Expr {
    e(ExprKind::Str(v.into()))
}
pub(crate) fn var(n: &str) -> Expr {
    e(ExprKind::Var(n.into()))
}
fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    e(ExprKind::Binary(op, Box::new(l), Box::new(r)))
}
fn print_(args: Vec<Expr>) -> Stmt {
    Stmt::new(StmtKind::Print {
        newline: true,
        args,
    })
}
fn let_(name: &str, init: Expr) -> Stmt {
    Stmt::new(StmtKind::Let {
        name: name.into(),
        mutable: true,
        ty: Ty::Int,
        annotate: false,
        init,
    })
}
pub(crate) fn main_prog(body: Vec<Stmt>) -> Program {
    Program {
        structs: vec![StructDef {
            name: "P".into(),
            fields: vec![("x".into(), Ty::Int), ("s".into(), Ty::Str)],
        }],
        globals: Vec::new(),
        funcs: vec![Func {
            name: "main".into(),
            params: Vec::new(),
            ret: None,
            body,
        }],
        stdin: String::new(),
        module_from: None,
    }
}

/// Prints the program (filling positions) and evaluates it.
fn run(mut p: Program) -> (String, oracle::Outcome) {
    let src = print::print_program(&mut p).main;
    let out = oracle::evaluate(&p, "t.toy").expect("not skipped");
    (src, out)
}

#[test]
fn oracle_int_arithmetic_edges() {
    use BinOp::*;
    let min = i64::MIN;
    let (_, out) = run(main_prog(vec![print_(vec![
        bin(Div, int(min), int(-1)),
        bin(Rem, int(min), int(-1)),
        bin(Div, int(-7), int(2)),
        bin(Rem, int(-7), int(2)),
        bin(Shl, int(1), int(64)),
        bin(Shl, int(1), int(-1)),
        bin(Shr, int(-8), int(1)),
        bin(Add, int(i64::MAX), int(1)),
        bin(Mul, int(min), int(-1)),
    ])]));
    assert_eq!(
        out.stdout,
        "-9223372036854775808 0 -3 -1 1 -9223372036854775808 -4 -9223372036854775808 -9223372036854775808\n"
    );
    assert_eq!((out.stderr.as_str(), out.code), ("", 0));
}

#[test]
fn oracle_float_and_string_printing() {
    let arr = e(ExprKind::ArrayLit(
        Ty::Str,
        vec![s("a\n"), s("q\""), s("é")],
    ));
    let strukt = e(ExprKind::StructLit(0, vec![(1, s("b\\")), (0, int(3))]));
    let (src, out) = run(main_prog(vec![
        print_(vec![
            flt(1.0),
            bin(BinOp::Add, flt(0.1), flt(0.2)),
            flt(1e16),
            flt(1e-5),
            flt(-0.0),
            flt(f64::NAN),
        ]),
        print_(vec![
            flt(f64::INFINITY),
            flt(123456789.0),
            flt(1e15),
            flt(0.0001),
        ]),
        print_(vec![arr, s("raw\tx"), strukt, e(ExprKind::Nil(0))]),
        Stmt::new(StmtKind::Print {
            newline: false,
            args: vec![int(1), s(" "), int(2)],
        }),
    ]));
    assert!(
        src.contains("(0.0 / 0.0)"),
        "NaN is printed as an expression: {src}"
    );
    assert_eq!(
        out.stdout,
        "1.0 0.30000000000000004 1e16 1e-5 -0.0 NaN\ninf 123456789.0 1000000000000000.0 0.0001\n\
         [\"a\\n\", \"q\\\"\", \"é\"] raw\tx P { x: 3, s: \"b\\\\\" } nil\n1 2"
    );
}

#[test]
fn oracle_uncaught_error_position_and_kept_stdout() {
    // print(1); print(1 + (5 / z)); -- the error is at the `(` of `(5 / z)`
    // (5 is printed in binary, `0b101`).
    let body = vec![
        let_("z", int(0)),
        print_(vec![int(1)]),
        print_(vec![bin(
            BinOp::Add,
            int(1),
            bin(BinOp::Div, int(5), var("z")),
        )]),
    ];
    let (src, out) = run(main_prog(body));
    let line = src.lines().position(|l| l.contains(" / z")).unwrap() + 1;
    let text = src.lines().nth(line - 1).unwrap();
    let col = text[..text.find(" / z").unwrap()].rfind('(').unwrap() + 1;
    assert_eq!(out.stdout, "1\n");
    assert_eq!(
        out.stderr,
        format!("error: division by zero\n  at t.toy:{line}:{col}\n")
    );
    assert_eq!(out.code, 101);
}

#[test]
fn oracle_catches_runtime_errors_and_rechecks_compound_store() {
    let arr = e(ExprKind::ArrayLit(Ty::Int, vec![int(1), int(2)]));
    let pop = e(ExprKind::Builtin(Builtin::Pop, vec![var("a")]));
    let oob = e(ExprKind::Index(Box::new(var("a")), Box::new(int(5))));
    let nil_field = e(ExprKind::Field(Box::new(e(ExprKind::Nil(0))), 0, 0));
    let catch = |body: Vec<Stmt>, v: &str| {
        Stmt::new(StmtKind::Try {
            body,
            var: v.into(),
            handler: vec![print_(vec![s("caught"), var(v)])],
        })
    };
    let compound = Stmt::new(StmtKind::Assign {
        place: Place::Index(var("a"), int(1)),
        op: Some(BinOp::Mul),
        value: pop,
    });
    let body = vec![
        let_("a", arr),
        catch(vec![print_(vec![oob])], "e1"),
        catch(vec![print_(vec![nil_field])], "e2"),
        catch(vec![Stmt::new(StmtKind::Throw(s("boom")))], "e3"),
        catch(vec![compound], "e4"),
        print_(vec![var("a")]),
    ];
    let (_, out) = run(main_prog(body));
    assert_eq!(
        out.stdout,
        "caught index out of bounds: index 5, length 2\ncaught nil dereference\ncaught boom\n\
         caught index out of bounds: index 1, length 1\n[1]\n"
    );
}

#[test]
fn printer_and_oracle_agree_on_generated_programs() {
    // Every generated program prints, is well formed and evaluates
    // deterministically (same seed, same output).
    for seed in 0..200 {
        if let Ok(case) = toyc::fuzz::make_case(seed) {
            assert!(
                shrink::well_formed(&case.prog),
                "seed {seed} is not well formed:\n{}",
                case.source.text()
            );
            let again = toyc::fuzz::make_case(seed).unwrap();
            assert_eq!(case.source, again.source);
            assert_eq!(case.expected, again.expected);
        }
    }
}

#[test]
fn shrinker_reduces_a_failing_predicate() {
    // "Fails" while the program prints something: the minimum is a main
    // with one print statement and nothing else.
    let case = (1..100)
        .filter_map(|s| toyc::fuzz::make_case(s).ok())
        .find(|c| c.expected.code == 0 && !c.expected.stdout.is_empty() && c.prog.funcs.len() > 1)
        .expect("a printing program");
    let mut prints = |p: &Program| {
        let mut p = p.clone();
        print::print_program(&mut p);
        oracle::evaluate(&p, "t.toy").is_ok_and(|o| !o.stdout.is_empty() && o.code == 0)
    };
    let small = shrink::shrink(&case.prog, 5000, &mut prints);
    assert!(prints(&small));
    assert!(shrink::well_formed(&small));
    assert_eq!(small.funcs.len(), 1, "helpers deleted: {small:#?}");
    assert!(small.globals.is_empty());
    let stmts = small.funcs[0].body.len();
    assert!(
        stmts <= 2,
        "main keeps at most a print (and a return): {small:#?}"
    );
}

#[test]
fn fuzz_command_runs_programs_through_every_mode() {
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["fuzz", "--seed", "1", "--count", "50", "-j", "2"])
        .output()
        .expect("run toyc fuzz");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "toyc fuzz found disagreements:\n{stdout}"
    );
    assert!(
        stdout.contains("fuzz: 50 programs (seeds 1..=50), 0 disagreed"),
        "{stdout}"
    );
}

#[test]
fn bisect_command_names_no_pass_for_a_correct_program() {
    let dir = std::env::temp_dir().join(format!("toyc-bisect-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ok.toy");
    std::fs::write(
        &file,
        "fn main() {\n    var s = 0;\n    for i in 0..10 {\n        s += i;\n    }\n    print(s);\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .arg("bisect")
        .arg(&file)
        .output()
        .expect("run toyc bisect");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.starts_with("reference (--passes=none): exit 0"),
        "{stdout}"
    );
    assert!(stdout.contains("no pass changes the output"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fake `toyc` (a shell script) for the runner to disagree with.
fn fake_toyc(name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("toyc-fake-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("toyc");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn fuzz_command_reports_wrong_output_and_hangs() {
    for (name, body, class) in [
        ("wrong", "echo wrong; exit 3", "(Wrong)"),
        ("hang", "sleep 5", "(Timeout)"),
    ] {
        let fake = fake_toyc(name, body);
        let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
            .args([
                "fuzz",
                "--seed",
                "7",
                "--count",
                "2",
                "--no-shrink",
                "--timeout",
                "0.3",
                "--toyc",
            ])
            .arg(&fake)
            .output()
            .expect("run toyc fuzz");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{name}: {stdout}");
        assert!(stdout.contains("FAIL seed 7: "), "{name}: {stdout}");
        assert!(stdout.contains(class), "{name}: {stdout}");
        assert!(
            stdout.contains("fuzz: 2 programs (seeds 7..=8), 2 disagreed"),
            "{name}: {stdout}"
        );
        let _ = std::fs::remove_dir_all(fake.parent().unwrap());
    }
}

#[test]
fn bisection_finds_the_first_pass_that_changes_the_output() {
    use toyc::fuzz::bisect::{Setup, Verdict, bisect};
    // A fake toyc whose output changes once `--passes` includes gvn_load
    // (which runs twice in the list: the first occurrence is to blame).
    let fake = fake_toyc(
        "bisect",
        "case \"$*\" in *gvn_load*) echo changed;; *) echo same;; esac",
    );
    let dir = fake.parent().unwrap().to_path_buf();
    let passes: Vec<String> = ["sccp", "dce", "cse", "gvn_load", "licm", "gvn_load", "dse"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let setup = Setup {
        exe: &fake,
        dir: &dir,
        scratch: &dir.join("run"),
        file: "x.toy",
        passes: &passes,
        interp: false,
        timeout: std::time::Duration::from_secs(5),
        staged: false,
    };
    let mut probes = Vec::new();
    let mut is_bad = |r: &toyc::fuzz::exec::RunResult| match r {
        toyc::fuzz::exec::RunResult::Exited(o) => o.stdout != "same\n",
        _ => true,
    };
    let verdict = bisect(&setup, &mut is_bad, &mut |k, bad| probes.push((k, bad)));
    assert_eq!(verdict, Verdict::FirstBad(3), "probes: {probes:?}");
    assert!(probes.len() <= 5, "a binary search: {probes:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn oracle_print_evaluates_every_argument_before_formatting() {
    // print(a, pop(a)) shows `a` after the pop: a call's arguments are all
    // evaluated first.
    let arr = e(ExprKind::ArrayLit(Ty::Int, vec![int(1), int(2), int(3)]));
    let pop = e(ExprKind::Builtin(Builtin::Pop, vec![var("a")]));
    let (_, out) = run(main_prog(vec![let_("a", arr), print_(vec![var("a"), pop])]));
    assert_eq!(out.stdout, "[1, 2] 3\n");
}
