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

use libtest_mimic::{Arguments, Failed, Trial};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A way of executing a runnable test: the `toyc` arguments placed before
/// the file. Adding a mode is one line in [`RUN_MODES`].
struct Mode {
    name: &'static str,
    args: &'static [&'static str],
    /// Environment variables set for the run.
    env: &'static [(&'static str, &'static str)],
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

const CHECK_MODE: Mode = Mode {
    name: "check",
    args: &["check"],
    env: &[],
};

/// The folders holding tests, relative to the repository root, with the
/// prefix their trial names get.
const ROOTS: &[(&str, &str)] = &[("lang-tests", ""), ("examples", "examples/")];

/// How long one run may take before it is killed and reported.
const TIMEOUT: Duration = Duration::from_secs(20);
/// The same for a stress-mode run of a `// gc-stress:` file (an ignored
/// trial, run with `--ignored`).
const SLOW_STRESS_TIMEOUT: Duration = Duration::from_secs(900);

/// Exit code of `toyc` after compile errors.
const EXIT_COMPILE_ERROR: i32 = 1;
/// Exit code of a program stopped by an uncaught runtime error.
const EXIT_RUNTIME_ERROR: i32 = 101;

/// An expected compile error: `// error: [FILE:]LINE:COL: SUBSTRING`.
#[derive(Clone, Debug)]
struct ExpectedError {
    /// `None`: the test file itself; `Some(name)`: a file whose displayed
    /// name is `name` or ends with `/name` (a helper module).
    file: Option<String>,
    line: u32,
    col: u32,
    substring: String,
}

/// A position `[FILE:]LINE:COL` for `// at:`.
#[derive(Clone, Debug)]
struct Position {
    file: Option<String>,
    line: u32,
    col: u32,
}

/// Everything the header comments of one test file say.
#[derive(Clone, Debug, Default)]
struct Spec {
    stdout: String,
    errors: Vec<ExpectedError>,
    /// `// warning: [FILE:]LINE:COL: SUBSTRING`: the warnings toyc must
    /// report (the same form as an error).
    warnings: Vec<ExpectedError>,
    runtime_error: Option<String>,
    at: Option<Position>,
    exit: Option<i32>,
    args: Vec<String>,
    check_only: Option<String>,
    /// `// gc-stress: REASON`: too slow for the stress modes in CI (a
    /// collection per allocation over a large heap); they run with
    /// `--ignored`.
    gc_stress_slow: Option<String>,
    /// Exact expected stderr (`// stderr:` lines), for runnable tests.
    stderr: Option<String>,
    /// The program's stdin (`// stdin:` and `// stdin-raw:`); `None`:
    /// stdin is closed.
    stdin: Option<String>,
}

/// What the harness found in a file.
enum FileKind {
    /// `// module: not a test` — a helper imported by tests.
    Helper,
    Test(Box<Spec>),
}

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
            let spec = match parse_header(&text, marker) {
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

/// Parses the header: the leading lines of the file that are blank or
/// comments starting with `marker` (`//`, or `#` in Bril). A comment of the
/// form `// KEY: VALUE` (KEY made of lowercase letters and `-`) is a
/// directive and KEY must be known; other comments are free text.
fn parse_header(text: &str, marker: &str) -> Result<FileKind, String> {
    let mut spec = Spec::default();
    let mut stderr_lines: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix(marker) else {
            break;
        };
        let Some((key, value)) = directive(comment) else {
            continue;
        };
        let lineno = i + 1;
        let bad = |m: &str| format!("line {lineno}: {m}");
        match key {
            "module" => {
                if value.trim() == "not a test" {
                    return Ok(FileKind::Helper);
                }
                return Err(bad("`// module:` must read `// module: not a test`"));
            }
            "stdout" => {
                spec.stdout.push_str(value);
                spec.stdout.push('\n');
            }
            "stdout-raw" => spec.stdout.push_str(&unescape(value).map_err(|e| bad(&e))?),
            "stdin" => {
                let s = spec.stdin.get_or_insert_with(String::new);
                s.push_str(value);
                s.push('\n');
            }
            "stdin-raw" => spec
                .stdin
                .get_or_insert_with(String::new)
                .push_str(&unescape(value).map_err(|e| bad(&e))?),
            "stderr" => {
                let s = stderr_lines.get_or_insert_with(String::new);
                s.push_str(value);
                s.push('\n');
            }
            "error" => spec
                .errors
                .push(parse_expected_error(value).map_err(|e| bad(&e))?),
            "warning" => spec
                .warnings
                .push(parse_expected_error(value).map_err(|e| bad(&e))?),
            "runtime-error" => {
                if spec.runtime_error.replace(value.to_string()).is_some() {
                    return Err(bad("more than one `// runtime-error:`"));
                }
            }
            "at" => {
                let (pos, rest) = parse_position(value.trim()).map_err(|e| bad(&e))?;
                if !rest.is_empty() {
                    return Err(bad("`// at:` takes only [FILE:]LINE:COL"));
                }
                spec.at = Some(pos);
            }
            "exit" => {
                spec.exit = Some(
                    value
                        .trim()
                        .parse()
                        .map_err(|_| bad("`// exit:` needs an integer"))?,
                )
            }
            "args" => spec.args = value.split_whitespace().map(str::to_string).collect(),
            "check-only" => {
                if value.trim().is_empty() {
                    return Err(bad("`// check-only:` needs a reason"));
                }
                spec.check_only = Some(value.trim().to_string());
            }
            "gc-stress" => {
                if value.trim().is_empty() {
                    return Err(bad("`// gc-stress:` needs a reason"));
                }
                spec.gc_stress_slow = Some(value.trim().to_string());
            }
            other => return Err(bad(&format!("unknown directive `// {other}:`"))),
        }
    }
    spec.stderr = stderr_lines;
    if !spec.errors.is_empty() {
        let conflicting = !spec.stdout.is_empty()
            || spec.runtime_error.is_some()
            || spec.at.is_some()
            || spec.exit.is_some()
            || spec.check_only.is_some()
            || spec.stderr.is_some()
            || spec.stdin.is_some()
            || !spec.warnings.is_empty()
            || !spec.args.is_empty();
        if conflicting {
            return Err("a compile-error test (`// error:`) takes no other directives".into());
        }
    }
    if spec.at.is_some() && spec.runtime_error.is_none() {
        return Err("`// at:` without `// runtime-error:`".into());
    }
    if spec.stderr.is_some() && spec.runtime_error.is_some() {
        return Err("use either `// stderr:` or `// runtime-error:`, not both".into());
    }
    Ok(FileKind::Test(Box::new(spec)))
}

/// Splits `" key: value"` into its key and value (the value loses exactly
/// one leading space, so `// stdout:   x` expects `  x`).
fn directive(comment: &str) -> Option<(&str, &str)> {
    let comment = comment.strip_prefix(' ')?;
    let colon = comment.find(':')?;
    let key = &comment[..colon];
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b == b'-') {
        return None;
    }
    let value = &comment[colon + 1..];
    Some((key, value.strip_prefix(' ').unwrap_or(value)))
}

/// Decodes `\n \t \r \0 \\ \s` (a space) in a `// stdout-raw:` or
/// `// stdin-raw:` value.
fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('s') => out.push(' '),
            Some('\\') => out.push('\\'),
            other => {
                return Err(format!(
                    "bad escape `\\{}` in a `-raw:` directive",
                    other.map(String::from).unwrap_or_default()
                ));
            }
        }
    }
    Ok(out)
}

/// Parses `[FILE:]LINE:COL` at the start of `s`; returns the rest after
/// `": "` (or empty).
fn parse_position(s: &str) -> Result<(Position, &str), String> {
    let parts: Vec<&str> = s.splitn(4, ':').collect();
    let num = |p: &str| p.trim().parse::<u32>().ok().filter(|&n| n > 0);
    let err = || format!("expected [FILE:]LINE:COL, found `{s}`");
    // LINE:COL[: rest] or FILE:LINE:COL[: rest]
    if parts.len() >= 2
        && let (Some(line), Some(col)) = (num(parts[0]), num(parts[1]))
    {
        let rest = if parts.len() > 2 {
            s.splitn(3, ':').nth(2).unwrap_or("")
        } else {
            ""
        };
        return Ok((
            Position {
                file: None,
                line,
                col,
            },
            rest.trim_start(),
        ));
    }
    if parts.len() >= 3
        && let (Some(line), Some(col)) = (num(parts[1]), num(parts[2]))
    {
        let rest = if parts.len() > 3 { parts[3] } else { "" };
        return Ok((
            Position {
                file: Some(parts[0].trim().to_string()),
                line,
                col,
            },
            rest.trim_start(),
        ));
    }
    Err(err())
}

fn parse_expected_error(value: &str) -> Result<ExpectedError, String> {
    let (pos, rest) = parse_position(value.trim())?;
    if rest.trim().is_empty() {
        return Err(
            "`// error:` and `// warning:` need a message substring after LINE:COL:".into(),
        );
    }
    Ok(ExpectedError {
        file: pos.file,
        line: pos.line,
        col: pos.col,
        substring: rest.trim_end().to_string(),
    })
}

/// One test file, ready to run in any mode.
#[derive(Clone)]
struct Case {
    root: PathBuf,
    toyc: PathBuf,
    /// Path relative to the repository root, as passed to `toyc`.
    file: String,
    spec: Spec,
}

/// The outcome of running `toyc` once.
struct Output {
    stdout: String,
    stderr: String,
    /// `None` when killed by a signal.
    code: Option<i32>,
}

impl Case {
    /// A stress-mode run of a `// gc-stress:` file: an ignored trial with
    /// the long timeout.
    fn slow_under_stress(&self, mode: &Mode) -> bool {
        self.spec.gc_stress_slow.is_some() && !mode.env.is_empty()
    }

    fn trial(&self, name: &str, mode: &'static Mode, ignored: bool) -> Trial {
        let case = self.clone();
        Trial::test(format!("{name}::{}", mode.name), move || case.run(mode))
            .with_ignored_flag(ignored)
    }

    fn command_args(&self, mode: &Mode) -> Vec<String> {
        let mut v: Vec<String> = mode.args.iter().map(|s| s.to_string()).collect();
        v.push(self.file.clone());
        if mode.args.first() == Some(&"run") && !self.spec.args.is_empty() {
            v.push("--".into());
            v.extend(self.spec.args.iter().cloned());
        }
        v
    }

    /// A shell command line that reproduces the run.
    fn repro(&self, mode: &Mode) -> String {
        let exe = self
            .toyc
            .strip_prefix(&self.root)
            .unwrap_or(&self.toyc)
            .display()
            .to_string();
        let args: Vec<String> = self
            .command_args(mode)
            .iter()
            .map(|a| shell_quote(a))
            .collect();
        let env: String = mode.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
        let (feed, redirect) = match &self.spec.stdin {
            Some(text) => (format!("printf %s {} | ", shell_quote(text)), ""),
            None => (String::new(), " </dev/null"),
        };
        format!(
            "cd {} && {feed}NO_COLOR=1 {env}{} {}{redirect}",
            shell_quote(&self.root.display().to_string()),
            exe,
            args.join(" ")
        )
    }

    fn run(&self, mode: &Mode) -> Result<(), Failed> {
        let out = self
            .execute(mode)
            .map_err(|e| format!("{e}\n\nreproduce with:\n  {}", self.repro(mode)))?;
        let problems = if mode.name == CHECK_MODE.name {
            self.judge_check(&out)
        } else {
            self.judge_run(&out)
        };
        if problems.is_empty() {
            return Ok(());
        }
        let mut msg = String::new();
        for p in problems {
            msg.push_str(&p);
            msg.push('\n');
        }
        let _ = write!(msg, "reproduce with:\n  {}", self.repro(mode));
        Err(msg.into())
    }

    fn execute(&self, mode: &Mode) -> Result<Output, String> {
        let mut child = Command::new(&self.toyc)
            .args(self.command_args(mode))
            .current_dir(&self.root)
            .env("NO_COLOR", "1")
            .env_remove("TOYC_VERIFY")
            .env_remove("TOYC_GC")
            .env_remove("TOYC_GC_STRESS")
            .env_remove("TOYC_GC_STATS")
            .envs(mode.env.iter().copied())
            .stdin(match self.spec.stdin {
                Some(_) => Stdio::piped(),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.toyc.display()))?;
        write_in_background(child.stdin.take(), self.spec.stdin.clone());
        let stdout = read_in_background(child.stdout.take());
        let stderr = read_in_background(child.stderr.take());
        let start = Instant::now();
        let timeout = if self.slow_under_stress(mode) {
            SLOW_STRESS_TIMEOUT
        } else {
            TIMEOUT
        };
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("timed out after {} s (killed)", timeout.as_secs()));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("cannot wait for toyc: {e}")),
            }
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        Ok(Output {
            stdout,
            stderr,
            code: status.code(),
        })
    }

    /// `check` mode: a compile-error test must report exactly its errors;
    /// anything else must type-check silently.
    fn judge_check(&self, out: &Output) -> Vec<String> {
        let mut problems = Vec::new();
        let want_code = if self.spec.errors.is_empty() {
            0
        } else {
            EXIT_COMPILE_ERROR
        };
        if out.code != Some(want_code) {
            problems.push(format!(
                "exit code: expected {want_code}, got {}",
                show_code(out.code)
            ));
        }
        if !out.stdout.is_empty() {
            problems.push(section("stdout: expected nothing, got", &out.stdout));
        }
        if self.spec.errors.is_empty() {
            let (warnings, rest) = split_warnings(&out.stderr);
            if !rest.is_empty() {
                problems.push(section("stderr: expected no errors, got", &out.stderr));
            } else if let Some(p) = self.match_reports("warnings", &self.spec.warnings, &warnings) {
                problems.push(p);
                problems.push(section("full stderr", &out.stderr));
            }
            return problems;
        }
        let actual = headlines(&out.stderr);
        if let Some(p) = self.match_reports("compile errors", &self.spec.errors, &actual) {
            problems.push(p);
            problems.push(section("full stderr", &out.stderr));
        }
        problems
    }

    /// Pairs every expected error (or warning) with a distinct reported one
    /// (a maximum bipartite matching, so a vague expectation cannot steal
    /// the report a precise one needs); returns a description of the
    /// mismatch, if any. `what` names the reports in that description.
    fn match_reports(
        &self,
        what: &str,
        wanted: &[ExpectedError],
        actual: &[Headline],
    ) -> Option<String> {
        let fits = |e: &ExpectedError, a: &Headline| {
            a.line == e.line
                && a.col == e.col
                && a.message.contains(&e.substring)
                && self.file_matches(&a.file, e.file.as_deref())
        };
        let edges: Vec<Vec<usize>> = wanted
            .iter()
            .map(|e| (0..actual.len()).filter(|&i| fits(e, &actual[i])).collect())
            .collect();
        // owner[i]: the expected error paired with reported error i.
        let mut owner: Vec<Option<usize>> = vec![None; actual.len()];
        for e in 0..edges.len() {
            let mut seen = vec![false; actual.len()];
            augment(e, &edges, &mut owner, &mut seen);
        }
        let used: Vec<bool> = owner.iter().map(Option::is_some).collect();
        let missing: Vec<&ExpectedError> = (0..edges.len())
            .filter(|e| !owner.contains(&Some(*e)))
            .map(|e| &wanted[e])
            .collect();
        let extra: Vec<&Headline> = actual
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(a, _)| a)
            .collect();
        if missing.is_empty() && extra.is_empty() {
            return None;
        }
        let mut s = format!("{what} differ:\n");
        let expected: Vec<String> = wanted
            .iter()
            .map(|e| {
                format!(
                    "{}{}:{}: …{}…",
                    e.file.as_ref().map(|f| format!("{f}:")).unwrap_or_default(),
                    e.line,
                    e.col,
                    e.substring
                )
            })
            .collect();
        let got: Vec<String> = actual
            .iter()
            .map(|a| format!("{}:{}:{}: {}", a.file, a.line, a.col, a.message))
            .collect();
        let _ = writeln!(s, "  expected ({}):", expected.len());
        for e in &expected {
            let _ = writeln!(s, "    {e}");
        }
        let _ = writeln!(s, "  reported ({}):", got.len());
        for g in &got {
            let _ = writeln!(s, "    {g}");
        }
        for m in missing {
            let _ = writeln!(s, "  not reported: {}:{}: …{}…", m.line, m.col, m.substring);
        }
        for x in extra {
            let _ = writeln!(
                s,
                "  unexpected:   {}:{}:{}: {}",
                x.file, x.line, x.col, x.message
            );
        }
        Some(s)
    }

    /// Whether a reported file name is the one an expectation means: the
    /// test file itself (`None`) or a helper named by its path suffix.
    fn file_matches(&self, reported: &str, wanted: Option<&str>) -> bool {
        let reported = reported.replace('\\', "/");
        match wanted {
            None => reported == self.file,
            Some(w) => reported == w || reported.ends_with(&format!("/{w}")),
        }
    }

    /// `O0`/`O2` modes: stdout, stderr and the exit code.
    fn judge_run(&self, out: &Output) -> Vec<String> {
        let mut problems = Vec::new();
        let default_code = if self.spec.runtime_error.is_some() {
            EXIT_RUNTIME_ERROR
        } else {
            0
        };
        let want_code = self.spec.exit.unwrap_or(default_code);
        if out.code != Some(want_code) {
            problems.push(format!(
                "exit code: expected {want_code}, got {}",
                show_code(out.code)
            ));
        }
        if out.stdout != self.spec.stdout {
            problems.push(diff_section("stdout", &self.spec.stdout, &out.stdout));
        }
        // The warnings come first, before the program runs.
        let (warnings, stderr) = split_warnings(&out.stderr);
        if let Some(p) = self.match_reports("warnings", &self.spec.warnings, &warnings) {
            problems.push(p);
        }
        let want_stderr = match (&self.spec.runtime_error, &self.spec.stderr) {
            (Some(msg), _) => self.expected_runtime_stderr(msg),
            (None, Some(s)) => s.clone(),
            (None, None) => String::new(),
        };
        let stderr_ok = match (&self.spec.runtime_error, &self.spec.at) {
            // The helper's displayed name is the compiler's choice; match
            // the position line by suffix.
            (Some(_), Some(at)) if at.file.is_some() => {
                self.runtime_stderr_matches_helper(stderr, &want_stderr, at)
            }
            _ => stderr == want_stderr,
        };
        if !stderr_ok {
            problems.push(diff_section(
                "stderr (without the warnings)",
                &want_stderr,
                stderr,
            ));
        }
        problems
    }

    fn expected_runtime_stderr(&self, msg: &str) -> String {
        match &self.spec.at {
            None => format!("error: {msg}\n"),
            Some(Position {
                file: None,
                line,
                col,
            }) => format!("error: {msg}\n  at {}:{line}:{col}\n", self.file),
            Some(Position {
                file: Some(f),
                line,
                col,
            }) => format!("error: {msg}\n  at {f}:{line}:{col}\n"),
        }
    }

    fn runtime_stderr_matches_helper(&self, got: &str, want: &str, at: &Position) -> bool {
        let (Some(want_first), Some(f)) = (want.lines().next(), at.file.as_deref()) else {
            return false;
        };
        let lines: Vec<&str> = got.lines().collect();
        if lines.len() != 2 || lines[0] != want_first || !got.ends_with('\n') {
            return false;
        }
        let Some(pos) = lines[1].strip_prefix("  at ") else {
            return false;
        };
        let suffix = format!(":{}:{}", at.line, at.col);
        let Some(file) = pos.strip_suffix(&suffix) else {
            return false;
        };
        self.file_matches(file, Some(f))
    }
}

/// Kuhn's augmenting path: tries to pair expected error `e` with a
/// reported one, re-pairing earlier expectations when needed.
fn augment(e: usize, edges: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &a in &edges[e] {
        if seen[a] {
            continue;
        }
        seen[a] = true;
        let free = match owner[a] {
            None => true,
            Some(other) => augment(other, edges, owner, seen),
        };
        if free {
            owner[a] = Some(e);
            return true;
        }
    }
    false
}

/// One compile-error headline: `Error: FILE:LINE:COL: MESSAGE`.
#[derive(Debug)]
struct Headline {
    file: String,
    line: u32,
    col: u32,
    message: String,
}

/// Extracts the headlines of the ariadne reports in `stderr` (rendered
/// without colour). Every report starts with a line `Error: ...`; a
/// non-ariadne `error: ...` line (e.g. an unreadable file) is also taken.
fn headlines(stderr: &str) -> Vec<Headline> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line
            .strip_prefix("Error: ")
            .or_else(|| line.strip_prefix("[E] Error: "))
        else {
            if let Some(rest) = line.strip_prefix("error: ") {
                out.push(Headline {
                    file: String::new(),
                    line: 0,
                    col: 0,
                    message: rest.to_string(),
                });
            }
            continue;
        };
        match split_headline(rest) {
            Some(h) => out.push(h),
            None => out.push(Headline {
                file: String::new(),
                line: 0,
                col: 0,
                message: rest.to_string(),
            }),
        }
    }
    out
}

/// Splits the warning reports at the start of `stderr` (rendered without
/// colour: a line `Warning: FILE:LINE:COL: MESSAGE` up to the report's
/// closing `╯` line) from the rest: their headlines, and the rest.
fn split_warnings(stderr: &str) -> (Vec<Headline>, &str) {
    let mut out = Vec::new();
    let mut rest = stderr;
    while let Some(report) = rest.strip_prefix("Warning: ") {
        let Some(h) = report.lines().next().and_then(split_headline) else {
            break;
        };
        let mut end = None;
        let mut at = 0;
        for line in rest.split_inclusive('\n') {
            at += line.len();
            if line.trim_end().ends_with('╯') {
                end = Some(at);
                break;
            }
        }
        let Some(end) = end else {
            break;
        };
        out.push(h);
        rest = &rest[end..];
    }
    (out, rest)
}

/// Splits `FILE:LINE:COL: MESSAGE` at the first `:LINE:COL: `.
fn split_headline(s: &str) -> Option<Headline> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while let Some(off) = s[i..].find(':') {
        let c1 = i + off;
        let digits = |from: usize| {
            bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let n1 = digits(c1 + 1);
        if n1 > 0 && bytes.get(c1 + 1 + n1) == Some(&b':') {
            let c2 = c1 + 1 + n1;
            let n2 = digits(c2 + 1);
            if n2 > 0 && s[c2 + 1 + n2..].starts_with(": ") {
                return Some(Headline {
                    file: s[..c1].to_string(),
                    line: s[c1 + 1..c2].parse().ok()?,
                    col: s[c2 + 1..c2 + 1 + n2].parse().ok()?,
                    message: s[c2 + 1 + n2 + 2..].to_string(),
                });
            }
        }
        i = c1 + 1;
    }
    None
}

fn read_in_background<R: Read + Send + 'static>(
    pipe: Option<R>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Feeds `text` to the child's stdin and closes it (a program that stops
/// reading early makes the write fail, which is not an error).
fn write_in_background(pipe: Option<std::process::ChildStdin>, text: Option<String>) {
    if let (Some(mut p), Some(t)) = (pipe, text) {
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = p.write_all(t.as_bytes());
        });
    }
}

fn show_code(code: Option<i32>) -> String {
    match code {
        Some(c) => c.to_string(),
        None => "none (killed by a signal)".into(),
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=+:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn section(title: &str, text: &str) -> String {
    let mut s = format!("{title}:\n");
    for l in text.lines() {
        let _ = writeln!(s, "  | {l}");
    }
    s
}

/// A line diff of expected vs actual (`-` expected only, `+` actual only),
/// computed with a longest-common-subsequence table; a missing final
/// newline is shown as `⏎ missing`/`⏎ extra`.
fn diff_section(what: &str, expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut s = format!("{what} differs (- expected, + actual):\n");
    if a.len() * b.len() > 4_000_000 {
        let _ = writeln!(s, "  (too long to diff: {} vs {} lines)", a.len(), b.len());
        return s;
    }
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            let _ = writeln!(s, "    {}", a[i]);
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(s, "  + {}", b[j]);
            j += 1;
        } else {
            let _ = writeln!(s, "  - {}", a[i]);
            i += 1;
        }
    }
    let (ea, eb) = (
        expected.ends_with('\n') || expected.is_empty(),
        actual.ends_with('\n') || actual.is_empty(),
    );
    if ea != eb {
        let _ = writeln!(
            s,
            "  (final newline: expected {}, actual {})",
            yes_no(ea),
            yes_no(eb)
        );
    }
    if expected.lines().eq(actual.lines()) && ea == eb {
        let _ = writeln!(
            s,
            "  (the texts differ only in line endings or invisible characters)"
        );
        let _ = writeln!(s, "  expected: {expected:?}\n  actual:   {actual:?}");
    }
    s
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
