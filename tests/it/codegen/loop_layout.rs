//! How loops are laid out in machine code: a loop whose latch only jumps
//! back is entered again by one conditional jump (`codegen/block_order.rs`
//! `bypassed_latches`), also when its exit is not the next block (a
//! versioned loop shares its exit with the checked copy after it).

const SRC: &str = "fn dot(n: int, v: [float]) -> float {
    var s = 0.0;
    for j in 0..n {
        s += v[j] * 2.0;
    }
    return s;
}
fn main() {
    let v = [1.0; 40];
    print(dot(3, [1.0, 2.0, 3.0]), dot(40, v), dot(0, v));
    print(dot(41, v));
}
";

/// The jumps of `f`'s machine code at -O2: (address, mnemonic, target).
fn jumps(f: &str) -> Vec<(u64, String, u64)> {
    let asm = super::toyc_on(SRC, "loop-layout", &["asm", "-O2", "--fn", f]);
    asm.lines()
        .filter_map(|l| {
            let (addr, rest) = l.trim().split_once(':')?;
            let mut words = rest.split_whitespace();
            let (op, target) = (words.next()?, words.next()?);
            let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok();
            op.starts_with('j')
                .then_some((hex(addr)?, op.to_string(), hex(target)?))
        })
        .collect()
}

#[test]
fn every_jump_back_to_a_loop_is_conditional() {
    let jumps = jumps("dot");
    let back: Vec<_> = jumps.iter().filter(|(at, _, to)| to < at).collect();
    // The check-free loop and the checked one each jump back once.
    assert_eq!(back.len(), 2, "{jumps:?}");
    assert!(back.iter().all(|(_, op, _)| op != "jmp"), "{jumps:?}");
}

#[test]
fn the_output_is_the_same_at_every_level() {
    for mode in [
        &["run", "-O0", "-"][..],
        &["run", "-O2", "-"],
        &["run", "--interp", "-"],
    ] {
        let out = crate::driver::cli::toyc_with_stdin(mode, SRC.as_bytes());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "12.0 80.0 0.0\n",
            "{mode:?}"
        );
        assert_eq!(out.status.code(), Some(101), "{mode:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: index out of bounds: index 40, length 40\n  at <stdin>:4:14\n",
            "{mode:?}"
        );
    }
}
