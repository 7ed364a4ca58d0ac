//! Loop rotation during translation (`-O2` only).
//!
//! Cranelift lowers a `while` loop as IR gives it: a header that tests and
//! exits, a body, and a back edge `goto header` — two branches per
//! iteration. Here a back edge `L: goto H` into a qualifying header `H`
//! is emitted as a copy of `H`'s test at the end of `L`, branching straight
//! to the body `B` or the exit `X`: one branch per iteration.
//!
//! Because `B` and `X` can then be entered from two places, each of `H`'s
//! `φ` values becomes an extra block parameter of `B` and of `X`, and every
//! use of the `φ` in the dominator subtree of `B` (of `X`) reads that
//! parameter instead (an *override*, scoped by walking the dominator tree
//! in preorder). The copy in `L` reads each `φ` as its operand on the edge
//! `L → H` (a *substitution*).
//!
//! `H` qualifies when: it ends in `GotoIfNot` to `X` with fallthrough
//! `B = H + 1`, `B`, `X`, `H` distinct, `X` not a block that raises (that
//! test is a runtime check heading an IR-rotated loop, not a loop exit;
//! copying it into the latch only adds block parameters to the cold block:
//! +21% instructions on sieve); it holds `φ`s then at most
//! [`MAX_COPY`] pure statements (no `φᶜ`, calls, stores or raises), none of
//! whose values is used outside `H` (φ operands count as uses outside; π
//! fact bounds do not, as no machine code reads them);
//! `B`'s only predecessor is `H`; `idom(X) = H` and every predecessor of
//! `X` is `H` or dominated by `H`; `B` and `X` hold no `φᶜ`; `H`'s
//! dominator-tree children are only `B` and `X`. A back edge qualifies
//! when `L` ends in `goto H` and `H` dominates `L`.

use super::translate::{FnTrans, cl_type};
use crate::ir::dom::DomTree;
use crate::ir::edit::for_each_executed_operand;
use crate::ir::{BlockId, Inst, IrCode, Operand};
use cranelift_codegen::ir as cl;

/// Most statements of a header test that are copied to each latch.
pub const MAX_COPY: usize = 8;

/// The result of the analysis.
pub struct Plan {
    /// The dominator tree of the function's CFG.
    pub dom: DomTree,
    /// Dominator-tree children of each block, in the order of the reverse
    /// postorder the plan was made for (the order blocks are emitted in).
    pub children: Vec<Vec<usize>>,
    /// For each block: is it a rotated header?
    pub rotated: Vec<bool>,
}

impl Plan {
    /// Whether `a` dominates `b`, both reachable (O(1)).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        match (u32::try_from(a), u32::try_from(b)) {
            (Ok(a), Ok(b)) => self.dom.dominates_reachable(BlockId(a), BlockId(b)),
            _ => false,
        }
    }
}

/// Analyses `code` (whose reachable blocks in reverse postorder are `order`).
pub fn plan(code: &IrCode, order: &[usize]) -> Plan {
    let n = code.cfg.blocks.len();
    let mut reachable = vec![false; n];
    for &b in order {
        reachable[b] = true;
    }
    let mut preds = vec![Vec::new(); n];
    for &b in order {
        for s in &code.cfg.blocks[b].succs {
            preds[s.0 as usize].push(b);
        }
    }
    let dom = DomTree::new(&code.cfg);
    let mut children = vec![Vec::new(); n];
    for &b in order.iter().skip(1) {
        if let Some(p) = dom.idom(BlockId(b as u32)) {
            children[p.0 as usize].push(b);
        }
    }
    let mut p = Plan {
        dom,
        children,
        rotated: vec![false; n],
    };

    // Which block holds each statement.
    let mut block_of = vec![usize::MAX; code.stmts.len()];
    for (b, bb) in code.cfg.blocks.iter().enumerate() {
        for s in bb.stmts.clone() {
            if let Some(slot) = block_of.get_mut(s as usize) {
                *slot = b;
            }
        }
    }
    // Values read by a φ or by a statement of another block.
    let mut used_outside = vec![false; code.stmts.len()];
    for (s, inst) in code.stmts.inst.iter().enumerate() {
        let is_phi = matches!(inst, Inst::Phi { .. });
        // π fact bounds are not read by the machine code, so a bound
        // outside `H` does not need `H`'s value after rotation.
        for_each_executed_operand(inst, |o| {
            if let Operand::Value(v) = o {
                let d = v.0 as usize;
                if d < used_outside.len() && (is_phi || block_of[d] != block_of[s]) {
                    used_outside[d] = true;
                }
            }
        });
    }
    let has_phic = |b: usize| {
        code.cfg.blocks[b]
            .stmts
            .clone()
            .any(|s| matches!(code.stmts.inst[s as usize], Inst::PhiC { .. }))
    };
    for &h in order {
        let range = code.cfg.blocks[h].stmts.clone();
        let Some(Inst::GotoIfNot { dest, .. }) =
            range.clone().last().map(|s| &code.stmts.inst[s as usize])
        else {
            continue;
        };
        let (b, x) = (h + 1, dest.0 as usize);
        if b >= n || x >= n || b == x || b == h || x == h || !reachable[b] || !reachable[x] {
            continue;
        }
        let body: Vec<usize> = range
            .clone()
            .map(|s| s as usize)
            .filter(|&s| !matches!(code.stmts.inst[s], Inst::Phi { .. } | Inst::Nothing))
            .collect();
        // `body` includes the terminator.
        if body.len() > MAX_COPY + 1 {
            continue;
        }
        let pure = body[..body.len() - 1].iter().all(|&s| {
            matches!(
                code.stmts.inst[s],
                Inst::Binary(..)
                    | Inst::Unary(..)
                    | Inst::Copy(_)
                    | Inst::Pi { .. }
                    | Inst::Load { .. }
            )
        });
        if !pure || has_phic(h) || has_phic(b) || has_phic(x) {
            continue;
        }
        // A test whose false side raises is a runtime check, not a loop
        // exit (a header the IR `rotate` pass left starting with a check):
        // copying it into the latch only adds the φs as parameters of the
        // cold block.
        let raises = code.cfg.blocks[x]
            .stmts
            .clone()
            .find(|&s| !matches!(code.stmts.inst[s as usize], Inst::Nothing));
        if raises.is_some_and(|s| matches!(code.stmts.inst[s as usize], Inst::Raise { .. })) {
            continue;
        }
        if preds[b] != [h]
            || p.dom.idom(BlockId(x as u32)) != Some(BlockId(h as u32))
            || !preds[x].iter().all(|&q| p.dominates(h, q))
        {
            continue;
        }
        if !p.children[h].iter().all(|&c| c == b || c == x) {
            continue;
        }
        let has_latch = preds[h].iter().any(|&l| {
            p.dominates(h, l)
                && l != h
                && code.cfg.blocks[l]
                    .stmts
                    .clone()
                    .last()
                    .is_some_and(|s| matches!(code.stmts.inst[s as usize], Inst::Goto(_)))
        });
        if !has_latch {
            continue;
        }
        // No value of H's non-φ statements may be used outside them.
        if body.iter().any(|&d| used_outside[d]) {
            continue;
        }
        p.rotated[h] = true;
    }
    p
}

/// The φ overrides a block put in scope and what they replaced (restored
/// when leaving the block's dominator subtree).
pub(super) type SavedOverrides = Vec<(u32, Option<cl::Value>)>;

/// Emission of rotated loops.
impl FnTrans<'_, '_, '_> {
    /// Puts the overrides of block `b` in scope; returns what they replaced.
    pub(super) fn enter_scope(&mut self, b: usize) -> SavedOverrides {
        let mut saved = Vec::new();
        if let Some(list) = self.extra.get(&b).cloned() {
            for (phi, param) in list {
                saved.push((phi, self.ovr.insert(phi, param)));
            }
        }
        saved
    }

    pub(super) fn block_body_in(&mut self, bi: usize, plan: &Plan) -> Result<(), String> {
        self.block_body(bi, Some(plan))
    }

    /// The end of a latch `l` whose back edge goes to the rotated header
    /// `h`: a copy of `h`'s test, branching to `h`'s body and exit.
    pub(super) fn rotated_latch(&mut self, l: usize, h: usize) -> Result<(), String> {
        let code = self.code;
        let range = code.cfg.blocks[h].stmts.clone();
        let mut edge_vals = Vec::new();
        for s in range.clone() {
            if let Inst::Phi { edges, values } = &code.stmts.inst[s as usize] {
                if cl_type(&code.stmts.ty[s as usize]).is_none() {
                    continue;
                }
                let i = self
                    .phi_edge(s, edges, l)
                    .ok_or_else(|| format!("φ %{} lacks the edge from #{}", s + 1, l + 1))?;
                edge_vals.push((s, self.operand(&values[i])?));
            }
        }
        self.subst = edge_vals.into_iter().collect();
        let mut result = Ok(());
        let last = range.end as usize - 1;
        for s in range.clone() {
            let s = s as usize;
            if s == last || matches!(code.stmts.inst[s], Inst::Phi { .. } | Inst::Nothing) {
                continue;
            }
            let before = self.vals[s];
            result = self.stmt(s);
            if let Some(v) = self.vals[s] {
                self.subst.insert(s as u32, v);
            }
            self.vals[s] = before;
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = (|| {
                let Inst::GotoIfNot { cond, dest } = &code.stmts.inst[last] else {
                    return Err("rotated header without a conditional exit".to_string());
                };
                self.goto_if_not(h, cond, dest.0 as usize)
            })();
        }
        self.subst.clear();
        result
    }
}
