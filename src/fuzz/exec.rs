//! Running the toyc binary as a subprocess, with a timeout, so crashes and
//! hangs of the compiler are observed from outside.
//!
//! Invariant: every run has `TOYC_VERIFY=1` and `NO_COLOR=1` in its
//! environment, runs in `dir` with the program given by its file name
//! relative to `dir` (so messages say `fuzz.toy:L:C`). A *staged* run (of a
//! fuzz worker's folder, see [`stage`]) reads the file [`STDIN_FILE`] of
//! `dir` as its standard input and starts with none of the data files of
//! [`super::io::DATA_FILES`] in `dir`; any other run has stdin closed and
//! leaves the folder alone.

use super::ast::MODULE;
use super::oracle::Outcome;
use super::print::Sources;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one subprocess run gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunResult {
    /// It ended: its output and exit code (`-1` if a signal killed it).
    Exited(Outcome),
    /// Killed after the timeout.
    Timeout,
}

impl RunResult {
    /// One line describing the result, for reports.
    pub fn brief(&self) -> String {
        match self {
            RunResult::Timeout => "timeout".into(),
            RunResult::Exited(o) => {
                let first = o.stderr.lines().next().unwrap_or("");
                format!(
                    "exit {}{}",
                    o.code,
                    if first.is_empty() {
                        String::new()
                    } else {
                        format!(", {first}")
                    }
                )
            }
        }
    }
}

/// The file in a worker's folder that holds the program's standard input.
pub const STDIN_FILE: &str = "fuzz.stdin";

/// Writes a program (its main file as `file`, its module file if it has
/// one) and its standard input ([`STDIN_FILE`]) into `dir`, ready for
/// [`run_toyc`]; false if a write failed.
pub fn stage(dir: &Path, file: &str, source: &Sources, stdin: &str) -> bool {
    let module = dir.join(format!("{MODULE}.toy"));
    let module_ok = match &source.module {
        Some(text) => std::fs::write(module, text).is_ok(),
        None => {
            let _ = std::fs::remove_file(module);
            true
        }
    };
    module_ok
        && std::fs::write(dir.join(file), &source.main).is_ok()
        && std::fs::write(dir.join(STDIN_FILE), stdin).is_ok()
}

/// Runs `exe ARGS... file` in `dir` (a [`stage`]d folder if `staged`).
/// Output goes through the files `scratch.out` and `scratch.err`, which
/// avoids pipe deadlocks with big outputs.
pub fn run_toyc(
    exe: &Path,
    dir: &Path,
    scratch: &Path,
    args: &[&str],
    file: &str,
    timeout: Duration,
    staged: bool,
) -> RunResult {
    let out_path = scratch.with_extension("out");
    let err_path = scratch.with_extension("err");
    let (Ok(out), Ok(err)) = (
        std::fs::File::create(&out_path),
        std::fs::File::create(&err_path),
    ) else {
        return RunResult::Exited(Outcome {
            stdout: String::new(),
            stderr: "fuzz: cannot create files".into(),
            code: -2,
        });
    };
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .arg(file)
        .current_dir(dir)
        .env("TOYC_VERIFY", "1")
        .env("NO_COLOR", "1");
    let mut stdin = Stdio::null();
    if staged {
        for data in super::io::DATA_FILES {
            let _ = std::fs::remove_file(dir.join(data));
        }
        if let Ok(f) = std::fs::File::open(dir.join(STDIN_FILE)) {
            stdin = Stdio::from(f);
        }
    }
    cmd.stdin(stdin).stdout(out).stderr(err);
    // A binary written a moment ago may still be open for writing in a
    // child forked meanwhile by another thread (ETXTBSY): retry briefly.
    let mut child = cmd.spawn();
    for _ in 0..100 {
        match &child {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(Duration::from_millis(10));
                child = cmd.spawn();
            }
            _ => break,
        }
    }
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            return RunResult::Exited(Outcome {
                stdout: String::new(),
                stderr: format!("fuzz: spawn: {e}"),
                code: -2,
            });
        }
    };
    let start = Instant::now();
    let mut nap = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return RunResult::Timeout;
            }
            Ok(None) => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(5));
            }
            Err(_) => return RunResult::Timeout,
        }
    };
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    RunResult::Exited(Outcome {
        stdout: read(&out_path),
        stderr: read(&err_path),
        code: status.code().unwrap_or(-1),
    })
}
