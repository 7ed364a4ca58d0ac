//! Loop versioning (`opt/version/`): exactly which bounds checks the
//! check-free copy of a loop loses (the `version` remarks name each one by
//! position) and which loops are left alone: indices not affine in the
//! loop variable, lengths loaded in the loop, `ϒ`s, loops over the size
//! cap. Each program also runs through the interpreter before and after
//! the -O2 list (same output and exit code; the verifiers run after every
//! pass), and through `toyc run -O2` against `--interp -O0`.

use super::toy_run::{stat, toyc};
use crate::memssa_support::check_output;

const O2: &[&str] = &[
    "sccp",
    "dce",
    "simplifycfg",
    "inline",
    "tailrec",
    "recinline",
    "loops",
    "cse",
    "knownbits",
    "checks",
    "rotate",
    "gvn_load",
    "licm",
    "version",
    "gvn_load.late",
    "cse.late",
    "simplifycfg.late",
    "divpair",
    "dse",
];

/// The `version` remarks of `src` at -O2 (without the `version: ` prefix),
/// its `version.*` counters (loops, checks removed), and its output, the
/// same from the interpreter before and after the passes and from the JIT.
fn version(name: &str, src: &str) -> (Vec<String>, (u64, u64), String) {
    let (_, out) = check_output(name, src, O2);
    let (jit, _, _) = toyc(&["run", "-O2"], src);
    assert_eq!(jit, out, "toyc run -O2 differs from the interpreter");
    let (_, err, code) = toyc(&["ir", "-O2", "--remarks=version", "--stats"], src);
    assert_eq!(code, 0, "{err}");
    let remarks = err
        .lines()
        .filter_map(|l| l.strip_prefix("version: "))
        .map(str::to_string)
        .collect();
    let counts = (
        stat(&err, "version.loops"),
        stat(&err, "version.checks_removed"),
    );
    (remarks, counts, out)
}

const MATMUL: &str = "fn mm(n: int, a: [float], b: [float]) -> [float] {
    let c = [0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            var s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
    return c;
}
fn main() {
    let a = [1.0, 2.0, 3.0, 4.0];
    let c = mm(2, a, a);
    print(c[0], c[1], c[2], c[3]);
    print(len(mm(0, a, a)), len(mm(-2, a, a)));
    let o = [1.0; 400];
    let d = mm(20, o, o);
    print(d[0], d[399]);
}
";

/// The cost model's declines of `src` at -O2: the `version.skipped_outer`
/// and `version.skipped_trips` counters.
fn declined(src: &str) -> (u64, u64) {
    let (_, err, code) = toyc(&["ir", "-O2", "--stats"], src);
    assert_eq!(code, 0, "{err}");
    (
        stat(&err, "version.skipped_outer"),
        stat(&err, "version.skipped_trips"),
    )
}

#[test]
fn matmul_loses_the_k_loop_checks_and_the_j_loop_is_not_copied_again() {
    // The k loop (a and b) is versioned. The j loop, which holds
    // c[i*n + j], contains it: versioning it would copy both versions of
    // the k loop for a check that runs once per k loop, and the cost model
    // declines it (in the first round, before the k loop's remark).
    let (remarks, counts, out) = version("v1", MATMUL);
    assert_eq!(
        remarks,
        [
            "in mm: did not version the loop at 4:9: it contains a versioned loop",
            "in mm: versioned the loop at 6:13: removed 2 bounds checks (at 7:22, 7:37)",
        ]
    );
    assert_eq!(counts, (1, 2));
    assert_eq!(declined(MATMUL), (1, 0));
    assert_eq!(out, "7.0 10.0 15.0 22.0\n0 4\n20.0 20.0\n");
}

/// The comparisons of `mm`'s IR at -O2 in the blocks from the φ of the
/// variable `from` up to the φ of `to` (both in the source order of the
/// printed function).
fn comparisons_between(src: &str, from: &str, to: &str) -> usize {
    let (ir, err, code) = toyc(&["ir", "-O2", "--fn", "mm"], src);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = ir.lines().collect();
    let at = |var: &str| {
        lines
            .iter()
            .position(|l| l.contains(" = φ (") && l.ends_with(&format!("# {var}")))
            .unwrap_or_else(|| panic!("no φ of {var} in\n{ir}"))
    };
    let is_cmp = |l: &&&str| {
        ["ilt(", "ile(", "ige(", "igt(", "iult("]
            .iter()
            .any(|c| l.contains(&format!("= {c}")))
    };
    lines[at(from)..at(to)].iter().filter(is_cmp).count()
}

#[test]
fn the_guard_is_computed_at_the_loop_level_where_its_bounds_vary() {
    // The k loop's guard is built in its preheader, inside the j loop;
    // `version.licm` moves what does not vary with j out of it: the
    // comparisons on n - 1 and on n + 2^31 (small bounds) before the i
    // loop, those on i*n and i*n + n - 1 (a's indices) into the i loop.
    // In the j loop stay the 16 < n trip test's branch and the five
    // comparisons on j and j + n*(n-1) (b's indices).
    let (_, counts, out) = version("v_licm", MATMUL);
    assert_eq!(counts, (1, 2));
    assert_eq!(out, "7.0 10.0 15.0 22.0\n0 4\n20.0 20.0\n");
    let (_, err, _) = toyc(&["ir", "-O2", "--stats"], MATMUL);
    assert_eq!(stat(&err, "version.licm.hoisted_cmps"), 13);
    assert_eq!(stat(&err, "version.licm.hoisted"), 30);
    assert_eq!(comparisons_between(MATMUL, "j", "k"), 5);
    assert_eq!(comparisons_between(MATMUL, "i", "j"), 5);
}

#[test]
fn outer_loop_around_a_loop_without_removable_checks_is_versioned() {
    // The inner `while` is not a counting loop and has no removable check,
    // so nothing in it was versioned: the outer loop (a[i]) is, copying
    // the inner loop once.
    let src = "fn digits(a: [int], n: int) -> int {
    var s = 0;
    for i in 0..n {
        var j = a[i];
        while j > 0 {
            s = s + j % 10;
            j = j / 10;
        }
    }
    return s;
}
fn main() {
    print(digits([19, 7, 305], 3), digits([12; 20], 20));
    print(digits([1; 20], 21));
}
";
    let (remarks, counts, out) = version("v8", src);
    assert_eq!(
        remarks,
        ["in digits: versioned the loop at 3:5: removed 1 bounds check (at 4:17)"]
    );
    assert_eq!(counts, (1, 1));
    assert_eq!(declined(src), (0, 0));
    assert_eq!(out, "25 60\n");
}

#[test]
fn triangular_loops_are_versioned() {
    // The inner bounds are the outer counter (0..i) and affine in it
    // (i + 1..n): their trip counts follow the outer loop's.
    let src = "fn tri(a: [int], n: int) -> int {
    var s = 0;
    for i in 0..n {
        for j in 0..i {
            s = s + a[j];
        }
        for j in i + 1..n {
            s = s - a[j] * 2;
        }
    }
    return s;
}
fn main() {
    let a = [0; 30];
    for i in 0..30 {
        a[i] = i * 7 % 11;
    }
    print(tri(a, 3), tri(a, 30));
    print(tri(a, 31));
}
";
    let (remarks, counts, out) = version("v9", src);
    assert_eq!(
        remarks,
        [
            "in tri: versioned the loop at 4:9: removed 1 bounds check (at 5:21)",
            "in tri: versioned the loop at 7:9: removed 1 bounds check (at 8:21)",
        ]
    );
    assert_eq!(counts, (2, 2));
    assert_eq!(declined(src), (0, 0));
    assert_eq!(out, "-19 -2393\n");
}

#[test]
fn loops_over_whole_rows_are_versioned() {
    // The inner bound len(r) is loaded in the outer loop, but it is an
    // array's length: the loop runs over the whole row. `main` inlines
    // both calls (one remark for the two copies: the same position).
    let src = "fn dot_rows(m: [[int]], w: [int]) -> int {
    var s = 0;
    for i in 0..len(m) {
        let r = m[i];
        for j in 0..len(r) {
            s = s + r[j] * w[j];
        }
    }
    return s;
}
fn main() {
    let w = [0; 30];
    for i in 0..30 {
        w[i] = i % 4;
    }
    let m = [[1; 20], [2; 30], [3; 5]];
    print(dot_rows(m, w));
    m[1] = [1; 31];
    print(dot_rows(m, w));
}
";
    let (remarks, counts, out) = version("v11", src);
    assert_eq!(
        remarks,
        [
            "in dot_rows: versioned the loop at 5:9: removed 1 bounds check (at 6:28)",
            "in main: versioned the loop at 5:9: removed 1 bounds check (at 6:28)",
        ]
    );
    assert_eq!(counts, (3, 3));
    assert_eq!(declined(src), (0, 0));
    assert_eq!(out, "134\n");
}

#[test]
fn nested_loops_whose_bounds_vary_unpredictably_are_not_versioned() {
    // In `rows` the inner bound is loaded in the outer loop; in `shifts`
    // the enclosing `while` is not a counting loop. The inner loops keep
    // their checks; `rows`' outer loop (lens[i]) and the first loop of
    // `shifts` are versioned. Each decline is counted once, though the
    // second round sees the loops again. `main` inlines both calls of
    // `rows`, whose lens[i] `checks` removes (`lens` has 21 elements):
    // two more declines, one remark (the same position).
    let src = "fn rows(a: [int], lens: [int], m: int) -> int {
    var s = 0;
    for i in 0..m {
        let c = lens[i];
        for j in 0..c {
            s = s + a[j] * i;
        }
    }
    return s;
}
fn shifts(a: [int], n: int) -> int {
    for i in 0..n {
        a[i] = a[i] + 1;
    }
    var r = n - 1;
    while r > 0 {
        let first = a[0];
        for i in 0..r {
            a[i] = a[i + 1];
        }
        a[r] = first;
        r = r - 2;
    }
    return a[0] * 100 + a[n - 1];
}
fn main() {
    let a = [0; 40];
    for i in 0..40 {
        a[i] = i;
    }
    let lens = [0; 21];
    for i in 0..21 {
        lens[i] = i * 2;
    }
    print(rows(a, lens, 21), shifts(a, 40), shifts([5, 6, 7], 3));
    lens[20] = 41;
    print(rows(a, lens, 21));
}
";
    let (remarks, counts, out) = version("v10", src);
    assert_eq!(
        remarks,
        [
            "in rows: did not version the loop at 5:9: its bounds change in the enclosing loop \
             and are not affine in its counter",
            "in rows: versioned the loop at 3:5: removed 1 bounds check (at 4:17)",
            "in shifts: did not version the loop at 19:22: its bounds change in the enclosing \
             loop and are not affine in its counter",
            "in shifts: versioned the loop at 12:5: removed 1 bounds check (at 13:16)",
            "in main: did not version the loop at 5:9: its bounds change in the enclosing loop \
             and are not affine in its counter",
        ]
    );
    assert_eq!(counts, (2, 2));
    assert_eq!(declined(src), (0, 4));
    assert_eq!(out, "85330 2101 706\n");
}

#[test]
fn fill_of_a_local_square_array_loses_its_check() {
    let src = "fn fill(n: int) -> int {
    let c = [0; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = i + j;
        }
    }
    return c[len(c) - 1];
}
fn main() { print(fill(3), fill(1), fill(20)); }
";
    let (remarks, counts, out) = version("v2", src);
    assert_eq!(
        remarks,
        ["in fill: versioned the loop at 4:9: removed 1 bounds check (at 5:13)"]
    );
    assert_eq!(counts, (1, 1));
    assert_eq!(out, "4 0 38\n");
}

#[test]
fn decreasing_and_constant_indices_are_versioned() {
    // a[n - 1 - k] (coefficient -1) and b[k + 5] over 0..20 (constant
    // ends); `s` is read after the loop, through the exit's new φ. A loop
    // of at most 16 iterations (0..16 here) is not versioned.
    let src = "fn f(a: [int], b: [int], n: int) -> int {
    var s = 0;
    for k in 0..n {
        s = s + a[n - 1 - k] * k;
    }
    for k in 0..20 {
        s = s + b[k + 5];
    }
    for k in 0..16 {
        s = s + b[k + 1];
    }
    return s;
}
fn main() { print(f([1, 2, 3], [1; 25], 3), f([1; 20], [2; 25], 20)); }
";
    let (remarks, counts, out) = version("v3", src);
    assert_eq!(
        remarks,
        [
            "in f: versioned the loop at 3:5: removed 1 bounds check (at 4:17)",
            "in f: versioned the loop at 6:5: removed 1 bounds check (at 7:17)",
        ]
    );
    assert_eq!(counts, (2, 2));
    assert_eq!(out, "40 262\n");
}

#[test]
fn non_affine_indices_and_lengths_loaded_in_the_loop_stay() {
    // a[k * k] is not affine; a[b[k]] depends on a load; b[k] is affine and
    // goes (in `f`; not in its copy inlined into `main`, whose loop runs 2
    // times: under 16, not worth a guard). In `g` the loop pushes, so
    // len(a) is loaded in every iteration.
    let src = "fn f(a: [int], b: [int], n: int) -> int {
    var s = 0;
    for k in 0..n {
        s = s + a[k * k] + a[b[k]];
    }
    return s;
}
fn g(a: [int], n: int) -> int {
    var s = 0;
    for k in 0..n {
        push(a, k);
        s = s + a[k];
    }
    return s;
}
fn main() { print(f([5, 6, 7, 8, 9], [1, 0], 2), g([7], 3)); }
";
    let (remarks, counts, out) = version("v4", src);
    assert_eq!(
        remarks,
        ["in f: versioned the loop at 3:5: removed 1 bounds check (at 4:30)"]
    );
    assert_eq!(counts, (1, 1));
    assert_eq!(out, "22 8\n");
}

#[test]
fn loop_writing_a_variable_the_handler_reads_is_not_versioned() {
    // `last` is live into the handler: the loop holds a ϒ.
    let src = "fn f(a: [int], n: int) -> int {
    var last = -1;
    try {
        for k in 0..n {
            last = k;
            a[k] = k;
        }
    } catch e {
        print(e);
    }
    return last;
}
fn main() { print(f([0; 3], 2), f([0; 3], 5)); }
";
    let (remarks, counts, out) = version("v5", src);
    assert!(remarks.is_empty(), "{remarks:?}");
    assert_eq!(counts, (0, 0));
    assert_eq!(out, "index out of bounds: index 3, length 3\n1 3\n");
}

#[test]
fn loop_over_the_size_cap_is_not_versioned() {
    let body = "        s = s * 3 + a[k] + k;\n".repeat(60);
    let src = format!(
        "fn f(a: [int], n: int) -> int {{\n    var s = 0;\n    for k in 0..n {{\n{body}    }}\n    return s;\n}}\nfn main() {{ print(f([1, 2], 2)); }}\n"
    );
    let (remarks, counts, _) = version("v6", &src);
    assert!(remarks.is_empty(), "{remarks:?}");
    assert_eq!(counts, (0, 0));
}

#[test]
fn break_out_of_a_versioned_loop_keeps_the_values_after_it() {
    // Two exits (the break and the end) merge after the loop; s and k are
    // read there.
    let src = "fn f(a: [int], n: int) -> int {
    var s = 0;
    var at = -1;
    for k in 0..n {
        if a[k] < 0 {
            at = k;
            break;
        }
        s = s + a[k];
    }
    return s * 100 + at;
}
fn main() { print(f([1, 2, -1, 4], 4), f([1, 2, 3], 3), f([1], 0), f([1; 20], 20)); }
";
    let (remarks, counts, out) = version("v7", src);
    assert_eq!(
        remarks,
        ["in f: versioned the loop at 4:5: removed 1 bounds check (at 5:12)"]
    );
    assert_eq!(counts, (1, 1));
    assert_eq!(out, "302 599 -1 1999\n");
}
