//! The optimisation pipeline: ONE table ([`PASSES`]) lists every pass with
//! its name, its function and the lowest `-O` level that runs it (like Go's
//! `ssa/compile.go`). `-O0` runs nothing; `-O1` and `-O2` run the passes
//! whose level is at most theirs, in table order; `--passes=a,b` runs
//! exactly the named passes in the given order.
//!
//! A pass runs over one function at a time ([`PassFn::Function`]) or over
//! the whole module ([`PassFn::Module`], for passes that must see callees,
//! like the inliner); both kinds sit in the same table and get the same
//! flags. Each pass leaves every function it changed compacted (no pending new
//! nodes, every statement numbered) and valid; the verifier runs after every
//! pass when [`crate::driver::verify_enabled`]. Passes count what they did in
//! [`Counters`] (`pass.counter: N` lines with `--stats`).

pub mod callgraph;
pub mod cfg;
pub mod checks;
pub mod cse;
pub mod dce;
pub mod dse;
pub mod gvn_load;
pub mod inline;
pub mod licm;
pub mod licm_checks;
pub mod loops;
pub mod memloops;
pub mod pi_insert;
pub mod promote;
pub mod rotate;
pub mod sccp;
pub mod timing;

use crate::ir::{IrCode, Module};
use std::collections::BTreeMap;

/// Named event counters, printed `name: N` in name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters(pub BTreeMap<String, u64>);

impl Counters {
    pub fn add(&mut self, name: &str, n: u64) {
        if n > 0 {
            *self.0.entry(name.to_string()).or_insert(0) += n;
        }
    }
    pub fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }
    /// `name: N` lines.
    pub fn render(&self) -> String {
        self.0.iter().map(|(k, v)| format!("{k}: {v}\n")).collect()
    }
}

/// How a pass runs.
#[derive(Copy, Clone)]
pub enum PassFn {
    /// Once per function, in module order; sees only that function.
    Function(fn(&mut IrCode, &mut Counters)),
    /// Once over the whole module; may read every function and change any
    /// function's body, but must keep the function list and every
    /// signature (`funcs[i]` stays the `FuncId(i)` function), and leave
    /// every function compacted and valid.
    Module(fn(&mut Module, &mut Counters)),
}

pub struct Pass {
    pub name: &'static str,
    pub run: PassFn,
    /// The lowest `-O` level whose default pipeline includes the pass.
    pub level: u8,
    pub doc: &'static str,
}

impl Pass {
    /// Runs the pass over `module`: a function pass over every function in
    /// order, a module pass once.
    pub fn run_module(&self, module: &mut Module, counters: &mut Counters) {
        match self.run {
            PassFn::Function(run) => {
                for f in &mut module.funcs {
                    run(f, counters);
                }
            }
            PassFn::Module(run) => run(module, counters),
        }
    }
}

/// Every pass, in default pipeline order. A name may have several rows (a
/// pass run again later in the pipeline); they run the same function, and
/// `--passes`, `find_pass` and the flags know a name once.
pub static PASSES: &[Pass] = &[
    Pass { name: "sccp", run: PassFn::Function(sccp::run), level: 1, doc: "sparse conditional constant propagation (Wegman-Zadeck)" },
    Pass { name: "dce", run: PassFn::Function(dce::run), level: 1, doc: "dead code elimination (mark-sweep, removes dead phi cycles)" },
    Pass { name: "simplifycfg", run: PassFn::Function(cfg::run), level: 1, doc: "fold constant branches, thread empty blocks, merge straight-line blocks" },
    Pass { name: "inline", run: PassFn::Module(inline::run), level: 2, doc: "inline calls of small non-recursive functions (bottom-up over the call graph; cleans the changed callers with sccp and simplifycfg)" },
    Pass { name: "loops", run: PassFn::Function(loops::run), level: 2, doc: "loop canonicalisation: dedicated preheaders and exit blocks" },
    Pass { name: "pi", run: PassFn::Function(pi_insert::run), level: 3, doc: "insert π facts after comparison branches (only via --passes; `checks` does it itself)" },
    Pass { name: "cse", run: PassFn::Function(cse::run), level: 2, doc: "dominator-scoped CSE of pure operations; branches on a condition a dominating branch decided" },
    Pass { name: "checks", run: PassFn::Function(checks::run), level: 2, doc: "π-fact bounds/nil/division check elimination" },
    Pass { name: "rotate", run: PassFn::Function(rotate::run), level: 3, doc: "loop rotation: `while c {..}` becomes a guard `if c` around `do {..} while c` (only via --passes: Cranelift runs the rotated form slower, see docs/passes.md)" },
    Pass { name: "gvn_load", run: PassFn::Function(gvn_load::run), level: 2, doc: "redundant load elimination and store-to-load forwarding (MemorySSA walker)" },
    Pass { name: "licm", run: PassFn::Function(licm::run), level: 2, doc: "loop-invariant code motion with MemorySSA (pure ops, loads not clobbered in the loop)" },
    Pass { name: "gvn_load", run: PassFn::Function(gvn_load::run), level: 2, doc: "again after licm: loads hoisted from several loop levels" },
    Pass { name: "cse", run: PassFn::Function(cse::run), level: 2, doc: "again after licm: checks and comparisons hoisted from several loop levels" },
    Pass { name: "simplifycfg", run: PassFn::Function(cfg::run), level: 2, doc: "again after licm: the branches cse decided, empty blocks left by rotation" },
    Pass { name: "dse", run: PassFn::Function(dse::run), level: 2, doc: "dead-store elimination across blocks with MemorySSA (overwritten on every path before any read; stores into non-escaping unread allocations)" },
];

pub fn find_pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// Which passes `--print-before`/`--print-after` select.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PrintSel {
    #[default]
    None,
    All,
    Pass(String),
}

impl PrintSel {
    pub fn parse(s: Option<&str>) -> PrintSel {
        match s {
            None => PrintSel::None,
            Some("all") => PrintSel::All,
            Some(p) => PrintSel::Pass(p.to_string()),
        }
    }
    fn selects(&self, pass: &str) -> bool {
        match self {
            PrintSel::None => false,
            PrintSel::All => true,
            PrintSel::Pass(p) => p == pass,
        }
    }
}

/// What to run and what to report.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    pub passes: Vec<&'static str>,
    pub print_before: PrintSel,
    pub print_after: PrintSel,
    pub verify: bool,
}

/// The default pipeline of level `opt`.
pub fn default_passes(opt: u8) -> Vec<&'static str> {
    if opt == 0 {
        return Vec::new();
    }
    PASSES.iter().filter(|p| p.level <= opt).map(|p| p.name).collect()
}

/// Parses `--passes=a,b,c`; an unknown name is an error naming it and the
/// known passes.
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
                let mut known: Vec<&str> = Vec::new();
                for p in PASSES {
                    if !known.contains(&p.name) {
                        known.push(p.name);
                    }
                }
                return Err(format!("unknown pass `{name}` (known passes: {})", known.join(", ")));
            }
        }
    }
    Ok(out)
}

/// Runs the pipeline over every function. `print` renders the module (the
/// IR printer) for `--print-before/after`; output goes to stderr. Returns
/// the verifier's errors (prefixed with the pass name) if it fails.
pub fn run_pipeline(
    module: &mut Module,
    opts: &PipelineOptions,
    counters: &mut Counters,
    print: &dyn Fn(&Module) -> String,
) -> Result<(), Vec<String>> {
    for &name in &opts.passes {
        let Some(pass) = find_pass(name) else { continue };
        if opts.print_before.selects(name) {
            eprint!("*** IR before {name} ***\n{}", print(module));
        }
        let start = std::time::Instant::now();
        crate::memssa::alias::set_current_summaries(Some(crate::memssa::alias::compute_summaries(module)));
        pass.run_module(module, counters);
        timing::record(&format!("pass.{name}"), start.elapsed());
        if opts.print_after.selects(name) {
            eprint!("*** IR after {name} ***\n{}", print(module));
        }
        crate::memssa::alias::set_current_summaries(None);
        let memssa_errors = crate::memssa::verify::take_errors();
        if opts.verify && !memssa_errors.is_empty() {
            return Err(memssa_errors.into_iter().map(|e| format!("after pass `{name}`: MemorySSA: {e}")).collect());
        }
        if opts.verify {
            crate::ir::verify::verify_module(module)
                .map_err(|errs| errs.into_iter().map(|e| format!("after pass `{name}`: {e}")).collect::<Vec<_>>())?;
        }
    }
    Ok(())
}
