//! Math functions and the clock.

use std::sync::Mutex;
use std::time::Instant;

static START: Mutex<Option<Instant>> = Mutex::new(None);

pub(super) fn start_clock() {
    *START.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
}

/// `clock()`: seconds since the program started, as a float.
pub extern "C" fn toy_clock() -> f64 {
    let start = *START.lock().unwrap_or_else(|e| e.into_inner());
    start.map_or(0.0, |s| s.elapsed().as_secs_f64())
}

macro_rules! unary {
    ($($name:ident => $f:expr),* $(,)?) => {
        $(pub extern "C" fn $name(x: f64) -> f64 { ($f)(x) })*
    };
}
unary! {
    toy_sqrt => f64::sqrt, toy_sin => f64::sin, toy_cos => f64::cos, toy_tan => f64::tan,
    toy_atan => f64::atan, toy_exp => f64::exp, toy_ln => f64::ln, toy_floor => f64::floor,
    toy_ceil => f64::ceil, toy_fabs => f64::abs,
}
pub extern "C" fn toy_atan2(y: f64, x: f64) -> f64 {
    y.atan2(x)
}
pub extern "C" fn toy_pow(x: f64, y: f64) -> f64 {
    x.powf(y)
}
/// Float `%`: C `fmod` (the result has the sign of `x`).
pub extern "C" fn toy_fmod(x: f64, y: f64) -> f64 {
    x % y
}

pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("toy_clock", toy_clock as *const u8),
        ("toy_sqrt", toy_sqrt as *const u8),
        ("toy_sin", toy_sin as *const u8),
        ("toy_cos", toy_cos as *const u8),
        ("toy_tan", toy_tan as *const u8),
        ("toy_atan", toy_atan as *const u8),
        ("toy_exp", toy_exp as *const u8),
        ("toy_ln", toy_ln as *const u8),
        ("toy_floor", toy_floor as *const u8),
        ("toy_ceil", toy_ceil as *const u8),
        ("toy_fabs", toy_fabs as *const u8),
        ("toy_atan2", toy_atan2 as *const u8),
        ("toy_pow", toy_pow as *const u8),
        ("toy_fmod", toy_fmod as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn fmod_keeps_the_sign_of_the_dividend() {
        assert_eq!(super::toy_fmod(-7.5, 2.0), -1.5);
        assert_eq!(super::toy_fmod(7.5, -2.0), 1.5);
        assert!(super::toy_fmod(1.0, 0.0).is_nan());
    }
}
