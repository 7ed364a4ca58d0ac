//! Array buffers a function cannot move (`codegen/fixed_data.rs`): which
//! loads of an array's buffer address are `readonly can_move`, that
//! the translation then hoists them out of loops, and that a `push` in the
//! function or in a callee keeps them plain. `toyc clif` on small programs;
//! the programs' output is checked at -O0 and -O2.

const SRC: &str = "fn sum(a: [int]) -> int {
    var s = 0;
    for i in 0..len(a) {
        s += a[i];
    }
    return s;
}
fn grow(a: [int], n: int) -> int {
    var s = 0;
    for i in 0..n {
        s += a[i];
        push(a, i);
    }
    return s;
}
fn pusher(a: [int]) { push(a, 1); }
fn calls(a: [int], f: [float]) -> float {
    var t = 0.0;
    for i in 0..len(a) {
        t += f[i] + float(a[i]);
        pusher(a);
    }
    return t;
}
fn fresh(n: int) -> int {
    let b = [0; n];
    for i in 0..n {
        b[i] = i;
    }
    return b[n - 1];
}
fn main() {
    let a = [1, 2, 3];
    print(sum(a), grow(a, 5), fresh(4));
    print(calls([1, 2], [0.5, 0.25, 0.125, 1.0]), len(a));
}
";

fn toyc(args: &[&str]) -> String {
    super::toyc_on(SRC, "fixed-data", args)
}

/// The buffer-address loads (offset 24) of function `f`'s CLIF.
fn data_loads(clif: &str) -> Vec<&str> {
    clif.lines().filter(|l| l.ends_with("+24")).collect()
}

#[test]
fn the_output_is_the_same_at_every_level() {
    for opt in ["-O0", "-O2"] {
        assert_eq!(toyc(&["run", opt]), "6 7 3\n3.75 8\n", "{opt}");
    }
}

#[test]
fn a_buffer_nothing_can_move_is_loaded_once_before_the_loop() {
    let clif = toyc(&["clif", "--fn", "sum"]);
    assert_eq!(
        data_loads(&clif),
        ["    v10 = load.i64 notrap aligned readonly can_move v0+24"],
        "{clif}"
    );
    // The translation hoists it (`codegen/invariant.rs`): the block that
    // loads the address is not the loop's, which loads the element (a
    // load without offset).
    let blocks: Vec<&str> = clif.split("\nblock").collect();
    let with_data = blocks.iter().filter(|b| b.contains("can_move v0+24"));
    let with_elem = blocks.iter().filter(|b| {
        b.lines()
            .any(|l| l.contains("= load.i64 notrap aligned v") && !l.contains('+'))
    });
    assert_eq!(with_data.clone().count(), 1, "{clif}");
    assert_eq!(with_elem.clone().count(), 1, "{clif}");
    assert_ne!(with_data.max(), with_elem.max(), "{clif}");
    // An allocation in the function moves no existing buffer.
    let fresh = toyc(&["clif", "--fn", "fresh"]);
    assert!(
        data_loads(&fresh)
            .iter()
            .all(|l| l.contains("readonly can_move")),
        "{fresh}"
    );
}

#[test]
fn a_push_here_or_in_a_callee_keeps_the_loads_of_its_element_type() {
    let grow = toyc(&["clif", "--fn", "grow"]);
    let loads = data_loads(&grow);
    assert_eq!(loads.len(), 1, "{grow}");
    assert!(!loads[0].contains("readonly"), "{grow}");
    // `pusher` pushes onto an `[int]`: `a`'s loads stay plain, `f`'s
    // (`[float]`) do not.
    let calls = toyc(&["clif", "--fn", "calls"]);
    let (fixed, plain): (Vec<&str>, Vec<&str>) = data_loads(&calls)
        .into_iter()
        .partition(|l| l.contains("readonly can_move"));
    assert!(
        !fixed.is_empty() && fixed.iter().all(|l| l.ends_with("v1+24")),
        "{calls}"
    );
    assert!(
        !plain.is_empty() && plain.iter().all(|l| l.ends_with("v0+24")),
        "{calls}"
    );
    // At -O0 nothing is `readonly`.
    let o0 = toyc(&["clif", "-O0", "--fn", "sum"]);
    assert!(!o0.contains("readonly"), "{o0}");
}
