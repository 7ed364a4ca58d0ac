//! `toyc repl`: read a line, compile it with what the session kept, run it
//! with the JIT, print what it printed (and an expression's value), keep
//! its items and variables ([`session`] explains how).
//!
//! Errors do not end the session: a compile error is shown against the
//! line, a runtime error (what ends a program with exit code 101) is
//! reported as the program would report it. `exit(n)` ends the session,
//! as it ends a program. History is kept in `$XDG_STATE_HOME/toyc/history`
//! (or `~/.local/state/toyc/history`); when it cannot be read or written
//! the session goes on without it.

mod session;

use crate::diag::Diagnostic;
use crate::span::SourceMap;
use session::{Defines, Form, Piece, Program, Session};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

const HELP: &str = "\
Enter Toy code:
  an expression without `;`     prints its value:           1 + 2
  statements                    run:                        print(\"hi\"); x += 1;
  fn, struct, import            are kept for later lines:   fn sq(x: int) -> int { return x * x; }
  let, var (alone on a line)    define session variables:   var total = 0;
A line with an unclosed `{`, `(` or `[` continues on the next one.
Commands:
  :ir NAME      the optimised IR of function NAME
  :clif NAME    its Cranelift IR
  :asm NAME     its machine code
  :passes       the optimisation passes
  :reset        forget every item and variable
  :help         this text
  :quit         leave (as does Ctrl-D)
";

/// Runs the REPL on the terminal until `:quit` or end of input; returns
/// the exit code (0).
pub fn run(level: u8) -> i32 {
    let mut rl = match rustyline::DefaultEditor::new() {
        Ok(rl) => rl,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            return 1;
        }
    };
    let history = history_file();
    if let Some(path) = &history {
        // A missing file is a first session; anything else is reported.
        if let Err(e) = rl.load_history(path)
            && path.exists()
        {
            eprintln!("note: cannot read the history {}: {e}", path.display());
        }
    }
    println!("toyc repl (-O{level}): :help for help, :quit to leave");
    let mut repl = Repl {
        session: Session::default(),
        next_line: 1,
        level,
    };
    let mut history_ok = true;
    while let Some(text) = read_entry(&mut rl) {
        let _ = rl.add_history_entry(text.as_str());
        if let Some(path) = &history
            && history_ok
            && let Err(e) = save_history(&mut rl, path)
        {
            eprintln!("note: history not saved to {}: {e}", path.display());
            history_ok = false;
        }
        if !repl.entry(text.trim()) {
            break;
        }
        let _ = std::io::stdout().flush();
    }
    0
}

/// One entry: a line, continued while a bracket is open. `None` at the
/// end of input.
fn read_entry(rl: &mut rustyline::DefaultEditor) -> Option<String> {
    use rustyline::error::ReadlineError;
    let mut text = String::new();
    loop {
        let prompt = if text.is_empty() { "toy> " } else { "...> " };
        match rl.readline(prompt) {
            Ok(line) => {
                text.push_str(&line);
                if open_brackets(&text) <= 0 {
                    return Some(text);
                }
                text.push('\n');
            }
            // Ctrl-C drops the entry being typed.
            Err(ReadlineError::Interrupted) => text.clear(),
            Err(_) => return None,
        }
    }
}

/// How many brackets `text` leaves open (outside strings and comments).
fn open_brackets(text: &str) -> i64 {
    let (mut depth, mut in_str, mut escaped) = (0i64, false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '/' if chars.peek() == Some(&'/') => {
                chars.find(|&c| c == '\n');
            }
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// `$XDG_STATE_HOME/toyc/history`, else `$HOME/.local/state/toyc/history`.
fn history_file() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("toyc").join("history"))
}

fn save_history(rl: &mut rustyline::DefaultEditor, path: &std::path::Path) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    rl.save_history(path).map_err(|e| e.to_string())
}

/// A session and its settings.
struct Repl {
    session: Session,
    next_line: usize,
    level: u8,
}

/// A program checked and built: its IR, and the sources to render its
/// diagnostics and positions.
struct Built {
    module: crate::ir::Module,
    sources: SourceMap,
}

impl Repl {
    /// Handles one entry; `false` ends the session.
    fn entry(&mut self, text: &str) -> bool {
        if text.is_empty() {
            return true;
        }
        if let Some(command) = text.strip_prefix(':') {
            return self.command(command);
        }
        let piece = Piece {
            line: self.next_line,
            text: text.to_string(),
        };
        self.next_line += 1;
        self.line(&piece);
        true
    }

    fn command(&mut self, command: &str) -> bool {
        let mut words = command.split_whitespace();
        let (name, arg) = (words.next().unwrap_or(""), words.next());
        use crate::codegen::asm::Listing;
        match (name, arg) {
            ("quit" | "q", None) => return false,
            ("help" | "h", None) => print!("{HELP}"),
            ("passes", None) => print!("{}", crate::opt::describe_passes()),
            ("reset", None) => {
                self.session = Session::default();
                println!("(the session is empty)");
            }
            ("ir", Some(f)) => self.show(f, None),
            ("clif", Some(f)) => self.show(f, Some(Listing::Clif)),
            ("asm", Some(f)) => self.show(f, Some(Listing::Asm)),
            ("ir" | "clif" | "asm", None) => eprintln!("error: :{name} needs a function name"),
            _ => eprintln!("error: unknown command `:{command}` (:help lists them)"),
        }
        true
    }

    /// `:ir`, `:clif`, `:asm`: a listing of a kept function (`None`: IR).
    fn show(&self, func: &str, listing: Option<crate::codegen::asm::Listing>) {
        let program = self.session.program(None, &Defines::default());
        let Ok(built) = self.build(&program) else {
            return;
        };
        let Some(f) = built.module.funcs.iter().find(|f| f.name == func) else {
            let names: Vec<&str> = built
                .module
                .funcs
                .iter()
                .map(|f| f.name.as_str())
                .filter(|n| !n.starts_with('<') && !n.starts_with("__") && *n != "main")
                .collect();
            eprintln!(
                "error: no function named `{func}` (functions: {})",
                names.join(", ")
            );
            return;
        };
        let text = match listing {
            None => Ok(crate::ir::print::print_function(
                f,
                &built.module.program,
                Some(&built.sources),
            )),
            Some(kind) => crate::codegen::asm::function_listing(
                &built.module,
                &built.sources,
                &self.codegen_options(),
                func,
                kind,
            ),
        };
        match text {
            Ok(text) => print!("{text}"),
            Err(e) => eprintln!("error: {e}"),
        }
    }

    /// Compiles and runs one line; keeps what it defined if it ran.
    fn line(&mut self, piece: &Piece) {
        let (mut form, module) = session::classify(&piece.text);
        let defines = module.as_ref().map(Defines::of).unwrap_or_default();
        if let Some(message) = unkeepable(&defines) {
            eprintln!("error: {message}");
            return;
        }
        let mut program = self.session.program(Some((piece, form)), &defines);
        let mut built = self.build_quietly(&program);
        if form == Form::Expression && built.is_err() {
            // A call of a function that returns nothing has no value to print.
            let statement = self.session.statement_program(piece);
            if let Ok(b) = self.build_quietly(&statement) {
                (form, program, built) = (Form::Statements, statement, Ok(b));
            }
        }
        let built = match built {
            Ok(b) => b,
            Err(failure) => return report(failure),
        };
        let opts = self.codegen_options();
        match crate::codegen::run::run(&built.module, &built.sources, &opts, &[], true) {
            Ok((0, output)) => {
                let own = self.session.keep(
                    piece,
                    form,
                    &defines,
                    &program.printed,
                    &output,
                    &built.module.program,
                );
                let _ = std::io::stdout().write_all(&own);
                self.forget_unkeepable_variables();
            }
            // A runtime error was reported on stderr; print what the line
            // wrote before it, and keep nothing of the line.
            Ok((_, output)) => {
                let text = String::from_utf8_lossy(&output);
                let own = text.split(session::SENTINEL).next().unwrap_or("");
                let _ = std::io::stdout().write_all(own.as_bytes());
            }
            Err(e) => {
                eprintln!("error: internal compiler error in the code generator: {e}");
                eprintln!("{}", crate::diag::ICE_HELP);
            }
        }
    }

    /// Forgets, with a note, every variable whose value could not be
    /// written back as a Toy literal: its declaration does not compile.
    fn forget_unkeepable_variables(&mut self) {
        for _ in 0..self.session.variables.len() {
            let program = self.session.program(None, &Defines::default());
            let Err(Failure::Diagnostics(_, diags)) = self.build_quietly(&program) else {
                return;
            };
            let names = program.variables_in(&diags);
            if names.is_empty() {
                return;
            }
            for name in &names {
                eprintln!(
                    "note: `{name}` is forgotten: its value cannot be written as a Toy literal \
                     (a cyclic value, or a struct of an imported module)"
                );
            }
            self.session.forget(&names);
        }
    }

    fn codegen_options(&self) -> crate::codegen::CodegenOptions {
        crate::codegen::CodegenOptions {
            optimize: self.level > 0,
            verify: super::verify_enabled(),
            ..Default::default()
        }
    }

    /// [`Repl::build`], returning the diagnostics instead of printing them.
    fn build_quietly(&self, program: &Program) -> Result<Built, Failure> {
        let mut sources = SourceMap::new();
        // The path places the imports of local modules: the current folder.
        let dir = std::env::current_dir().unwrap_or_default();
        let main = sources.add_segmented(
            "<repl>".into(),
            Some(dir.join("<repl>")),
            program.text.clone(),
            program.segments.clone(),
        );
        let checked = match crate::sema::analyze(&mut sources, main) {
            Ok(p) => p,
            Err(diags) => return Err(Failure::Diagnostics(sources, diags)),
        };
        let mut module = crate::ssa::build_module(Arc::new(checked));
        let opts = crate::opt::PipelineOptions {
            passes: crate::opt::default_passes(self.level),
            verify: super::verify_enabled(),
            ..Default::default()
        };
        let mut counters = crate::opt::Counters::default();
        let verified = crate::ir::verify::verify_module(&module).and_then(|()| {
            // No `--print-*` options here: the printer is never called.
            let program = module.program.clone();
            let printer = |f: &crate::ir::IrCode| {
                crate::ir::print::print_function(f, &program, Some(&sources))
            };
            crate::opt::run_pipeline(&mut module, &opts, &mut counters, &printer)
        });
        if let Err(errors) = verified {
            return Err(Failure::Internal(errors));
        }
        Ok(Built { module, sources })
    }

    /// Checks and builds `program` (the session alone); errors are printed.
    fn build(&self, program: &Program) -> Result<Built, ()> {
        self.build_quietly(program).map_err(report)
    }
}

/// Why a program was not built.
enum Failure {
    /// Compile errors, in a program whose main file is the first of the map.
    Diagnostics(SourceMap, Vec<Diagnostic>),
    /// The IR verifier failed: a compiler bug.
    Internal(Vec<String>),
}

/// Prints a failure on stderr, compile errors against their lines.
fn report(failure: Failure) {
    match failure {
        Failure::Diagnostics(sources, diags) => {
            let main = crate::span::FileId(0);
            let colour = super::files::use_colour();
            eprint!("{}", Session::render(&sources, main, &diags, colour));
        }
        Failure::Internal(errors) => {
            super::build::report_verifier_failure("", errors);
        }
    }
}

/// Why a line of items cannot be kept, if it cannot: `main` is the
/// session's own, and imports go on a line of their own (they must come
/// first in the program).
fn unkeepable(defines: &Defines) -> Option<&'static str> {
    if defines.items.iter().any(|n| n == "main") {
        return Some("the REPL runs each line in its own `main`; give your function another name");
    }
    if !defines.imports.is_empty() && (!defines.items.is_empty() || !defines.globals.is_empty()) {
        return Some("put `import` lines on a line of their own");
    }
    None
}
