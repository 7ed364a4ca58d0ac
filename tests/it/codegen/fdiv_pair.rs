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

/// The CLIF blocks of `f` at -O2, each as its text (header first).
fn clif_blocks(f: &str) -> Vec<String> {
    let clif = toyc(&["clif", "-O2", "--fn", f]);
    clif.split("\nblock").skip(1).map(str::to_string).collect()
}

#[test]
fn a_common_numerator_is_one_splat_placed_before_the_loop() {
    // `series` divides 1.0 by the term of two iterations: the numerators
    // are one splat of the hoisted constant, in a block without the
    // division; the denominators are a splat with lane 1 replaced (no
    // `scalar_to_vector`, which zeroes the upper lane first).
    let blocks = clif_blocks("series");
    let with = |pat: &str| blocks.iter().filter(|b| b.contains(pat)).count();
    let all = blocks.concat();
    assert_eq!(all.matches("splat.f64x2").count(), 2, "{all}");
    assert_eq!(all.matches("insertlane").count(), 1, "{all}");
    assert_eq!(all.matches("scalar_to_vector").count(), 0, "{all}");
    let numerators = blocks
        .iter()
        .find(|b| b.contains("readonly can_move") && b.contains("splat.f64x2"))
        .expect("the constant and its splat in one block");
    assert!(!numerators.contains("fdiv"), "{all}");
    assert_eq!(with("fdiv"), 1, "{all}");
}

#[test]
fn two_divisions_of_one_value_outside_a_loop_splat_it_in_place() {
    // `halves`: x / y and x / z are one division with x splat where it
    // is; no loop, so nothing moves.
    let src = "fn halves(x: float, y: float, z: float) -> float {
    return x / y - x / z;
}
fn main() {
    print(halves(1.0, 2.0, 4.0), halves(0.0, 0.0, -1.0));
}
";
    let clif = super::toyc_on(src, "fdiv-pair-splat", &["clif", "-O2", "--fn", "halves"]);
    assert_eq!(clif.matches("splat.f64x2").count(), 2, "{clif}");
    assert_eq!(clif.matches("fdiv").count(), 1, "{clif}");
    assert_eq!(clif.matches("extractlane").count(), 2, "{clif}");
    for mode in [&["run", "-O0"][..], &["run", "-O2"], &["run", "--interp"]] {
        assert_eq!(
            super::toyc_on(src, "fdiv-pair-splat", mode),
            "0.25 NaN\n",
            "{mode:?}"
        );
    }
}
