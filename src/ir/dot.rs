//! The CFG of a function as Graphviz DOT (`toyc cfg`, `toyc ir --dot`):
//! one box per block holding its statements as `toyc ir` prints them, one
//! edge per successor. The edge a `goto #d if not %c` takes when `%c` is
//! false is labelled `false`, its fallthrough `true`; a block whose last
//! statement raises is drawn dashed (an error path).
//!
//! Render with `toyc cfg prog.toy --fn main | dot -Tsvg > main.svg`.

use super::print::statement;
use super::{Inst, IrCode};
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

/// Every CFG edge of `f` as `(from, to, branch)` (block indices, 0-based):
/// `branch` is `Some(false)` for the edge a `goto #d if not %c` takes when
/// `%c` is false, `Some(true)` for its fallthrough, `None` for any other.
pub fn edges(f: &IrCode) -> Vec<(usize, usize, Option<bool>)> {
    let mut out = Vec::new();
    for (b, blk) in f.cfg.blocks.iter().enumerate() {
        let last = blk
            .stmts
            .clone()
            .last()
            .and_then(|i| f.stmts.inst.get(i as usize));
        for s in &blk.succs {
            let branch = match last {
                Some(Inst::GotoIfNot { dest, .. }) => Some(*dest != *s),
                _ => None,
            };
            out.push((b, s.0 as usize, branch));
        }
    }
    out
}

/// Whether block `b` of `f` raises (an error path).
pub fn raises(f: &IrCode, b: usize) -> bool {
    f.cfg.blocks.get(b).is_some_and(|blk| {
        blk.stmts
            .clone()
            .any(|i| matches!(f.stmts.inst.get(i as usize), Some(Inst::Raise { .. })))
    })
}

/// The DOT graph of `f`'s CFG.
pub fn function_dot(f: &IrCode, program: &Program) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&f.name));
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for (b, blk) in f.cfg.blocks.iter().enumerate() {
        let mut label = format!("#{}\n", b + 1);
        for i in blk.stmts.clone() {
            let i = i as usize;
            if matches!(f.stmts.inst.get(i), Some(Inst::Nothing) | None) {
                continue;
            }
            label.push_str(&statement(f, program, i));
            label.push('\n');
        }
        let style = if raises(f, b) { ", style=dashed" } else { "" };
        let _ = writeln!(out, "  b{} [label=\"{}\"{style}];", b + 1, escape(&label));
    }
    for (from, to, branch) in edges(f) {
        let kind = match branch {
            Some(false) => " [label=\"false\"]",
            Some(true) => " [label=\"true\"]",
            None => "",
        };
        let _ = writeln!(out, "  b{} -> b{}{kind};", from + 1, to + 1);
    }
    out.push_str("}\n");
    out
}
