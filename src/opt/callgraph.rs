//! The call graph of a module and its strongly connected components.
//!
//! Nodes are function indices (`module.funcs[i]` is `FuncId(i)`); there is
//! an edge `f → g` when `f` contains an `invoke g`. [`sccs`] lists the
//! components bottom-up: every component comes after all the components it
//! calls into, so a pass that walks them in order sees each callee final
//! before any caller (recursion aside).

use crate::ir::{Inst, Module};
use cranelift_entity::EntityRef;

/// `callees[f]`: the distinct functions `f` calls, in first-call order.
/// Calls of an index outside the module are left out.
pub fn callees(module: &Module) -> Vec<Vec<usize>> {
    let n = module.funcs.len();
    let mut seen = vec![usize::MAX; n];
    module
        .funcs
        .iter()
        .enumerate()
        .map(|(f, code)| {
            let mut out = Vec::new();
            for inst in code.stmts.inst.values() {
                if let Inst::Call { func, .. } = inst {
                    let g = func.index();
                    if g < n && seen[g] != f {
                        seen[g] = f;
                        out.push(g);
                    }
                }
            }
            out
        })
        .collect()
}

pub use crate::ir::graph::sccs;

/// `recursive[f]`: `f` can call itself, directly (a self edge) or through
/// other functions (its component has more than one member).
pub fn recursive(succ: &[Vec<usize>], components: &[Vec<usize>]) -> Vec<bool> {
    let mut rec = vec![false; succ.len()];
    for comp in components {
        let cyclic = comp.len() > 1 || comp.first().is_some_and(|&f| succ[f].contains(&f));
        if cyclic {
            for &f in comp {
                rec[f] = true;
            }
        }
    }
    rec
}
