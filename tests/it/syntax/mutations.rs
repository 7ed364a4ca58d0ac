//! Mutation fuzzing of the front end on the stable toolchain: every
//! lang-test and example is mutated (byte and token edits, splices of two
//! files) and fed to parsing, checking and, for valid programs, SSA
//! construction and the IR verifier (`driver::front_end_on_text`). No input
//! may panic, take over [`HANG`], or build IR the verifier rejects.
//!
//! `cargo test --test it syntax::mutations` runs a fixed sample; the
//! campaign is `TOYC_FRONTEND_INPUTS=1000000 cargo test --release --test it
//! mutation_campaign -- --ignored` (the coverage-guided fuzzer is `fuzz/`,
//! see docs/fuzzing.md).

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use toyc::fuzz::rng::Rng;

/// The longest one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(10);

/// Tokens inserted by the token mutation: Toy's keywords, punctuation and
/// a few values that stress the checker.
const TOKENS: &[&str] = &[
    "fn",
    "let",
    "var",
    "if",
    "else",
    "while",
    "for",
    "in",
    "break",
    "continue",
    "return",
    "struct",
    "import",
    "true",
    "false",
    "nil",
    "throw",
    "try",
    "catch",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ".",
    "..",
    ":",
    "->",
    "=",
    "+=",
    "==",
    "<",
    ">>",
    "!",
    "-",
    "*",
    "/",
    "%",
    "'a",
    "'a:",
    "x",
    "main",
    "int",
    "float",
    "str",
    "[int]",
    "9223372036854775808",
    "0x",
    "1e999",
    "\"",
    "\"\\u{110000}\"",
    "/*",
    "*/",
    "//",
    "\n",
    "len",
    "push",
    "pop",
    "print",
    "math.",
    "import math;",
    "P { x: 1 }",
    "[0; -1]",
];

/// Every `.toy` file under `lang-tests/` and `examples/`.
fn seeds() -> Vec<Vec<u8>> {
    fn walk(dir: &Path, out: &mut Vec<Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toy") {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("lang-tests"), &mut out);
    walk(&root.join("examples"), &mut out);
    assert!(out.len() > 100, "the seed corpus is missing");
    out
}

/// One to four random edits of a random seed.
fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut t = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let n = t.len();
        let (a, b) = {
            let a = rng.below(n + 1);
            (a, (a + rng.below(64)).min(n))
        };
        match rng.below(6) {
            0 => drop(t.drain(a..b)),
            1 => {
                let piece = t[a..b].to_vec();
                let at = rng.below(n + 1);
                t.splice(at..at, piece);
            }
            2 => {
                let tok = TOKENS[rng.below(TOKENS.len())].as_bytes();
                t.splice(a..a, tok.iter().copied().chain([b' ']));
            }
            3 if a < n => t[a] = rng.next_u64() as u8,
            4 => {
                let other = &seeds[rng.below(seeds.len())];
                let c = rng.below(other.len() + 1);
                let d = (c + rng.below(400)).min(other.len());
                t.splice(a..b, other[c..d].iter().copied());
            }
            _ => {
                let tok = TOKENS[rng.below(TOKENS.len())].as_bytes();
                t.splice(a..b, tok.iter().copied());
            }
        }
    }
    t
}

/// Mutant `index` of `seed` again (the generator is deterministic).
fn replay(seed: u64, index: u64) -> Vec<u8> {
    let seeds = seeds();
    let mut rng = Rng::new(seed);
    let mut t = Vec::new();
    for _ in 0..=index {
        t = mutate(&mut rng, &seeds);
    }
    t
}

/// Runs `count` mutants from `seed` on a thread with the driver's stack;
/// panics with the failing input on the first failure.
fn campaign(seed: u64, count: u64) -> (u64, u64) {
    let seeds = seeds();
    let (tx, rx) = mpsc::channel::<(u64, Result<usize, String>)>();
    let worker = std::thread::Builder::new()
        .stack_size(toyc::driver::COMPILER_STACK)
        .spawn(move || {
            let mut rng = Rng::new(seed);
            for i in 0..count {
                let text = String::from_utf8_lossy(&mutate(&mut rng, &seeds)).into_owned();
                let verdict = std::panic::catch_unwind(|| toyc::driver::front_end_on_text(&text))
                    .unwrap_or_else(|_| Err("panic".into()));
                let failed = verdict.is_err();
                if tx
                    .send((
                        i,
                        verdict.map_err(|e| format!("{e}\n--- input ---\n{text}")),
                    ))
                    .is_err()
                    || failed
                {
                    return;
                }
            }
        })
        .unwrap();
    let (mut valid, mut done) = (0, 0);
    let mut last = Instant::now();
    while done < count {
        match rx.recv_timeout(HANG) {
            Ok((_, Ok(0))) => valid += 1,
            Ok((_, Ok(_))) => {}
            Ok((i, Err(e))) => panic!("mutant {i} of seed {seed} failed: {e}"),
            Err(_) => {
                let text = String::from_utf8_lossy(&replay(seed, done)).into_owned();
                panic!(
                    "mutant {done} of seed {seed} took over {HANG:?} (after {:?})\n--- input ---\n{text}",
                    last.elapsed()
                )
            }
        }
        done += 1;
        last = Instant::now();
    }
    worker.join().unwrap();
    (done, valid)
}

#[test]
fn mutated_programs_never_break_the_front_end() {
    let (done, valid) = campaign(1, 4000);
    assert_eq!(done, 4000);
    // The sample must reach SSA construction often enough to test it.
    assert!(
        valid > 200,
        "only {valid} of {done} mutants were valid programs"
    );
}

#[test]
#[ignore = "a long campaign: TOYC_FRONTEND_INPUTS=N (default 10^6)"]
fn mutation_campaign() {
    if let Some(i) = std::env::var("TOYC_FRONTEND_REPLAY")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        let seed = std::env::var("TOYC_FRONTEND_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(7);
        std::fs::write("mutant.toy", replay(seed, i)).unwrap();
        eprintln!("wrote mutant {i} of seed {seed} to mutant.toy");
        return;
    }
    let count = std::env::var("TOYC_FRONTEND_INPUTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed = std::env::var("TOYC_FRONTEND_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let start = Instant::now();
    let (done, valid) = campaign(seed, count);
    eprintln!(
        "{done} mutants ({valid} valid programs) in {:.1?}, no failure",
        start.elapsed()
    );
}
