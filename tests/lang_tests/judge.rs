//! Comparing one run's output with what the test file's header expects;
//! every difference becomes one line (or section) of the failure message.

use crate::header::{ExpectedError, Position};
use crate::runner::{Case, Output};
use std::fmt::Write as _;

/// Exit code of `toyc` after compile errors.
const EXIT_COMPILE_ERROR: i32 = 1;
/// Exit code of a program stopped by an uncaught runtime error.
const EXIT_RUNTIME_ERROR: i32 = 101;

impl Case {
    /// `check` mode: a compile-error test must report exactly its errors;
    /// anything else must type-check silently.
    pub(crate) fn judge_check(&self, out: &Output) -> Vec<String> {
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
    pub(crate) fn judge_run(&self, out: &Output) -> Vec<String> {
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

fn show_code(code: Option<i32>) -> String {
    match code {
        Some(c) => c.to_string(),
        None => "none (killed by a signal)".into(),
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
/// from the `similar` crate's Myers diff (given up after a second, as
/// `similar` does, on huge outputs); a missing final newline is noted.
fn diff_section(what: &str, expected: &str, actual: &str) -> String {
    let mut s = format!("{what} differs (- expected, + actual):\n");
    let diff = similar::TextDiff::configure()
        .timeout(std::time::Duration::from_secs(1))
        .diff_lines(expected, actual);
    for change in diff.iter_all_changes() {
        let mark = match change.tag() {
            similar::ChangeTag::Equal => ' ',
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
        };
        let _ = writeln!(s, "  {mark} {}", change.value().trim_end_matches('\n'));
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
