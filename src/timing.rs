//! Phase timings for `--time-passes`: any stage records how long it took
//! (`record("cranelift", d)`); the driver prints them in recording order.
//! Recording is cheap and always on; nothing is printed unless asked.

use std::sync::Mutex;
use std::time::Duration;

static TIMES: Mutex<Vec<(String, Duration)>> = Mutex::new(Vec::new());

/// Adds `d` to the phase `name` (a phase recorded twice accumulates).
pub fn record(name: &str, d: Duration) {
    if let Ok(mut t) = TIMES.lock() {
        match t.iter_mut().find(|(n, _)| n == name) {
            Some((_, total)) => *total += d,
            None => t.push((name.to_string(), d)),
        }
    }
}

/// Runs `f`, recording its duration under `name`.
pub fn time<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let out = f();
    record(name, start.elapsed());
    out
}

/// `time.PHASE: N.NNN ms` lines, in recording order, and clears the table.
pub fn take_report() -> String {
    let times = match TIMES.lock() {
        Ok(mut t) => std::mem::take(&mut *t),
        Err(_) => Vec::new(),
    };
    times
        .iter()
        .map(|(n, d)| format!("time.{n}: {:.3} ms\n", d.as_secs_f64() * 1000.0))
        .collect()
}
