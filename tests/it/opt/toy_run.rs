//! Running the toyc binary on a Toy program given as text, for the pass
//! tests that check `toyc ir --stats` output or run the program.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `toyc ARGS FILE` on a temporary file holding `src`: (stdout, stderr with
/// the file's path written `<file>`, exit code).
pub fn toyc(args: &[&str], src: &str) -> (String, String, i32) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("toyc_opt_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("t{}.toy", NEXT.fetch_add(1, Ordering::SeqCst)));
    std::fs::write(&path, src).expect("write source");
    let out = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("toyc runs");
    let _ = std::fs::remove_file(&path);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).replace(&*path.to_string_lossy(), "<file>"),
        out.status.code().unwrap_or(-1),
    )
}

/// The value of counter `name` in `--stats` output (0 if absent).
pub fn stat(stats: &str, name: &str) -> u64 {
    stats
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map_or(0, |n| n.trim().parse().expect("counter"))
}
