//! `toyc explore`: one self-contained HTML page (inline CSS, script and
//! SVG; no server, no external assets) that shows each function through
//! the pipeline side by side, in the spirit of Go's GOSSAFUNC `ssa.html`:
//! the source, the IR after construction, the IR after each pass that
//! changed the function (the passes in between that did not are listed in
//! the next column's header), the MemorySSA of the final IR, the CLIF and
//! the machine code. Every column has a CFG drawing ([`svg`]); every pass
//! column has a place for the pass's remarks and shows what it counted.
//!
//! The page is data first: [`collect`] builds a [`Page`] of [`Column`]s of
//! plain text [`Row`]s (each with the source line and block it belongs to,
//! when known), and [`html`] renders any page. A new kind of output (real
//! assembly, optimisation remarks) is one more column, or the `remarks` of
//! a pass column, filled from its source; nothing in the renderer or the
//! page's script is specific to one column.
//!
//! Invariant: values and blocks are matched across columns by their printed
//! name (`%12`, `#3`; `v12`, `block3` in CLIF). Passes renumber values when
//! they compact a function, so `%12` in two columns is the same value only
//! while no pass in between renumbered it.

pub mod collect;
pub mod html;
pub mod svg;

/// Everything the page shows.
#[derive(Clone, Debug)]
pub struct Page {
    /// The main source file's name, and its text line by line.
    pub source_name: String,
    pub source: Vec<String>,
    /// The selected functions, in module order.
    pub functions: Vec<FunctionView>,
    /// What was run, for the page header (`-O2: sccp, dce, ...`).
    pub pipeline: String,
}

/// One function's columns, left to right (after the source).
#[derive(Clone, Debug)]
pub struct FunctionView {
    pub name: String,
    pub columns: Vec<Column>,
}

/// How a column's text names values and blocks (for the tokens the page
/// makes clickable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// toyc IR: values `%12`, parameters `_1`, blocks `#3`.
    Ir,
    /// Cranelift IR: values `v12`, blocks `block3`.
    Clif,
    /// Nothing clickable.
    Plain,
}

/// What a pass counted in a function, `(counter, n)` in name order.
pub type Counts = Vec<(String, u64)>;

/// One column of a function.
#[derive(Clone, Debug)]
pub struct Column {
    /// A short stable id (`start`, `pass-licm`, `memssa`, `clif`,
    /// `machine`), unique within the function.
    pub id: String,
    pub title: String,
    /// The pass (row of the pass table) whose result the column shows.
    pub pass: Option<String>,
    pub syntax: Syntax,
    /// One sentence under the title: what the column is, or lacks.
    pub note: Option<String>,
    /// Passes that ran since the previous column without changing the
    /// function's text, each with what it counted in the function.
    pub unchanged: Vec<(String, Counts)>,
    pub rows: Vec<Row>,
    /// The CFG drawing, when the column's text has blocks.
    pub cfg: Option<svg::Graph>,
    /// For a pass column: what the pass counted in this function
    /// (`licm.hoisted: 2`).
    pub counters: Counts,
    /// For a pass column: the pass's remarks on this function, one row
    /// each; `None` when nothing feeds remarks into the page.
    pub remarks: Option<Vec<Row>>,
}

impl Column {
    /// A column of `text`, one row per line, no source lines or blocks.
    pub fn from_text(id: &str, title: &str, syntax: Syntax, text: &str) -> Column {
        Column {
            id: id.to_string(),
            title: title.to_string(),
            pass: None,
            syntax,
            note: None,
            unchanged: Vec::new(),
            rows: text.lines().map(Row::text).collect(),
            cfg: None,
            counters: Vec::new(),
            remarks: None,
        }
    }
}

/// One line of a column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub text: String,
    /// The line of the main source file it came from (1-based).
    pub line: Option<u32>,
    /// The name of the block it is in, as the column's text writes it
    /// (`#3`, `block2`).
    pub block: Option<String>,
}

impl Row {
    pub fn text(text: &str) -> Row {
        Row {
            text: text.to_string(),
            line: None,
            block: None,
        }
    }
}
