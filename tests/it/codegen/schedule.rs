//! The order of a block's arithmetic in the CLIF (`codegen/schedule.rs`):
//! at -O2 independent chains interleave by earliest start; at -O0 the
//! IR's order stays. The output is the same at every level.

const SRC: &str = "fn escape(cr: float, ci: float) -> int {
    var zr = 0.0;
    var zi = 0.0;
    var tr = 0.0;
    var ti = 0.0;
    var i = 0;
    while i < 50 && tr + ti <= 4.0 {
        zi = 2.0 * zr * zi + ci;
        zr = tr - ti + cr;
        tr = zr * zr;
        ti = zi * zi;
        i += 1;
    }
    return i;
}
fn main() {
    print(escape(0.25, 0.5), escape(-1.0, 0.0), escape(1.0, 1.0), escape(-0.75, 0.1));
}
";

fn toyc(args: &[&str]) -> String {
    super::toyc_on(SRC, "schedule", args)
}

/// The operations of the loop body's float arithmetic in `escape`'s CLIF
/// at level `opt`, in order (`fadd`, `fmul`, ...), from the block that
/// multiplies.
fn loop_float_ops(opt: &str) -> Vec<String> {
    let clif = toyc(&["clif", opt, "--fn", "escape"]);
    let body = clif
        .split("\nblock")
        .find(|b| b.contains("fmul"))
        .unwrap_or_else(|| panic!("no block multiplies:\n{clif}"));
    body.lines()
        .filter_map(|l| l.split(" = ").nth(1))
        .filter_map(|rhs| rhs.split_whitespace().next())
        .map(|op| op.trim_end_matches(".f64").to_string())
        .filter(|op| op.starts_with('f') && op != "f64const")
        .collect()
}

#[test]
fn loop_chains_interleave_at_o2_only() {
    // IR order: zi's chain (2*zr, which the translation makes zr+zr, then
    // *zi, +ci), then zr's (tr-ti, +cr), then the squares. At -O2 each
    // chain's next step comes as soon as its operand is ready: 2*zr and
    // tr-ti first, then *zi and +cr, then +ci and zr*zr, then zi*zi.
    assert_eq!(
        loop_float_ops("-O2"),
        ["fadd", "fsub", "fmul", "fadd", "fadd", "fmul", "fmul"]
    );
    assert_eq!(
        loop_float_ops("-O0"),
        ["fadd", "fmul", "fadd", "fsub", "fadd", "fmul", "fmul"]
    );
}

#[test]
fn the_output_is_the_same_at_every_level() {
    let want = "50 50 2 33\n";
    for mode in [&["run", "-O0"][..], &["run", "-O2"], &["run", "--interp"]] {
        assert_eq!(toyc(mode), want, "{mode:?}");
    }
}
