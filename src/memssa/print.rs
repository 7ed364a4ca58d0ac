//! LLVM's `print<memoryssa>` format interleaved with the IR printer's
//! lines: before each statement with an access, `; 1 = MemoryDef(liveOnEntry)`
//! or `; MemoryUse(1)`; before a block's first statement its φ,
//! `; 3 = MemoryPhi({#1,liveOnEntry},{#3,2})`. An optimized def shows its
//! cached clobber (`->N`). In walker mode every def and use also shows the
//! walker's answer (` - clobbered by N`).

use super::alias::Summaries;
use super::{AccessId, AccessKind, LIVE_ON_ENTRY, MemorySsa};
use crate::ir::{IrCode, Value};
use crate::sema::hir::Program;
use crate::span::SourceMap;

impl MemorySsa {
    /// `liveOnEntry` or the access number.
    pub fn name(&self, a: AccessId) -> String {
        if a == LIVE_ON_ENTRY {
            "liveOnEntry".to_string()
        } else {
            self.access(a).num.to_string()
        }
    }

    /// One access as LLVM prints it (without `; `).
    pub fn describe(&self, a: AccessId) -> String {
        let acc = self.access(a);
        let def = acc
            .defining
            .map_or_else(|| "liveOnEntry".to_string(), |d| self.name(d));
        match &acc.kind {
            AccessKind::LiveOnEntry => "liveOnEntry".to_string(),
            AccessKind::Use { .. } => format!("MemoryUse({def})"),
            AccessKind::Def { .. } => {
                let mut s = format!("{} = MemoryDef({def})", acc.num);
                if let Some(o) = acc.optimized {
                    s.push_str(&format!("->{}", self.name(o)));
                }
                s
            }
            AccessKind::Phi { incoming } => {
                let ops: Vec<String> = incoming
                    .iter()
                    .map(|(b, x)| format!("{{{},{}}}", b, self.name(*x)))
                    .collect();
                format!("{} = MemoryPhi({})", acc.num, ops.join(","))
            }
        }
    }
}

/// Prints `ir` with its MemorySSA (`sums`: the call summaries of its
/// module). `walker`: query the walker for every def and use first, and
/// show its answers.
pub fn print_function(
    ir: &IrCode,
    program: &Program,
    sums: &Summaries,
    sources: Option<&SourceMap>,
    walker: bool,
) -> String {
    let mut m = MemorySsa::build(ir, sums);
    let mut clobber: cranelift_entity::SecondaryMap<AccessId, Option<AccessId>> =
        cranelift_entity::SecondaryMap::new();
    if walker {
        for a in m.live_accesses().collect::<Vec<_>>() {
            if !matches!(m.access(a).kind, AccessKind::Phi { .. }) {
                let c = m.clobbering_access(ir, a);
                clobber[a] = Some(c);
            }
        }
    } else {
        m.ensure_optimized_uses(ir);
    }
    let text = crate::ir::print::print_function(ir, program, sources);
    let mut out = String::new();
    let mut lines = text.lines();
    if let Some(h) = lines.next() {
        out.push_str(h);
        out.push('\n');
    }
    let mut block_start = vec![None; ir.stmts.len()];
    for (b, blk) in ir.cfg.blocks.iter() {
        if let Some(x) = block_start.get_mut(blk.stmts.start as usize) {
            *x = Some(b);
        }
    }
    let col = text
        .lines()
        .filter_map(|l| l.chars().position(|c| matches!(c, '│' | '└')))
        .min()
        .unwrap_or(0);
    let indent = " ".repeat(col);
    for (i, line) in lines.enumerate() {
        let mut notes = Vec::new();
        if let Some(Some(b)) = block_start.get(i)
            && let Some(p) = m.phi_for(*b)
        {
            notes.push(m.describe(p));
        }
        if let Some(a) = m.access_for(Value(i as u32)) {
            let mut s = m.describe(a);
            if let Some(c) = clobber[a] {
                s.push_str(&format!(" - clobbered by {}", m.name(c)));
            }
            notes.push(s);
        }
        for n in notes {
            out.push_str(&format!("{indent}│ ; {n}\n"));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The module header of the IR printer, then [`print_function`] for every
/// function of `module` (or only `only`), with the call summaries of the
/// module in effect. The MemorySSA lines are `;` comments, so the output
/// is IR text `toyc opt` reads.
pub fn print_module(
    module: &crate::ir::Module,
    sources: &SourceMap,
    only: Option<&str>,
    walker: bool,
) -> String {
    let sums = super::alias::compute_summaries(module);
    crate::ir::print::print_module_by(module, only, |f| {
        print_function(f, &module.program, &sums, Some(sources), walker)
    })
}
