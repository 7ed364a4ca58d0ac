//! Multiplication, division and remainder by an int constant, without a
//! multiply by a power of two or a divide instruction (at `-O1` and up).
//!
//! Toy's `/` truncates toward zero and `%` takes the dividend's sign; both
//! wrap (`MIN / -1 == MIN`). With a constant divisor `d` (not 0, which the
//! IR's check has ruled out, nor `1` or `-1`, which `ops` handles):
//! - `|d| = 2^k`: `x / d` is `(x + bias) >> k` (arithmetic), where `bias`
//!   is `2^k - 1` for a negative `x` and 0 otherwise, negated when `d < 0`;
//! - otherwise the quotient is the high word of `x * m`, adjusted and
//!   shifted (Granlund and Montgomery 1994; Hacker's Delight, 2nd ed.,
//!   §10-1 to 10-6), with the magic number `m` and shift `s` of
//!   [`magic`];
//! - `x % d` is `x - (x / d) * d`, which cannot overflow.
//!
//! A multiplication by `2^k` is a left shift (the same wrapping result).

use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

/// The magic multiplier `m` and shift `s` of divisor `d` (`|d| >= 2`):
/// for every `x`, `x / d` (truncated) is `q + (q >>> 63)` where
/// `q = (mulhi(x, m) + c) >> s` and `c` is `x` when `d > 0` and `m < 0`,
/// `-x` when `d < 0` and `m > 0`, and 0 otherwise.
pub fn magic(d: i64) -> (i64, u32) {
    const TWO63: u64 = 1 << 63;
    let ad = d.unsigned_abs();
    // The largest dividend magnitude, |nc|: 2^63 - 1 - (2^63 mod |d|) for
    // d > 0, one more for d < 0.
    let t = TWO63 + ((d as u64) >> 63);
    let anc = t - 1 - t % ad;
    let mut p = 63u32;
    let (mut q1, mut r1) = (TWO63 / anc, TWO63 % anc);
    let (mut q2, mut r2) = (TWO63 / ad, TWO63 % ad);
    loop {
        p += 1;
        q1 = q1.wrapping_mul(2);
        r1 = r1.wrapping_mul(2);
        if r1 >= anc {
            q1 = q1.wrapping_add(1);
            r1 = r1.wrapping_sub(anc);
        }
        q2 = q2.wrapping_mul(2);
        r2 = r2.wrapping_mul(2);
        if r2 >= ad {
            q2 = q2.wrapping_add(1);
            r2 = r2.wrapping_sub(ad);
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
    }
    let m = q2.wrapping_add(1) as i64;
    (if d < 0 { m.wrapping_neg() } else { m }, p - 64)
}

/// `k` when `|d| = 2^k`.
fn log2_abs(d: i64) -> Option<u32> {
    let a = d.unsigned_abs();
    a.is_power_of_two().then(|| a.trailing_zeros())
}

/// `x * c` as a shift, when the constant `c` is a positive power of two.
pub fn shift_for_mul(b: &mut FunctionBuilder, x: Value, c: i64) -> Option<Value> {
    let k = log2_abs(c).filter(|_| c > 0)?;
    Some(b.ins().ishl_imm_u(x, k as i64))
}

/// `x / |d|` truncated, for `|d| = 2^k` (`k >= 1`).
fn div_pow2(b: &mut FunctionBuilder, x: Value, k: u32) -> Value {
    let sign = b.ins().sshr_imm_u(x, 63);
    let bias = b.ins().ushr_imm_u(sign, 64 - k as i64);
    let biased = b.ins().iadd(x, bias);
    b.ins().sshr_imm_u(biased, k as i64)
}

/// `x / d` truncated, for a constant `d` with `|d| >= 2`.
pub fn sdiv(b: &mut FunctionBuilder, x: Value, d: i64) -> Value {
    if let Some(k) = log2_abs(d) {
        let q = div_pow2(b, x, k);
        return if d < 0 { b.ins().ineg(q) } else { q };
    }
    let (m, s) = magic(d);
    let mv = b.ins().iconst(types::I64, m);
    let mut q = b.ins().smulhi(x, mv);
    if d > 0 && m < 0 {
        q = b.ins().iadd(q, x);
    } else if d < 0 && m > 0 {
        q = b.ins().isub(q, x);
    }
    if s > 0 {
        q = b.ins().sshr_imm_u(q, s as i64);
    }
    let negative = b.ins().ushr_imm_u(q, 63);
    b.ins().iadd(q, negative)
}

/// `x % d` (the dividend's sign), for a constant `d` with `|d| >= 2`.
pub fn srem(b: &mut FunctionBuilder, x: Value, d: i64) -> Value {
    let product = match log2_abs(d) {
        // x % d == x % |d|.
        Some(k) => {
            let q = div_pow2(b, x, k);
            b.ins().ishl_imm_u(q, k as i64)
        }
        None => {
            let q = sdiv(b, x, d);
            b.ins().imul_imm_s(q, d)
        }
    };
    b.ins().isub(x, product)
}

#[cfg(test)]
mod tests {
    use super::magic;

    /// `x / d` computed the way [`super::sdiv`] emits it, for `|d| >= 2`
    /// not a power of two.
    fn by_magic(x: i64, d: i64) -> i64 {
        let (m, s) = magic(d);
        let mut q = ((x as i128 * m as i128) >> 64) as i64;
        if d > 0 && m < 0 {
            q = q.wrapping_add(x);
        } else if d < 0 && m > 0 {
            q = q.wrapping_sub(x);
        }
        q >>= s;
        q.wrapping_add(((q as u64) >> 63) as i64)
    }

    #[test]
    fn known_magic_numbers() {
        // Hacker's Delight, table 10-2 (64-bit).
        assert_eq!(magic(3), (0x5555555555555556, 0));
        assert_eq!(magic(5), (0x6666666666666667, 1));
        assert_eq!(magic(7), (0x4924924924924925, 1));
        assert_eq!(magic(-5), (-0x6666666666666667, 1));
    }

    #[test]
    fn the_magic_quotient_is_the_truncated_one() {
        let mut divisors: Vec<i64> = (-1000..=1000).collect();
        for k in 2..63 {
            let p = 1i64 << k;
            divisors.extend([p - 1, p + 1, -(p - 1), -(p + 1), p / 3, -(p / 3)]);
        }
        divisors.extend([i64::MAX, i64::MIN + 1, 1_000_000_007, -641, 6_700_417]);
        divisors.retain(|d| d.unsigned_abs() >= 2 && !d.unsigned_abs().is_power_of_two());
        let mut xs: Vec<i64> = (-300..=300).collect();
        for k in 0..64 {
            let p = 1u64.wrapping_shl(k) as i64;
            xs.extend([p, p.wrapping_sub(1), p.wrapping_add(1), p.wrapping_neg()]);
        }
        xs.extend([i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1]);
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            xs.push(seed as i64);
        }
        for &d in &divisors {
            for &x in &xs {
                assert_eq!(by_magic(x, d), x.wrapping_div(d), "{x} / {d}");
            }
        }
    }
}
