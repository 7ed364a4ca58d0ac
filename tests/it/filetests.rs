//! IR-in / IR-out tests in Cranelift's filetest style: every
//! `tests/filetests/*.ir` file is
//!
//! ```text
//! ; passes: licm            (required: the passes, as for `toyc opt`)
//! ; flags                   (optional: print `!flags(..)`)
//! ; stats: dce.removed=2    (optional: counters that must have these values)
//! ; any other comment
//! <the input module: IR text as `toyc ir` prints it>
//! ; expect:
//! <the output, exactly as `toyc opt FILE --passes=..` prints it>
//! ```
//!
//! The runner parses the input (`toyc::ir::parse`), runs the passes with
//! the verifier after each, prints the module and compares; a mismatch
//! shows a line diff. `TOYC_BLESS=1 cargo test --test it filetests`
//! rewrites every expectation with the actual output (review the change
//! with `git diff` before committing it). The expected output must itself
//! parse, so every expectation is valid IR.
use std::path::{Path, PathBuf};
use toyc::opt::{Counters, PipelineOptions};

const MARKER: &str = "; expect:";

/// A filetest split into its parts.
struct FileTest {
    passes: Vec<&'static str>,
    flags: bool,
    /// Counters and their expected values.
    stats: Vec<(String, u64)>,
    input: String,
    expected: String,
}

fn read_test(text: &str) -> Result<FileTest, String> {
    let (input, expected) = match text.find(&format!("\n{MARKER}\n")) {
        Some(i) => (&text[..i + 1], &text[i + MARKER.len() + 2..]),
        None => (text, ""),
    };
    let mut passes = None;
    let mut flags = false;
    let mut stats = Vec::new();
    for line in input.lines().take_while(|l| l.starts_with(';')) {
        let l = line.trim_start_matches(';').trim();
        if let Some(list) = l.strip_prefix("passes:") {
            let mut names = Vec::new();
            for n in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                names.push(
                    toyc::opt::find_pass(n)
                        .ok_or(format!("unknown pass `{n}`"))?
                        .name,
                );
            }
            passes = Some(names);
        } else if l == "flags" {
            flags = true;
        } else if let Some(list) = l.strip_prefix("stats:") {
            for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (name, n) = item.split_once('=').ok_or(format!("bad stat `{item}`"))?;
                let n = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad count in `{item}`"))?;
                stats.push((name.trim().to_string(), n));
            }
        }
    }
    Ok(FileTest {
        passes: passes.ok_or("no `; passes: ...` line at the top")?,
        flags,
        stats,
        input: input.to_string(),
        expected: expected.to_string(),
    })
}

/// What `toyc opt` prints for the test's input and passes.
fn run(t: &FileTest) -> Result<String, String> {
    let mut module = toyc::ir::parse::parse(&t.input).map_err(|errs| {
        let lines: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        format!("the input does not parse:\n{}", lines.join("\n"))
    })?;
    let opts = PipelineOptions {
        passes: t.passes.clone(),
        verify: true,
        ..Default::default()
    };
    let mut counters = Counters::default();
    toyc::opt::run_pipeline(&mut module, &opts, &mut counters, &|_| String::new())
        .map_err(|e| format!("the verifier failed: {}", e.join("\n")))?;
    for (name, n) in &t.stats {
        let got = counters.get(name);
        if got != *n {
            return Err(format!("counter {name} is {got}, expected {n}"));
        }
    }
    Ok(toyc::ir::print::print_module_with(
        &module, None, None, t.flags,
    ))
}

/// A line diff of `expected` and `actual` (`-` expected only, `+` actual
/// only), from the `similar` crate's Myers diff.
fn diff(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    for change in similar::TextDiff::from_lines(expected, actual).iter_all_changes() {
        let mark = match change.tag() {
            similar::ChangeTag::Equal => ' ',
            similar::ChangeTag::Delete => '-',
            similar::ChangeTag::Insert => '+',
        };
        out += &format!("{mark} {}\n", change.value().trim_end_matches('\n'));
    }
    out
}

fn filetests() -> Vec<PathBuf> {
    repo_files("tests/filetests", "ir")
}

/// The files of the repository's folder `dir` whose extension is `ext`,
/// sorted.
pub fn repo_files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
        .expect(dir)
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    files
}

/// One test; `Err` describes the failure.
fn check(path: &Path, bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let t = read_test(&text)?;
    let actual = run(&t)?;
    if actual == t.expected {
        return Ok(());
    }
    if bless {
        let new = format!("{}{MARKER}\n{actual}", t.input);
        return std::fs::write(path, new).map_err(|e| e.to_string());
    }
    Err(format!(
        "output differs (- expected, + actual; TOYC_BLESS=1 rewrites it):\n{}",
        diff(&t.expected, &actual)
    ))
}

#[test]
fn every_filetest_gives_its_expected_output() {
    let bless = std::env::var_os("TOYC_BLESS").is_some_and(|v| v == "1");
    let files = filetests();
    assert!(files.len() >= 10, "only {} filetests", files.len());
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = check(path, bless) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn every_expectation_is_valid_ir() {
    for path in filetests() {
        let text = std::fs::read_to_string(&path).expect("read");
        let t = read_test(&text).expect("a filetest");
        if let Err(e) = toyc::ir::parse::parse(&t.expected) {
            panic!(
                "{}: the expected output does not parse: {e:?}",
                path.display()
            );
        }
    }
}

#[test]
fn diff_marks_removed_and_added_lines() {
    assert_eq!(diff("a\nb\nc\n", "a\nx\nc\n"), "  a\n- b\n+ x\n  c\n");
}
