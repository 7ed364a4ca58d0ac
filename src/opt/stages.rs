//! Consecutive function-pass rows run as one stage: each worker takes a
//! function through every row of the stage before it takes the next one,
//! so a function's IR stays in the core's caches from one pass to the
//! next, and the rows share one hand-out of the functions instead of one
//! each (with a wait for the slowest function at the end of every row).
//!
//! A stage is a function row followed by the function rows after it that
//! do not read call summaries: summaries are computed from the whole
//! module before a row that reads them, so such a row must wait for the
//! rows before it to finish every function. A module row is a stage alone.
//!
//! Invariant: a stage gives what its rows give run one after another. Each
//! row sees each function as the row before left it, passes read nothing
//! but their function and their [`PassCtx`], and what the rows record
//! (counters, remarks, errors) is merged row by row in function order, as
//! [`super::Pass::run_module`] merges one row. When the verifier is on,
//! each function is verified after each row of the stage; a function stops
//! at the first row with an error, and the earliest such row is reported
//! with every function's errors in it, as if the pipeline had stopped there.
//!
//! The pipeline runs rows one by one instead when something watches the
//! module between rows (`--print-before`/`--print-after`/`--print-changed`,
//! `toyc explore`, a step printer).

use super::{Counters, Pass, PassCtx, PassFn, debug_assert_left_compacted, find_pass};
use crate::ir::{IrCode, Module};
use crate::memssa::alias::Summaries;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The end (exclusive) of the stage of `passes` that starts at `start`.
pub(super) fn stage_end(passes: &[&str], start: usize) -> usize {
    let is_function = |p: &Pass| matches!(p.run, PassFn::Function(_));
    match find_pass(passes[start]) {
        Some(first) if is_function(first) => {
            let more = passes[start + 1..]
                .iter()
                .take_while(|n| find_pass(n).is_some_and(|p| is_function(p) && !p.reads_summaries))
                .count();
            start + 1 + more
        }
        _ => start + 1,
    }
}

/// What one row of a stage recorded: per function, its [`PassCtx`] and
/// its verifier errors; and the time its functions took on the workers.
struct RowResult {
    locals: Vec<PassCtx>,
    verify_errors: Vec<Vec<String>>,
    busy: Duration,
}

/// What one function's run through a stage recorded, row by row (rows it
/// did not reach, after a verifier error, are absent).
type FunctionRun = Vec<(PassCtx, Vec<String>, Duration)>;

/// A row's counters by function (what [`super::PassObserver::after`]
/// gets).
type ByFunction = BTreeMap<String, Counters>;

/// A row that failed, and its errors (from the verifier or the pass).
type RowErrors = (&'static str, Vec<String>);

/// Runs the rows `names` (a stage, [`stage_end`]) over `module`; `ctx`
/// holds the first row's summaries and the functions to skip, set by the
/// pipeline as for any row since `start` (the stage's time, shared among
/// its rows for `--time-passes`). Returns each row's counters by function, or
/// the first row with errors and its errors.
pub(super) fn run_stage(
    module: &mut Module,
    names: &[&'static str],
    ctx: &mut PassCtx,
    verify: bool,
    start: std::time::Instant,
) -> Result<Vec<ByFunction>, RowErrors> {
    let runs: Vec<fn(&mut IrCode, &mut PassCtx)> = names
        .iter()
        .filter_map(|n| match find_pass(n)?.run {
            PassFn::Function(run) => Some(run),
            PassFn::Module(_) => None,
        })
        .collect();
    let no_summaries = Arc::new(Summaries::default());
    // Row `k` gets its functions compacted when a row before it compacts.
    let compacts: Vec<bool> = names
        .iter()
        .scan(false, |seen, n| {
            let before = *seen;
            *seen |= find_pass(n).is_some_and(|p| p.compacts);
            Some(before)
        })
        .collect();
    let work = module.stmt_count() * names.len();
    let Module { funcs, program } = module;
    let (program, pool, shared) = (&*program, ctx.pool.clone(), &*ctx);
    let size = |f: &IrCode| f.stmts.len();
    let done: Vec<FunctionRun> = pool.map_mut_largest_first(funcs, work, size, |i, f| {
        let mut rows = Vec::with_capacity(runs.len());
        for (k, run) in runs.iter().enumerate() {
            let mut local = shared.for_one_function(i);
            local.pass = names[k].to_string();
            if k > 0 {
                local.summaries = no_summaries.clone();
            }
            local.input_compacted |= compacts[k];
            let t = std::time::Instant::now();
            if !shared.skips(i) {
                run(f, &mut local);
                debug_assert_left_compacted(&local, f);
            }
            let busy = t.elapsed();
            let errors = match verify {
                true => crate::ir::verify::verify_function(f, program),
                false => Vec::new(),
            };
            let failed = !errors.is_empty() || !local.errors.is_empty();
            rows.push((local, errors, busy));
            if failed {
                break;
            }
        }
        rows
    });
    let rows = by_row(done, names.len());
    record_times(names, &rows, start.elapsed());
    let mut counters = Vec::with_capacity(rows.len());
    for (k, row) in rows.into_iter().enumerate() {
        for (f, local) in module.funcs.iter().zip(row.locals) {
            ctx.merge_function(&f.name, local);
        }
        // As the pipeline reports a row: the pass's own errors, else the
        // verifier's.
        let mut errors = std::mem::take(&mut ctx.errors);
        if errors.is_empty() {
            errors.extend(row.verify_errors.into_iter().flatten());
        }
        if !errors.is_empty() {
            return Err((names[k], errors));
        }
        counters.push(std::mem::take(&mut ctx.by_function));
    }
    Ok(counters)
}

/// The functions' runs regrouped by row: row `k` holds, in function order,
/// what each function that reached it recorded.
fn by_row(done: Vec<FunctionRun>, nrows: usize) -> Vec<RowResult> {
    let mut rows: Vec<RowResult> = (0..nrows)
        .map(|_| RowResult {
            locals: Vec::new(),
            verify_errors: Vec::new(),
            busy: Duration::ZERO,
        })
        .collect();
    for run in done {
        for (row, (local, errors, busy)) in rows.iter_mut().zip(run) {
            row.locals.push(local);
            row.verify_errors.push(errors);
            row.busy += busy;
        }
    }
    // A row no function reached (all stopped before it) stays empty, and
    // so do the rows after it.
    rows
}

/// `time.pass.NAME` for each row of a stage: the stage's wall time, shared
/// out in proportion to the time the row's functions took on the workers.
fn record_times(names: &[&str], rows: &[RowResult], wall: Duration) {
    let total: Duration = rows.iter().map(|r| r.busy).sum();
    for (name, row) in names.iter().zip(rows) {
        let share = match total.is_zero() {
            true => wall / names.len() as u32,
            false => wall.mul_f64(row.busy.as_secs_f64() / total.as_secs_f64()),
        };
        crate::timing::record(&format!("pass.{name}"), share);
    }
}

#[cfg(test)]
mod tests {
    use super::stage_end;

    /// The stages of a pass list, as lists of row names.
    fn stages(passes: &[&'static str]) -> Vec<Vec<&'static str>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < passes.len() {
            let end = stage_end(passes, i);
            out.push(passes[i..end].to_vec());
            i = end;
        }
        out
    }

    #[test]
    fn the_default_pipeline_runs_in_eight_stages() {
        // Module rows stand alone (`inline`); a row that reads call
        // summaries starts a stage (`checks`, `gvn_load`, `licm`, ...).
        assert_eq!(
            stages(&crate::opt::default_passes(2)),
            [
                &["sccp", "dce", "simplifycfg"][..],
                &["inline"],
                &["tailrec", "recinline", "loops", "cse", "knownbits"],
                &["checks", "rotate"],
                &["gvn_load"],
                &["licm", "version"],
                &["gvn_load.late", "cse.late", "simplifycfg.late", "divpair"],
                &["dse"],
            ]
        );
        assert_eq!(stages(&["sccp"]), [["sccp"]]);
        assert_eq!(stages(&["inline", "sccp"]), [["inline"], ["sccp"]]);
    }
}
