//! Pass bisection, like LLVM's `-opt-bisect-limit`: runs prefixes of the
//! -O2 pass list (`--passes=p1,...,pk`) and finds the first pass after
//! which the program's output (stdout, stderr, exit code, including the
//! verifier's verdict under `TOYC_VERIFY=1`) differs from a reference.
//!
//! Invariants: prefixes are of the *actual* pipeline list, so a pass that
//! runs twice is bisected per occurrence; the search is binary over the
//! prefix length and assumes the prefix of length 0 (`--passes=none`) is
//! good and the whole list bad, so it returns a `k` where prefix `k - 1` is
//! good and prefix `k` is bad (the first such `k` when the verdict is
//! monotone).

use super::exec::{RunResult, run_toyc};
use std::path::Path;
use std::time::Duration;

/// The result of a bisection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Already bad with `--passes=none`: not a pass of ours.
    NoPass,
    /// Not bad with the whole list.
    Clean,
    /// Pass number `k` (0-based index into the list) is the first bad one.
    FirstBad(usize),
}

/// How to run one prefix.
pub struct Setup<'a> {
    pub exe: &'a Path,
    pub dir: &'a Path,
    pub scratch: &'a Path,
    pub file: &'a str,
    pub passes: &'a [String],
    pub interp: bool,
    pub timeout: Duration,
    /// Whether `dir` is a [`super::exec::stage`]d fuzz folder.
    pub staged: bool,
}

impl Setup<'_> {
    /// Runs toyc with the first `k` passes.
    pub fn run_prefix(&self, k: usize) -> RunResult {
        let list = if k == 0 {
            "none".to_string()
        } else {
            self.passes[..k].join(",")
        };
        let flag = format!("--passes={list}");
        let mut args = vec!["run", "-O2", flag.as_str()];
        if self.interp {
            args.push("--interp");
        }
        run_toyc(
            self.exe,
            self.dir,
            self.scratch,
            &args,
            self.file,
            self.timeout,
            self.staged,
        )
    }
}

/// Bisects with `is_bad` deciding whether a run differs from the reference.
/// `log` hears each step (prefix length, bad).
pub fn bisect(
    s: &Setup,
    is_bad: &mut dyn FnMut(&RunResult) -> bool,
    log: &mut dyn FnMut(usize, bool),
) -> Verdict {
    let mut probe = |k: usize| {
        let bad = is_bad(&s.run_prefix(k));
        log(k, bad);
        bad
    };
    if probe(0) {
        return Verdict::NoPass;
    }
    let n = s.passes.len();
    if !probe(n) {
        return Verdict::Clean;
    }
    let (mut good, mut bad) = (0, n);
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        if probe(mid) {
            bad = mid;
        } else {
            good = mid;
        }
    }
    Verdict::FirstBad(bad - 1)
}

/// `toyc bisect FILE`: the reference is the run with `--passes=none`.
/// Prints each step and the verdict; exit code 0 if no pass changes the
/// output, 1 if one does.
pub fn bisect_command(
    exe: &Path,
    file: &Path,
    passes: &[String],
    interp: bool,
    timeout: Duration,
) -> i32 {
    let scratch_dir = std::env::temp_dir().join(format!("toyc-bisect-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch_dir) {
        eprintln!("error: cannot create {}: {e}", scratch_dir.display());
        return 2;
    }
    let file_text = file.display().to_string();
    let setup = Setup {
        exe,
        dir: Path::new("."),
        scratch: &scratch_dir.join("run"),
        file: &file_text,
        passes,
        interp,
        timeout,
        staged: false,
    };
    let reference = setup.run_prefix(0);
    println!("reference (--passes=none): {}", reference.brief());
    let mut is_bad = |r: &RunResult| r != &reference;
    let mut log = |k: usize, bad: bool| {
        if k > 0 {
            let verdict = if bad { "differs" } else { "same" };
            println!("  {k:2} passes (.. {}): {verdict}", passes[k - 1]);
        }
    };
    let verdict = bisect(&setup, &mut is_bad, &mut log);
    let code = match verdict {
        Verdict::FirstBad(k) => {
            let run = setup.run_prefix(k + 1);
            let prefix = passes[..=k].join(",");
            println!(
                "first pass that changes the output: {} (pass {} of {}: {prefix})",
                passes[k],
                k + 1,
                passes.len()
            );
            println!("  with it: {}", run.brief());
            1
        }
        _ => {
            println!("no pass changes the output ({} passes)", passes.len());
            0
        }
    };
    let _ = std::fs::remove_dir_all(&scratch_dir);
    code
}
