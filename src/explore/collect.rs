//! Builds a [`Page`]: runs the pass pipeline over a freshly built module
//! with an observer that keeps each function's IR after construction and
//! after every pass that changed its text, then adds the MemorySSA of the
//! final IR, the CLIF and the machine code.

use super::svg::{EdgeKind, Graph, Node};
use super::{Column, Counts, FunctionView, Page, Syntax};
use crate::codegen::CodegenOptions;
use crate::codegen::asm::Listing;
use crate::ir::{Inst, IrCode, Module};
use crate::opt::remarks::Remark;
use crate::opt::{Counters, PassObserver, PipelineOptions};
use crate::span::{FileId, SourceMap};
use cranelift_entity::EntityRef;
use std::collections::BTreeMap;

/// What a page is built from besides the module.
pub struct Inputs<'a> {
    pub sources: &'a SourceMap,
    /// The main file: rows map to lines of this file only.
    pub main: FileId,
    /// The passes to run (its `--print-*` fields are ignored).
    pub pipeline: &'a PipelineOptions,
    pub codegen: &'a CodegenOptions,
    /// Only this function (`--fn`); `None`: every function.
    pub only: Option<&'a str>,
}

/// The page for `module` as SSA construction left it: runs the pipeline
/// (with the verifier when [`PipelineOptions::verify`]) and the backend
/// (compiling, never running). `Err`: a verifier or backend failure.
pub fn build_page(mut module: Module, inputs: &Inputs) -> Result<Page, String> {
    let mut snaps = Snapshots {
        inputs,
        last: Vec::new(),
        columns: Vec::new(),
        pending: Vec::new(),
    };
    let mut counters = Counters::default();
    let pipeline = PipelineOptions {
        remarks: true,
        ..inputs.pipeline.clone()
    };
    let remarks =
        crate::opt::run_pipeline_observed(&mut module, &pipeline, &mut counters, &mut snaps)
            .map_err(|errs| errs.join("\n"))?;
    let Snapshots {
        columns, pending, ..
    } = snaps;
    let sums = crate::memssa::alias::compute_summaries(&module);
    let listing = |kind| {
        crate::codegen::asm::function_listings(
            &module,
            inputs.sources,
            inputs.codegen,
            inputs.only,
            kind,
        )
        .map(|texts| texts.into_iter().collect::<BTreeMap<String, String>>())
    };
    let clif = listing(Listing::Clif)?;
    let machine = listing(Listing::Asm)?;
    let mut functions = Vec::new();
    for ((f, mut cols), trailing) in module.funcs.iter().zip(columns).zip(pending) {
        if !selected(inputs, f) {
            continue;
        }
        attach_remarks(&mut cols, &f.name, &remarks, inputs);
        let mut mem = memssa_column(f, &module, &sums, inputs);
        mem.unchanged = trailing;
        cols.push(mem);
        cols.push(clif_column(clif.get(&f.name).map_or("", String::as_str)));
        cols.push(machine_column(
            machine.get(&f.name).map_or("", String::as_str),
        ));
        functions.push(FunctionView {
            name: f.name.clone(),
            columns: cols,
        });
    }
    let main = inputs.sources.get(inputs.main);
    Ok(Page {
        source_name: main.name.clone(),
        source: main.text.lines().map(String::from).collect(),
        functions,
        pipeline: inputs.pipeline.passes.join(", "),
    })
}

/// Gives each pass column of function `func` the remarks of its pass and
/// of the passes collapsed into it (those that left the function
/// unchanged, named in front of their remarks), each row on its source
/// line when that is in the main file.
fn attach_remarks(cols: &mut [Column], func: &str, remarks: &[Remark], inputs: &Inputs) {
    let file = inputs.sources.get(inputs.main);
    for col in cols.iter_mut().filter(|c| c.pass.is_some()) {
        let own = col.pass.clone().unwrap_or_default();
        let covered: Vec<&str> = col
            .unchanged
            .iter()
            .map(|(p, _)| p.as_str())
            .chain([own.as_str()])
            .collect();
        let rows = remarks
            .iter()
            .filter(|r| r.func == func)
            .filter(|r| covered.iter().any(|p| r.pass == *p || r.selected_by(p)))
            .map(|r| {
                let in_main = r.span.file == inputs.main;
                let pos = |span: crate::span::Span| {
                    let (l, c) = inputs.sources.get(span.file).line_col(span.start);
                    if span.file == inputs.main {
                        format!("{l}:{c}")
                    } else {
                        format!("{}:{l}:{c}", inputs.sources.get(span.file).name)
                    }
                };
                let text = if r.pass == own {
                    r.message_text(&pos)
                } else {
                    format!("{}: {}", r.pass, r.message_text(&pos))
                };
                let mut row = super::Row::text(&text);
                row.line = in_main.then(|| file.line_col(r.span.start).0);
                row
            })
            .collect();
        col.remarks = Some(rows);
    }
}

fn selected(inputs: &Inputs, f: &IrCode) -> bool {
    inputs.only.is_none_or(|n| n == f.name)
}

/// The observer that keeps the columns of every function.
struct Snapshots<'a, 'b> {
    inputs: &'b Inputs<'a>,
    /// Each function's text after the last pass (module order).
    last: Vec<String>,
    columns: Vec<Vec<Column>>,
    /// The passes since the function's last column that left it unchanged.
    pending: Vec<Vec<(String, Counts)>>,
}

impl PassObserver for Snapshots<'_, '_> {
    fn start(&mut self, module: &Module) {
        for f in &module.funcs {
            self.last.push(self.print(f, module));
            self.pending.push(Vec::new());
            if !selected(self.inputs, f) {
                self.columns.push(Vec::new());
                continue;
            }
            let mut col = ir_column(f, module, self.inputs, "start", "after construction");
            col.note = Some("SSA construction (Braun et al.), before any pass".into());
            self.columns.push(vec![col]);
        }
    }

    fn after(&mut self, pass: &str, module: &Module, counters: &BTreeMap<String, Counters>) {
        for (i, f) in module.funcs.iter().enumerate() {
            if !selected(self.inputs, f) {
                continue;
            }
            let counted: Counts = counters
                .get(&f.name)
                .map(|c| c.0.iter().map(|(k, v)| (k.clone(), *v)).collect())
                .unwrap_or_default();
            let text = self.print(f, module);
            if self.last.get(i) == Some(&text) {
                self.pending[i].push((pass.to_string(), counted));
                continue;
            }
            self.last[i] = text;
            let id = format!("pass-{pass}");
            let mut col = ir_column(f, module, self.inputs, &id, &format!("after {pass}"));
            col.note = crate::opt::find_pass(pass).map(|p| p.doc.to_string());
            col.unchanged = std::mem::take(&mut self.pending[i]);
            col.counters = counted;
            col.pass = Some(pass.to_string());
            self.columns[i].push(col);
        }
    }
}

impl Snapshots<'_, '_> {
    fn print(&self, f: &IrCode, module: &Module) -> String {
        if !selected(self.inputs, f) {
            return String::new();
        }
        crate::ir::print::print_function(f, &module.program, Some(self.inputs.sources))
    }
}

/// For each statement: its main-file line (none for φs, as the IR printer)
/// and its block's name.
fn statement_places(f: &IrCode, inputs: &Inputs) -> Vec<(Option<u32>, Option<String>)> {
    let n = f.stmts.inst.len().min(f.stmts.span.len());
    let mut places = vec![(None, None); n];
    for (b, blk) in f.cfg.blocks.iter() {
        for i in blk.values() {
            if let Some(p) = places.get_mut(i.index()) {
                p.1 = Some(b.to_string());
            }
        }
    }
    for (i, p) in f.stmts.inst.keys().zip(places.iter_mut()) {
        let span = f.stmts.span[i];
        if span.file == inputs.main
            && !matches!(f.stmts.inst[i], Inst::Phi { .. } | Inst::PhiC { .. })
        {
            p.0 = Some(inputs.sources.get(span.file).line_col(span.start).0);
        }
    }
    places
}

/// The IR of `f` as `toyc ir` prints it: the signature, then one row per
/// statement, in statement order.
fn ir_column(f: &IrCode, module: &Module, inputs: &Inputs, id: &str, title: &str) -> Column {
    let text = crate::ir::print::print_function(f, &module.program, Some(inputs.sources));
    let places = statement_places(f, inputs);
    let mut col = Column::from_text(id, title, Syntax::Ir, &text);
    for (row, (line, block)) in col.rows.iter_mut().skip(1).zip(places) {
        row.line = line;
        row.block = block;
    }
    col.cfg = Some(ir_graph(f));
    col
}

/// The MemorySSA of the final IR (`toyc ir --memssa`): its `; ...` rows
/// belong to the statement after them.
fn memssa_column(
    f: &IrCode,
    module: &Module,
    sums: &crate::memssa::alias::Summaries,
    inputs: &Inputs,
) -> Column {
    let text =
        crate::memssa::print::print_function(f, &module.program, sums, Some(inputs.sources), false);
    let places = statement_places(f, inputs);
    let mut col = Column::from_text("memssa", "MemorySSA", Syntax::Ir, &text);
    col.note = Some("MemorySSA of the final IR (LLVM print<memoryssa>)".into());
    let mut stmt = 0;
    for row in col.rows.iter_mut().skip(1) {
        if let Some((line, block)) = places.get(stmt) {
            row.line = *line;
            row.block = block.clone();
        }
        if !row.text.trim_start().starts_with("│ ;") {
            stmt += 1;
        }
    }
    col.cfg = Some(ir_graph(f));
    col
}

/// The CFG of `f`: block `#b` per block, dashed when it raises; a
/// `goto #d if not %c` goes to `#d` when `%c` is false.
fn ir_graph(f: &IrCode) -> Graph {
    let nodes = f
        .cfg
        .blocks
        .keys()
        .map(|b| Node {
            key: b.to_string(),
            dashed: crate::ir::dot::raises(f, b),
        })
        .collect();
    let edges = crate::ir::dot::edges(f)
        .into_iter()
        .map(|(from, to, branch)| {
            let kind = match branch {
                Some(true) => EdgeKind::True,
                Some(false) => EdgeKind::False,
                None => EdgeKind::Plain,
            };
            (from.index(), to.index(), kind)
        })
        .collect();
    Graph { nodes, edges }
}

/// The CLIF of a function, its rows in blocks, and its CFG read from the
/// text: a line `blockN(...):` starts a block; every `blockM` after it is
/// a successor (for `brif`, the first when the condition is non-zero).
fn clif_column(text: &str) -> Column {
    let mut col = Column::from_text("clif", "CLIF", Syntax::Clif, text);
    col.note =
        Some("Cranelift IR as toyc's codegen emits it, before Cranelift's optimisations".into());
    let mut g = Graph::default();
    let mut current: Option<usize> = None;
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let name_of = |line: &str| -> Option<String> {
        let t = line.trim_start();
        let digits: String = t
            .strip_prefix("block")?
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty() && t.trim_end().ends_with(':')).then(|| format!("block{digits}"))
    };
    for row in &col.rows {
        if let Some(name) = name_of(&row.text) {
            index.insert(name.clone(), g.nodes.len());
            g.nodes.push(Node {
                key: name,
                dashed: false,
            });
        }
    }
    let mut edges = Vec::new();
    for row in &mut col.rows {
        if let Some(name) = name_of(&row.text) {
            current = index.get(&name).copied();
        } else if let Some(b) = current {
            let targets = clif_block_refs(&row.text);
            let is_brif = row.text.contains("brif ");
            for (k, t) in targets.iter().enumerate() {
                let kind = match (is_brif, k) {
                    (true, 0) => EdgeKind::True,
                    (true, _) => EdgeKind::False,
                    _ => EdgeKind::Plain,
                };
                if let Some(&to) = index.get(t) {
                    edges.push((b, to, kind));
                }
            }
        }
        row.block = current.map(|b| g.nodes[b].key.clone());
    }
    g.edges = edges;
    col.cfg = Some(g);
    col
}

/// The `blockN` words of a CLIF line, in order.
fn clif_block_refs(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("block") {
        let before = rest[..at].chars().last();
        let after = &rest[at + 5..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push(format!("block{digits}"));
        }
        rest = after;
    }
    out
}

/// The machine code column: the function's compiled bytes disassembled
/// (`toyc asm`), calls and data references named.
fn machine_column(text: &str) -> Column {
    let mut col = Column::from_text("machine", "machine code", Syntax::Plain, text);
    col.note = Some("as `toyc asm` prints it: disassembled with Capstone, targets named".into());
    col
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clif_block_references_are_whole_words() {
        assert_eq!(
            clif_block_refs("    brif v3, block2(v4), block14"),
            vec!["block2", "block14"]
        );
        assert_eq!(
            clif_block_refs("    v1 = xblock3 + myblock"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn clif_text_gives_blocks_and_branch_edges() {
        let col = clif_column(
            "function u0:0(i64) -> i64 {\nblock0(v0: i64):\n    brif v0, block1, block2\n\nblock1:\n    jump block2\n\nblock2:\n    return v0\n}",
        );
        let g = col.cfg.expect("a graph");
        let keys: Vec<&str> = g.nodes.iter().map(|n| n.key.as_str()).collect();
        assert_eq!(keys, ["block0", "block1", "block2"]);
        assert_eq!(
            g.edges,
            vec![
                (0, 1, EdgeKind::True),
                (0, 2, EdgeKind::False),
                (1, 2, EdgeKind::Plain)
            ]
        );
        assert_eq!(col.rows[2].block.as_deref(), Some("block0"));
        assert_eq!(col.rows[0].block, None);
    }
}
