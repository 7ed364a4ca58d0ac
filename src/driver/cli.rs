//! Command-line definitions (clap derive).
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "toyc",
    version,
    about = "The Toy compiler: parse, check, build SSA, optimize, JIT-compile and run Toy programs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line of this process, as [`Parser::parse`] gives it.
    ///
    /// `toyc run` is the command that starts most often, and building the
    /// definitions of every subcommand costs more than parsing (about a
    /// tenth of a small Bril program's whole run). So a command line that
    /// starts with `run` is first parsed against `run` alone. Anything that
    /// parse does not accept (`--help`, an error) is parsed again against
    /// the whole [`Cli`], so every message is the one it always was.
    pub fn from_env() -> Cli {
        let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
        if let Some(cli) = Cli::parse_plain_run(&args) {
            return cli;
        }
        if args.get(1).is_some_and(|a| a == "run")
            && let Some(cli) = Cli::parse_run_only(&args)
        {
            return cli;
        }
        Cli::parse_from(args)
    }

    /// `toyc run FILE` or `toyc run FILE -- ARGS...` without options (the
    /// most common command line), read without building any of clap's
    /// definitions, which costs more than the rest of parsing a small
    /// program; what clap gives for it (tested). `None` for any other
    /// command line, a `FILE` starting with `-`, or an argument that is
    /// not UTF-8.
    pub fn parse_plain_run(args: &[std::ffi::OsString]) -> Option<Cli> {
        let [_, run, file, rest @ ..] = args else {
            return None;
        };
        if run != "run" || file.is_empty() || file.as_encoded_bytes()[0] == b'-' {
            return None;
        }
        let args = match rest {
            [] => Vec::new(),
            [dashes, more @ ..] if dashes == "--" => more
                .iter()
                .map(|a| a.to_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()?,
            _ => return None,
        };
        Some(Cli {
            command: Command::Run(RunArgs {
                build: BuildArgs::defaults(PathBuf::from(file)),
                interp: false,
                profile: false,
                gc_stats: false,
                args,
            }),
        })
    }

    /// `args` parsed against a `toyc` that has only the `run` subcommand;
    /// `None` when that parse fails or stops (help, version).
    pub fn parse_run_only(args: &[std::ffi::OsString]) -> Option<Cli> {
        use clap::FromArgMatches;
        let run = RunArgs::augment_args(clap::Command::new("run"));
        let matches = clap::Command::new("toyc")
            .subcommand(run)
            .try_get_matches_from(args)
            .ok()?;
        Cli::from_arg_matches(&matches).ok()
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse and type-check a program; print every error found.
    Check {
        /// The `.toy` file to check (`-`: read it from stdin).
        file: PathBuf,
        /// `human`: ariadne reports on stderr; `json`: one JSON object per
        /// diagnostic and line on stdout (file, line, col, end_line,
        /// end_col, severity, message, label, notes), for editors and
        /// graders. The exit code is the same.
        #[arg(long, value_name = "FORMAT", default_value = "human", value_parser = ["human", "json"])]
        format: String,
        #[command(flatten)]
        warnings: WarnArgs,
    },
    /// Compile a program with the JIT and run it. `toyc run -` reads the
    /// program from stdin (the program then gets an empty stdin).
    Run(RunArgs),
    /// Print the SSA IR (Julia IRCode style) of a program.
    Ir {
        #[command(flatten)]
        build: BuildArgs,
        /// Interleave MemorySSA (LLVM `print<memoryssa>`); `--memssa=walker`
        /// adds each access's clobber.
        /// A value needs `=` (`--memssa=walker`), so `--memssa FILE` reads
        /// FILE as the program.
        #[arg(long = "memssa", value_name = "MODE", num_args = 0..=1, default_missing_value = "plain",
              require_equals = true, value_parser = ["plain", "walker"])]
        memssa: Option<String>,
        /// Print each statement's flags where they differ from the defaults
        /// of its instruction (`!flags(..)`), so `toyc opt` reads them back.
        #[arg(long)]
        flags: bool,
        /// Print each function's CFG as Graphviz DOT instead (as `toyc cfg`).
        #[arg(long)]
        dot: bool,
        /// Print the program as Bril text instead (what `bril2txt` prints):
        /// the functions `main` reaches, after the pipeline `-O` selects,
        /// for Bril's own tools (`brili`). A construct with no Bril form
        /// is an error (docs/bril.md, "Bril out").
        #[arg(long, conflicts_with_all = ["memssa", "flags", "dot", "bril_json"])]
        bril: bool,
        /// The same as `--bril`, as Bril JSON (what `bril2json` writes).
        #[arg(long = "bril-json", conflicts_with_all = ["memssa", "flags", "dot"])]
        bril_json: bool,
    },
    /// Print the control-flow graph of each function (or of `--fn NAME`)
    /// as Graphviz DOT, statements in the blocks:
    /// `toyc cfg prog.toy --fn main | dot -Tsvg > main.svg`.
    Cfg {
        #[command(flatten)]
        build: BuildArgs,
    },
    /// Write one self-contained HTML page (no server, no external assets)
    /// showing a function through the pipeline, like Go's GOSSAFUNC
    /// ssa.html: source, IR after construction and after each pass that
    /// changed it, MemorySSA, CLIF and machine code side by side, each with
    /// a drawing of its CFG; a function picker for the whole module.
    Explore {
        #[command(flatten)]
        build: BuildArgs,
        /// Where to write the page (default: FILE's stem + `.html` in the
        /// current directory; `-`: stdout).
        #[arg(short = 'o', long = "output", value_name = "OUT.html")]
        output: Option<PathBuf>,
    },
    /// Differential fuzzing: generate random Toy programs, compute their
    /// expected output with an independent reference evaluator, and compare
    /// every toyc mode (-O0, -O2, --interp -O0/-O2, check) with it.
    Fuzz(FuzzArgs),
    /// Find the first pass of the -O2 pipeline after which the program's
    /// output (stdout, stderr, exit code, verifier verdict) differs from
    /// `--passes=none` (like LLVM's -opt-bisect-limit).
    Bisect {
        /// The `.toy` file.
        file: PathBuf,
        /// Bisect in the IR interpreter instead of the JIT.
        #[arg(long)]
        interp: bool,
        /// Seconds before a run counts as a hang.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
    },
    /// List the optimisation passes: name, lowest `-O` level (`-`: only
    /// with `--passes`), description; in default pipeline order.
    Passes,
    /// Run IR passes on an IR text file (what `toyc ir` prints, or written
    /// by hand; grammar in docs/ir.md) and print the result, like LLVM's
    /// `opt`. The input is verified first; `--passes` runs exactly the
    /// named passes in order, without the ordering rules of the pipeline.
    Opt {
        /// The `.ir` file.
        file: PathBuf,
        /// The passes to run, comma-separated (`toyc passes` lists them).
        #[arg(long, value_name = "PASS,...")]
        passes: String,
        /// Print each statement's flags where they differ from the defaults
        /// of its instruction (`!flags(..)`), so the output keeps them.
        #[arg(long)]
        flags: bool,
        /// Print the passes' counters (`pass.counter: N`) to stderr.
        #[arg(long)]
        stats: bool,
    },
    /// Print the Cranelift IR that toyc generates.
    Clif {
        #[command(flatten)]
        build: BuildArgs,
        /// Print the Cranelift IR after Cranelift's own optimizer (e-graph
        /// rewrites and legalization; at `-O0` legalization only), which
        /// is what it turns into machine code.
        #[arg(long)]
        optimized: bool,
    },
    /// An interactive session: each line (statements, an expression, or
    /// `fn`/`struct`/`import`/`let`/`var` items kept for later lines) is
    /// compiled with the JIT and run. `:help` lists the commands.
    Repl {
        /// Optimization level of every line: `-O0`, `-O1` or `-O2`.
        #[arg(short = 'O', default_value = "2", value_parser = parse_opt_level)]
        opt: OptLevel,
    },
    /// Print the machine code of each function (or of `--fn NAME`),
    /// disassembled, with the targets of calls and of data references
    /// named (`; -> toy_print_int`).
    Asm {
        #[command(flatten)]
        build: BuildArgs,
    },
}

/// The options of `toyc run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Execute the IR with the interpreter instead of the JIT.
    #[arg(long)]
    pub interp: bool,
    /// With `--interp`: print `total_dyn_inst: N` (statements executed)
    /// to stderr. Without `--interp` it is an error (exit 2).
    #[arg(long)]
    pub profile: bool,
    /// Print the garbage collector's statistics to stderr at exit
    /// (as `TOYC_GC_STATS=1` does).
    #[arg(long = "gc-stats")]
    pub gc_stats: bool,
    /// Arguments for the program (after `--`), returned by `args()`.
    #[arg(last = true)]
    pub args: Vec<String>,
}

/// Options shared by the commands that compile.
#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    /// The `.toy` file; `-` reads the program from stdin.
    pub file: PathBuf,
    /// Optimization level: `-O0` (no passes, Cranelift `none`), `-O1` or
    /// `-O2`; `-O3`, `-Os` and `-Oz` mean `-O2` (with a note on stderr).
    #[arg(short = 'O', default_value = "2", value_parser = parse_opt_level)]
    pub opt: OptLevel,
    /// Run exactly these IR passes, in this order (comma-separated), instead
    /// of the `-O` level's pipeline; `none` runs no pass of ours.
    #[arg(long, value_name = "PASS,...")]
    pub passes: Option<String>,
    /// Only this function: in the printed IR (or CLIF, or CFG), and in
    /// what `--print-before`, `--print-after`, `--print-changed` and
    /// `--stats` report.
    #[arg(long = "fn", value_name = "NAME")]
    pub func: Option<String>,
    /// Print the IR (to stderr) after these passes (comma-separated), or
    /// after every pass (`all`).
    #[arg(long = "print-after", value_name = "PASS,...|all")]
    pub print_after: Option<String>,
    /// Print the IR (to stderr) before these passes (comma-separated), or
    /// before every pass (`all`).
    #[arg(long = "print-before", value_name = "PASS,...|all")]
    pub print_before: Option<String>,
    /// Print each function (to stderr) at the start, then after each pass
    /// that changed it; `--print-changed=diff`: as a unified diff.
    #[arg(long = "print-changed", value_name = "MODE", num_args = 0..=1, default_missing_value = "full",
          require_equals = true, value_parser = ["full", "diff"])]
    pub print_changed: Option<String>,
    /// Print the passes' counters (`pass.counter: N`) to stderr.
    #[arg(long)]
    pub stats: bool,
    /// Print optimisation remarks to stderr, one line per decision a pass
    /// made or declined (`licm: hoisted load a.len out of the loop at
    /// 4:11`); `--remarks=PASS` only those of one pass (`gvn_load` includes
    /// `gvn_load.late`). With `toyc ir --fn NAME`, only that function's.
    #[arg(long, value_name = "PASS", num_args = 0..=1, require_equals = true,
          default_missing_value = "all")]
    pub remarks: Option<String>,
    /// Print the time of each phase (`time.PHASE: N ms`) to stderr.
    #[arg(long = "time-passes")]
    pub time_passes: bool,
    /// How many threads build, optimise and compile functions (default:
    /// one per core, or one for a small program: `par::MIN_PARALLEL_WORK`).
    /// The output is the same with any number.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub warnings: WarnArgs,
}

impl BuildArgs {
    /// `FILE` with every option at its default (as clap gives it).
    pub fn defaults(file: PathBuf) -> BuildArgs {
        BuildArgs {
            file,
            opt: OptLevel {
                level: 2,
                typed: None,
            },
            passes: None,
            func: None,
            print_after: None,
            print_before: None,
            print_changed: None,
            stats: false,
            remarks: None,
            time_passes: false,
            threads: None,
            warnings: WarnArgs::default(),
        }
    }
}

/// What to do with warnings (docs/diagnostics.md): rustc's habits
/// `-W error` (also `-Werror`) and `-A warnings`.
#[derive(Args, Debug, Clone, Default)]
pub struct WarnArgs {
    /// `-W error`: report warnings as errors (exit code 1).
    #[arg(short = 'W', value_name = "error", value_parser = ["error"], conflicts_with = "allow")]
    pub warn: Option<String>,
    /// `-A warnings`: do not report warnings.
    #[arg(short = 'A', value_name = "warnings", value_parser = ["warnings"])]
    pub allow: Option<String>,
}

/// How warnings are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarningPolicy {
    /// Reported as warnings; the program still compiles.
    Show,
    /// Reported as errors (`-W error`).
    Deny,
    /// Not reported (`-A warnings`).
    Allow,
}

impl WarnArgs {
    pub fn policy(&self) -> WarningPolicy {
        if self.allow.is_some() {
            WarningPolicy::Allow
        } else if self.warn.is_some() {
            WarningPolicy::Deny
        } else {
            WarningPolicy::Show
        }
    }
}

/// An `-O` level: `level` is what toyc runs (0 to 2); `typed` is the level
/// as written when it is one gcc and clang users type by habit (`3`, `s`,
/// `z`), which toyc runs as 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptLevel {
    pub level: u8,
    pub typed: Option<char>,
}

impl OptLevel {
    /// The note for a level given as another one, e.g. for `-O3`.
    pub fn note(self) -> Option<String> {
        let why = match self.typed? {
            '3' => "toyc's highest level",
            _ => "toyc does not optimise for size",
        };
        Some(format!(
            "note: -O{} is treated as -O{} ({why})",
            self.typed?, self.level
        ))
    }
}

/// Parses the value of `-O`: `0`, `1`, `2`, or `3`/`s`/`z` as 2.
pub fn parse_opt_level(s: &str) -> Result<OptLevel, String> {
    match s {
        "0" | "1" | "2" => Ok(OptLevel {
            level: s.as_bytes()[0] - b'0',
            typed: None,
        }),
        "3" | "s" | "z" => Ok(OptLevel {
            level: 2,
            typed: s.chars().next(),
        }),
        _ => Err("expected 0, 1 or 2 (3, s and z mean 2)".into()),
    }
}

/// Options of `toyc fuzz`.
#[derive(Args, Debug, Clone)]
pub struct FuzzArgs {
    /// The first seed; program `i` uses seed `S + i`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many programs (default 1000, or unlimited with `--time`).
    #[arg(long)]
    pub count: Option<u64>,
    /// Stop starting new programs after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,
    /// Write each failing program (and its minimized form) into DIR.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// Worker threads (each runs toyc subprocesses).
    #[arg(short = 'j', long = "jobs", default_value_t = 1)]
    pub jobs: usize,
    /// Seconds before a run counts as a hang.
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// Report failures without shrinking or bisecting them.
    #[arg(long = "no-shrink")]
    pub no_shrink: bool,
    /// Test this toyc binary instead of the running one.
    #[arg(long, value_name = "PATH")]
    pub toyc: Option<PathBuf>,
}
