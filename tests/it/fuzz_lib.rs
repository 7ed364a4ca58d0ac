//! The fuzzer's coverage of the builtins `parse_float chr substr fixed`,
//! the transcendental functions, `args()`, float `%`, `str` of floats, the
//! input and file builtins and the standard library modules: the oracle on hand-written programs with
//! expected output (each value checked against docs/language.md, the C
//! printf results for `fixed`), the printer's `import` lines, and that
//! the generator really produces every one of them.

use std::collections::HashSet;
use toyc::fuzz::ast::*;
use toyc::fuzz::stdlib::{ALL, modules_used};
use toyc::fuzz::{oracle, print, shrink};

use crate::fuzz::{e, flt, int, main_prog, s, var};

fn call(b: Builtin, args: Vec<Expr>) -> Expr {
    e(ExprKind::Builtin(b, args))
}
fn lib(f: LibFn, args: Vec<Expr>) -> Expr {
    e(ExprKind::Lib(f, args))
}
fn print_(args: Vec<Expr>) -> Stmt {
    Stmt::new(StmtKind::Print {
        newline: true,
        args,
    })
}
fn let_(name: &str, ty: Ty, init: Expr) -> Stmt {
    Stmt::new(StmtKind::Let {
        name: name.into(),
        mutable: false,
        ty,
        annotate: false,
        init,
    })
}
fn catch(body: Vec<Stmt>, v: &str) -> Stmt {
    Stmt::new(StmtKind::Try {
        body,
        var: v.into(),
        handler: vec![print_(vec![var(v)])],
    })
}
/// Prints the program (filling positions), checks it is well formed,
/// evaluates it, and checks that toyc (`run -O2`, without warnings, as the
/// fuzzer runs it) gives the same.
fn run(mut p: Program) -> (String, oracle::Outcome) {
    let sources = print::print_program(&mut p);
    let src = sources.text();
    assert!(shrink::well_formed(&p), "{src}");
    let out = oracle::evaluate(&p, "t.toy").expect("not skipped");
    let dir = std::env::temp_dir().join(format!(
        "toyc-fuzz-lib-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    assert!(toyc::fuzz::exec::stage(&dir, "t.toy", &sources, &p.stdin));
    let got = std::process::Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["run", "-A", "warnings", "-O2", "t.toy"])
        .current_dir(&dir)
        .stdin(std::fs::File::open(dir.join(toyc::fuzz::exec::STDIN_FILE)).unwrap())
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_dir_all(&dir);
    let got = oracle::Outcome {
        stdout: String::from_utf8_lossy(&got.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&got.stderr).into_owned(),
        code: got.status.code().unwrap_or(-1),
    };
    assert_eq!(got, out, "toyc and the oracle disagree on\n{src}");
    (src, out)
}

fn stdout_of(body: Vec<Stmt>) -> String {
    let (src, out) = run(main_prog(body));
    assert_eq!((out.stderr.as_str(), out.code), ("", 0), "{src}");
    out.stdout
}

#[test]
fn oracle_float_functions_and_float_printing() {
    use Builtin::*;
    let nan = flt(f64::NAN);
    let out = stdout_of(vec![
        print_(vec![
            call(Sqrt, vec![flt(2.0)]),
            call(Pow, vec![flt(2.0), flt(10.0)]),
            call(Pow, vec![flt(0.0), flt(-1.0)]),
            call(Exp, vec![flt(0.0)]),
            call(Ln, vec![flt(1.0)]),
            call(Ln, vec![flt(0.0)]),
            call(Ln, vec![flt(-1.0)]),
            call(Atan2, vec![flt(0.0), flt(-1.0)]),
            call(Sin, vec![flt(-0.0)]),
            call(Cos, vec![flt(0.0)]),
            call(Tan, vec![flt(0.0)]),
            call(Atan, vec![flt(f64::INFINITY)]),
        ]),
        print_(vec![
            e(ExprKind::Binary(
                BinOp::Rem,
                Box::new(flt(-5.5)),
                Box::new(flt(2.0)),
            )),
            e(ExprKind::Binary(
                BinOp::Rem,
                Box::new(flt(5.5)),
                Box::new(flt(-2.0)),
            )),
            e(ExprKind::Binary(
                BinOp::Rem,
                Box::new(flt(1.0)),
                Box::new(flt(0.0)),
            )),
            e(ExprKind::Binary(
                BinOp::Mul,
                Box::new(flt(1e300)),
                Box::new(flt(1e10)),
            )),
            call(ToStr, vec![flt(5e-324)]),
            call(ToStr, vec![flt(1e-7)]),
            call(ToStr, vec![flt(f64::MAX)]),
            call(ToStr, vec![nan]),
            call(ToStr, vec![flt(-0.0)]),
        ]),
    ]);
    assert_eq!(
        out,
        "1.4142135623730951 1024.0 inf 1.0 0.0 -inf NaN 3.141592653589793 -0.0 1.0 0.0 \
         1.5707963267948966\n-1.5 1.5 NaN inf 5e-324 1e-7 1.7976931348623157e308 NaN -0.0\n"
    );
}

#[test]
fn oracle_fixed_is_c_printf() {
    use Builtin::Fixed;
    let fx = |x: f64, d: i64| call(Fixed, vec![flt(x), int(d)]);
    let inf = flt(f64::INFINITY);
    let out = stdout_of(vec![
        // printf("%.0f %.2f %.1f %.2f %.0f %.0f", 2.5, 0.125, 0.05, 1.005, 0.5, 1.5)
        print_(vec![
            fx(2.5, 0),
            fx(0.125, 2),
            fx(0.05, 1),
            fx(1.005, 2),
            fx(0.5, 0),
            fx(1.5, 0),
        ]),
        // A negative precision is 6 (C); -0.0 keeps its sign; infinities.
        print_(vec![
            fx(2.675, -1),
            fx(-0.0, 2),
            fx(-0.001, 2),
            call(Fixed, vec![inf, int(3)]),
            fx(123.456, 10),
            fx(1e16, 0),
        ]),
        // NaN reads `NaN` as `print` writes it, whatever its sign bit
        // (where C would write `nan` or `-nan`).
        print_(vec![
            call(
                Fixed,
                vec![call(Builtin::Fabs, vec![flt(f64::NAN)]), int(2)],
            ),
            fx(-f64::NAN, 0),
        ]),
    ]);
    assert_eq!(
        out,
        "2 0.12 0.1 1.00 0 2\n2.675000 -0.00 -0.00 inf 123.4560000000 10000000000000000\nNaN NaN\n"
    );
}

#[test]
fn oracle_string_builtins_and_their_errors() {
    use Builtin::*;
    let body = vec![
        print_(vec![
            call(Substr, vec![s("hello"), int(1), int(3)]),
            call(Substr, vec![s("hello"), int(5), int(5)]),
            call(Chr, vec![int(65)]),
            call(ParseFloat, vec![s("-2.5e3")]),
            call(ParseFloat, vec![call(ToStr, vec![flt(f64::NEG_INFINITY)])]),
            call(ParseFloat, vec![s("NaN")]),
            call(ParseFloat, vec![s("42")]),
            call(Len, vec![call(Args, vec![])]),
        ]),
        catch(
            vec![print_(vec![call(Substr, vec![s("ab"), int(1), int(3)])])],
            "e1",
        ),
        catch(
            vec![print_(vec![call(Substr, vec![s("ab"), int(2), int(1)])])],
            "e2",
        ),
        catch(
            vec![print_(vec![call(Substr, vec![s("ab"), int(-1), int(1)])])],
            "e3",
        ),
        catch(vec![print_(vec![call(Chr, vec![int(256)])])], "e4"),
        catch(vec![print_(vec![call(ParseFloat, vec![s("1.5x")])])], "e5"),
        catch(vec![print_(vec![call(ParseFloat, vec![s("")])])], "e6"),
        print_(vec![call(Chr, vec![int(-1)])]),
    ];
    let (src, out) = run(main_prog(body));
    assert_eq!(
        out.stdout,
        "el  A -2500.0 -inf NaN 42.0 0\n\
         substr: range 1..3 out of bounds for length 2\n\
         substr: range 2..1 out of bounds for length 2\n\
         substr: range -1..1 out of bounds for length 2\n\
         chr: byte out of range: 256\n\
         parse_float: invalid float \"1.5x\"\n\
         parse_float: invalid float \"\"\n"
    );
    // The uncaught error is at the call of `chr`, in the last statement.
    let line = src.lines().position(|l| l.contains("chr((-1))")).unwrap() + 1;
    let col = src.lines().nth(line - 1).unwrap().find("chr").unwrap() + 7 - "print(".len();
    assert_eq!(
        (out.stderr, out.code),
        (
            format!("error: chr: byte out of range: -1\n  at t.toy:{line}:{col}\n"),
            101
        )
    );
}

#[test]
fn oracle_skips_what_it_cannot_predict() {
    use Builtin::*;
    for body in [
        vec![print_(vec![call(Chr, vec![int(200)])])],
        vec![print_(vec![call(Substr, vec![s("é"), int(0), int(1)])])],
        vec![print_(vec![call(Fixed, vec![flt(1.0), int(101)])])],
        vec![print_(vec![lib(LibFn::IsPrime, vec![int(i64::MAX)])])],
    ] {
        let mut p = main_prog(body);
        print::print_program(&mut p);
        assert!(oracle::evaluate(&p, "t.toy").is_err(), "{p:?}");
    }
}

#[test]
fn oracle_stdlib_modules_and_their_imports() {
    use LibFn::*;
    let ints = |xs: &[i64]| {
        e(ExprKind::ArrayLit(
            Ty::Int,
            xs.iter().map(|&x| int(x)).collect(),
        ))
    };
    let arr_int = Ty::Arr(Box::new(Ty::Int));
    let body = vec![
        let_("a", arr_int.clone(), ints(&[3, -1, 2, 3])),
        Stmt::new(StmtKind::Expr(lib(Sort, vec![var("a")]))),
        print_(vec![
            var("a"),
            lib(Sum, vec![var("a")]),
            lib(IndexOf, vec![var("a"), int(3)]),
            lib(Contains, vec![var("a"), int(7)]),
            lib(Range, vec![int(2), int(5)]),
            lib(Copy, vec![var("a")]),
        ]),
        Stmt::new(StmtKind::Expr(lib(Reverse, vec![var("a")]))),
        print_(vec![
            var("a"),
            lib(Pi, vec![]),
            lib(Gcd, vec![int(12), int(-18)]),
            lib(Lcm, vec![int(4), int(6)]),
            lib(Ipow, vec![int(2), int(63)]),
            lib(Isqrt, vec![int(99)]),
            lib(IsPrime, vec![int(97)]),
            lib(Abs, vec![int(i64::MIN)]),
            lib(Clamp, vec![int(9), int(0), int(5)]),
            lib(Fmin, vec![flt(f64::NAN), flt(1.0)]),
        ]),
        print_(vec![
            lib(Split, vec![s("a,,b"), s(",")]),
            lib(Split, vec![s("ab"), s("")]),
            lib(Join, vec![lib(Split, vec![s("x y"), s(" ")]), s("-")]),
            lib(Repeat, vec![s("ab"), int(3)]),
            lib(Repeat, vec![s("ab"), int(-2)]),
            lib(ToUpper, vec![s("héllo")]),
            lib(Trim, vec![s(" \tx y\n")]),
            lib(EndsWith, vec![s("abc"), s("bc")]),
            lib(StrContains, vec![s("abc"), s("")]),
        ]),
    ];
    let (src, out) = run(main_prog(body));
    assert!(
        src.starts_with("import math;\nimport arrays;\nimport strings;\n"),
        "{src}"
    );
    assert!(
        src.contains("math.PI") && src.contains("arrays.sort(a);"),
        "{src}"
    );
    assert_eq!(
        out.stdout,
        "[-1, 2, 3, 3] 7 2 false [2, 3, 4] [-1, 2, 3, 3]\n\
         [3, 3, 2, -1] 3.141592653589793 6 12 -9223372036854775808 9 true -9223372036854775808 5 1.0\n\
         [\"a\", \"\", \"b\"] [\"\", \"a\", \"b\", \"\"] x-y ababab  HéLLO x y true true\n"
    );
}

/// Every new builtin and every stdlib item the generator knows appears in
/// the first few hundred generated programs, and every generated program
/// imports exactly the modules it uses.
#[test]
fn generator_produces_every_new_builtin_and_stdlib_item() {
    use Builtin::*;
    let mut builtins = HashSet::new();
    let mut libs = HashSet::new();
    for seed in 1..=400 {
        let Ok(case) = toyc::fuzz::make_case(seed) else {
            continue;
        };
        let mut note = |x: &Expr| match &x.kind {
            ExprKind::Builtin(b, _) => {
                builtins.insert(format!("{b:?}"));
            }
            ExprKind::Lib(f, _) => {
                libs.insert(format!("{f:?}"));
            }
            _ => {}
        };
        for g in &case.prog.globals {
            shrink::walk_expr(&g.init, &mut note);
        }
        for f in &case.prog.funcs {
            shrink::walk_exprs_in(&f.body, &mut note);
        }
        for m in modules_used(&case.prog) {
            assert!(
                case.source
                    .text()
                    .contains(&format!("import {};", m.name()))
            );
        }
    }
    for b in [
        ParseFloat, Chr, Substr, Fixed, Sin, Cos, Tan, Atan, Atan2, Exp, Ln, Pow, Args, Sqrt,
        Floor, Ceil, Fabs, ToStr, ReadLine, AtEof, ReadAll, ReadFile, WriteFile,
    ] {
        assert!(
            builtins.contains(&format!("{b:?}")),
            "{b:?} never generated"
        );
    }
    for f in ALL {
        assert!(libs.contains(&format!("{f:?}")), "{f:?} never generated");
    }
}

fn write_file(path: &str, text: Expr) -> Stmt {
    Stmt::new(StmtKind::Expr(call(
        Builtin::WriteFile,
        vec![s(path), text],
    )))
}

/// `read_line` strips `\n` and `\r\n`, reads an unterminated last line and
/// then throws `end of input`; `at_eof` and `read_all` share its position.
#[test]
fn oracle_reads_standard_input_like_the_reference() {
    use Builtin::*;
    let read = |b: Builtin| call(b, vec![]);
    let mut p = main_prog(vec![
        print_(vec![read(ReadLine), read(AtEof)]),
        print_(vec![call(Len, vec![read(ReadLine)])]),
        print_(vec![read(ReadLine)]),
        let_("rest", Ty::Str, read(ReadAll)),
        print_(vec![var("rest"), read(AtEof), read(ReadAll)]),
        catch(vec![print_(vec![read(ReadLine)])], "e"),
    ]);
    p.stdin = "ab\r\nc d\n\nx\nlast".into();
    let (src, out) = run(p);
    assert_eq!(
        out.stdout, "ab false\n3\n\nx\nlast true \nend of input\n",
        "{src}"
    );
}

/// Files written by the program read back; a missing file or folder
/// throws the reference's message, whose reason is the system's text.
#[test]
fn oracle_writes_and_reads_files() {
    let body = vec![
        write_file("fz0.txt", s("one\ntwo")),
        print_(vec![call(Builtin::ReadFile, vec![s("fz0.txt")])]),
        write_file("fz0.txt", s("")),
        print_(vec![call(
            Builtin::Len,
            vec![call(Builtin::ReadFile, vec![s("fz0.txt")])],
        )]),
        catch(
            vec![print_(vec![call(Builtin::ReadFile, vec![s("fz1.txt")])])],
            "e",
        ),
        catch(vec![write_file("nodir/fz2.txt", s("x"))], "f"),
    ];
    assert_eq!(
        stdout_of(body),
        "one\ntwo\n0\ncannot read fz1.txt: No such file or directory\n\
         cannot write nodir/fz2.txt: No such file or directory\n"
    );
}

/// About one program in five reads input (and most of those are given an
/// input text, always ASCII), and about one in five is split into a main
/// file and the module `fzm`.
#[test]
fn generator_makes_programs_that_read_input_and_split_programs() {
    let (mut with_input, mut reading, mut split) = (0, 0, 0);
    for seed in 1..=300 {
        let Ok(case) = toyc::fuzz::make_case(seed) else {
            continue;
        };
        let mut io = false;
        let mut note = |x: &Expr| {
            if let ExprKind::Builtin(b, _) = &x.kind {
                io |= matches!(
                    b,
                    Builtin::ReadLine
                        | Builtin::AtEof
                        | Builtin::ReadAll
                        | Builtin::ReadFile
                        | Builtin::WriteFile
                );
            }
        };
        for g in &case.prog.globals {
            shrink::walk_expr(&g.init, &mut note);
        }
        for f in &case.prog.funcs {
            shrink::walk_exprs_in(&f.body, &mut note);
        }
        with_input += usize::from(!case.prog.stdin.is_empty());
        if case.prog.module_from.is_some() {
            split += 1;
            let module = case.source.module.as_deref().unwrap_or_default();
            assert!(case.source.main.starts_with("import fzm;\n"));
            assert!(
                !module.contains("fzm."),
                "the module names only its own items"
            );
        }
        reading += usize::from(io);
        if !case.prog.stdin.is_empty() {
            assert!(case.prog.stdin.is_ascii());
        }
    }
    assert!((30..=100).contains(&reading), "{reading} of 300 read input");
    assert!(with_input >= 20, "{with_input} of 300 have input");
    assert!((30..=100).contains(&split), "{split} of 300 are split");
}

/// A split program: the module `fzm` holds the struct, the global and the
/// helper; the main file names them qualified, a module struct prints as
/// `fzm.P`, and an error in the module is reported in `fzm.toy`.
#[test]
fn oracle_and_printer_split_a_program_into_a_module() {
    let mut p = main_prog(vec![
        print_(vec![e(ExprKind::Call(1, vec![int(2)]))]),
        Stmt::new(StmtKind::Assign {
            place: Place::Var("G1".into()),
            op: Some(BinOp::Add),
            value: int(1),
        }),
        print_(vec![var("G1")]),
        catch(vec![print_(vec![e(ExprKind::Call(1, vec![int(0)]))])], "e"),
        print_(vec![e(ExprKind::Call(1, vec![int(0)]))]),
    ]);
    p.globals.push(Global {
        name: "G1".into(),
        mutable: true,
        ty: Ty::Int,
        init: int(5),
        pos: Pos::default(),
    });
    let quotient = e(ExprKind::Binary(
        BinOp::Div,
        Box::new(int(10)),
        Box::new(var("a")),
    ));
    p.funcs.push(Func {
        name: "fn1".into(),
        params: vec![("a".into(), Ty::Int)],
        ret: Some(Ty::Struct(0)),
        body: vec![Stmt::new(StmtKind::Return(Some(e(ExprKind::StructLit(
            0,
            vec![(0, quotient), (1, s("m"))],
        )))))],
    });
    p.module_from = Some(1);
    let (src, out) = run(p);
    assert!(src.starts_with("import fzm;\n"), "{src}");
    assert!(
        src.contains("fzm.G1 += 1;") && src.contains("fzm.fn1(2)"),
        "{src}"
    );
    assert!(src.contains("// fzm.toy\nstruct P "), "{src}");
    assert_eq!(
        out.stdout, "fzm.P { x: 5, s: \"m\" }\n6\ndivision by zero\n",
        "{src}"
    );
    assert!(out.stderr.contains("  at fzm.toy:"), "{}", out.stderr);
}
