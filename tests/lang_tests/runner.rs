//! Running `toyc` once on a test file in one mode, with stdin fed or
//! closed, and a timeout.

use crate::header::Spec;
use crate::{CHECK_MODE, Mode, SLOW_STRESS_TIMEOUT, TIMEOUT};
use libtest_mimic::{Failed, Trial};
use std::fmt::Write as _;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One test file, ready to run in any mode.
#[derive(Clone)]
pub(crate) struct Case {
    pub(crate) root: PathBuf,
    pub(crate) toyc: PathBuf,
    /// Path relative to the repository root, as passed to `toyc`.
    pub(crate) file: String,
    pub(crate) spec: Spec,
}

/// The outcome of running `toyc` once.
pub(crate) struct Output {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// `None` when killed by a signal.
    pub(crate) code: Option<i32>,
}

impl Case {
    /// A stress-mode run of a `// gc-stress:` file: an ignored trial with
    /// the long timeout.
    pub(crate) fn slow_under_stress(&self, mode: &Mode) -> bool {
        self.spec.gc_stress_slow.is_some() && !mode.env.is_empty()
    }

    pub(crate) fn trial(&self, name: &str, mode: &'static Mode, ignored: bool) -> Trial {
        let case = self.clone();
        Trial::test(format!("{name}::{}", mode.name), move || case.run(mode))
            .with_ignored_flag(ignored)
    }

    fn command_args(&self, mode: &Mode) -> Vec<String> {
        let mut v: Vec<String> = mode.args.iter().map(|s| s.to_string()).collect();
        v.push(self.file.clone());
        if mode.args.first() == Some(&"run") && !self.spec.args.is_empty() {
            v.push("--".into());
            v.extend(self.spec.args.iter().cloned());
        }
        v
    }

    /// A shell command line that reproduces the run.
    fn repro(&self, mode: &Mode) -> String {
        let exe = self
            .toyc
            .strip_prefix(&self.root)
            .unwrap_or(&self.toyc)
            .display()
            .to_string();
        let args: Vec<String> = self
            .command_args(mode)
            .iter()
            .map(|a| shell_quote(a))
            .collect();
        let env: String = mode.env.iter().map(|(k, v)| format!("{k}={v} ")).collect();
        let (feed, redirect) = match &self.spec.stdin {
            Some(text) => (format!("printf %s {} | ", shell_quote(text)), ""),
            None => (String::new(), " </dev/null"),
        };
        format!(
            "cd {} && {feed}NO_COLOR=1 {env}{} {}{redirect}",
            shell_quote(&self.root.display().to_string()),
            exe,
            args.join(" ")
        )
    }

    fn run(&self, mode: &Mode) -> Result<(), Failed> {
        let out = self
            .execute(mode)
            .map_err(|e| format!("{e}\n\nreproduce with:\n  {}", self.repro(mode)))?;
        let problems = if mode.name == CHECK_MODE.name {
            self.judge_check(&out)
        } else {
            self.judge_run(&out)
        };
        if problems.is_empty() {
            return Ok(());
        }
        let mut msg = String::new();
        for p in problems {
            msg.push_str(&p);
            msg.push('\n');
        }
        let _ = write!(msg, "reproduce with:\n  {}", self.repro(mode));
        Err(msg.into())
    }

    fn execute(&self, mode: &Mode) -> Result<Output, String> {
        let mut child = Command::new(&self.toyc)
            .args(self.command_args(mode))
            .current_dir(&self.root)
            .env("NO_COLOR", "1")
            .env_remove("TOYC_VERIFY")
            .env_remove("TOYC_GC")
            .env_remove("TOYC_GC_STRESS")
            .env_remove("TOYC_GC_STATS")
            .envs(mode.env.iter().copied())
            .stdin(match self.spec.stdin {
                Some(_) => Stdio::piped(),
                None => Stdio::null(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.toyc.display()))?;
        write_in_background(child.stdin.take(), self.spec.stdin.clone());
        let stdout = read_in_background(child.stdout.take());
        let stderr = read_in_background(child.stderr.take());
        let start = Instant::now();
        let timeout = if self.slow_under_stress(mode) {
            SLOW_STRESS_TIMEOUT
        } else {
            TIMEOUT
        };
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if start.elapsed() > timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("timed out after {} s (killed)", timeout.as_secs()));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => return Err(format!("cannot wait for toyc: {e}")),
            }
        };
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        Ok(Output {
            stdout,
            stderr,
            code: status.code(),
        })
    }
}

fn read_in_background<R: Read + Send + 'static>(
    pipe: Option<R>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// Feeds `text` to the child's stdin and closes it (a program that stops
/// reading early makes the write fail, which is not an error).
fn write_in_background(pipe: Option<std::process::ChildStdin>, text: Option<String>) {
    if let (Some(mut p), Some(t)) = (pipe, text) {
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = p.write_all(t.as_bytes());
        });
    }
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=+:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
