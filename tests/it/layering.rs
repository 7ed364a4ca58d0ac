//! The architecture invariants of ARCHITECTURE.md ("Layers"), checked on
//! the source text of `src/`: which top-level module may name which
//! (`crate::X` paths, in `use` items or inline), that only `driver/` reads
//! the environment, and that compiler state is never thread-local or a
//! mutable static.
//!
//! Test code inside `src/` (files `tests.rs`, `tests_*.rs`, and the
//! `#[cfg(test)] mod tests` at the end of a file) is exempt: a test may
//! set up through any layer.

use std::path::{Path, PathBuf};

/// Top-level module ↦ the `crate::` paths it may name (a path is allowed
/// when it starts with one of these; `"*"` allows everything). Listed
/// bottom-up: each module names only modules listed above it.
const ALLOWED: &[(&str, &[&str])] = &[
    ("span", &[]),
    ("diag", &["span"]),
    ("timing", &[]),
    ("types", &[]),
    // Work spread over threads with results in a fixed order.
    ("par", &[]),
    // The table of runtime functions and builtins: a base module.
    ("rtfns", &["types"]),
    ("syntax", &["span", "diag", "par"]),
    ("sema", &["span", "diag", "par", "types", "rtfns", "syntax"]),
    // The Bril front end (text and JSON parsers, checks): beside `syntax`.
    ("bril", &["span", "diag"]),
    // The IR keeps the typed program it was built from for its struct,
    // global and function tables: of the front end it names only that.
    (
        "ir",
        &["span", "diag", "types", "rtfns", "sema::hir::Program"],
    ),
    // SSA construction translates the HIR, and Bril's checked AST.
    (
        "ssa",
        &[
            "span",
            "diag",
            "timing",
            "par",
            "types",
            "rtfns",
            "sema::hir",
            "bril",
            "ir",
        ],
    ),
    // Bril output reads the optimised IR and builds Bril's AST.
    (
        "bril_out",
        &["span", "diag", "types", "rtfns", "ir", "bril"],
    ),
    (
        "memssa",
        &[
            "span",
            "diag",
            "par",
            "types",
            "rtfns",
            "sema::hir::Program",
            "ir",
        ],
    ),
    (
        "opt",
        &[
            "span", "diag", "timing", "par", "types", "rtfns", "ir", "memssa",
        ],
    ),
    // The runtime library is called by compiled code: it knows nothing of
    // the compiler.
    ("runtime", &[]),
    // The differential fuzzer runs the toyc binary as a subprocess and has
    // its own AST and reference evaluator: it names nothing of the compiler.
    ("fuzz", &[]),
    // The runtime type descriptors of a program's types, which codegen and
    // the interpreter hand the runtime.
    ("type_tags", &["types", "sema::hir::Program", "runtime"]),
    (
        "codegen",
        &[
            "span",
            "diag",
            "timing",
            "par",
            "types",
            "rtfns",
            "ir",
            "memssa",
            "runtime",
            "type_tags",
        ],
    ),
    (
        "interp",
        &[
            "span",
            "diag",
            "timing",
            "types",
            "rtfns",
            "sema::hir::Program",
            "ir",
            "runtime",
            "type_tags",
        ],
    ),
    // The explorer shows every stage of a function: it runs the passes and
    // the backend (compiling, never running).
    (
        "explore",
        &["span", "diag", "types", "ir", "memssa", "opt", "codegen"],
    ),
    ("driver", &["*"]),
];

/// Known violations, each with the reason it is still there. Empty: every
/// rule holds.
const EXCEPTIONS: &[(&str, &str)] = &[];

/// Modules that may read environment variables (and flags).
const READS_ENV: &[&str] = &["driver"];

/// Modules that may hold thread-local state: the runtime's objects and
/// strings belong to the running program, not to the compiler.
const THREAD_LOCAL: &[&str] = &["runtime"];

/// Modules that may hold mutable statics: the runtime (program state) and
/// `timing` (phase times, printed only by the driver).
const MUTABLE_STATIC: &[&str] = &["runtime", "timing"];

/// Whether `line` declares a static with interior mutability.
fn is_mutable_static(line: &str) -> bool {
    let l = line.trim_start();
    (l.starts_with("static ")
        || l.starts_with("pub static ")
        || l.starts_with("pub(crate) static ")
        || l.contains("static mut "))
        && [
            "Mutex",
            "RwLock",
            "Atomic",
            "Cell",
            "OnceLock",
            "static mut ",
        ]
        .iter()
        .any(|m| l.contains(m))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module of `rel` (a path under `src/`), or `None` for the
/// crate roots and the benchmark binaries.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" | "bin" => None,
        f => Some(f.trim_end_matches(".rs").to_string()),
    }
}

fn is_test_file(rel: &Path) -> bool {
    rel.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "tests.rs" || n.starts_with("tests_"))
}

/// The code of `text` without line comments and without the trailing
/// `#[cfg(test)] mod tests`.
fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::a::b::c` path in `code` (at most three segments; a
/// grouped import `crate::a::{..}` gives `a`), with its line.
fn crate_paths(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let before = rest[..i].chars().last();
            rest = &rest[i + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).take(3).collect();
            out.push((n + 1, segs.join("::")));
        }
    }
    out
}

fn allowed(module: &str, path: &str) -> bool {
    let top = path.split("::").next().unwrap_or("");
    if top == module {
        return true;
    }
    let Some((_, allow)) = ALLOWED.iter().find(|(m, _)| *m == module) else {
        return false;
    };
    allow
        .iter()
        .any(|a| *a == "*" || path == *a || path.starts_with(&format!("{a}::")))
}

/// The violations of every rule, as `file:line: message`.
fn violations() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut errs = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src/").to_path_buf();
        let Some(module) = module_of(&rel) else {
            continue;
        };
        if is_test_file(&rel) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(&file).expect("read source"));
        let at = |line: usize| format!("src/{}:{line}", rel.display());
        if !ALLOWED.iter().any(|(m, _)| *m == module) {
            errs.push(format!(
                "{}: module `{module}` has no row in ALLOWED",
                at(1)
            ));
        }
        for (line, path) in crate_paths(&code) {
            if !allowed(&module, &path) {
                errs.push(format!(
                    "{}: `{module}` may not name `crate::{path}`",
                    at(line)
                ));
            }
        }
        for (n, l) in code.lines().enumerate() {
            if (l.contains("env::var") || l.contains("env::args"))
                && !READS_ENV.contains(&module.as_str())
            {
                errs.push(format!(
                    "{}: only {READS_ENV:?} read the environment",
                    at(n + 1)
                ));
            }
            if l.contains("thread_local!") && !THREAD_LOCAL.contains(&module.as_str()) {
                errs.push(format!(
                    "{}: compiler state is never thread-local",
                    at(n + 1)
                ));
            }
            if is_mutable_static(l) && !MUTABLE_STATIC.contains(&module.as_str()) {
                errs.push(format!(
                    "{}: compiler state is never a mutable static",
                    at(n + 1)
                ));
            }
        }
    }
    errs
}

#[test]
fn layering_rules_hold() {
    let errs = violations();
    let unexpected: Vec<&String> = errs
        .iter()
        .filter(|e| !EXCEPTIONS.iter().any(|(x, _)| e.starts_with(x)))
        .collect();
    assert!(
        unexpected.is_empty(),
        "architecture invariants broken:\n{}",
        unexpected
            .iter()
            .map(|e| format!("  {e}\n"))
            .collect::<String>()
    );
    for (x, why) in EXCEPTIONS {
        assert!(
            errs.iter().any(|e| e.starts_with(x)),
            "exception `{x}` ({why}) no longer needed: remove it"
        );
    }
}

#[test]
fn the_checker_sees_violations() {
    let paths = crate_paths(
        "use crate::opt::PassCtx; // crate::driver\nlet x = crate::ir::Type::Int; mycrate::x",
    );
    let code_paths = crate_paths(&code_of("use crate::opt::PassCtx; // crate::driver\n"));
    assert_eq!(
        paths,
        vec![
            (1, "opt::PassCtx".to_string()),
            (1, "driver".to_string()),
            (2, "ir::Type::Int".to_string())
        ]
    );
    assert_eq!(code_paths, vec![(1, "opt::PassCtx".to_string())]);
    assert!(!allowed("codegen", "opt::PassCtx"));
    assert!(allowed("codegen", "ir::Type"));
    assert!(!allowed("ir", "sema::items"));
    assert!(!allowed("ir", "sema::hir::Expr"));
    assert!(!allowed("ir", "sema::hir"), "a grouped import from the HIR");
    assert!(allowed("ir", "sema::hir::Program"));
    assert!(allowed("ssa", "sema::hir::Expr"));
    assert!(allowed("driver", "codegen"));
    assert!(!allowed("runtime", "ir::Type"));
    assert!(is_mutable_static(
        "static TIMES: Mutex<Vec<u8>> = Mutex::new(Vec::new());"
    ));
    assert!(is_mutable_static(
        "pub static PENDING: AtomicU8 = AtomicU8::new(0);"
    ));
    assert!(!is_mutable_static("pub static PASSES: &[Pass] = &[];"));
}
