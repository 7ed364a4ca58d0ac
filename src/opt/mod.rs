//! The optimisation pipeline: ONE table ([`PASSES`]) lists every pass run
//! with its unique name, its function and the lowest `-O` level that runs
//! it, if any (like Go's `ssa/compile.go`; `toyc passes` prints it). `-O0`
//! runs nothing; `-O1` and `-O2` run the rows whose level is at most theirs,
//! in table order; `--passes=a,b` runs exactly the named rows in the given
//! order, once it satisfies the ordering rules of [`PASS_ORDER`].
//!
//! A pass runs over one function at a time ([`PassFn::Function`]) or over
//! the whole module ([`PassFn::Module`], for passes that must see callees,
//! like the inliner); both kinds sit in the same table and get the same
//! flags. Each pass leaves every function it changed compacted (no pending new
//! nodes, every statement numbered) and valid; the verifier runs after every
//! pass when [`PipelineOptions::verify`].
//!
//! Everything a pass reads besides the IR comes in its [`PassCtx`]: whether
//! to verify, the call summaries of the module (computed before each pass
//! that reads them),
//! the [`Counters`] it adds to (`pass.counter: N` lines with `--stats`),
//! the optimisation remarks it records (`--remarks`, [`remarks`]), and
//! where MemorySSA verifier failures go. No pass reads global or
//! thread-local compiler state.

pub mod callgraph;
pub mod cfg;
pub mod checks;
mod context;
pub mod cse;
pub mod dce;
pub mod divpair;
pub mod dse;
pub mod gvn_load;
pub mod inline;
pub mod knownbits;
pub mod licm;
pub mod licm_checks;
pub mod loops;
pub mod pi_insert;
pub mod print;
pub mod promote;
pub mod recinline;
pub mod remarks;
pub mod rotate;
pub mod sccp;
mod stages;
pub mod tailrec;
pub mod version;

pub use context::{Counters, PassCtx, STEPS, StepPrint};

use crate::ir::{IrCode, Module};
use crate::memssa::alias::{Summaries, summaries_on};
use remarks::{NameTables, Remark};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a pass runs.
#[derive(Copy, Clone)]
pub enum PassFn {
    /// Once per function, in module order; sees only that function.
    Function(fn(&mut IrCode, &mut PassCtx)),
    /// Once over the whole module; may read every function and change any
    /// function's body, but must keep the function list and every
    /// signature (`funcs[i]` stays the `FuncId(i)` function), and leave
    /// every function compacted and valid.
    Module(fn(&mut Module, &mut PassCtx)),
}

pub struct Pass {
    /// The row's name, unique in [`PASSES`]: what `--passes`,
    /// `--print-before/after` and `time.pass.NAME` use. A pass run again
    /// later in the pipeline has a row of its own, `NAME.late`, with the
    /// same function; counters are named by the pass, not the row.
    pub name: &'static str,
    pub run: PassFn,
    /// The lowest `-O` level whose default pipeline includes the row;
    /// `None`: no default pipeline runs it, only `--passes`.
    pub level: Option<u8>,
    /// Whether the pass reads [`PassCtx::summaries`] (it builds MemorySSA
    /// or asks the alias analysis about calls): they are computed afresh
    /// before such a row; any other row gets empty summaries, which say
    /// that every call may read and write everything.
    pub reads_summaries: bool,
    /// Whether the pass leaves every function it runs on compacted, also
    /// one it was given uncompacted and did not change (every pass leaves
    /// a compacted function compacted): from such a row on, the pipeline
    /// tells the passes that their input is compacted
    /// ([`PassCtx::input_compacted`]).
    pub compacts: bool,
    pub doc: &'static str,
}

impl Pass {
    /// Runs the pass over `module`: a function pass over every function, a
    /// module pass once. Returns what it counted in each function (a module
    /// pass attributes its counts with [`PassCtx::merge_function`]).
    ///
    /// A function pass runs on [`PassCtx::pool`]'s threads (one
    /// while `--print-after` prints an inner step, whose output must come
    /// in function order), each function with a context of its own; what
    /// the functions counted, remarked and found wrong is merged into
    /// `ctx` in module order, so the result is the same as one thread's.
    pub fn run_module(&self, module: &mut Module, ctx: &mut PassCtx) -> BTreeMap<String, Counters> {
        match self.run {
            PassFn::Function(run) => {
                let pool = if ctx.print_step.is_some() {
                    crate::par::Pool::default()
                } else {
                    ctx.pool.clone()
                };
                let work = module.stmt_count();
                let shared = &*ctx;
                let size = |f: &IrCode| f.stmts.len();
                let done = pool.map_mut_largest_first(&mut module.funcs, work, size, |i, f| {
                    let mut local = shared.for_one_function(i);
                    if !shared.skips(i) {
                        run(f, &mut local);
                        debug_assert_left_compacted(&local, f);
                    }
                    local
                });
                for (f, local) in module.funcs.iter().zip(done) {
                    ctx.merge_function(&f.name, local);
                }
            }
            PassFn::Module(run) => run(module, ctx),
        }
        std::mem::take(&mut ctx.by_function)
    }
}

/// In debug builds: a pass given a compacted function left it compacted
/// (what [`PassCtx::input_compacted`] relies on).
fn debug_assert_left_compacted(ctx: &PassCtx, f: &IrCode) {
    debug_assert!(
        !ctx.input_compacted || crate::ir::compacted::is_compacted(f),
        "{} left fn {} not compacted",
        ctx.pass,
        f.name
    );
}

/// Every pass, in default pipeline order.
pub static PASSES: &[Pass] = &[
    Pass {
        name: "sccp",
        run: PassFn::Function(sccp::run),
        level: Some(1),
        reads_summaries: false,
        compacts: true,
        doc: "sparse conditional constant propagation (Wegman-Zadeck)",
    },
    Pass {
        name: "dce",
        run: PassFn::Function(dce::run),
        level: Some(1),
        reads_summaries: false,
        compacts: true,
        doc: "dead code elimination (mark-sweep, removes dead phi cycles)",
    },
    Pass {
        name: "simplifycfg",
        run: PassFn::Function(cfg::run),
        level: Some(1),
        reads_summaries: false,
        compacts: true,
        doc: "fold constant branches, thread empty blocks, merge straight-line blocks",
    },
    Pass {
        name: "inline",
        run: PassFn::Module(inline::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "inline calls of small non-recursive functions (bottom-up over the call graph; cleans the changed callers with sccp and simplifycfg)",
    },
    Pass {
        name: "tailrec",
        run: PassFn::Function(tailrec::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "tail-recursion elimination: self tail calls become a loop; `return x + f(..)` accumulates (int add/mul/and/or/xor)",
    },
    Pass {
        name: "recinline",
        run: PassFn::Function(recinline::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "recursive inlining: a small recursive function's calls of itself become copies of its body, a few levels deep",
    },
    Pass {
        name: "loops",
        run: PassFn::Function(loops::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "loop canonicalisation: dedicated preheaders and exit blocks",
    },
    Pass {
        name: "pi",
        run: PassFn::Function(pi_insert::run),
        level: None,
        reads_summaries: false,
        compacts: false,
        doc: "insert π facts after comparison branches (`checks` does it itself)",
    },
    Pass {
        name: "cse",
        run: PassFn::Function(cse::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "dominator-scoped CSE of pure operations; branches on a condition a dominating branch decided",
    },
    Pass {
        name: "knownbits",
        run: PassFn::Function(knownbits::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "known low zero bits: `x / 2^k` of a multiple of 2^k becomes `x >> k`, `x % 2^k` becomes 0",
    },
    Pass {
        name: "checks",
        run: PassFn::Function(checks::run),
        level: Some(2),
        reads_summaries: true,
        compacts: false,
        doc: "π-fact bounds/nil/division check elimination",
    },
    Pass {
        name: "rotate",
        run: PassFn::Function(rotate::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "loop rotation: `while c {..}` becomes a guard `if c` around `do {..} while c`",
    },
    Pass {
        name: "gvn_load",
        run: PassFn::Function(gvn_load::run),
        level: Some(2),
        reads_summaries: true,
        compacts: false,
        doc: "redundant load elimination and store-to-load forwarding (MemorySSA walker)",
    },
    Pass {
        name: "licm",
        run: PassFn::Function(licm::run),
        level: Some(2),
        reads_summaries: true,
        compacts: false,
        doc: "loop-invariant code motion with MemorySSA (pure ops, loads not clobbered in the loop)",
    },
    Pass {
        name: "version",
        run: PassFn::Function(version::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "loop versioning: a guard in the preheader proves every affine index in bounds over the whole iteration range and runs a copy of the loop without those checks",
    },
    Pass {
        name: "gvn_load.late",
        run: PassFn::Function(gvn_load::run),
        level: Some(2),
        reads_summaries: true,
        compacts: false,
        doc: "gvn_load again after licm: loads hoisted from several loop levels",
    },
    Pass {
        name: "cse.late",
        run: PassFn::Function(cse::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "cse again after licm: checks and comparisons hoisted from several loop levels",
    },
    Pass {
        name: "simplifycfg.late",
        run: PassFn::Function(cfg::run),
        level: Some(2),
        reads_summaries: false,
        compacts: true,
        doc: "simplifycfg again after licm: the branches cse decided, empty blocks left by rotation",
    },
    Pass {
        name: "divpair",
        run: PassFn::Function(divpair::run),
        level: Some(2),
        reads_summaries: false,
        compacts: false,
        doc: "division pairing: a one-block loop whose float division the next iteration could compute early is unrolled by two, each division computed beside the next iteration's; codegen runs the pair as one two-lane division",
    },
    Pass {
        name: "dse",
        run: PassFn::Function(dse::run),
        level: Some(2),
        reads_summaries: true,
        compacts: false,
        doc: "dead-store elimination across blocks with MemorySSA (overwritten on every path before any read; stores into non-escaping unread allocations)",
    },
];

/// Pass-order rules, as Go's `passOrder`: `(first, then, why)` means that a
/// pipeline running `then` must run `first` earlier. [`parse_pass_list`]
/// enforces them; every default pipeline satisfies them.
pub static PASS_ORDER: &[(&str, &str, &str)] = &[
    (
        "loops",
        "rotate",
        "rotation needs dedicated loop preheaders and exits",
    ),
    (
        "loops",
        "licm",
        "hoisting needs dedicated loop preheaders, store promotion dedicated exits",
    ),
    (
        "loops",
        "version",
        "versioning needs dedicated loop preheaders and exits",
    ),
];

/// The row named `name`.
pub fn find_pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// Checks `passes` against [`PASS_ORDER`]; the error names the pass and the
/// missing prerequisite.
pub fn check_order(passes: &[&str]) -> Result<(), String> {
    for (i, &name) in passes.iter().enumerate() {
        for &(first, then, why) in PASS_ORDER {
            if then == name && !passes[..i].contains(&first) {
                return Err(format!(
                    "pass `{name}` needs `{first}` earlier in the list ({why})"
                ));
            }
        }
    }
    Ok(())
}

/// `name  level  doc` lines for every row of [`PASSES`] (`toyc passes`);
/// the level is `-` for a row no default pipeline runs.
pub fn describe_passes() -> String {
    let width = PASSES.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for p in PASSES {
        let level = p.level.map_or("-".to_string(), |l| format!("O{l}"));
        out.push_str(&format!("{:width$}  {level:<2}  {}\n", p.name, p.doc));
    }
    out
}

/// Which passes `--print-before`/`--print-after` select.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrintSel {
    #[default]
    None,
    All,
    /// The passes (or steps, [`STEPS`]) of a comma-separated list.
    Passes(Vec<String>),
}

impl PrintSel {
    /// `None` for no flag, `all`, or a comma-separated list of names
    /// (blank entries dropped); the names are not checked here.
    pub fn parse(s: Option<&str>) -> PrintSel {
        match s {
            None => PrintSel::None,
            Some("all") => PrintSel::All,
            Some(list) => PrintSel::Passes(
                list.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(String::from)
                    .collect(),
            ),
        }
    }
    pub fn selects(&self, pass: &str) -> bool {
        match self {
            PrintSel::None => false,
            PrintSel::All => true,
            PrintSel::Passes(ps) => ps.iter().any(|p| p == pass),
        }
    }
    /// The names of a list (empty for `None` and `All`).
    pub fn names(&self) -> &[String] {
        match self {
            PrintSel::Passes(ps) => ps,
            PrintSel::None | PrintSel::All => &[],
        }
    }
}

/// `--print-changed`: print a function after a pass only when the pass
/// changed it, in full or as a unified diff against its text before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintChanged {
    Full,
    Diff,
}

/// What to run and what to report.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    pub passes: Vec<&'static str>,
    pub print_before: PrintSel,
    pub print_after: PrintSel,
    pub print_changed: Option<PrintChanged>,
    /// Print only this function (and [`print::PrintObserver::counters`]
    /// counts only it); `None`: every function.
    pub only: Option<String>,
    pub verify: bool,
    /// Collect optimisation remarks ([`run_pipeline_observed`] returns them).
    pub remarks: bool,
    /// The threads function passes may use ([`PassCtx::pool`]).
    pub pool: crate::par::Pool,
    /// Optimise only the functions a run can execute
    /// ([`Module::reachable_from_entry`], computed before the first pass
    /// and again after each module pass); the others keep the IR they had.
    /// For a run that shows no IR: its output cannot differ, and it skips
    /// the work on what inlining left unused.
    pub reachable_only: bool,
}

/// The default pipeline of level `opt`.
pub fn default_passes(opt: u8) -> Vec<&'static str> {
    if opt == 0 {
        return Vec::new();
    }
    PASSES
        .iter()
        .filter(|p| p.level.is_some_and(|l| l <= opt))
        .map(|p| p.name)
        .collect()
}

/// Parses `--passes=a,b,c`; an unknown name is an error naming it and the
/// known passes, a list breaking [`PASS_ORDER`] an error naming the missing
/// prerequisite.
pub fn parse_pass_list(list: &str) -> Result<Vec<&'static str>, String> {
    let mut out = Vec::new();
    // `--passes=none` (or an empty list) runs no pass of ours; Cranelift
    // still optimises at the `-O` level given.
    if list.trim() == "none" {
        return Ok(out);
    }
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match find_pass(name) {
            Some(p) => out.push(p.name),
            None => {
                let known: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
                return Err(format!(
                    "unknown pass `{name}` (known passes: {})",
                    known.join(", ")
                ));
            }
        }
    }
    check_order(&out)?;
    Ok(out)
}

/// Runs the pipeline over every function, adding to `counters`. `print`
/// renders one function (the IR printer) for `--print-before/after/changed`,
/// whose output goes to stderr ([`print::PrintObserver`]). Returns the
/// verifier's errors (prefixed with the pass name) if it fails.
pub fn run_pipeline(
    module: &mut Module,
    opts: &PipelineOptions,
    counters: &mut Counters,
    print: &dyn Fn(&IrCode) -> String,
) -> Result<(), Vec<String>> {
    run_pipeline_with_remarks(module, opts, counters, print).map(|_| ())
}

/// [`run_pipeline`], also returning the optimisation remarks of every pass
/// in the order they were made when [`PipelineOptions::remarks`] (empty
/// otherwise).
pub fn run_pipeline_with_remarks(
    module: &mut Module,
    opts: &PipelineOptions,
    counters: &mut Counters,
    print: &dyn Fn(&IrCode) -> String,
) -> Result<Vec<Remark>, Vec<String>> {
    let mut printer = print::PrintObserver::new(opts, print);
    run_pipeline_observed(module, opts, counters, &mut printer)
}

/// The names remarks use, from `module`'s program tables.
pub fn name_tables(module: &Module) -> NameTables {
    let p = &module.program;
    NameTables {
        fields: p
            .structs
            .iter()
            .map(|s| s.fields.iter().map(|f| f.name.clone()).collect())
            .collect(),
        globals: p.globals.iter().map(|g| g.name.clone()).collect(),
        functions: module.funcs.iter().map(|f| f.name.clone()).collect(),
    }
}

/// Watches the pipeline: called before and after every pass with the whole
/// module, and with the counters each function got from each pass.
pub trait PassObserver {
    /// Whether it must see the module between every two passes: the rows
    /// then run one by one instead of in stages (`opt/stages.rs`).
    fn watches_each_row(&self) -> bool {
        true
    }
    /// Whether it reads the counters by function that [`PassObserver::after`]
    /// gets (when not, the pipeline does not keep them, and `after` gets
    /// none).
    fn counts_by_function(&self) -> bool {
        true
    }
    /// Before the first pass.
    fn start(&mut self, _module: &Module) {}
    fn before(&mut self, _pass: &str, _module: &Module) {}
    /// After pass `pass`; `counters` holds what the pass counted in each
    /// function (by name; a function it counted nothing in is absent).
    fn after(&mut self, _pass: &str, _module: &Module, _counters: &BTreeMap<String, Counters>) {}
}

/// [`run_pipeline`] reporting to `observer` instead of printing; returns
/// the optimisation remarks of every pass in the order they were made
/// when [`PipelineOptions::remarks`] (empty otherwise).
pub fn run_pipeline_observed(
    module: &mut Module,
    opts: &PipelineOptions,
    counters: &mut Counters,
    observer: &mut dyn PassObserver,
) -> Result<Vec<Remark>, Vec<String>> {
    let print_step = step_printer(module, opts);
    let mut ctx = PassCtx {
        verify: opts.verify,
        pool: opts.pool.clone(),
        counters: std::mem::take(counters),
        print_step,
        remarks: opts.remarks.then(Vec::new),
        names: Arc::new(if opts.remarks {
            name_tables(module)
        } else {
            NameTables::default()
        }),
        per_function: observer.counts_by_function(),
        ..PassCtx::default()
    };
    observer.start(module);
    let result = run_passes(module, opts, &mut ctx, observer);
    *counters = ctx.counters;
    result.map(|()| ctx.remarks.unwrap_or_default())
}

/// The printer of `--print-after=OUTER.STEP` (one of [`STEPS`]), if asked.
fn step_printer(module: &Module, opts: &PipelineOptions) -> Option<StepPrint> {
    let step = opts
        .print_after
        .names()
        .iter()
        .find(|p| STEPS.contains(&p.as_str()))?;
    let program = module.program.clone();
    Some(StepPrint {
        step: step.clone(),
        only: opts.only.clone(),
        print: std::sync::Arc::new(move |f: &IrCode| {
            crate::ir::print::print_function(f, &program, None)
        }),
    })
}

/// [`crate::ir::verify::verify_module`], the functions checked on `pool`'s
/// threads.
pub fn verify_on(module: &Module, pool: &crate::par::Pool) -> Result<(), Vec<String>> {
    crate::ir::verify::verify_module_by(module, |funcs| {
        pool.map(funcs.len(), module.stmt_count(), |i| {
            crate::ir::verify::verify_function(&funcs[i], &module.program)
        })
    })
}

/// Records in [`PassCtx::compacted`] that a pass that [`Pass::compacts`]
/// has run over the `n` functions of the module but the skipped ones.
fn mark_compacted(ctx: &mut PassCtx, n: usize) {
    let known = (0..n)
        .map(|f| ctx.compacted.get(f).copied().unwrap_or(false) || !ctx.skips(f))
        .collect();
    ctx.compacted = Arc::new(known);
}

/// `errors` found after the row `name`, each saying so.
fn after_pass(name: &str, errors: Vec<String>) -> Vec<String> {
    errors
        .into_iter()
        .map(|e| format!("after pass `{name}`: {e}"))
        .collect()
}

fn run_passes(
    module: &mut Module,
    opts: &PipelineOptions,
    ctx: &mut PassCtx,
    observer: &mut dyn PassObserver,
) -> Result<(), Vec<String>> {
    // Module passes (inlining) are what make functions unreachable; a
    // function pass only removes the odd call.
    let mut reachability_stale = true;
    let staged = !observer.watches_each_row() && ctx.print_step.is_none();
    let mut i = 0;
    while i < opts.passes.len() {
        let name = opts.passes[i];
        let end = match staged {
            true => stages::stage_end(&opts.passes, i),
            false => i + 1,
        };
        let rows = &opts.passes[i..end];
        i = end;
        let Some(pass) = find_pass(name) else {
            continue;
        };
        for &row in rows {
            observer.before(row, module);
        }
        let start = std::time::Instant::now();
        // The summaries the first row reads; the rows after it in a stage
        // read none.
        ctx.summaries = Arc::new(match pass.reads_summaries {
            true => summaries_on(module, &ctx.pool),
            false => Summaries::default(),
        });
        if opts.reachable_only && reachability_stale {
            let live = module.reachable_from_entry();
            ctx.skip = Arc::new(live.iter().map(|l| !l).collect());
        }
        reachability_stale = matches!(pass.run, PassFn::Module(_));
        if rows.len() > 1 {
            let by_row = stages::run_stage(module, rows, ctx, opts.verify, start)
                .map_err(|(row, errors)| after_pass(row, errors))?;
            if rows
                .iter()
                .any(|r| find_pass(r).is_some_and(|p| p.compacts))
            {
                mark_compacted(ctx, module.funcs.len());
            }
            for (&row, by_function) in rows.iter().zip(&by_row) {
                observer.after(row, module, by_function);
            }
            continue;
        }
        ctx.pass = name.to_string();
        let by_function = pass.run_module(module, ctx);
        if pass.compacts {
            mark_compacted(ctx, module.funcs.len());
        }
        crate::timing::record(&format!("pass.{name}"), start.elapsed());
        observer.after(name, module, &by_function);
        let errors = std::mem::take(&mut ctx.errors);
        if !errors.is_empty() {
            return Err(after_pass(name, errors));
        }
        if opts.verify {
            verify_on(module, &ctx.pool).map_err(|errs| after_pass(name, errs))?;
        }
    }
    Ok(())
}
