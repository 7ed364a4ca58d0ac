//! Invariant loads placed by the translation (`codegen/invariant.rs`):
//! array buffer and string data addresses out of the loops they do not
//! vary in, one per site; the array stays a root wherever its buffer is
//! used; nothing moves at -O0. `toyc clif` (as translated) on one program,
//! whose output is checked at every level and under collector stress.

const SRC: &str = "fn total(m: [[int]], a: [int]) -> int {
    var s = 0;
    for i in 0..len(m) {
        let row = m[i];
        for j in 0..len(row) {
            s += row[j] * a[j] + a[j + 1];
        }
    }
    return s;
}
fn count(s: str, c: int) -> int {
    var n = 0;
    for i in 0..len(s) {
        if s[i] == c { n += 1; }
    }
    return n;
}
fn keep(a: [int], n: int) -> str {
    var t = \"\";
    for i in 0..n {
        t = t + str(a[i]);
    }
    return t;
}
fn main() {
    print(total([[1, 2], [3, 4, 5]], [1, 1, 1, 1]), count(\"banana\", 97), keep([4, 5, 6], 3));
}
";

fn clif(args: &[&str]) -> String {
    super::toyc_on(SRC, "invariant", &[&["clif"], args].concat())
}

/// The blocks of a CLIF listing, each as its lines (header first).
fn blocks(clif: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for line in clif.lines() {
        if line.starts_with("block") {
            out.push(vec![line]);
        } else if let Some(b) = out.last_mut() {
            b.push(line);
        }
    }
    out
}

/// The loads of offset `off` from value `base` (`vN+off`) in `clif`.
fn address_loads<'c>(clif: &'c str, base: &str, off: u32) -> Vec<&'c str> {
    let tail = format!(" {base}+{off}");
    clif.lines().filter(|l| l.ends_with(&tail)).collect()
}

/// Whether the block holding `line` also holds a line matching `other`.
fn shares_block(clif: &str, line: &str, other: impl Fn(&str) -> bool) -> bool {
    blocks(clif)
        .iter()
        .find(|b| b.contains(&line))
        .is_some_and(|b| b.iter().any(|l| *l != line && other(l)))
}

/// An element load: a 64-bit load from a computed address, no offset.
fn is_element_load(l: &str) -> bool {
    l.contains("= load.i64 notrap aligned v") && !l.contains('+')
}

#[test]
fn the_output_is_the_same_at_every_level_and_under_collector_stress() {
    for opt in ["-O0", "-O2"] {
        for env in [&[][..], &[("TOYC_GC_STRESS", "1")]] {
            let out = super::toyc_on_env(SRC, "invariant", &["run", opt], env);
            assert_eq!(out, "20 3 456\n", "{opt} {env:?}");
        }
    }
    let out = super::toyc_on(SRC, "invariant", &["run", "--interp"]);
    assert_eq!(out, "20 3 456\n");
}

/// `a` (a parameter) is loaded once, before the outer loop, with `m`;
/// `row`, defined in the outer loop, once before each of the two copies
/// of the inner loop (`version` made a checked and an unchecked one); no
/// buffer address is loaded in a block that loads an element.
#[test]
fn buffer_addresses_leave_the_loops_they_do_not_vary_in() {
    let total = clif(&["--fn", "total"]);
    let m = address_loads(&total, "v0", 24);
    let a = address_loads(&total, "v1", 24);
    assert_eq!((m.len(), a.len()), (1, 1), "{total}");
    let same_block = shares_block(&total, m[0], |l| l == a[0]);
    assert!(same_block, "{total}");
    let all: Vec<&str> = total.lines().filter(|l| l.ends_with("+24")).collect();
    assert_eq!(all.len(), 4, "{total}");
    for l in &all {
        assert!(l.contains("readonly can_move"), "{total}");
        assert!(!shares_block(&total, l, is_element_load), "{l}\n{total}");
    }
}

/// A string's data address is loaded once, outside the loop that reads
/// its bytes.
#[test]
fn a_string_data_address_leaves_the_loop() {
    let count = clif(&["--fn", "count"]);
    let data = address_loads(&count, "v0", 16);
    assert_eq!(data.len(), 1, "{count}");
    let byte = |l: &str| l.contains("= load.i8 ");
    assert!(count.lines().any(byte), "{count}");
    assert!(!shares_block(&count, data[0], byte), "{count}");
}

/// In `keep`, the loop reads `a` only through its buffer address, loaded
/// before the loop; `a` is still in the stack map of every call in the
/// loop (the slot it is stored to right at entry), so the collector keeps
/// the buffer the loop reads.
#[test]
fn an_array_used_through_its_buffer_address_stays_a_root() {
    let keep = clif(&["--fn", "keep"]);
    let stored = keep
        .lines()
        .find(|l| l.starts_with("    store notrap v0, "))
        .unwrap_or_else(|| panic!("a is not stored for the collector:\n{keep}"));
    let addr = stored.rsplit(' ').next().unwrap_or_default();
    let slot_line = keep
        .lines()
        .find(|l| l.starts_with(&format!("    {addr} = stack_addr.i64 ")))
        .unwrap_or_else(|| panic!("no stack_addr for {addr}:\n{keep}"));
    let slot = slot_line.rsplit(' ').next().unwrap_or_default();
    let calls: Vec<&str> = keep.lines().filter(|l| l.contains("stack_map=")).collect();
    assert_eq!(calls.len(), 4, "{keep}");
    for call in calls {
        assert!(call.contains(&format!("@ {slot}+0")), "{call}\n{keep}");
    }
    for l in keep.lines().filter(|l| l.ends_with(" v0+24")) {
        assert!(!shares_block(&keep, l, is_element_load), "{l}\n{keep}");
    }
}

/// At -O0 each access loads the address for itself: `a[j]` and `a[j + 1]`
/// two loads of `a`'s, none of them `readonly`.
#[test]
fn nothing_moves_at_o0() {
    let total = clif(&["-O0", "--fn", "total"]);
    assert_eq!(address_loads(&total, "v1", 24).len(), 2, "{total}");
    assert!(!total.contains("readonly"), "{total}");
}
