//! The IR text parser (`toyc::ir::parse`): it reads back what the printer
//! writes, for every function of every program in `lang-tests/` and
//! `examples/` that compiles, at -O0 and after the -O2 pipeline (and -O2
//! on the parsed -O0 text gives the IR -O2 gives); and it reports
//! malformed input as errors with a position, never by panicking.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toyc::ir::parse::parse;
use toyc::ir::print::print_module_with;
use toyc::ir::{IrCode, Module, Operand};
use toyc::span::{SourceMap, Span};

fn toy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            toy_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toy" || e == "bril") {
            out.push(p);
        }
    }
}

/// The IR of `path` (Toy or Bril) at -O0, or `None` when it does not
/// compile.
fn build(path: &Path) -> Option<Module> {
    let mut sources = SourceMap::new();
    if toyc::bril::is_bril_path(path) {
        let file = toyc::driver::load_main_file(path, &mut sources).ok()?;
        let (prog, checked) = toyc::bril::load(&sources, file).ok()?;
        return Some(toyc::ssa::bril::build_bril_module(&prog, &checked, None));
    }
    let program = toyc::driver::check_file(path, &mut sources).ok()?;
    Some(toyc::ssa::build_module(Arc::new(program)))
}

/// `f` with every span cleared (the text form has no source positions)
/// and every block's predecessors in block order (the text gives the
/// predecessor set, not the order the CFG edits left it in).
fn normalised(f: &IrCode) -> IrCode {
    let mut f = f.clone();
    f.span = Span::default();
    f.stmts.span.values_mut().for_each(|s| *s = Span::default());
    f.cfg.blocks.values_mut().for_each(|b| b.preds.sort());
    // NaN payloads other than the sign are not printed.
    for inst in f.stmts.inst.values_mut() {
        toyc::ir::edit::for_each_operand_mut(inst, |op| {
            if let Operand::Float(x) = op
                && x.is_nan()
            {
                *x = f64::NAN.copysign(*x);
            }
        });
    }
    f
}

/// Where `a` and `b` first differ, or `None` when they are equal.
fn first_difference(a: &IrCode, b: &IrCode) -> Option<String> {
    let s = &a.stmts;
    let t = &b.stmts;
    for i in (0..s.len().max(t.len()) as u32).map(toyc::ir::Value) {
        let row = |x: &toyc::ir::InstructionStream| {
            (
                x.inst.get(i).cloned(),
                x.ty.get(i).cloned(),
                x.flags.get(i).copied(),
            )
        };
        if row(s) != row(t) {
            return Some(format!("statement {i}: {:?} vs {:?}", row(s), row(t)));
        }
    }
    if a.cfg != b.cfg {
        return Some(format!("CFG: {:?} vs {:?}", a.cfg, b.cfg));
    }
    (a != b).then(|| format!("{a:?} vs {b:?}"))
}

/// Prints `m`, parses it, and checks the result: with `!flags`, the same
/// functions (spans aside) and the same tables; without, the same text.
fn round_trip(m: &Module, what: &str) {
    let text = print_module_with(m, None, None, true);
    let back = match parse(&text) {
        Ok(b) => b,
        Err(errs) => panic!("{what}: does not parse back:\n{errs:?}\n{text}"),
    };
    assert_eq!(back.funcs.len(), m.funcs.len(), "{what}");
    for (a, b) in m.funcs.iter().zip(&back.funcs) {
        if let Some(d) = first_difference(&normalised(a), &normalised(b)) {
            panic!("{what}: `{}` differs: {d}\n{text}", a.name);
        }
    }
    let (p, q) = (&m.program, &back.program);
    assert_eq!(p.structs.len(), q.structs.len(), "{what}");
    assert_eq!(p.globals.len(), q.globals.len(), "{what}");
    assert_eq!((p.main, p.init), (q.main, q.init), "{what}");
    let plain = print_module_with(m, None, None, false);
    let back = parse(&plain).unwrap_or_else(|e| panic!("{what}: {e:?}\n{plain}"));
    assert_eq!(print_module_with(&back, None, None, false), plain, "{what}");
}

/// Runs the -O2 pipeline on `m` with the verifier.
fn optimise(m: &mut Module, name: &str) {
    let opts = toyc::opt::PipelineOptions {
        passes: toyc::opt::default_passes(2),
        verify: true,
        ..Default::default()
    };
    let mut counters = toyc::opt::Counters::default();
    toyc::opt::run_pipeline(m, &opts, &mut counters, &|_| String::new())
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
}

#[test]
fn every_program_round_trips_at_o0_and_o2() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    toy_files(&root.join("lang-tests"), &mut files);
    toy_files(&root.join("examples"), &mut files);
    let mut checked = 0;
    for path in &files {
        let Some(mut m) = build(path) else { continue };
        let name = path.display().to_string();
        round_trip(&m, &format!("{name} at -O0"));
        // What `toyc ir -O0 --flags` prints, optimised by `toyc opt`.
        let mut parsed = parse(&print_module_with(&m, None, None, true)).expect("parses");
        optimise(&mut m, &name);
        optimise(&mut parsed, &name);
        round_trip(&m, &format!("{name} at -O2"));
        assert_eq!(
            print_module_with(&parsed, None, None, true),
            print_module_with(&m, None, None, true),
            "{name}: -O2 on the parsed -O0 text differs from -O2"
        );
        checked += 1;
    }
    assert!(checked > 350, "only {checked} programs compiled");
}

/// The first error of `text` as `line:col: message`.
fn error(text: &str) -> String {
    match parse(text) {
        Ok(_) => panic!("parses:\n{text}"),
        Err(errs) => errs[0].to_string(),
    }
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(
        error("fn f() -> int\n1 ─ %1 = iadd(1, )::int\n  └── return %1\n"),
        "2:18: expected an operand, found `)`"
    );
    assert_eq!(
        error("fn f() -> int\n1 ─ return %4\n"),
        "2:5: value %4 is not defined"
    );
    assert_eq!(
        error("fn f()\n1 ─ goto #7\n"),
        "2:5: block #7 is not defined"
    );
    assert_eq!(
        error("fn f() -> Point\n1 ─ return nil\n"),
        "1:11: unknown type `Point`"
    );
    assert_eq!(
        error("fn f() -> int\n1 ─ %1 = frob(1)::int\n"),
        "2:10: expected an instruction, found `frob`"
    );
    assert_eq!(
        error("fn f()\n1 ─ %1 = \"abc\n"),
        "2:10: unterminated string"
    );
    assert_eq!(
        error("fn f()\n  │ ; only a comment\n"),
        "1:1: function `f` has no statements"
    );
    assert_eq!(
        error("%1 = iadd(1, 2)::int\n"),
        "1:1: expected `struct`, `let`, `var` or `fn` (statements belong to a function)"
    );
}

#[test]
fn verifier_errors_are_parse_errors_at_the_function() {
    // The type of `iadd` is wrong: reported, not an internal error.
    let e = error("fn f() -> int\n1 ─ %1 = iadd(1, 2)::bool\n  └── return %1\n");
    assert!(e.starts_with("1:1: invalid IR in `f`: "), "{e}");
}

#[test]
fn hand_written_numbers_are_renumbered() {
    let text = "fn f(int) -> int\n\
                5 - %10 = iadd(_1, 1)::int\n    \
                goto #9 if not true\n\
                7 - %20 = phi(#5 => %10)::int\n    \
                return %20\n\
                9 - unreachable\n";
    let m = parse(text).unwrap_or_else(|e| panic!("{e:?}"));
    let printed = print_module_with(&m, None, None, false);
    assert_eq!(
        printed,
        "fn f(_1::int) -> int\n\
         \x201 ─ %1 = iadd(_1, 1)::int\n\
         \x20└──      goto #3 if not true\n\
         \x202 ─ %3 = φ (#1 => %1)::int\n\
         \x20└──      return %3\n\
         \x203 ─      unreachable\n"
    );
}

#[test]
fn malformed_input_never_panics() {
    let base = "struct P { x::int, next::P }\nvar @g::[int]\n\
                fn f(_1::P, _2::int) -> int\n\
                1 ─ %1 = load _1.x::int\n  │   %2 = π (%1, 0 <= _ < _2)::int\n  \
                │        store @g[%2] = 1\n  └──      return %2\n";
    assert!(parse(base).is_err(), "store to a global with an index");
    for cut in 0..base.len() {
        if base.is_char_boundary(cut) {
            let _ = parse(&base[..cut]);
            let mut s = base.to_string();
            s.insert(cut, '(');
            let _ = parse(&s);
        }
    }
}

/// Every filetest input, mutated line by line (deleted, duplicated, moved
/// to the front) and character by character (deleted), parses or fails
/// with errors: the parser and the verifier it runs never panic.
#[test]
fn mutated_filetest_inputs_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let mut texts = Vec::new();
    for e in std::fs::read_dir(dir).expect("filetests") {
        let text = std::fs::read_to_string(e.expect("entry").path()).expect("read");
        let input = text
            .split("; expect:")
            .next()
            .unwrap_or_default()
            .to_string();
        texts.push(input);
    }
    let mut mutants = Vec::new();
    for t in &texts {
        let lines: Vec<&str> = t.lines().collect();
        for i in 0..lines.len() {
            let mut del = lines.clone();
            del.remove(i);
            let mut dup = lines.clone();
            dup.insert(i, lines[i]);
            let mut front = lines.clone();
            let l = front.remove(i);
            front.insert(0, l);
            mutants.extend([del, dup, front].map(|ls| ls.join("\n")));
        }
        for (i, _) in t.char_indices() {
            let mut s = t.clone();
            s.remove(i);
            mutants.push(s);
        }
    }
    let panics: Vec<&String> = mutants
        .iter()
        .filter(|m| std::panic::catch_unwind(|| parse(m)).is_err())
        .collect();
    assert!(
        panics.is_empty(),
        "{} panics, the first:\n{}",
        panics.len(),
        panics[0]
    );
}

#[test]
fn memssa_output_of_every_example_parses_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    toy_files(&root.join("examples"), &mut files);
    for path in &files {
        let mut sources = SourceMap::new();
        let Ok(program) = toyc::driver::check_file(path, &mut sources) else {
            continue;
        };
        let mut m = toyc::ssa::build_module(Arc::new(program));
        optimise(&mut m, &path.display().to_string());
        let text = toyc::memssa::print::print_module(&m, &sources, None, true);
        let back = parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert_eq!(
            print_module_with(&back, None, None, false),
            print_module_with(&m, None, None, false),
            "{}",
            path.display()
        );
    }
}
