//! The collector from the outside: peak heaps of allocation loops stay
//! flat (memory is reused), cycles are collected, `TOYC_GC=off` really
//! keeps everything, the statistics line, and the stack-map annotations
//! in `toyc clif`. Each program runs in the `toyc` binary, in all three
//! execution modes.

use std::process::Command;

/// A loop that makes a small struct and a 2-element array per iteration
/// and keeps only the newest of each (in globals, so that no pass can
/// remove the allocations): the live heap is a few objects.
const ALLOC_LOOP: &str = "
struct P { x: int, y: int }
var last_p: P = nil;
var last_a: [int] = [];
fn main() {
    var sum = 0;
    for i in 0..ITERS {
        let p = P { x: i, y: 1 };
        let a = [p.x, p.y];
        last_p = p;
        last_a = a;
        sum += a[1];
    }
    print(sum, last_p.x, last_a[0]);
}
";

/// Doubly linked rings of 100 nodes, garbage after each round.
const RINGS: &str = "
struct Node { v: int, prev: Node, next: Node }
fn main() {
    var total = 0;
    for r in 0..ROUNDS {
        let head = Node { v: 0, prev: nil, next: nil };
        var last = head;
        for i in 1..100 {
            let x = Node { v: i, prev: last, next: nil };
            last.next = x;
            last = x;
        }
        last.next = head;
        head.prev = last;
        total += head.prev.v;
    }
    print(total);
}
";

/// `source` in a fresh file of this test process (tests run in parallel,
/// so every call gets its own name).
fn program_file(source: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("toyc-gc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = dir.join(format!("p{n}.toy"));
    std::fs::write(&file, source).expect("write program");
    file
}

/// The statistics `toyc --gc-stats` prints for `source` with the given
/// mode arguments and environment, and its stdout.
fn run_with_stats(source: &str, mode: &[&str], env: &[(&str, &str)]) -> (GcLine, String) {
    let file = program_file(source);
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .arg("run")
        .args(mode)
        .arg("--gc-stats")
        .arg(&file)
        .envs(env.iter().copied())
        .env_remove("TOYC_GC_STRESS")
        .output()
        .expect("toyc runs");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "toyc failed: {stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("gc: "))
        .unwrap_or_else(|| panic!("no statistics line in {stderr:?}"));
    (
        GcLine::parse(line),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// The numbers of `gc: N collections, A MiB allocated, F MiB freed, peak
/// heap P MiB, pauses ...`.
#[derive(Debug)]
struct GcLine {
    collections: u64,
    allocated_mib: f64,
    freed_mib: f64,
    peak_mib: f64,
}

impl GcLine {
    fn parse(line: &str) -> GcLine {
        // `gc: N collections`, `A MiB allocated`, `F MiB freed`, `peak heap
        // P MiB`, ...: the number in the clause that names each quantity.
        let number = |key: &str| -> f64 {
            let clause = line
                .split(", ")
                .find(|c| c.contains(key))
                .unwrap_or_else(|| panic!("no `{key}` in {line:?}"));
            clause
                .split(' ')
                .find_map(|w| w.parse().ok())
                .unwrap_or_else(|| panic!("no number for `{key}` in {line:?}"))
        };
        GcLine {
            collections: number("collections") as u64,
            allocated_mib: number("allocated"),
            freed_mib: number("freed"),
            peak_mib: number("peak heap"),
        }
    }
}

const MODES: [&[&str]; 3] = [&["-O0"], &["-O2"], &["--interp"]];

#[test]
fn an_allocation_loop_runs_in_a_flat_heap() {
    let source = ALLOC_LOOP.replace("ITERS", "400000");
    for mode in MODES {
        let (gc, out) = run_with_stats(&source, mode, &[]);
        assert_eq!(out, "400000 399999 399999\n", "{mode:?}");
        // 400,000 × (24-byte struct + 40-byte array + 16-byte buffer).
        assert!(gc.allocated_mib > 25.0, "{mode:?}: {gc:?}");
        assert!(gc.collections >= 3, "{mode:?}: {gc:?}");
        assert!(gc.peak_mib < 6.0, "{mode:?}: the heap grew: {gc:?}");
        assert!(gc.freed_mib > gc.allocated_mib - 6.0, "{mode:?}: {gc:?}");
    }
}

#[test]
fn without_collection_the_same_loop_keeps_everything() {
    let source = ALLOC_LOOP.replace("ITERS", "400000");
    let (gc, out) = run_with_stats(&source, &["-O2"], &[("TOYC_GC", "off")]);
    assert_eq!(out, "400000 399999 399999\n");
    assert_eq!(gc.collections, 0, "{gc:?}");
    assert!(gc.peak_mib > 25.0, "{gc:?}");
}

#[test]
fn cycles_are_collected() {
    let source = RINGS.replace("ROUNDS", "2000");
    for mode in MODES {
        let (gc, out) = run_with_stats(&source, mode, &[]);
        assert_eq!(out, "198000\n", "{mode:?}");
        // 2000 rings × 100 nodes × 32 bytes.
        assert!(gc.allocated_mib > 6.0, "{mode:?}: {gc:?}");
        assert!(gc.peak_mib < 6.0, "{mode:?}: rings were kept: {gc:?}");
    }
}

#[test]
fn clif_shows_the_stack_maps_of_calls() {
    let source = "
fn f() -> int { return 1; }
fn main() {
    let s = \"a\" + str(f());
    print(f(), s);
}
";
    let file = program_file(source);
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(["clif", "-O0", "--fn", "main"])
        .arg(&file)
        .output()
        .expect("toyc runs");
    let text = String::from_utf8_lossy(&out.stdout);
    // `s` is live across the call of `f` in `print(f(), s)`.
    assert!(
        text.lines()
            .any(|l| l.contains("call fn") && l.contains("stack_map=[i64 @ ss")),
        "{text}"
    );
    // Calls of allocating runtime functions go through their trampolines.
    assert!(text.contains("toy_str_of_int.gc"), "{text}");
}

/// Every program of `lang-tests/gc`, collecting at every safepoint, prints
/// and exits the same whether the collector's trampolines are the x86-64
/// template or compiled by Cranelift (`TOYC_TRAMPOLINES=compiled`, what
/// other architectures get).
#[test]
fn template_and_compiled_trampolines_agree_under_stress() {
    let files = crate::filetests::repo_files("lang-tests/gc", "toy");
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        let run = |trampolines: Option<&str>| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_toyc"));
            cmd.arg("run").arg(&file).env("TOYC_GC_STRESS", "1");
            match trampolines {
                Some(t) => cmd.env("TOYC_TRAMPOLINES", t),
                None => cmd.env_remove("TOYC_TRAMPOLINES"),
            };
            let out = cmd.output().expect("toyc runs");
            (out.status.code(), out.stdout, out.stderr)
        };
        let template = run(None);
        let compiled = run(Some("compiled"));
        assert_eq!(template, compiled, "{}", file.display());
        assert!(template.0.is_some(), "{}: {:?}", file.display(), template);
    }
}
