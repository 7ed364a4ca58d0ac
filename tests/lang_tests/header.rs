//! The header of a test file: its directives (`// KEY: VALUE` comments
//! before the first line of code) read into a [`Spec`].

/// An expected compile error: `// error: [FILE:]LINE:COL: SUBSTRING`.
#[derive(Clone, Debug)]
pub(crate) struct ExpectedError {
    /// `None`: the test file itself; `Some(name)`: a file whose displayed
    /// name is `name` or ends with `/name` (a helper module).
    pub(crate) file: Option<String>,
    pub(crate) line: u32,
    pub(crate) col: u32,
    pub(crate) substring: String,
}

/// A position `[FILE:]LINE:COL` for `// at:`.
#[derive(Clone, Debug)]
pub(crate) struct Position {
    pub(crate) file: Option<String>,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

/// Everything the header comments of one test file say.
#[derive(Clone, Debug, Default)]
pub(crate) struct Spec {
    pub(crate) stdout: String,
    pub(crate) errors: Vec<ExpectedError>,
    /// `// warning: [FILE:]LINE:COL: SUBSTRING`: the warnings toyc must
    /// report (the same form as an error).
    pub(crate) warnings: Vec<ExpectedError>,
    pub(crate) runtime_error: Option<String>,
    pub(crate) at: Option<Position>,
    pub(crate) exit: Option<i32>,
    pub(crate) args: Vec<String>,
    pub(crate) check_only: Option<String>,
    /// `// gc-stress: REASON`: too slow for the stress modes in CI (a
    /// collection per allocation over a large heap); they run with
    /// `--ignored`.
    pub(crate) gc_stress_slow: Option<String>,
    /// Exact expected stderr (`// stderr:` lines), for runnable tests.
    pub(crate) stderr: Option<String>,
    /// The program's stdin (`// stdin:` and `// stdin-raw:`); `None`:
    /// stdin is closed.
    pub(crate) stdin: Option<String>,
}

/// What the harness found in a file.
pub(crate) enum FileKind {
    /// `// module: not a test` — a helper imported by tests.
    Helper,
    Test(Box<Spec>),
}

/// Parses the header: the leading lines of the file that are blank or
/// comments starting with `marker` (`//`, or `#` in Bril). A comment of the
/// form `// KEY: VALUE` (KEY made of lowercase letters and `-`) is a
/// directive and KEY must be known; other comments are free text.
pub(crate) fn parse_header(text: &str, marker: &str) -> Result<FileKind, String> {
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
