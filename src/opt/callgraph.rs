//! The call graph of a module and its strongly connected components.
//!
//! Nodes are function indices (`module.funcs[i]` is `FuncId(i)`); there is
//! an edge `f → g` when `f` contains an `invoke g`. [`sccs`] lists the
//! components bottom-up: every component comes after all the components it
//! calls into, so a pass that walks them in order sees each callee final
//! before any caller (recursion aside).

use crate::ir::{Inst, Module};

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
            for inst in &code.stmts.inst {
                if let Inst::Call { func, .. } = inst {
                    let g = func.0 as usize;
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

/// The strongly connected components of the graph `succ` (Tarjan's
/// algorithm, iterative so deep call chains cannot overflow the stack), in
/// reverse topological order: a component is listed after every component
/// reachable from it. Linear in nodes + edges.
pub fn sccs(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut next = 0usize;
    // The DFS path: (node, index of its next edge to look at).
    let mut path: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        path.push((root, 0));
        while let Some(top) = path.last_mut() {
            let v = top.0;
            if let Some(&w) = succ[v].get(top.1) {
                top.1 += 1;
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    path.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(p, _)) = path.last() {
                low[p] = low[p].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

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
