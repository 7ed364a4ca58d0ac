//! The report of one disagreement: what each failing mode gave, the
//! minimized program, the pass bisection names, and the files `--keep`
//! writes.
//!
//! Invariant: the minimized program still fails in the first failing mode
//! with the same [`Class`], and its expected output is recomputed by the
//! oracle (never reused from the original program).

use super::bisect::{self, Setup, Verdict};
use super::exec::{self, RunResult};
use super::oracle::{self, Outcome};
use super::{Case, Class, FILE, MODES, Options, classify, print, run_mode, shrink};
use std::fmt::Write;
use std::path::Path;

/// How many candidate programs the shrinker may run.
const SHRINK_TRIES: usize = 600;

pub fn failure(
    opts: &Options,
    dir: &Path,
    case: &Case,
    fails: &[(usize, Class, RunResult)],
) -> String {
    let mut out = String::new();
    let names: Vec<&str> = fails.iter().map(|(m, ..)| MODES[*m].name).collect();
    let _ = writeln!(
        out,
        "FAIL seed {}: {} disagree with the oracle",
        case.seed,
        names.join(", ")
    );
    let _ = writeln!(out, "  expected: {}", describe(&case.expected));
    for (m, class, got) in fails {
        let _ = writeln!(out, "  {:9} ({class:?}): {}", MODES[*m].name, got.brief());
    }
    let min_case = if opts.shrink {
        minimize(opts, dir, case, fails[0].0, fails[0].1)
    } else {
        None
    };
    let shown = min_case.as_ref().unwrap_or(case);
    if opts.shrink {
        let _ = writeln!(out, "  blame: {}", blame(opts, dir, shown, fails));
    }
    if let Some(k) = &opts.keep {
        keep(k, case, min_case.as_ref());
    }
    let label = if min_case.is_some() {
        "minimized program"
    } else {
        "program"
    };
    let _ = writeln!(out, "  {label} (expected: {}):", describe(&shown.expected));
    for line in shown.source.text().lines() {
        let _ = writeln!(out, "    {line}");
    }
    out
}

/// One line: exit code, stdout size and the first stderr line.
fn describe(o: &Outcome) -> String {
    let err = o
        .stderr
        .lines()
        .next()
        .map(|l| format!(", {l}"))
        .unwrap_or_default();
    format!("exit {}, {} bytes of stdout{err}", o.code, o.stdout.len())
}

/// Shrinks the case while mode `m` still fails with `class`.
fn minimize(opts: &Options, dir: &Path, case: &Case, m: usize, class: Class) -> Option<Case> {
    let mode = &MODES[m];
    let mut still_fails = |p: &super::ast::Program| {
        let mut p = p.clone();
        let source = print::print_program(&mut p);
        let Ok(expected) = oracle::evaluate(&p, FILE) else {
            return false;
        };
        if !exec::stage(dir, FILE, &source, &p.stdin) {
            return false;
        }
        run_mode(opts, dir, mode, &expected).1 == Some(class)
    };
    let mut small = shrink::shrink(&case.prog, SHRINK_TRIES, &mut still_fails);
    let source = print::print_program(&mut small);
    let expected = oracle::evaluate(&small, FILE).ok()?;
    Some(Case {
        seed: case.seed,
        prog: small,
        source,
        expected,
    })
}

/// Which pass to blame, by bisecting an optimizing failing mode.
fn blame(opts: &Options, dir: &Path, case: &Case, fails: &[(usize, Class, RunResult)]) -> String {
    let opt_fail = fails.iter().find(|(m, ..)| MODES[*m].args.contains(&"-O2"));
    let Some((m, ..)) = opt_fail else {
        return "no pass (only unoptimized modes or check fail)".into();
    };
    if !exec::stage(dir, FILE, &case.source, &case.prog.stdin) {
        return "unknown (cannot write the program)".into();
    }
    let interp = MODES[*m].args.contains(&"--interp");
    let setup = Setup {
        exe: &opts.exe,
        dir,
        scratch: &dir.join("bisect"),
        file: FILE,
        passes: &opts.passes,
        interp,
        timeout: opts.timeout,
        staged: true,
    };
    let mut is_bad = |r: &RunResult| classify(&case.expected, r).is_some();
    let where_ = if interp { "--interp -O2" } else { "-O2" };
    match bisect::bisect(&setup, &mut is_bad, &mut |_, _| {}) {
        Verdict::NoPass => {
            format!("no pass: {where_} --passes=none already disagrees (front end, SSA or backend)")
        }
        Verdict::Clean => {
            format!("none found: {where_} with the full pass list agrees on the minimized program")
        }
        Verdict::FirstBad(k) => {
            format!(
                "pass `{}` (#{} of {}, {where_}; `toyc bisect` reproduces)",
                opts.passes[k],
                k + 1,
                opts.passes.len()
            )
        }
    }
}

/// Writes the folder `seed-N` into `dir`: the program as the fuzzer ran
/// it (`fuzz.toy`, its module `fzm.toy` if it has one, its input
/// `fuzz.stdin`) with the expected outcome in `expected`, and the same for
/// the minimized program in `seed-N/min`.
fn keep(dir: &Path, case: &Case, min: Option<&Case>) {
    let write = |at: &Path, c: &Case| {
        let _ = std::fs::create_dir_all(at);
        exec::stage(at, FILE, &c.source, &c.prog.stdin);
        let e = &c.expected;
        let expected = format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            e.code, e.stdout, e.stderr
        );
        let _ = std::fs::write(at.join("expected"), expected);
    };
    let base = dir.join(format!("seed-{}", case.seed));
    write(&base, case);
    if let Some(m) = min {
        write(&base.join("min"), m);
    }
}
