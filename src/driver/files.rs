//! Reading the main file (or stdin), the front end on it, warning policy,
//! and rendering diagnostics on stderr.

use super::cli::WarningPolicy;
use crate::diag::{self, Diagnostic};
use crate::span::{FileId, SourceMap};
use std::path::Path;
use std::sync::Arc;

/// Prints diagnostics to stderr and returns exit code 1.
pub fn report(sources: &SourceMap, diags: &[Diagnostic]) -> i32 {
    eprint!("{}", diag::render(sources, diags, use_colour()));
    1
}

/// Whether reports should use colour: only on a terminal, and never when
/// `NO_COLOR` is set (to anything).
pub(super) fn use_colour() -> bool {
    use std::io::IsTerminal;
    std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal()
}

/// Whether `path` is `-`, which names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name a program read from stdin (`toyc run -`) has in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads the main file into `sources`. A file that cannot be read or is not
/// UTF-8 is an error with the reason; invalid UTF-8 names the byte offset.
/// For `-`, the program is all of stdin, named [`STDIN_NAME`], with its
/// imports beside it in the current directory; the runtime's input is then
/// empty (the program's `read_line` sees the end of input).
pub fn load_main_file(path: &Path, sources: &mut SourceMap) -> Result<FileId, String> {
    if is_stdin(path) {
        return load_stdin(sources);
    }
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {}", path.display(), e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{}` is not valid UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    Ok(sources.add(path.display().to_string(), Some(canonical), text))
}

/// [`load_main_file`] for `-`.
fn load_stdin(sources: &mut SourceMap) -> Result<FileId, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the program from stdin: {e}"))?;
    crate::runtime::io::set_input(Some(Vec::new()));
    let text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "the program on stdin is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })?;
    // The path only places imports: nothing reads it.
    let dir = std::env::current_dir().unwrap_or_default();
    Ok(sources.add(STDIN_NAME.into(), Some(dir.join(STDIN_NAME)), text))
}

/// Parses and type-checks the program rooted at `path`, ignoring warnings.
/// An unreadable main file is reported on stderr here and gives an empty
/// error list.
pub fn check_file(
    path: &Path,
    sources: &mut SourceMap,
) -> Result<crate::sema::hir::Program, Vec<Diagnostic>> {
    check_file_warnings(path, sources, WarningPolicy::Allow).map(|(program, _)| program)
}

/// [`check_file`] with the warnings `policy` lets through: none with
/// `-A warnings`; with `-W error` any warning makes the result `Err`, every
/// warning turned into an error.
pub fn check_file_warnings(
    path: &Path,
    sources: &mut SourceMap,
    policy: WarningPolicy,
) -> Result<(crate::sema::hir::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    check_file_warnings_on(path, sources, policy, &crate::par::Pool::default())
}

/// [`check_file_warnings`], a large file parsed on `pool`'s threads.
pub fn check_file_warnings_on(
    path: &Path,
    sources: &mut SourceMap,
    policy: WarningPolicy,
    pool: &crate::par::Pool,
) -> Result<(crate::sema::hir::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    let main = match load_main_file(path, sources) {
        Ok(id) => id,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Err(Vec::new());
        }
    };
    apply_policy(crate::sema::check_on(sources, main, pool), policy)
}

/// The program and the warnings to report under `policy`, or the errors.
pub(super) fn apply_policy(
    checked: Result<crate::sema::Checked, Vec<Diagnostic>>,
    policy: WarningPolicy,
) -> Result<(crate::sema::hir::Program, Vec<Diagnostic>), Vec<Diagnostic>> {
    let crate::sema::Checked { program, warnings } = checked?;
    match policy {
        WarningPolicy::Show => Ok((program, warnings)),
        WarningPolicy::Allow => Ok((program, Vec::new())),
        WarningPolicy::Deny if warnings.is_empty() => Ok((program, warnings)),
        WarningPolicy::Deny => Err(warnings
            .into_iter()
            .map(|w| Diagnostic {
                severity: diag::Severity::Error,
                ..w.with_note("`-W error` turns warnings into errors")
            })
            .collect()),
    }
}

/// Prints warnings to stderr (nothing when there are none).
pub(super) fn show_warnings(sources: &SourceMap, warnings: &[Diagnostic]) {
    if !warnings.is_empty() {
        eprint!("{}", diag::render(sources, warnings, use_colour()));
    }
}

/// The front end on one in-memory source text, for fuzzing: parse, check
/// and, for a valid program, build SSA and run the IR verifier. Returns how
/// many diagnostics the program got (0: it is valid and its IR verifies);
/// `Err` is a verifier failure, a compiler bug. Imports resolve against the
/// standard library only. Call it on a thread with [`COMPILER_STACK`].
pub fn front_end_on_text(text: &str) -> Result<usize, String> {
    let mut sources = SourceMap::new();
    let main = sources.add("fuzz.toy".into(), None, text.to_string());
    match crate::sema::analyze(&mut sources, main) {
        Err(diags) => Ok(diags.len()),
        Ok(program) => {
            let module = crate::ssa::build_module(Arc::new(program));
            crate::ir::verify::verify_module(&module)
                .map(|()| 0)
                .map_err(|errs| errs.join("\n"))
        }
    }
}
