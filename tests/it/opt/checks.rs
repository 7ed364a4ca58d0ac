//! The `pi` and `checks` passes on Toy programs: exactly which runtime
//! checks go and which must stay. Each case runs `toyc ir --passes=...
//! --stats` (a debug build, so the verifier runs after every pass) and
//! counts the `raise` statements left in the printed IR.

use std::process::Command;

fn toyc(args: &[&str], src: &str) -> (String, String, i32) {
    let dir = std::env::temp_dir().join(format!("toyc_pi_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let name = format!(
        "t{}.toy",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    let path = dir.join(name);
    std::fs::write(&path, src).expect("write source");
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .arg(&path)
        .output()
        .expect("toyc runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).replace(&*path.to_string_lossy(), "<file>"),
        out.status.code().unwrap_or(-1),
    )
}

/// (IR text, stats text) after `passes`.
fn ir(passes: &str, src: &str) -> (String, String) {
    let (out, err, code) = toyc(&["ir", &format!("--passes={passes}"), "--stats"], src);
    assert_eq!(code, 0, "toyc ir failed: {err}");
    (out, err)
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

fn stat(stats: &str, name: &str) -> u64 {
    stats
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map_or(0, |n| n.trim().parse().expect("counter"))
}

const SUM: &str = "
fn sum(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) {
        s = s + a[i];
    }
    return s;
}
fn main() { print(sum([3; 4])); }
";

#[test]
fn pi_pass_inserts_range_facts_on_the_loop_body() {
    let (out, err) = ir("pi", SUM);
    // `i < len(a)` on the loop body; `0 <= i < len(a)` after the check.
    assert!(out.contains("= π (%2, _ < %1)::int"), "{out}");
    assert!(stat(&err, "pi.inserted") >= 2, "{err}");
    // The π pass alone removes nothing.
    assert_eq!(count(&out, "raise index_out_of_bounds"), 1, "{out}");
}

#[test]
fn bounds_check_in_for_over_len_is_removed() {
    let (out, err) = ir("checks", SUM);
    assert_eq!(stat(&err, "checks.bounds_removed"), 1, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 0, "{out}");
    assert_eq!(count(&out, "π ("), 0, "checks strips its πs: {out}");
}

#[test]
fn index_from_an_unknown_value_keeps_its_check() {
    let src = "
fn get(a: [int], k: int) -> int { return a[k]; }
fn pos(a: [int], k: int) -> int { if k < len(a) { return a[k]; } return 0; }
fn main() { print(get([1; 3], 1) + pos([1; 3], 2)); }
";
    let (out, err) = ir("checks", src);
    // `k < len(a)` says nothing about `k >= 0`: both checks stay.
    assert_eq!(stat(&err, "checks.bounds_removed"), 0, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 2, "{out}");
}

#[test]
fn array_pushed_inside_the_loop_keeps_its_check() {
    let src = "
fn f(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) {
        push(a, 1);
        s = s + a[i];
    }
    return s;
}
fn main() { print(f([1; 3])); }
";
    let (out, err) = ir("checks", src);
    assert_eq!(stat(&err, "checks.bounds_removed"), 0, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 1, "{out}");
}

#[test]
fn off_by_one_le_len_keeps_its_check() {
    let src = "
fn f(a: [int]) -> int {
    var s = 0;
    var i = 0;
    while i <= len(a) {
        s = s + a[i];
        i = i + 1;
    }
    return s;
}
fn main() { print(f([1; 3])); }
";
    let (out, err) = ir("checks", src);
    assert_eq!(stat(&err, "checks.bounds_removed"), 0, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 1, "{out}");
}

#[test]
fn neighbour_index_below_len_minus_one_is_removed() {
    let src = "
fn diffs(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) - 1 {
        s = s + a[i + 1] - a[i];
    }
    return s;
}
fn main() { print(diffs([2; 5])); }
";
    let (out, err) = ir("checks", src);
    assert_eq!(stat(&err, "checks.bounds_removed"), 2, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 0, "{out}");
}

#[test]
fn fresh_array_constant_indices() {
    let src = "
fn f() -> int {
    var a = [0; 10];
    a[3] = 4;
    return a[3] + a[10];
}
fn main() { print(f()); }
";
    let (out, err) = ir("checks", src);
    // a[3] twice is inside `len 10`; a[10] is not.
    assert_eq!(stat(&err, "checks.bounds_removed"), 2, "{err}");
    assert_eq!(count(&out, "raise index_out_of_bounds"), 1, "{out}");
}

#[test]
fn nil_checks_guarded_or_fresh_are_removed_maybe_nil_kept() {
    let src = "
struct P { x: int }
fn guarded(p: P) -> int { if p != nil { return p.x; } return 0; }
fn fresh(c: bool) -> int { var q = P { x: 1 }; if c { q = P { x: 2 }; } return q.x; }
fn maybe(p: P) -> int { return p.x; }
fn main() { print(guarded(P { x: 2 }) + fresh(true) + maybe(P { x: 3 })); }
";
    let (out, err) = ir("checks", src);
    assert_eq!(stat(&err, "checks.nil_removed"), 2, "{err}");
    assert_eq!(count(&out, "raise nil_dereference"), 1, "{out}");
}

#[test]
fn division_checks_nonzero_removed_maybe_zero_kept() {
    let src = "
fn guarded(x: int, d: int) -> int { if d != 0 { return x / d; } return 0; }
fn positive(x: int, d: int) -> int { if d > 0 { return x % d; } return 0; }
fn maybe(x: int, d: int) -> int { return x / d; }
fn main() { print(guarded(7, 2) + positive(7, 3) + maybe(8, 4)); }
";
    let (out, err) = ir("checks", src);
    assert_eq!(stat(&err, "checks.div_removed"), 1, "{err}");
    assert_eq!(count(&out, "raise division_by_zero"), 2, "{out}");
}

#[test]
fn kept_checks_still_raise_at_the_same_position() {
    let src = "
fn f(a: [int]) -> int {
    var s = 0;
    var i = 0;
    while i <= len(a) {
        s = s + a[i];
        i = i + 1;
    }
    return s;
}
fn main() { print(f([1; 3])); }
";
    let o0 = toyc(&["run", "-O0"], src);
    let o2 = toyc(&["run", "-O2"], src);
    let interp = toyc(&["run", "--interp", "-O2"], src);
    assert_ne!(o0.2, 0);
    assert!(o0.1.contains("index out of bounds"), "{}", o0.1);
    assert_eq!(o0, o2);
    assert_eq!(o0, interp);
}

#[test]
fn optimised_programs_print_the_same() {
    let src = "
struct P { x: int }
fn main() {
    let a = [0; 50];
    for i in 0..len(a) { a[i] = i * i; }
    var s = 0;
    for i in 0..len(a) - 1 { s = s + a[i + 1] - a[i]; }
    let p = P { x: 7 };
    if p != nil { s = s + p.x; }
    let d = 3;
    if d != 0 { s = s / d; }
    print(s);
}
";
    let o0 = toyc(&["run", "-O0"], src);
    assert_eq!(o0, ("802\n".to_string(), String::new(), 0));
    assert_eq!(toyc(&["run", "-O2"], src), o0);
    assert_eq!(toyc(&["run", "--interp", "-O2"], src), o0);
}
