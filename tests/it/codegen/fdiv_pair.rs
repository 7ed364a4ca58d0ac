//! Two adjacent, independent float divisions run as one two-lane division
//! (`codegen::ops::fdiv_pair`), and `divpair` makes such pairs in loops:
//! which functions' CLIF divides two lanes at -O0 and -O2, and that the
//! output is the same at both levels and in the interpreter.

const SRC: &str = "fn series(n: int) -> float {
    var s = 0.0;
    for k in 0..n {
        s += 1.0 / float(k * k + 1);
    }
    return s;
}
fn two(x: float, y: float, z: float, w: float) -> float {
    return x / y + z / w;
}
fn chain(x: float, y: float, z: float) -> float {
    return x / y / z;
}
fn main() {
    print(series(0), series(1), series(2), series(7));
    print(two(1.0, 3.0, 2.0, 0.0), two(-0.0, 1.0, 0.0, 0.0));
    print(chain(1.0, 3.0, 7.0));
}
";

fn toyc(args: &[&str]) -> String {
    super::toyc_on(SRC, "fdiv-pair", args)
}

/// How many two-lane divisions function `f`'s CLIF has at level `opt`:
/// each gives two `extractlane`s.
fn pairs(opt: &str, f: &str) -> usize {
    let clif = toyc(&["clif", opt, "--fn", f]);
    let lanes = clif.lines().filter(|l| l.contains("= extractlane")).count();
    assert_eq!(lanes % 2, 0, "{clif}");
    lanes / 2
}

#[test]
fn the_output_is_the_same_at_every_level() {
    let want = "0.0 1.0 1.5 1.9243120949003303\ninf NaN\n0.047619047619047616\n";
    for mode in [&["run", "-O0"][..], &["run", "-O2"], &["run", "--interp"]] {
        assert_eq!(toyc(mode), want, "{mode:?}");
    }
}

#[test]
fn divpair_pairs_the_loop_division_only_at_o2() {
    assert_eq!(pairs("-O0", "series"), 0);
    assert_eq!(pairs("-O2", "series"), 1);
}

#[test]
fn adjacent_independent_divisions_pair_at_every_level() {
    for opt in ["-O0", "-O2"] {
        assert_eq!(pairs(opt, "two"), 1, "{opt}");
        // The second division reads the first.
        assert_eq!(pairs(opt, "chain"), 0, "{opt}");
    }
}
