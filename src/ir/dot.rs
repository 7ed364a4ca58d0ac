//! The CFG of a function as Graphviz DOT (`toyc cfg`, `toyc ir --dot`):
//! one box per block holding its statements as `toyc ir` prints them, one
//! edge per successor. The edge a `goto #d if not %c` takes when `%c` is
//! false is labelled `false`, its fallthrough `true`; a block whose last
//! statement raises is drawn dashed (an error path).
//!
//! Render with `toyc cfg prog.toy --fn main | dot -Tsvg > main.svg`.

use super::print::statement;
use super::{BlockId, Inst, IrCode};
use crate::sema::hir::Program;
use std::fmt::Write as _;

/// `text` as a DOT string literal's contents, one left-justified line per
/// line (`\l`).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\l"),
            '{' | '}' | '<' | '>' | '|' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every CFG edge of `f` as `(from, to, branch)`:
/// `branch` is `Some(false)` for the edge a `goto #d if not %c` takes when
/// `%c` is false, `Some(true)` for its fallthrough, `None` for any other.
pub fn edges(f: &IrCode) -> Vec<(BlockId, BlockId, Option<bool>)> {
    let mut out = Vec::new();
    for (b, blk) in f.cfg.blocks.iter() {
        let last = blk.last().and_then(|i| f.stmts.inst.get(i));
        for s in &blk.succs {
            let branch = match last {
                Some(Inst::GotoIfNot { dest, .. }) => Some(*dest != *s),
                _ => None,
            };
            out.push((b, *s, branch));
        }
    }
    out
}

/// Whether block `b` of `f` raises (an error path).
pub fn raises(f: &IrCode, b: BlockId) -> bool {
    f.cfg.blocks.get(b).is_some_and(|blk| {
        blk.values()
            .any(|i| matches!(f.stmts.inst.get(i), Some(Inst::Raise { .. })))
    })
}

/// The DOT graph of `f`'s CFG.
pub fn function_dot(f: &IrCode, program: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&f.name));
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for (b, blk) in f.cfg.blocks.iter() {
        let mut label = format!("{b}\n");
        for i in blk.values() {
            if matches!(f.stmts.inst.get(i), Some(Inst::Nothing) | None) {
                continue;
            }
            label.push_str(&statement(f, program, i));
            label.push('\n');
        }
        let style = if raises(f, b) { ", style=dashed" } else { "" };
        let _ = writeln!(out, "  b{} [label=\"{}\"{style}];", b.0 + 1, escape(&label));
    }
    for (from, to, branch) in edges(f) {
        let kind = match branch {
            Some(false) => " [label=\"false\"]",
            Some(true) => " [label=\"true\"]",
            None => "",
        };
        let _ = writeln!(out, "  b{} -> b{}{kind};", from.0 + 1, to.0 + 1);
    }
    out.push_str("}\n");
    out
}
