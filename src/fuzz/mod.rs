//! `toyc fuzz`: a differential fuzzer. It generates random well-typed,
//! terminating Toy programs (`generate`), prints them (`print`), computes their
//! expected output with its own reference evaluator (`oracle`), runs the
//! toyc binary on them in every mode (`exec`), and for each disagreement
//! shrinks the program (`shrink`) and names the pass to blame (`bisect`).
//! See docs/fuzzing.md.
//!
//! Invariants: this module uses nothing of the compiler (no syntax, sema,
//! ssa, ir, opt or interp code): toyc is only ever run as a subprocess, so
//! its crashes and hangs are results, not the fuzzer's death. The program
//! of a seed is the same on every run (own PRNG, no hash-order dependence).

pub mod ast;
pub mod bisect;
pub mod builtins;
pub mod exec;
mod gen_expr;
mod gen_lib;
mod gen_loops;
pub mod generate;
pub mod io;
pub mod oracle;
pub mod print;
pub mod rng;
pub mod shrink;
pub mod stdlib;
pub mod value;

use exec::{RunResult, run_toyc};
use oracle::Outcome;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The file name programs are run as (in a per-worker folder).
pub const FILE: &str = "fuzz.toy";

/// How many generation attempts a seed gets before it counts as skipped.
const ATTEMPTS: u64 = 8;

/// One way of running toyc: a name for reports and the arguments before
/// the file.
pub struct Mode {
    pub name: &'static str,
    pub args: &'static [&'static str],
}

/// Every mode a program is compared in (all with `TOYC_VERIFY=1`). The
/// oracle knows nothing of warnings (generated programs often have unused
/// variables or compare literals), so every mode passes `-A warnings`; the
/// lint still runs, so a crash in it is still found.
pub const MODES: &[Mode] = &[
    Mode {
        name: "O0",
        args: &["run", "-A", "warnings", "-O0"],
    },
    Mode {
        name: "O2",
        args: &["run", "-A", "warnings", "-O2"],
    },
    Mode {
        name: "interp-O0",
        args: &["run", "-A", "warnings", "--interp", "-O0"],
    },
    Mode {
        name: "interp-O2",
        args: &["run", "-A", "warnings", "--interp", "-O2"],
    },
    Mode {
        name: "check",
        args: &["check", "-A", "warnings"],
    },
];

/// What `toyc fuzz` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub count: u64,
    /// Stop starting new programs after this long.
    pub time: Option<Duration>,
    /// Write failing programs (original and minimized) here.
    pub keep: Option<PathBuf>,
    pub jobs: usize,
    /// The toyc binary to test.
    pub exe: PathBuf,
    /// Per-run timeout: a run taking longer is a hang.
    pub timeout: Duration,
    /// The -O2 pipeline, for bisection.
    pub passes: Vec<String>,
    /// Shrink and bisect failures.
    pub shrink: bool,
}

/// A generated program with its expected outcome.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    pub prog: ast::Program,
    pub source: print::Sources,
    pub expected: Outcome,
}

/// The program of `seed`: `Err(attempts)` if the oracle rejected every
/// attempt (too long, cyclic output).
pub fn make_case(seed: u64) -> Result<Case, u64> {
    for attempt in 0..ATTEMPTS {
        let mut prog = generate::generate(seed.wrapping_mul(ATTEMPTS).wrapping_add(attempt));
        let source = print::print_program(&mut prog);
        if let Ok(expected) = oracle::evaluate(&prog, FILE) {
            return Ok(Case {
                seed,
                prog,
                source,
                expected,
            });
        }
    }
    Err(ATTEMPTS)
}

/// What `mode` should give for a program whose run gives `run`.
pub fn expected_in(mode: &Mode, run: &Outcome) -> Outcome {
    if mode.args[0] == "check" {
        Outcome {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        }
    } else {
        run.clone()
    }
}

/// How a run disagrees with the oracle (shrinking keeps the class).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Timeout,
    /// A crash, a panic, an internal compiler error or a verifier failure.
    Internal,
    /// Different stdout, stderr or exit code.
    Wrong,
}

/// `None` if `got` is what was expected.
pub fn classify(expected: &Outcome, got: &RunResult) -> Option<Class> {
    match got {
        RunResult::Timeout => Some(Class::Timeout),
        RunResult::Exited(o) if o == expected => None,
        RunResult::Exited(o) => {
            let internal =
                o.code == 70 || o.code < 0 || o.stderr.contains("internal compiler error");
            Some(if internal {
                Class::Internal
            } else {
                Class::Wrong
            })
        }
    }
}

/// Totals of a fuzzing run.
#[derive(Default, Debug)]
struct Totals {
    programs: u64,
    failed: u64,
    skipped: u64,
    last_seed: u64,
}

/// Runs the fuzzer; returns the exit code (1 if any program disagreed).
pub fn run(opts: &Options) -> i32 {
    let base = std::env::temp_dir().join(format!("toyc-fuzz-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&base) {
        eprintln!("error: cannot create {}: {e}", base.display());
        return 2;
    }
    if let Some(k) = &opts.keep
        && let Err(e) = std::fs::create_dir_all(k)
    {
        eprintln!("error: --keep: cannot create {}: {e}", k.display());
        return 2;
    }
    let start = Instant::now();
    let next = AtomicU64::new(0);
    let totals = Mutex::new(Totals::default());
    std::thread::scope(|scope| {
        for w in 0..opts.jobs.max(1) {
            let dir = base.join(format!("w{w}"));
            let (next, totals) = (&next, &totals);
            scope.spawn(move || worker(opts, &dir, next, totals, start));
        }
    });
    let _ = std::fs::remove_dir_all(&base);
    let t = totals.into_inner().unwrap_or_default();
    let last = if t.programs == 0 {
        opts.seed
    } else {
        t.last_seed
    };
    println!(
        "fuzz: {} programs (seeds {}..={}), {} disagreed, {} skipped by the oracle, {:.1}s with {} worker(s)",
        t.programs,
        opts.seed,
        last,
        t.failed,
        t.skipped,
        start.elapsed().as_secs_f64(),
        opts.jobs.max(1)
    );
    if t.failed > 0 { 1 } else { 0 }
}

fn worker(opts: &Options, dir: &Path, next: &AtomicU64, totals: &Mutex<Totals>, start: Instant) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    loop {
        if opts.time.is_some_and(|t| start.elapsed() >= t) {
            return;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= opts.count {
            return;
        }
        let seed = opts.seed.wrapping_add(i);
        let (failed, skipped) = match make_case(seed) {
            Ok(case) => {
                let report = check_case(opts, dir, &case);
                if let Some(text) = &report {
                    print!("{text}");
                }
                (report.is_some(), 0)
            }
            Err(n) => (false, n),
        };
        let mut t = totals.lock().unwrap_or_else(|e| e.into_inner());
        t.programs += 1;
        t.failed += failed as u64;
        t.skipped += skipped;
        t.last_seed = t.last_seed.max(seed);
        if t.programs.is_multiple_of(1000) {
            eprintln!(
                "fuzz: {} programs, {} disagreed, {:.0}s",
                t.programs,
                t.failed,
                start.elapsed().as_secs_f64()
            );
        }
    }
}

/// Runs `case` in every mode; on disagreement returns the report (after
/// shrinking and bisecting if asked).
fn check_case(opts: &Options, dir: &Path, case: &Case) -> Option<String> {
    if !exec::stage(dir, FILE, &case.source, &case.prog.stdin) {
        return Some(format!(
            "FAIL seed {}: cannot write the program\n",
            case.seed
        ));
    }
    let mut fails = Vec::new();
    for (m, mode) in MODES.iter().enumerate() {
        if let (got, Some(class)) = run_mode(opts, dir, mode, &case.expected) {
            fails.push((m, class, got));
        }
    }
    if fails.is_empty() {
        return None;
    }
    Some(report::failure(opts, dir, case, &fails))
}

/// Runs the program staged in `dir` in `mode`: what it gave, and how that
/// fails against the oracle's `expected` (`None`: it agrees).
fn run_mode(
    opts: &Options,
    dir: &Path,
    mode: &Mode,
    expected: &Outcome,
) -> (RunResult, Option<Class>) {
    let got = run_toyc(
        &opts.exe,
        dir,
        &dir.join("run"),
        mode.args,
        FILE,
        opts.timeout,
        true,
    );
    let class = classify(&expected_in(mode, expected), &got);
    (got, class)
}

mod report;
