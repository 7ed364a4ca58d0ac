//! The `knownbits` pass: which divisions and remainders by powers of two
//! become shifts and zeros (their dividend's low bits are known zero), and
//! which must stay divisions. Each case runs `toyc ir --passes=knownbits`
//! (a debug build: the verifier runs after the pass) on a Toy program.

use super::toy_run::{stat, toyc};

/// (IR text of function `f`, stats and remarks text) after `knownbits`.
fn ir(src: &str) -> (String, String) {
    let (out, err, code) = toyc(
        &[
            "ir",
            "--passes=knownbits",
            "--stats",
            "--remarks",
            "--fn",
            "f",
        ],
        src,
    );
    assert_eq!(code, 0, "toyc ir failed: {err}");
    (out, err)
}

#[test]
fn exact_divisions_become_shifts_and_their_remainders_zero() {
    let src = "fn f(x: int, y: int) -> int {
    let a = x * (x + 1) / 2;
    let b = (x - 3) * x % 2;
    let c = (x << 3) / 8;
    let d = (x * 4 + y * 8) / 4;
    let g = (x & -16) % 16;
    let h = (12 * x) / 4;
    return a + b + c + d + g + h;
}
fn main() { print(f(3, 4)); }";
    let (after, stats) = ir(src);
    assert_eq!(stat(&stats, "knownbits.div_to_shift"), 4, "{stats}");
    assert_eq!(stat(&stats, "knownbits.rem_to_zero"), 2, "{stats}");
    assert_eq!(after.matches("idiv(").count(), 0, "{after}");
    assert_eq!(after.matches("irem(").count(), 0, "{after}");
    for shift in ["ishr(%2, 1)", "ishr(%4, 3)", "ishr(%8, 2)", "ishr(%10, 2)"] {
        assert!(after.contains(shift), "no {shift} in\n{after}");
    }
    assert!(
        stats.contains("x * x + 1 / 2 at 2:13 is x * x + 1 >> 1: its lowest bit is zero"),
        "{stats}"
    );
    assert!(
        stats.contains("at 6:13 is 0: its 4 lowest bits are zero"),
        "{stats}"
    );
}

#[test]
fn inexact_divisions_stay() {
    // `x * (x + 2)` is odd for odd x; `x << 2` has two zero bits, not
    // three; a φ is as good as its worst operand; `x * (y + 1)` has no
    // known factor 2; 2^63 is not a positive divisor, 3 not a power of two.
    let src = "fn f(x: int, y: int, c: bool) -> int {
    let e = x * (x + 2) / 2;
    let h = (x << 2) / 8;
    var p = x * 8;
    if c { p = x * 2; }
    let q = p / 4;
    let r = x * (y + 1) % 2;
    let s = (x * 8) / (-9223372036854775807 - 1);
    let t = (x * 8) / 3;
    return e + h + q + r + s + t;
}
fn main() { print(f(3, 4, true)); }";
    let (after, stats) = ir(src);
    assert_eq!(stat(&stats, "knownbits.div_to_shift"), 0, "{stats}");
    assert_eq!(stat(&stats, "knownbits.rem_to_zero"), 0, "{stats}");
    assert_eq!(after.matches("idiv(").count(), 5, "{after}");
    assert_eq!(after.matches("irem(").count(), 1, "{after}");
}

#[test]
fn a_phi_of_multiples_keeps_their_common_zero_bits() {
    let src = "fn f(x: int, c: bool) -> int {
    var p = x * 8;
    if c { p = x * 12; }
    return p / 4 + p % 4 + p / 8;
}
fn main() { print(f(3, true)); }";
    let (after, stats) = ir(src);
    assert_eq!(stat(&stats, "knownbits.div_to_shift"), 1, "{stats}");
    assert_eq!(stat(&stats, "knownbits.rem_to_zero"), 1, "{stats}");
    assert_eq!(after.matches("idiv(").count(), 1, "{after}");
    assert!(after.contains("idiv(%4, 8)"), "{after}");
}
