//! SSA construction straight from the typed HIR (Braun et al. 2013).
//!
//! `builder` holds the block-local CFG and the variable reads/writes;
//! `lower*`, `assign` and `builtins` walk the HIR; `fold` simplifies on the
//! fly; `throws` decides which functions may throw; `scc` and `emit` finish
//! a function into [`IrCode`](crate::ir::IrCode).
mod assign;
mod block;
pub mod bril;
pub mod builder;
mod builtins;
mod emit;
mod env;
pub mod fold;
mod lower;
mod lower_expr;
mod lower_stmt;
mod phis;
mod scc;
pub mod throws;
mod users;

use crate::ir::{IrCode, Module};
use crate::sema::hir::{FuncId, Program, Type};
use builder::BuildTerm;
use std::sync::Arc;

/// Builds the IR of every function of `program` (same indices as
/// `program.functions`).
pub fn build_module(program: Arc<Program>) -> Module {
    build_module_on(program, &crate::par::Pool::default())
}

/// Source bytes per IR statement SSA construction makes, roughly (2.5 MB
/// make 245,000 statements in a 100,000-line `bench/gen_program.py`
/// program): converts the functions' source size into the work estimate
/// [`crate::par::Pool`] takes.
const SOURCE_BYTES_PER_STMT: usize = 10;

/// [`build_module`] on `pool`'s threads: each function is built on its
/// own from the program and the may-throw table, so the module is the
/// same with any number of threads.
pub fn build_module_on(program: Arc<Program>, pool: &crate::par::Pool) -> Module {
    let may_throw = throws::may_throw_on(&program, pool);
    let bytes = program.body_bytes();
    // Contexts not in use: a function takes one (or makes one when all
    // are taken) and gives it back, so each thread keeps reusing the
    // allocations of one (the result is the same either way).
    let spare = std::sync::Mutex::new(Vec::<SsaContext>::new());
    let funcs = pool.map(
        program.functions.len(),
        bytes / SOURCE_BYTES_PER_STMT,
        |i| {
            let taken = spare.lock().ok().and_then(|mut s| s.pop());
            let mut cx = taken.unwrap_or_default();
            let code = build_function_in(&mut cx, &program, FuncId(i as u32), &may_throw);
            if let Ok(mut s) = spare.lock() {
                s.push(cx);
            }
            code
        },
    );
    Module { funcs, program }
}

/// Builds one function; `may_throw[f]` says whether calls to `f` need a
/// `NoException` check.
pub fn build_function(program: &Program, id: FuncId, may_throw: &[bool]) -> IrCode {
    build_function_in(&mut SsaContext::default(), program, id, may_throw)
}

/// What SSA construction keeps from one function to the next: the
/// builder's allocations. Holds no state of any function between calls.
#[derive(Default)]
pub struct SsaContext {
    builder: Option<Box<builder::Builder>>,
}

/// [`build_function`] reusing `cx`'s allocations (as for every function
/// of a module).
pub fn build_function_in(
    cx: &mut SsaContext,
    program: &Program,
    id: FuncId,
    may_throw: &[bool],
) -> IrCode {
    build_counted_in(cx, program, id, may_throw).0
}

/// [`build_function`], also returning how many blocks its variable
/// lookups visited (a measure of the builder's work, for tests that bound
/// it by the function's size).
pub fn build_function_counted(program: &Program, id: FuncId, may_throw: &[bool]) -> (IrCode, u64) {
    build_counted_in(&mut SsaContext::default(), program, id, may_throw)
}

fn build_counted_in(
    cx: &mut SsaContext,
    program: &Program,
    id: FuncId,
    may_throw: &[bool],
) -> (IrCode, u64) {
    let func = program.func(id);
    let mut l = lower::FnLower::new(program, func, may_throw, cx.builder.take());
    l.block(&func.body);
    if !l.b.cur_dead() {
        // Sema guarantees a non-void function never reaches its end.
        let term = if func.ret == Type::Void {
            BuildTerm::Return(None)
        } else {
            BuildTerm::Unreachable
        };
        // At the closing brace.
        let end = func.span.end.max(func.span.start + 1);
        let span = crate::span::Span {
            file: func.span.file,
            start: end - 1,
            end,
        };
        l.b.terminate(term, span);
    }
    l.finish();
    let header = emit::Header {
        name: func.name.clone(),
        func: id,
        params: std::mem::take(&mut l.params),
        ret: func.ret.clone(),
        span: func.span,
        var_names: emit::VarNames::Locals(&func.locals),
        param_names: func
            .params
            .iter()
            .filter_map(|p| func.locals.get(p.0 as usize))
            .map(|l| l.name.clone())
            .collect(),
    };
    let steps = l.b.steps;
    let code = emit::emit(&mut l.b, header);
    cx.builder = Some(l.b);
    (code, steps)
}
