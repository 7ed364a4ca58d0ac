//! Optimisation remarks (`--remarks`, src/opt/remarks.rs): the exact
//! remarks of each pass on small programs, through the `toyc` binary (the
//! rendered lines, positions as `line:col`) and through the library (the
//! structured data: row, function, passed or missed, position).

use crate::memssa_support::compile_with_sources;
use std::process::Command;
use toyc::opt::remarks::{Remark, RemarkKind};
use toyc::opt::{Counters, PipelineOptions};

/// Runs `toyc ARGS FILE` on `src` (written to a temp file); returns
/// (exit code, stdout, stderr).
fn toyc(test: &str, args: &[&str], src: &str) -> (Option<i32>, String, String) {
    let path = std::env::temp_dir().join(format!("toyc-remarks-{}-{test}.toy", std::process::id()));
    std::fs::write(&path, src).expect("write source");
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("run toyc");
    let _ = std::fs::remove_file(&path);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `--remarks=PASS` lines of `toyc ir` on `src`, with extra `args`.
fn remarks(test: &str, pass: &str, args: &[&str], src: &str) -> String {
    let sel = format!("--remarks={pass}");
    let mut all = vec!["ir", sel.as_str()];
    all.extend_from_slice(args);
    let (code, _, err) = toyc(test, &all, src);
    assert_eq!(code, Some(0), "{err}");
    err
}

const LOOPS: &str = "\
var total = 0;

fn sum(a: [int]) -> int {
    var s = 0;
    var i = 0;
    while i < len(a) {
        s = s + a[i];
        i = i + 1;
    }
    return s;
}

fn fill(a: [int], j: int, n: int) {
    var i = 0;
    while i < n {
        a[j] = a[j] + i;
        total = total + a[j + 1];
        i = i + 1;
    }
}

fn main() {
    let xs = [1, 2, 3];
    fill(xs, 0, 3);
    print(sum(xs));
    print(total);
}
";

#[test]
fn licm_says_what_it_hoisted_promoted_and_could_not_hoist() {
    let want = "\
licm: in fill: hoisted load a.len out of the loop at 16:16
licm: in fill: hoisted the check 0 <= j < a.len out of the loop at 16:16
licm: in fill: could not hoist load total at 17:17: clobbered by store total at 17:9
licm: in fill: kept a[j] in a register across the loop at 16:9
licm: in fill: kept total in a register across the loop at 17:9
licm: in main: could not hoist load total at 17:17: clobbered by store total at 17:9
licm: in main: kept xs[0] in a register across the loop at 16:9
licm: in main: kept total in a register across the loop at 17:9
";
    assert_eq!(remarks("licm", "licm", &[], LOOPS), want);
}

#[test]
fn licm_says_what_it_could_not_hoist_or_promote_and_why() {
    // `p` and `q` may be one object in `f`, so neither field stays in a
    // register; in `main`, where they are, `p.x` does. A field load first
    // missed because its base may be nil is reported once, with the reason
    // that stood last (its nil check was hoisted meanwhile). An element
    // whose index changes every iteration is no candidate and not reported.
    let src = "\
struct P { x: int }
fn f(p: P, q: P, n: int) {
    var i = 0;
    while i < n {
        p.x = p.x + q.x;
        q.x = i;
        i = i + 1;
    }
}
fn g(a: [int]) {
    var i = 0;
    while i < len(a) {
        a[i] = i;
        i = i + 1;
    }
}
fn main() { let p = P { x: 1 }; f(p, p, 3); print(p.x); g([0, 0]); }
";
    let want = "\
licm: in f: hoisted the check p != nil out of the loop at 5:15
licm: in f: hoisted the check q != nil out of the loop at 5:15
licm: in f: could not hoist load p.x at 5:15: clobbered by store p.x at 5:9
licm: in f: could not hoist load q.x at 5:21: clobbered by store p.x at 5:9
licm: in f: could not keep p.x in a register across the loop at 5:9
licm: in f: could not keep q.x in a register across the loop at 6:9
licm: in main: could not hoist load p.x at 5:15: clobbered by store p.x at 5:9
licm: in main: kept p.x in a register across the loop at 5:9
";
    assert_eq!(remarks("missed", "licm", &[], src), want);
}

#[test]
fn checks_says_which_checks_went_and_why() {
    let want = "\
checks: in sum: removed bounds check on a[i] at 7:17 (i in 0..a.len)
checks: in fill: could not remove bounds check on a[j] at 16:16
checks: in fill: removed bounds check on a[j] at 16:9 (j in 0..a.len)
checks: in fill: could not remove bounds check on a[j + 1] at 17:25
checks: in main: removed bounds check on xs[sum::i] at 7:17 (sum::i in 0..xs.len)
checks: in main: removed bounds check on xs[0] at 16:16 (0 in 0..xs.len)
checks: in main: removed bounds check on xs[0] at 16:9 (0 in 0..xs.len)
checks: in main: removed bounds check on xs[1] at 17:25 (1 in 0..xs.len)
";
    assert_eq!(remarks("checks", "checks", &[], LOOPS), want);
}

#[test]
fn fn_filter_keeps_one_functions_remarks() {
    let want = "\
inline: in main: inlined fill into main at 24:5
inline: in main: inlined sum into main at 25:11
rotate: in main: rotated the loop at 15:11 into `if fill::i < 3 { do {..} while fill::i < 3 }`
rotate: in main: rotated the loop at 6:11 into `if sum::i < xs.len { do {..} while sum::i < xs.len }`
";
    let got = remarks("fnfilter", "all", &["--fn", "main"], LOOPS);
    let got: String = got
        .lines()
        .filter(|l| l.starts_with("inline") || l.starts_with("rotate"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got, want);
    assert!(
        remarks("fnfilter2", "all", &["--fn", "sum"], LOOPS)
            .lines()
            .all(|l| l.contains(": in sum: ")),
    );
}

const FIELDS: &str = "\
struct P { x: int, y: int }

fn twice(p: P) -> int {
    p.x = 1;
    p.x = 2;
    return p.y + p.y + p.x;
}

fn main() {
    print(twice(P { x: 0, y: 5 }));
}
";

#[test]
fn gvn_load_and_dse_name_the_loads_and_stores() {
    let passes = ["--passes=sccp,dce,simplifycfg,checks,gvn_load,dse"];
    let want = "\
gvn_load: in twice: load p.y at 6:18 is redundant with 6:12
gvn_load: in twice: load p.x at 6:24 gets the value stored at 5:5
";
    assert_eq!(remarks("gvn", "gvn_load", &passes, FIELDS), want);
    let want = "dse: in twice: removed store p.x at 4:5: it is overwritten on every path before any read\n";
    assert_eq!(remarks("dse", "dse", &passes, FIELDS), want);
}

#[test]
fn inline_says_what_it_inlined_and_what_not() {
    let src = "\
fn fact(n: int) -> int { if n < 2 { return 1; } return n * fact(n - 1); }
fn sq(x: int) -> int { return x * x; }
fn main() { print(sq(3) + fact(4)); }
";
    let want = "\
inline: in fact: did not inline fact into fact at 1:60: it is recursive
inline: in main: inlined sq into main at 3:19
inline: in main: did not inline fact into main at 3:27: it is recursive
";
    assert_eq!(remarks("inline", "inline", &[], src), want);
}

#[test]
fn sccp_and_cse_say_which_branches_they_decided() {
    // `k` is 1 on every path, which only SCCP finds (SSA construction
    // cannot fold `2 - k` of a loop φ).
    let src = "\
fn f(n: int) -> int {
    var k = 1;
    var i = 0;
    while i < n {
        k = 2 - k;
        i = i + 1;
    }
    if k == 1 { return 5; }
    return 0;
}
fn g(a: int, b: int) -> int {
    if a < b {
        if a < b { return 1; }
    }
    return 0;
}
fn main() { print(f(3) + g(1, 2)); }
";
    let want = "\
sccp: in f: folded the branch at 8:8: k == 1 is always true
cse: in g: a < b at 13:12 is computed already at 12:8
cse: in g: the branch at 13:12 is decided: a < b is true here
";
    assert_eq!(remarks("sccp", "all", &["--passes=sccp,cse"], src), want);
}

#[test]
fn no_remarks_without_the_flag_and_unknown_pass_is_an_error() {
    let (code, _, err) = toyc("none", &["ir"], LOOPS);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let (code, _, err) = toyc("unknown", &["ir", "--remarks=licn"], LOOPS);
    assert_eq!(code, Some(2));
    assert!(
        err.starts_with("error: --remarks: unknown pass `licn` (known passes: sccp, dce,"),
        "{err}"
    );
    // The flag takes its value only after `=`: the file is not swallowed.
    let (code, out, err) = toyc("run", &["run", "--remarks"], LOOPS);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, "9\n6\n");
    assert!(
        err.contains("inline: in main: inlined sum into main at 25:11\n"),
        "{err}"
    );
}

/// The remarks of the -O2 pipeline on `src`, as data.
fn remark_data(name: &str, src: &str) -> Vec<Remark> {
    let (mut module, _) = compile_with_sources(name, src);
    let opts = PipelineOptions {
        passes: toyc::opt::default_passes(2),
        verify: true,
        remarks: true,
        ..Default::default()
    };
    let mut c = Counters::default();
    toyc::opt::run_pipeline_with_remarks(&mut module, &opts, &mut c, &|_| String::new())
        .expect("verifies")
}

#[test]
fn remarks_are_data_with_row_function_kind_and_position() {
    let rs = remark_data("data", LOOPS);
    let hoisted = rs
        .iter()
        .find(|r| r.message_text(&|_| "@".into()) == "hoisted load a.len out of the loop at @")
        .expect("a.len hoisted");
    assert_eq!(
        (hoisted.pass.as_str(), hoisted.func.as_str(), hoisted.kind),
        ("licm", "fill", RemarkKind::Passed)
    );
    // 16:16 is `a[j]` in `a[j] + i`: byte offset of line 16, column 16.
    let line16 = LOOPS.lines().take(15).map(|l| l.len() + 1).sum::<usize>();
    assert_eq!(hoisted.span.start as usize, line16 + 15);
    let missed: Vec<&Remark> = rs.iter().filter(|r| r.kind == RemarkKind::Missed).collect();
    assert!(missed.iter().any(|r| r.pass == "licm" && r.func == "fill"));
    // Rows of a pass run twice are told apart, and `gvn_load` selects both.
    assert!(
        rs.iter()
            .any(|r| r.pass == "gvn_load.late" && r.selected_by("gvn_load"))
    );
    assert!(
        !rs.iter()
            .any(|r| r.pass == "licm" && r.selected_by("gvn_load"))
    );
    // Without the option nothing is collected.
    let (mut module, _) = compile_with_sources("data_off", LOOPS);
    let opts = PipelineOptions {
        passes: toyc::opt::default_passes(2),
        ..Default::default()
    };
    let none =
        toyc::opt::run_pipeline_with_remarks(&mut module, &opts, &mut Counters::default(), &|_| {
            String::new()
        })
        .expect("verifies");
    assert!(none.is_empty());
}

#[test]
fn cse_says_what_an_operation_simplified_to() {
    // `gvn_load` replaces `a[0]` by the stored 0; cse then simplifies.
    let src = "\
fn f(a: [int], x: int) -> int {
    a[0] = 0;
    let d = a[0];
    if d < 4 { return x * (d + 1); }
    return 0;
}
fn main() { print(f([7], 5)); }
";
    let want = "\
cse: in f: 0 <= 0 < a.len at 3:13 is computed already at 2:5
cse: in f: 0 < 4 at 4:8 is true
cse: in f: 0 + 1 at 4:27 is 1
cse: in f: x * 1 at 4:23 is x
cse: in f: the branch at 3:13 is decided: 0 <= 0 < a.len is true here
";
    assert_eq!(
        remarks("cse_fold", "cse", &["--passes=gvn_load,cse"], src),
        want
    );
}

/// `checks` describes a check in the function as it was before the pass
/// (its πs are never in the stream): indexes nested in a guarded loop are
/// named by their variables, not by the number of a π.
#[test]
fn checks_names_indexes_under_guards() {
    let src = "\
fn mul(a: [[int]], b: [[int]], n: int) -> int {
    var s = 0;
    for i in 0..n {
        for k in 0..n {
            s = s + a[i][k] * b[k][i];
        }
    }
    return s;
}
fn main() { print(mul([[1]], [[2]], 1)); }
";
    let want = "\
checks: in mul: could not remove bounds check on a[i] at 5:21
checks: in mul: could not remove bounds check on a[i][k] at 5:21
checks: in mul: could not remove bounds check on b[k] at 5:31
checks: in mul: could not remove bounds check on b[k][i] at 5:31
";
    let got = remarks("pinames", "checks", &["--fn", "mul"], src);
    assert_eq!(got, want);
}
