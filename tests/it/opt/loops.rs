//! The `loops` pass: dedicated preheaders and exits, made in rounds that
//! stop once a round deferred no fix. Each case runs `toyc ir
//! --passes=loops` in a debug build, where the pass runs one more round
//! and asserts that it finds nothing (an internal error otherwise), and
//! checks that a second run of the pass has nothing left to do.

use super::toy_run::{stat, toyc};

/// The `loops.preheaders` and `loops.exits` counters of `toyc ir
/// --passes=PASSES` on `src`.
fn fixes(passes: &str, src: &str) -> (u64, u64) {
    let (_, err, code) = toyc(&["ir", &format!("--passes={passes}"), "--stats"], src);
    assert_eq!(code, 0, "toyc ir --passes={passes} failed: {err}");
    (stat(&err, "loops.preheaders"), stat(&err, "loops.exits"))
}

/// A call that may throw before the loops, in the outer loop and in the
/// inner one: all three unwind to the function's one `unwind` block.
const NESTED_THROWING: &str = "fn check(x: int) -> int {
    if x > 1000 {
        throw \"too big\";
    }
    return x;
}

fn main() {
    var total = check(1);
    for r in 0..3 {
        total += check(r);
        for k in 0..4 {
            total += check(k);
        }
    }
    print(total);
}
";

#[test]
fn an_inner_exit_into_the_outer_loops_exit_block_gets_a_block_for_each_loop() {
    // The outer loop's exit into `unwind` gets a block (fix 1). The inner
    // loop's exit, now into that block, is deferred to the next round and
    // gets one of its own (fix 2), which leaves the outer loop: the block
    // of fix 1 is then entered from outside the outer loop and needs a
    // block between it and the outer loop (fix 3), a round later still.
    assert_eq!(fixes("loops", NESTED_THROWING), (0, 3));
    assert_eq!(fixes("loops,loops", NESTED_THROWING), (0, 3));
}

#[test]
fn loops_straight_from_construction_need_no_fix() {
    let src = "fn main() {
    var i = 0;
    var s = 0;
    while i < 10 {
        s += i;
        i += 1;
    }
    while i > 0 {
        s += i;
        i -= 2;
    }
    print(s);
}
";
    assert_eq!(fixes("loops", src), (0, 0));
}
