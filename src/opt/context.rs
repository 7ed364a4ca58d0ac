//! What a pass gets besides the IR ([`PassCtx`]): flags, call summaries,
//! the counters and remarks it records, verifier errors, and how it runs a
//! step (another pass inside it); and [`Counters`].

use super::remarks::{Describe, Msg, NameTables, Remark, RemarkKind};
use crate::ir::compact::CompactStats;
use crate::ir::compacted::{compact_if_needed, is_compacted};
use crate::ir::{IrCode, Module};
use crate::memssa::MemorySsa;
use crate::memssa::alias::{Summaries, compute_summaries};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Named event counters, printed `name: N` in name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters(pub BTreeMap<String, u64>);

impl Counters {
    pub fn add(&mut self, name: &str, n: u64) {
        if n == 0 {
            return;
        }
        // Most adds are to a counter already there: no key to allocate.
        match self.0.get_mut(name) {
            Some(count) => *count += n,
            None => {
                self.0.insert(name.to_string(), n);
            }
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

/// What a pass gets besides the IR.
#[derive(Debug, Default)]
pub struct PassCtx {
    /// Whether to verify the MemorySSA a pass builds ([`PassCtx::check_memssa`]).
    pub verify: bool,
    pub counters: Counters,
    /// Call summaries of the module the pass runs over, as of the start of
    /// the pass; MemorySSA and the alias analysis read call effects here.
    pub summaries: Arc<Summaries>,
    /// Verifier failures found during the pass (of the MemorySSA it built,
    /// or of the IR after one of its steps), each naming the function and
    /// what failed; the pipeline reports them after the pass.
    pub errors: Vec<String>,
    /// The inner step `--print-after` names (`OUTER.STEP`, one of
    /// [`STEPS`]), printed after it runs.
    pub print_step: Option<StepPrint>,
    /// The counters of the running pass by function (each function's
    /// added by [`PassCtx::merge_function`]); kept only when
    /// [`PassCtx::per_function`].
    pub by_function: BTreeMap<String, Counters>,
    /// Whether to keep [`PassCtx::by_function`]: the pipeline's observer
    /// reads it ([`super::PassObserver::counts_by_function`]).
    pub per_function: bool,
    /// The remarks recorded so far, in order; `None` when nobody asked for
    /// them ([`PassCtx::remark`] then records nothing).
    pub remarks: Option<Vec<Remark>>,
    /// The row of [`super::PASSES`] running (or `OUTER.STEP` inside
    /// [`PassCtx::run_step`]): the `pass` of the remarks recorded.
    pub pass: String,
    /// The module's struct, global and function names, for remarks.
    pub names: Arc<NameTables>,
    /// The threads a function pass may run on ([`super::Pass::run_module`]).
    pub pool: crate::par::Pool,
    /// `skip[f]`: passes leave function `f` as it is (it can never run,
    /// [`super::PipelineOptions::reachable_only`]); empty: none is skipped.
    pub skip: Arc<Vec<bool>>,
    /// `compacted[f]`: function `f` is compacted, because a row that
    /// [`super::Pass::compacts`] has run on it in this pipeline (and every
    /// pass leaves a compacted function compacted); empty: none is known
    /// to be.
    pub compacted: Arc<Vec<bool>>,
    /// The function this context runs a pass over was compacted when the
    /// pass got it: [`PassCtx::is_input_compacted`] then need not look.
    pub input_compacted: bool,
}

/// The steps passes run inside themselves with [`PassCtx::run_step`], as
/// `OUTER.STEP`: what `--print-after` accepts besides pass rows, and the
/// prefixes of their counters.
pub const STEPS: [&str; 8] = [
    "checks.simplifycfg",
    "checks.loops",
    "divpair.cse",
    "inline.sccp",
    "inline.simplifycfg",
    "recinline.simplifycfg",
    "rotate.loops",
    "version.licm",
];

/// An inner step to print (`step`, one of [`STEPS`]), for which function
/// (`only`; `None`: all), and how to print a function of the module.
#[derive(Clone)]
pub struct StepPrint {
    pub step: String,
    pub only: Option<String>,
    pub print: std::sync::Arc<dyn Fn(&IrCode) -> String + Send + Sync>,
}

impl std::fmt::Debug for StepPrint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StepPrint({})", self.step)
    }
}

impl PassCtx {
    /// A context for passes over `module`, with its call summaries.
    pub fn new(module: &Module, verify: bool) -> PassCtx {
        PassCtx {
            verify,
            summaries: Arc::new(compute_summaries(module)),
            ..PassCtx::default()
        }
    }

    /// A context for a function outside any module: every call it makes
    /// may read and write everything.
    pub fn for_function(verify: bool) -> PassCtx {
        PassCtx {
            verify,
            ..PassCtx::default()
        }
    }

    /// Whether remarks are being collected: a pass may skip the work of
    /// finding what to say otherwise.
    pub fn remarks_on(&self) -> bool {
        self.remarks.is_some()
    }

    /// Records a remark about statement position `span` of `ir` (when
    /// remarks are collected); `msg` builds the message from source-level
    /// descriptions of `ir`'s values.
    pub fn remark(
        &mut self,
        ir: &IrCode,
        kind: RemarkKind,
        span: crate::span::Span,
        msg: impl FnOnce(&Describe) -> Msg,
    ) {
        if self.remarks.is_none() {
            return;
        }
        let d = Describe {
            ir,
            names: &self.names,
        };
        let remark = Remark {
            pass: self.pass.clone(),
            func: ir.name.clone(),
            kind,
            span,
            message: msg(&d),
        };
        // Passes that iterate may reach the same decision again: a remark
        // is recorded once per pass and function; a later remark on a
        // statement supersedes what the pass missed there earlier (a load
        // hoisted once its guard was, or missed for a later reason).
        if let Some(list) = &mut self.remarks {
            list.retain(|r| {
                !(r.kind == RemarkKind::Missed
                    && r.pass == remark.pass
                    && r.func == remark.func
                    && r.span == remark.span)
            });
        }
        if let Some(list) = &mut self.remarks
            && !list
                .iter()
                .rev()
                .take_while(|r| r.pass == remark.pass && r.func == remark.func)
                .any(|r| *r == remark)
        {
            list.push(remark);
        }
    }

    /// Verifies `m` (built over `ir` with [`PassCtx::summaries`]) when
    /// [`PassCtx::verify`], recording failures in [`PassCtx::errors`].
    pub fn check_memssa(&mut self, m: &MemorySsa, ir: &IrCode) {
        if !self.verify {
            return;
        }
        if let Err(errs) = crate::memssa::verify::verify(m, ir, &self.summaries) {
            self.errors.extend(
                errs.into_iter()
                    .map(|x| format!("MemorySSA: in {}: {x}", ir.name)),
            );
        }
    }

    /// Whether passes leave function `f` as it is ([`PassCtx::skip`]).
    pub fn skips(&self, f: usize) -> bool {
        self.skip.get(f).copied().unwrap_or(false)
    }

    /// Whether `ir`, as the pass was given it, is compacted (see
    /// [`is_compacted`]): known when [`PassCtx::input_compacted`] (checked
    /// in debug builds), else one scan. Only for a pass that has not
    /// changed `ir` yet.
    pub fn is_input_compacted(&self, ir: &IrCode) -> bool {
        if self.input_compacted {
            self.debug_assert_input_compacted(ir);
            return true;
        }
        is_compacted(ir)
    }

    /// What a pass that left `ir` as it was given does last: nothing when
    /// [`PassCtx::input_compacted`], else [`compact_if_needed`].
    pub fn compact_unchanged(&self, ir: &mut IrCode) -> CompactStats {
        if self.input_compacted {
            self.debug_assert_input_compacted(ir);
            return CompactStats::default();
        }
        compact_if_needed(ir)
    }

    fn debug_assert_input_compacted(&self, ir: &IrCode) {
        debug_assert!(
            is_compacted(ir),
            "fn {} reached {} not compacted",
            ir.name,
            self.pass
        );
    }

    /// A fresh context for running the current pass over function `f`: the
    /// same flags, summaries, names and step printer, nothing recorded yet.
    pub(super) fn for_one_function(&self, f: usize) -> PassCtx {
        PassCtx {
            input_compacted: self.compacted.get(f).copied().unwrap_or(false),
            verify: self.verify,
            summaries: self.summaries.clone(),
            print_step: self.print_step.clone(),
            remarks: self.remarks.as_ref().map(|_| Vec::new()),
            pass: self.pass.clone(),
            names: self.names.clone(),
            ..PassCtx::default()
        }
    }

    /// Adds what the pass recorded in function `name` (in `local`, from
    /// [`PassCtx::for_one_function`]) to this context, as if it had run
    /// here: counters (also under `name` in [`PassCtx::by_function`]),
    /// remarks and verifier errors.
    pub(super) fn merge_function(&mut self, name: &str, local: PassCtx) {
        if self.per_function && !local.counters.0.is_empty() {
            let mine = self.by_function.entry(name.to_string()).or_default();
            for (counter, &n) in &local.counters.0 {
                mine.add(counter, n);
            }
        }
        for (counter, &n) in &local.counters.0 {
            self.counters.add(counter, n);
        }
        if let (Some(mine), Some(theirs)) = (&mut self.remarks, local.remarks) {
            mine.extend(theirs);
        }
        self.errors.extend(local.errors);
    }

    /// Runs the pass `step` (named `step_name`) on `ir` as a step of the
    /// pass `outer`, the way `checks` and `rotate` restore loop shape with
    /// `loops`: its counters are reported as `OUTER.COUNTER`
    /// (`checks.simplifycfg.merged`), and when [`PassCtx::verify`], the IR
    /// is verified right after it (structure, edges, dominance) and
    /// failures are recorded in [`PassCtx::errors`] naming the step.
    pub fn run_step(
        &mut self,
        outer: &str,
        step_name: &str,
        ir: &mut IrCode,
        step: fn(&mut IrCode, &mut PassCtx),
    ) {
        let mut local = PassCtx::for_function(self.verify);
        local.summaries = self.summaries.clone();
        local.pass = format!("{outer}.{step_name}");
        local.names = self.names.clone();
        local.remarks = self.remarks.as_ref().map(|_| Vec::new());
        step(ir, &mut local);
        if let (Some(mine), Some(theirs)) = (&mut self.remarks, local.remarks.take()) {
            mine.extend(theirs);
        }
        if let Some(p) = &self.print_step
            && p.step.strip_prefix(outer).and_then(|s| s.strip_prefix('.')) == Some(step_name)
            && p.only.as_ref().is_none_or(|n| *n == ir.name)
        {
            eprint!(
                "*** IR after {} (fn {}) ***\n{}",
                p.step,
                ir.name,
                (p.print)(ir)
            );
        }
        for (name, n) in &local.counters.0 {
            self.counters.add(&format!("{outer}.{name}"), *n);
        }
        self.errors.extend(local.errors);
        if self.verify {
            let errs = crate::ir::verify::verify_structure(ir);
            self.errors.extend(
                errs.into_iter()
                    .map(|e| format!("after its step `{step_name}`: {e}")),
            );
        }
    }
}
