//! The round trip Toy → Bril → `toyc run`, over every runnable lang-test
//! and example, at `-O0` and `-O2`: where `toyc ir --bril` gives a Bril
//! program, running it must give the Toy program's stdout, exit code and
//! first line of stderr (a runtime error's message; the position that
//! follows is the Bril file's). Where it gives an error, the program is
//! counted under the construct that has no Bril form. The test prints the
//! counts (`cargo test --test it bril_out::roundtrip -- --nocapture`).
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How many programs must convert at each level, at least: a floor well
/// under today's count, so an emitter that rejects everything fails.
const MIN_CONVERTED: usize = 35;
const TIMEOUT: Duration = Duration::from_secs(60);

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs toyc from the repository root with stdin closed; a run over
/// [`TIMEOUT`] is killed and reported as exit code -2.
fn toyc(args: &[&str]) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toyc"))
        .args(args)
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toyc");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break -2;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let text = |v: Vec<u8>| String::from_utf8_lossy(&v).into_owned();
    Outcome {
        code,
        stdout: text(reader.join().unwrap_or_default()),
        stderr: text(err_reader.join().unwrap_or_default()),
    }
}

/// The `.toy` tests under `lang-tests/` and `examples/` that run (not a
/// compile-error, check-only or helper-module file), sorted.
fn runnable_programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["lang-tests", "examples"] {
        collect(&root.join(dir), &mut files);
    }
    files.retain(|f| {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let header = text
            .lines()
            .take_while(|l| l.trim().is_empty() || l.starts_with("//"));
        !header.into_iter().any(|l| {
            ["// error:", "// check-only:", "// module:"]
                .iter()
                .any(|d| l.starts_with(d))
        })
    });
    files.sort();
    files
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "toy") {
            out.push(path);
        }
    }
}

/// What happened to one program at one level.
enum Verdict {
    /// Converted, and the Bril program ran as the Toy program did.
    RoundTrip,
    /// Converted, but the Bril program ran differently: a wrong answer.
    Mismatch(String),
    /// `toyc ir --bril` named a construct with no Bril form.
    Skipped(String),
    /// `toyc ir --bril` failed otherwise: a crash or an unexplained error.
    Failed(String),
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn check(file: &Path, level: &str, want: &Outcome, tmp: &Path) -> Verdict {
    let path = file.display().to_string();
    let ir = toyc(&["ir", "--bril", "-A", "warnings", level, &path]);
    if ir.code == 1
        && let Some(rest) = ir.stderr.split("cannot express ").nth(1)
    {
        return Verdict::Skipped(rest.split(" in Bril").next().unwrap_or(rest).to_string());
    }
    if ir.code != 0 {
        return Verdict::Failed(format!(
            "toyc ir --bril {level} exit {}: {}",
            ir.code, ir.stderr
        ));
    }
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let bril = tmp.join(format!("{stem}{level}.bril"));
    std::fs::write(&bril, &ir.stdout).expect("write the Bril file");
    let got = toyc(&["run", &bril.display().to_string()]);
    let same = got.code == want.code
        && got.stdout == want.stdout
        && first_line(&got.stderr) == first_line(&want.stderr);
    if same {
        Verdict::RoundTrip
    } else {
        Verdict::Mismatch(format!(
            "{level}: Toy gave exit {} stdout {:?} stderr {:?}; its Bril exit {} stdout {:?} stderr {:?}\n{}",
            want.code, want.stdout, want.stderr, got.code, got.stdout, got.stderr, ir.stdout
        ))
    }
}

#[test]
fn toy_programs_round_trip_through_bril() {
    let files = runnable_programs();
    let tmp = std::env::temp_dir().join(format!("toyc-bril-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let levels = ["-O0", "-O2"];
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(file) = files.get(i) else { break };
                    let path = file.display().to_string();
                    let want = toyc(&["run", "-A", "warnings", &path]);
                    for (k, level) in levels.iter().enumerate() {
                        let dir = tmp.join(format!("{i}"));
                        let _ = std::fs::create_dir_all(&dir);
                        let v = check(file, level, &want, &dir);
                        results.lock().unwrap().push((k, path.clone(), v));
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    for (k, level) in levels.iter().enumerate() {
        let (mut converted, mut round_trips) = (0, 0);
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, path, v) in results.iter().filter(|r| r.0 == k) {
            match v {
                Verdict::RoundTrip => {
                    converted += 1;
                    round_trips += 1;
                }
                Verdict::Mismatch(why) => {
                    converted += 1;
                    failures.push(format!("{path} {why}"));
                }
                Verdict::Skipped(why) => *reasons.entry(why).or_default() += 1,
                Verdict::Failed(why) => failures.push(format!("{path} {why}")),
            }
        }
        let skipped: usize = reasons.values().sum();
        println!(
            "{level}: {} programs, {converted} converted, {round_trips} round-tripped, {skipped} skipped:",
            files.len()
        );
        let mut by_count: Vec<_> = reasons.into_iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        for (why, n) in by_count {
            println!("  {n:4}  {why}");
        }
        assert!(
            converted >= MIN_CONVERTED,
            "{level}: only {converted} converted"
        );
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
