//! Unit tests of the translation on hand-written IR, in the text form of
//! `toyc ir` (docs/ir.md) read by `ir::parse`.

use super::{CodegenOptions, Compiler};
use crate::ir::Module;
use crate::span::{FileId, SourceMap, Span};

/// An `<init>` that does nothing.
const EMPTY_INIT: &str = "fn <init>()\n1 ─ return\n";

/// Parses `ir` (functions get ids in file order; `main` and `<init>` are
/// found by name, else function 0) with a source map of one file, `text`.
fn parse(ir: &str, text: &str) -> (Module, SourceMap) {
    let m = crate::ir::parse::parse(ir).unwrap_or_else(|e| panic!("{e:?} in\n{ir}"));
    let mut sources = SourceMap::new();
    sources.add("test.toy".into(), None, text.into());
    (m, sources)
}

/// Gives statement `%k` of function `func` the source position of byte
/// `start` of the file (parsed statements have none).
fn at(m: &mut Module, func: usize, k: usize, start: usize) {
    m.funcs[func].stmts.span[crate::ir::Value(k as u32 - 1)] =
        Span::new(FileId(0), start, start + 1);
}

fn options(optimize: bool) -> CodegenOptions {
    CodegenOptions {
        optimize,
        verify: true,
        ..Default::default()
    }
}

/// Compiles the functions of `ir` (at both optimization levels) and gives
/// `f` the entry address of every function.
fn with_compiled(ir: &str, f: impl Fn(&[usize])) {
    let (m, sources) = parse(ir, "x");
    for optimize in [false, true] {
        let mut cx = Compiler::new(&m, &sources, &options(optimize)).expect("compiler");
        cx.compile(super::Emit::All).expect("compile");
        let ptrs: Vec<usize> = cx
            .funcs
            .iter()
            .map(|id| cx.module.get_finalized_function(*id) as usize)
            .collect();
        f(&ptrs);
        // SAFETY: no compiled function runs after `f` returned.
        unsafe { cx.module.free_memory() };
    }
}

/// `fn op(a, b) = a OP b` on ints, or `a OP CONST` when `rhs` is given.
fn int_binop(op: &str, rhs: Option<i64>) -> String {
    let rhs = rhs.map_or("_2".to_string(), |c| c.to_string());
    format!("fn op(_1::int, _2::int) -> int\n1 ─ %1 = {op}(_1, {rhs})::int\n│   return %1\n")
}

fn call2(p: usize, x: i64, y: i64) -> i64 {
    // SAFETY: `p` is a compiled `(int, int) -> int` function.
    let f: extern "C" fn(i64, i64) -> i64 = unsafe { std::mem::transmute(p) };
    f(x, y)
}

#[test]
fn division_and_remainder_edge_cases() {
    let cases: [(i64, i64, i64, i64); 7] = [
        (i64::MIN, -1, i64::MIN, 0),
        (7, -2, -3, 1),
        (-7, 2, -3, -1),
        (-7, -1, 7, 0),
        (i64::MIN, 1, i64::MIN, 0),
        (5, 5, 1, 0),
        (0, -1, 0, 0),
    ];
    for (x, y, q, r) in cases {
        // With the divisor an argument, then a constant.
        for (divisor, arg) in [(None, y), (Some(y), 0)] {
            with_compiled(&int_binop("idiv", divisor), |p| {
                assert_eq!(call2(p[0], x, arg), q, "{x} / {y} ({divisor:?})")
            });
            with_compiled(&int_binop("irem", divisor), |p| {
                assert_eq!(call2(p[0], x, arg), r, "{x} % {y} ({divisor:?})")
            });
        }
    }
}

#[test]
fn wrapping_arithmetic_and_shifts() {
    let cases: [(&str, i64, i64, i64); 8] = [
        ("iadd", i64::MAX, 1, i64::MIN),
        ("imul", i64::MAX, 2, -2),
        ("ishl", 1, 65, 2),
        ("ishl", 1, -1, i64::MIN),
        ("ishl", 3, 64, 3),
        ("ishr", -8, 1, -4),
        ("ishr", -8, 66, -2),
        ("ishr", i64::MIN, 63, -1),
    ];
    for (op, x, y, want) in cases {
        with_compiled(&int_binop(op, None), |p| {
            assert_eq!(call2(p[0], x, y), want, "{op}({x}, {y})")
        });
    }
}

#[test]
fn float_to_int_saturates_and_nan_is_zero() {
    let ir = "fn f2i(_1::float) -> int\n1 ─ %1 = float_to_int(_1)::int\n│   return %1\n";
    with_compiled(ir, |p| {
        // SAFETY: a compiled `(float) -> int` function.
        let f: extern "C" fn(f64) -> i64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(f64::NAN), 0);
        assert_eq!(f(1e300), i64::MAX);
        assert_eq!(f(-1e300), i64::MIN);
        assert_eq!(f(f64::INFINITY), i64::MAX);
        assert_eq!(f(-2.7), -2);
        assert_eq!(f(2.7), 2);
    });
}

#[test]
fn float_comparisons_are_ieee() {
    for (cmp, nan_result, one_two) in [("feq", 0, 0), ("fne", 1, 1), ("flt", 0, 1), ("fge", 0, 0)] {
        let ir = format!(
            "fn fcmp(_1::float, _2::float) -> bool\n1 ─ %1 = {cmp}(_1, _2)::bool\n│   return %1\n"
        );
        with_compiled(&ir, |p| {
            // SAFETY: a compiled `(float, float) -> bool` function.
            let f: extern "C" fn(f64, f64) -> u8 = unsafe { std::mem::transmute(p[0]) };
            assert_eq!(f(f64::NAN, f64::NAN), nan_result, "{cmp} on NaN");
            assert_eq!(f(1.0, 2.0), one_two, "{cmp} on 1, 2");
        });
    }
}

/// `sum(n)`: s = 0; i = 0; while i < n { s += i; i += 1 }; return s —
/// two φs at the loop header, fed by the entry and the back edge.
const SUM_LOOP: &str = "\
fn sum(_1::int) -> int
1 ─      goto #2
2 ┄ %2 = φ (#1 => 0, #3 => %7)::int
│   %3 = φ (#1 => 0, #3 => %6)::int
│   %4 = ilt(%2, _1)::bool
└──      goto #4 if not %4
3 ─ %6 = iadd(%3, %2)::int
│   %7 = iadd(%2, 1)::int
└──      goto #2
4 ─      return %3
";

#[test]
fn phis_at_a_loop_header() {
    with_compiled(SUM_LOOP, |p| {
        // SAFETY: a compiled `(int) -> int` function.
        let f: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(0), 0);
        assert_eq!(f(10), 45);
        assert_eq!(f(100_000), 4_999_950_000);
    });
}

#[test]
fn recursion_between_functions() {
    // even(n) = n == 0 || odd(n - 1); odd(n) = n != 0 && even(n - 1).
    let ir = "\
fn even(_1::int) -> bool
1 ─ %1 = ieq(_1, 0)::bool
└──      goto #3 if not %1
2 ─      return true
3 ─ %4 = isub(_1, 1)::int
│   %5 = invoke odd(%4)::bool
└──      return %5

fn odd(_1::int) -> bool
1 ─ %1 = ieq(_1, 0)::bool
└──      goto #3 if not %1
2 ─      return false
3 ─ %4 = isub(_1, 1)::int
│   %5 = invoke even(%4)::bool
└──      return %5
";
    with_compiled(ir, |p| {
        // SAFETY: compiled `(int) -> bool` functions.
        let even: extern "C" fn(i64) -> u8 = unsafe { std::mem::transmute(p[0]) };
        let odd: extern "C" fn(i64) -> u8 = unsafe { std::mem::transmute(p[1]) };
        assert_eq!((even(10), even(7), odd(7), odd(0)), (1, 0, 1, 0));
    });
}

/// Runs `m` (with `main` and `<init>`) at both levels, which must agree,
/// capturing the output.
fn run_parsed(m: &Module, sources: &SourceMap) -> (i32, String) {
    let mut last = None;
    for optimize in [false, true] {
        let (code, out) = super::run::run(m, sources, &options(optimize), &[], true).expect("run");
        let r = (code, String::from_utf8_lossy(&out).into_owned());
        if let Some(prev) = &last {
            assert_eq!(prev, &r, "-O0 and -O2 differ");
        }
        last = Some(r);
    }
    last.unwrap_or_default()
}

/// [`run_parsed`] on the functions of `ir` and an empty `<init>`.
fn run_main(ir: &str, text: &str) -> (i32, String) {
    let (m, sources) = parse(&format!("{ir}\n{EMPTY_INIT}"), text);
    run_parsed(&m, &sources)
}

#[test]
fn uncaught_error_flushes_output_and_exits_101() {
    let ir = "\
fn main()
1 ─      runtime print_int(42)
│        runtime print_newline()
│        raise division_by_zero()
└──      unwind
";
    let (mut m, sources) = parse(&format!("{ir}\n{EMPTY_INIT}"), "let x = 1 / 0;");
    at(&mut m, 0, 3, 2);
    assert_eq!(run_parsed(&m, &sources), (101, "42\n".to_string()));
}

#[test]
fn main_result_is_the_exit_code_and_strings_print() {
    let ir = "\
fn main() -> int
1 ─ %1  = \"héllo\"::str
│   %2  = \" world\"::str
│   %3  = runtime str_concat(%1, %2)::str
│         runtime print_str(%3)
│         runtime print_space()
│   %6  = runtime str_len(%3)::int
│         runtime print_int(%6)
│         runtime print_space()
│   %9  = runtime str_byte(%3, 0)::int
│         runtime print_int(%9)
│         runtime print_space()
│         runtime print_float(0.1)
│         runtime print_space()
│   %14 = runtime sqrt(2.25)::float
│         runtime print_float(%14)
│         runtime print_newline()
└──       return 7
";
    assert_eq!(
        run_main(ir, "x"),
        (7, "héllo world 12 104 0.1 1.5\n".to_string())
    );
}

#[test]
fn exceptions_reach_the_handler_with_phic() {
    // main: ϒ(5); r = thrower(); on an exception go to the handler, which
    // prints the message and the φᶜ of the ϒ.
    let ir = "\
fn main()
1 ─      ϒ (5)
│   %2 = invoke thrower()::int
│   %3 = no_exception()::bool
└──      goto #3 if not %3
2 ─      runtime print_int(%2)
└──      return
3 ─ %7 = φᶜ (%1)::int
│   %8 = take_exception()::str
│        runtime print_str(%8)
│        runtime print_space()
│        runtime print_int(%7)
│        runtime print_newline()
└──      return

fn thrower() -> int
1 ─ %1 = \"boom\"::str
│        raise throw(%1)
└──      unwind
";
    assert_eq!(run_main(ir, "x"), (0, "boom 5\n".to_string()));
}

#[test]
fn uncaught_throw_from_a_callee_is_reported() {
    let ir = "\
fn main() -> int
1 ─      invoke thrower()
│   %2 = no_exception()::bool
└──      goto #3 if not %2
2 ─      return 0
3 ─      unwind

fn thrower()
1 ─ %1 = \"bad\"::str
│        raise throw(%1)
└──      unwind
";
    let (mut m, sources) = parse(&format!("{ir}\n{EMPTY_INIT}"), "line1\nthrow");
    at(&mut m, 1, 2, 6);
    assert_eq!(run_parsed(&m, &sources), (101, String::new()));
}

#[test]
fn clif_text_names_each_function() {
    let (m, sources) = parse(&format!("{SUM_LOOP}\n{EMPTY_INIT}"), "x");
    let clif = |only| {
        super::asm::module_listing(
            &m,
            &sources,
            &options(true),
            only,
            super::asm::Listing::Clif,
        )
    };
    let text = clif(None).expect("clif");
    assert!(text.starts_with("; fn sum\n"), "{text}");
    assert!(text.contains("; fn <init>\n"), "{text}");
    assert!(text.contains("brif"), "{text}");
    let only = clif(Some("<init>")).expect("clif");
    assert!(!only.contains("; fn sum"));
    assert!(clif(Some("nope")).is_err());
}

/// `main` prints 1, then `depth(n)`, where `depth(n) = if n == 0 { 0 }
/// else { depth(n - 1) + 1 }`.
fn main_printing_depth(n: i64) -> String {
    format!(
        "\
fn main()
1 ─      runtime print_int(1)
│        runtime print_newline()
│   %3 = invoke depth({n})::int
│        runtime print_int(%3)
│        runtime print_newline()
└──      return

{DEPTH_IR}",
        DEPTH_IR = crate::ir::handbuild::DEPTH_IR
    )
}

#[test]
fn recursion_100_000_frames_deep_works() {
    assert_eq!(
        run_main(&main_printing_depth(100_000), "x"),
        (0, "1\n100000\n".to_string())
    );
}

/// `run_on(.., CurrentIfRoom)` on a thread with `stack` bytes of stack,
/// 100,000 frames deep: on the calling thread when it has room, on a new
/// one otherwise. Returns the result and `stack_room()` seen there.
fn deep_run_on_a_thread_with(stack: usize) -> ((i32, String), Option<usize>) {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(|| {
            let room = super::run::stack_room();
            let text = format!("{}\n{EMPTY_INIT}", main_printing_depth(100_000));
            let (m, sources) = parse(&text, "x");
            let thread = super::run::ProgramThread::CurrentIfRoom;
            let (code, out) =
                super::run::run_on(&m, &sources, &options(true), &[], true, thread).expect("run");
            ((code, String::from_utf8_lossy(&out).into_owned()), room)
        })
        .expect("thread")
        .join()
        .expect("no panic")
}

#[test]
fn the_program_runs_on_the_calling_thread_only_when_its_stack_has_room() {
    use super::run::{RUN_STACK, STACK_MARGIN};
    let expected = (0, "1\n100000\n".to_string());
    // Room: the program runs here, with its limit RUN_STACK below.
    let big = RUN_STACK + STACK_MARGIN + (16 << 20);
    let (result, room) = deep_run_on_a_thread_with(big);
    assert_eq!(result, expected);
    let room = room.expect("the system reports the thread's stack");
    assert!(room > RUN_STACK + STACK_MARGIN && room <= big, "{room}");
    // 4 MiB hold far fewer than 100,000 of these frames: only a new thread
    // with RUN_STACK gets the answer.
    let (result, room) = deep_run_on_a_thread_with(4 << 20);
    assert_eq!(result, expected);
    assert!(room.is_some_and(|r| r <= 4 << 20), "{room:?}");
}

/// Runs this test binary again with `TOYC_CHILD=name`, for tests whose
/// program ends the process (stack overflow, `exit`).
fn run_child(test: &str) -> std::process::Output {
    let exe = std::env::current_exe().expect("test binary");
    std::process::Command::new(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env("TOYC_CHILD", test)
        .output()
        .expect("child")
}

/// In the child of [`run_child`] named `test`: runs `ir` (and an empty
/// `<init>`), which must end the process.
fn run_in_child(test: &str, ir: &str, optimize: bool) {
    if std::env::var("TOYC_CHILD").is_ok_and(|v| v == test) {
        let (m, sources) = parse(&format!("{ir}\n{EMPTY_INIT}"), "x");
        let code = super::run_module(&m, &sources, &options(optimize), &[]);
        panic!("the run returned {code} instead of ending the process");
    }
}

#[test]
fn stack_overflow_is_reported_after_flushing_output() {
    const NAME: &str = "codegen::tests::stack_overflow_is_reported_after_flushing_output";
    run_in_child(NAME, &main_printing_depth(i64::MAX), true);
    let out = run_child(NAME);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(101),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("1\n"), "{stdout}");
    assert!(stderr.ends_with("error: stack overflow\n"), "{stderr}");
}

#[test]
fn exit_flushes_output_and_ends_with_its_code() {
    const NAME: &str = "codegen::tests::exit_flushes_output_and_ends_with_its_code";
    let ir = "\
fn main()
1 ─      runtime print_int(9)
│        runtime exit(3)
└──      unreachable
";
    run_in_child(NAME, ir, false);
    let out = run_child(NAME);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains('9'));
}

#[test]
fn arrays_structs_and_globals() {
    // a = [1.5; 2]; a[1] = 2.5; push(a, 4.0); push(a, -0.0); x = pop(a);
    // print(a, len(a), x, a[2]); g = P { ok: true, name: "n", next: nil };
    // print(g.ok, g)
    let ir = "\
struct P { ok::bool, name::str, next::P }
var @g::P

fn main()
1 ─ %1  = new [float](len 2, fill 1.5)::[float]
│         store %1[1] = 2.5
│         runtime array_push(%1, 4.0)
│         runtime array_push(%1, -0.0)
│   %5  = runtime array_pop(%1)::float
│         runtime print_value(%1)
│         runtime print_space()
│   %8  = load len(%1)::int
│         runtime print_int(%8)
│         runtime print_space()
│         runtime print_float(%5)
│         runtime print_space()
│   %13 = load %1[2]::float
│         runtime print_float(%13)
│         runtime print_space()
│   %16 = \"n\"::str
│   %17 = new P(true, %16, nil)::P
│         store @g = %17
│   %19 = load @g::P
│   %20 = load %19.ok::bool
│         runtime print_bool(%20)
│         runtime print_space()
│         runtime print_value(%19)
│         runtime print_newline()
└──       return
";
    assert_eq!(
        run_main(ir, "x"),
        (
            0,
            "[1.5, 2.5, 4.0] 3 -0.0 4.0 true P { ok: true, name: \"n\", next: nil }\n".to_string()
        )
    );
}

/// `(x + 1) + 1 ...` `n` times: about `2n` Cranelift instructions.
fn add_chain(n: usize) -> String {
    let mut ir = String::from("fn chain(_1::int, _2::int) -> int\n1 ─ %1 = iadd(_1, 1)::int\n");
    for k in 2..=n {
        ir.push_str(&format!("│   %{k} = iadd(%{}, 1)::int\n", k - 1));
    }
    ir.push_str(&format!("└──  return %{n}\n"));
    ir
}

#[test]
fn only_huge_functions_use_the_large_function_allocator() {
    for (n, large) in [(100, 0), (super::LARGE_FUNCTION_INSTS, 1)] {
        let (m, sources) = parse(&add_chain(n), "x");
        for optimize in [false, true] {
            let mut cx = Compiler::new(&m, &sources, &options(optimize)).expect("compiler");
            cx.compile(super::Emit::All).expect("compile");
            assert_eq!(
                cx.large_functions, large,
                "{n} additions, optimize={optimize}"
            );
            let p = cx.module.get_finalized_function(cx.funcs[0]) as usize;
            assert_eq!(call2(p, 5, 0), 5 + n as i64);
            // SAFETY: nothing compiled runs any more.
            unsafe { cx.module.free_memory() };
        }
    }
}

/// `fsum(n)`: x = 0.5; repeat n times { x += 1.5 }; return x * 2.5. The
/// constant 1.5 is used on the loop's cycle, 0.5 (on the entry edge) and
/// 2.5 (after the loop) are not.
const FLOAT_LOOP: &str = "\
fn fsum(_1::int) -> float
1 ─      goto #2
2 ┄ %2 = φ (#1 => 0, #3 => %7)::int
│   %3 = φ (#1 => 0.5, #3 => %6)::float
│   %4 = ilt(%2, _1)::bool
└──      goto #4 if not %4
3 ─ %6 = fadd(%3, 1.5)::float
│   %7 = iadd(%2, 1)::int
└──      goto #2
4 ─ %9 = fmul(%3, 2.5)::float
└──      return %9
";

#[test]
fn float_constants_in_loops_are_movable_loads() {
    let (m, sources) = parse(FLOAT_LOOP, "x");
    let clif = super::asm::module_listing(
        &m,
        &sources,
        &options(true),
        None,
        super::asm::Listing::Clif,
    )
    .expect("clif");
    let lines = |pat: &str| clif.lines().filter(|l| l.contains(pat)).count();
    assert_eq!(
        lines("load.f64 notrap aligned readonly can_move"),
        1,
        "{clif}"
    );
    // The load is placed before the loop (`invariant.rs`): its block is
    // not the one that adds.
    let load_block = clif
        .split("\nblock")
        .find(|b| b.contains("readonly can_move"))
        .unwrap_or_default();
    assert!(!load_block.contains("fadd"), "{clif}");
    assert_eq!(lines("fadd"), 1, "{clif}");
    assert_eq!(lines("f64const"), 2, "{clif}");
    assert_eq!(lines("f64const 0x1.0000000000000p-1"), 1, "{clif}");
    assert_eq!(lines("f64const 0x1.4000000000000p1"), 1, "{clif}");
    with_compiled(FLOAT_LOOP, |p| {
        // SAFETY: a compiled `(int) -> float` function.
        let f: extern "C" fn(i64) -> f64 = unsafe { std::mem::transmute(p[0]) };
        assert_eq!(f(0), 1.25);
        assert_eq!(f(3), 12.5);
        assert_eq!(f(1000), (0.5 + 1500.0) * 2.5);
    });
}

#[test]
fn a_run_compiles_the_functions_init_and_main_reach() {
    let ir = format!(
        "\
fn unused() -> int
1 ─ %1 = invoke helper()::int
└──      return %1
fn main()
1 ─ %1 = invoke helper()::int
│         runtime print_int(%1)
│         runtime print_newline()
└──      return
fn helper() -> int
1 ─      return 7
{EMPTY_INIT}"
    );
    let (m, sources) = parse(&ir, "x");
    let names: Vec<&str> = super::reachable_functions(&m)
        .into_iter()
        .map(|f| m.funcs[f].name.as_str())
        .collect();
    assert_eq!(names, ["main", "helper", "<init>"]);
    assert_eq!(run_parsed(&m, &sources), (0, "7\n".to_string()));
}

/// Every libcall Cranelift can name resolves in toyc's own table (a static
/// toyc has no `dlsym`), to a function that computes what its C namesake
/// does, ties of `nearbyint` to even included.
#[test]
fn libcalls_resolve_without_dlsym() {
    use cranelift_codegen::ir::LibCall;
    let names = cranelift_module::default_libcall_names();
    let call1 = |name: &str, x: f64| -> f64 {
        let f: extern "C" fn(f64) -> f64 =
            unsafe { std::mem::transmute(super::libcall_address(name).unwrap()) };
        f(x)
    };
    let call1f = |name: &str, x: f32| -> f32 {
        let f: extern "C" fn(f32) -> f32 =
            unsafe { std::mem::transmute(super::libcall_address(name).unwrap()) };
        f(x)
    };
    assert_eq!(call1(&names(LibCall::FloorF64), -2.5), -3.0);
    assert_eq!(call1(&names(LibCall::CeilF64), -2.5), -2.0);
    assert_eq!(call1(&names(LibCall::TruncF64), -2.7), -2.0);
    assert_eq!(call1(&names(LibCall::NearestF64), 2.5), 2.0);
    assert_eq!(call1(&names(LibCall::NearestF64), 3.5), 4.0);
    assert_eq!(call1f(&names(LibCall::FloorF32), 1.5), 1.0);
    assert_eq!(call1f(&names(LibCall::CeilF32), 1.5), 2.0);
    assert_eq!(call1f(&names(LibCall::TruncF32), -1.5), -1.0);
    assert_eq!(call1f(&names(LibCall::NearestF32), -0.5), -0.0);
    let fma: extern "C" fn(f64, f64, f64) -> f64 =
        unsafe { std::mem::transmute(super::libcall_address(&names(LibCall::FmaF64)).unwrap()) };
    // Rounded once: (1 + 2^-52)^2 - 1 keeps the 2^-104 term.
    let x = 1.0 + f64::EPSILON;
    assert_eq!(
        fma(x, x, -1.0),
        2.0 * f64::EPSILON + f64::EPSILON * f64::EPSILON
    );
    for call in [
        LibCall::FmaF32,
        LibCall::Memcpy,
        LibCall::Memset,
        LibCall::Memmove,
        LibCall::Memcmp,
    ] {
        assert!(super::libcall_address(&names(call)).is_some(), "{call:?}");
    }
    assert!(super::libcall_address("toy_no_such_function").is_none());
}
