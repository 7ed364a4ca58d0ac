//! The lang-tests harness: every `.toy` file under `lang-tests/` and
//! `examples/`, and every `.bril` file (Bril programs, whose header
//! comments start with `#` instead of `//`), is a test whose expectations are written in comments at the
//! top of the file (the format is documented in `lang-tests/README.md`).
//!
//! Each (file × mode) pair is one libtest trial named `PATH::MODE`, where
//! PATH is relative to `lang-tests/` (or starts with `examples/`), so
//! `cargo test --test lang_tests wrapping` filters by name and trials run in
//! parallel. A trial runs the freshly built `toyc` binary with stdin closed
//! (or fed the file's `// stdin:` text), `NO_COLOR=1`, and a timeout, from
//! the repository root.
//!
//! Which modes a file gets:
//! - a compile-error test (`// error:`) or a check-only test
//!   (`// check-only:`): `check` only. A check-only file also gets its run
//!   modes as ignored trials (`cargo test -- --ignored` shows how far the
//!   backend has come).
//! - every other test: each mode in [`RUN_MODES`].
//!
//! The harness is split by job: `header.rs` reads a file's directives into
//! a [`header::Spec`], `runner.rs` runs `toyc` on a [`runner::Case`] in one
//! mode, and `judge.rs` compares the output with the spec and describes
//! each difference.

mod header;
mod judge;
mod runner;

use header::FileKind;
use libtest_mimic::{Arguments, Trial};
use runner::Case;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A way of executing a runnable test: the `toyc` arguments placed before
/// the file. Adding a mode is one line in [`RUN_MODES`].
pub(crate) struct Mode {
    pub(crate) name: &'static str,
    pub(crate) args: &'static [&'static str],
    /// Environment variables set for the run.
    pub(crate) env: &'static [(&'static str, &'static str)],
}

const RUN_MODES: &[Mode] = &[
    Mode {
        name: "O0",
        args: &["run", "-O0"],
        env: &[],
    },
    Mode {
        name: "O2",
        args: &["run", "-O2"],
        env: &[],
    },
    Mode {
        name: "interp",
        args: &["run", "--interp"],
        env: &[],
    },
    Mode {
        name: "O0-gc-stress",
        args: &["run", "-O0"],
        env: &[STRESS],
    },
    Mode {
        name: "O2-gc-stress",
        args: &["run", "-O2"],
        env: &[STRESS],
    },
    Mode {
        name: "interp-gc-stress",
        args: &["run", "--interp"],
        env: &[STRESS],
    },
];

/// A collection at every safepoint: any missing root shows up as a wrong
/// answer or a crash.
const STRESS: (&str, &str) = ("TOYC_GC_STRESS", "1");

pub(crate) const CHECK_MODE: Mode = Mode {
    name: "check",
    args: &["check"],
    env: &[],
};

/// The folders holding tests, relative to the repository root, with the
/// prefix their trial names get.
const ROOTS: &[(&str, &str)] = &[("lang-tests", ""), ("examples", "examples/")];

/// How long one run may take before it is killed and reported.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(20);
/// The same for a stress-mode run of a `// gc-stress:` file (an ignored
/// trial, run with `--ignored`).
pub(crate) const SLOW_STRESS_TIMEOUT: Duration = Duration::from_secs(900);

fn main() {
    let args = Arguments::from_args();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toyc = PathBuf::from(env!("CARGO_BIN_EXE_toyc"));
    let mut trials = Vec::new();
    let mut check_only: Vec<(String, String)> = Vec::new();
    let mut files = 0usize;
    for (dir, prefix) in ROOTS {
        let base = root.join(dir);
        let mut paths = Vec::new();
        collect_toy_files(&base, &mut paths);
        paths.sort();
        for path in paths {
            let rel_to_root = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let rel_to_base = path
                .strip_prefix(&base)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let name = format!("{prefix}{rel_to_base}");
            let text = match std::fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) => {
                    let msg = format!("cannot read {}: {e}", path.display());
                    trials.push(Trial::test(format!("{name}::parse"), move || {
                        Err(msg.into())
                    }));
                    continue;
                }
            };
            let marker = if path.extension().is_some_and(|e| e == "bril") {
                "#"
            } else {
                "//"
            };
            let spec = match header::parse_header(&text, marker) {
                Ok(FileKind::Helper) => continue,
                Ok(FileKind::Test(spec)) => *spec,
                Err(msg) => {
                    let msg = format!("{rel_to_root}: bad test header: {msg}");
                    trials.push(Trial::test(format!("{name}::header"), move || {
                        Err(msg.into())
                    }));
                    continue;
                }
            };
            files += 1;
            let case = Case {
                root: root.clone(),
                toyc: toyc.clone(),
                file: rel_to_root,
                spec,
            };
            if !case.spec.errors.is_empty() {
                trials.push(case.trial(&name, &CHECK_MODE, false));
            } else if let Some(reason) = &case.spec.check_only {
                check_only.push((name.clone(), reason.clone()));
                trials.push(case.trial(&name, &CHECK_MODE, false));
                for mode in RUN_MODES {
                    trials.push(case.trial(&name, mode, true));
                }
            } else {
                for mode in RUN_MODES {
                    trials.push(case.trial(&name, mode, case.slow_under_stress(mode)));
                }
            }
        }
    }
    if !args.list {
        summarise_check_only(files, &check_only);
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Prints how many tests are check-only, grouped by reason.
fn summarise_check_only(files: usize, check_only: &[(String, String)]) {
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for (_, r) in check_only {
        match reasons.iter_mut().find(|(x, _)| *x == r.as_str()) {
            Some((_, n)) => *n += 1,
            None => reasons.push((r, 1)),
        }
    }
    eprintln!(
        "lang-tests: {files} test files, {} of them check-only (type-checked, not run):",
        check_only.len()
    );
    for (r, n) in reasons {
        eprintln!("  {n:4}  {r}");
    }
}

fn collect_toy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_toy_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "toy" || e == "bril") {
            out.push(path);
        }
    }
}
