//! The outside world of a generated program: its standard input and the
//! data files it may write and read (`read_line`, `at_eof`, `read_all`,
//! `read_file`, `write_file`), for the reference evaluator, and the names
//! the executor must clear before each run.
//!
//! Semantics, from docs/language.md §6 alone: `read_line` gives the next
//! line without its `\n` and a `\r` just before it, a last line without
//! `\n` is still a line, and with no bytes left it throws `end of input`;
//! `at_eof` is whether no bytes are left; `read_all` is the rest. Files are
//! paths relative to the directory toyc runs in; a missing file or folder
//! throws `cannot read PATH: REASON` / `cannot write PATH: REASON` with the
//! system's text, which on the platforms toyc runs on is
//! `No such file or directory`.
//!
//! Invariants: generated input is ASCII (so every line is a valid str); a
//! program only ever names [`PATHS`]; the files of [`DATA_FILES`] do not
//! exist when a run starts (the executor deletes them), and the folder of
//! [`MISSING_DIR_PATH`] never exists.

use super::builtins::Stop;
use super::value::Val;
use std::collections::HashMap;
use std::rc::Rc;

/// The files a program may create, in the folder toyc runs in.
pub const DATA_FILES: [&str; 2] = ["fz0.txt", "fz1.txt"];
/// A path in a folder that does not exist: reading and writing it fail.
pub const MISSING_DIR_PATH: &str = "nodir/fz2.txt";
/// Every path a generated program names.
pub const PATHS: [&str; 3] = [DATA_FILES[0], DATA_FILES[1], MISSING_DIR_PATH];

const NO_SUCH_FILE: &str = "No such file or directory";

/// Standard input and the files written so far, as the program sees them.
#[derive(Default)]
pub struct World {
    stdin: Vec<u8>,
    pos: usize,
    files: HashMap<String, String>,
}

impl World {
    /// A world whose standard input is `stdin` (ASCII) and with no files.
    pub fn new(stdin: &str) -> World {
        World {
            stdin: stdin.as_bytes().to_vec(),
            pos: 0,
            files: HashMap::new(),
        }
    }

    fn rest(&self) -> &[u8] {
        &self.stdin[self.pos..]
    }

    /// `read_line()`.
    pub fn read_line(&mut self) -> Result<Val, Stop> {
        let rest = self.rest();
        if rest.is_empty() {
            return Err(Stop::Throw("end of input".into()));
        }
        let (line, used) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let text = String::from_utf8_lossy(line).into_owned();
        self.pos += used;
        Ok(Val::Str(Rc::new(text)))
    }

    /// `at_eof()`.
    pub fn at_eof(&self) -> Val {
        Val::Bool(self.rest().is_empty())
    }

    /// `read_all()`.
    pub fn read_all(&mut self) -> Val {
        let text = String::from_utf8_lossy(self.rest()).into_owned();
        self.pos = self.stdin.len();
        Val::Str(Rc::new(text))
    }

    /// `read_file(path)`.
    pub fn read_file(&self, path: &str) -> Result<Val, Stop> {
        match self.files.get(path) {
            Some(s) => Ok(Val::Str(Rc::new(s.clone()))),
            None => Err(Stop::Throw(format!("cannot read {path}: {NO_SUCH_FILE}"))),
        }
    }

    /// `write_file(path, s)`.
    pub fn write_file(&mut self, path: &str, s: &str) -> Result<Val, Stop> {
        if !DATA_FILES.contains(&path) {
            return Err(Stop::Throw(format!("cannot write {path}: {NO_SUCH_FILE}")));
        }
        self.files.insert(path.to_string(), s.to_string());
        Ok(Val::Unit)
    }
}
