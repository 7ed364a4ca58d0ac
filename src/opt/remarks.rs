//! Optimisation remarks (LLVM's `-pass-remarks`): one [`Remark`] per
//! decision a pass made, or declined to make, with its source position.
//!
//! Passes record remarks through their [`PassCtx`](super::PassCtx)
//! ([`PassCtx::remark`](super::PassCtx::remark)); nothing is recorded (and
//! no message is built) unless the pipeline was asked to collect them. A
//! remark is structured data: the pipeline row that made it, the function,
//! passed or missed, the position, and a message whose positions stay
//! [`Span`]s until a front end with the source map renders them
//! ([`Remark::render`]), so the driver, the explorer or a JSON writer can
//! each present it their own way.
//!
//! Names in messages are source-level where the IR knows them
//! ([`Describe`]): a value's variable (`i`), a parameter (`a`), a load's
//! place (`a.len`, `a[i]`, `p.x`, `total` for a global), a small
//! arithmetic expression of those (`i + 1`); otherwise the IR's `%n`.

use crate::ir::{BinaryOp, Cmp, Inst, IrCode, Loc, Operand, Value};
use crate::span::Span;
use crate::types::{GlobalId, StructId};
use cranelift_entity::EntityRef;

/// Whether a remark reports a transformation done or one declined.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RemarkKind {
    Passed,
    Missed,
}

/// A piece of a remark's message: text, or a source position (rendered as
/// `line:col` by [`Remark::render`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    At(Span),
}

/// A remark's message, built piece by piece:
/// `Msg::new("hoisted load ").t(name).t(" at ").at(span)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Msg(pub Vec<Piece>);

impl Msg {
    pub fn new(text: impl Into<String>) -> Msg {
        Msg(vec![Piece::Text(text.into())])
    }
    /// Appends text.
    pub fn t(mut self, text: impl Into<String>) -> Msg {
        self.0.push(Piece::Text(text.into()));
        self
    }
    /// Appends a position.
    pub fn at(mut self, span: Span) -> Msg {
        self.0.push(Piece::At(span));
        self
    }
}

/// One decision of one pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// The pipeline row that made it (`licm`, `gvn_load.late`), or
    /// `OUTER.STEP` for a step run inside a pass (`inline.sccp`).
    pub pass: String,
    /// The function it is about (the caller, for `inline`).
    pub func: String,
    pub kind: RemarkKind,
    /// The position of the statement it is about.
    pub span: Span,
    pub message: Msg,
}

impl Remark {
    /// `pass: in FUNC: message`, each position written by `pos`.
    pub fn render(&self, pos: &dyn Fn(Span) -> String) -> String {
        format!(
            "{}: in {}: {}",
            self.pass,
            self.func,
            self.message_text(pos)
        )
    }

    /// The message alone, each position written by `pos`.
    pub fn message_text(&self, pos: &dyn Fn(Span) -> String) -> String {
        let mut out = String::new();
        for p in &self.message.0 {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::At(s) => out.push_str(&pos(*s)),
            }
        }
        out
    }

    /// Whether `--remarks=sel` shows it: `sel` names its row (`gvn_load.late`)
    /// or the pass of the row (`gvn_load` selects `gvn_load.late` too).
    pub fn selected_by(&self, sel: &str) -> bool {
        self.pass == sel || self.pass.split('.').next() == Some(sel)
    }
}

/// The module's source names that remarks need beyond a function's own
/// (struct fields, globals, functions), taken from the program tables when
/// the pipeline starts collecting remarks.
#[derive(Clone, Debug, Default)]
pub struct NameTables {
    /// Per struct, its field names.
    pub fields: Vec<Vec<String>>,
    pub globals: Vec<String>,
    pub functions: Vec<String>,
}

impl NameTables {
    fn field(&self, s: StructId, f: u32) -> String {
        self.fields
            .get(s.index())
            .and_then(|fs| fs.get(f as usize))
            .cloned()
            .unwrap_or_else(|| format!("field{f}"))
    }
    fn global(&self, g: GlobalId) -> String {
        self.globals
            .get(g.index())
            .cloned()
            .unwrap_or_else(|| format!("@g{}", g.0))
    }
}

/// Source-level descriptions of operands and memory places of one
/// function.
pub struct Describe<'a> {
    pub ir: &'a IrCode,
    pub names: &'a NameTables,
}

/// The remark of scalar promotion on the place that `store`, its first
/// store in the loop, writes: kept in a register across the loop (`done`)
/// or not.
pub fn promotion(
    ir: &IrCode,
    names: &NameTables,
    store: Value,
    done: bool,
) -> (RemarkKind, Span, Msg) {
    let place = Describe { ir, names }.place_of(store);
    let span = ir.stmts.span.get(store).copied().unwrap_or(ir.span);
    if done {
        let msg = Msg::new(format!("kept {place} in a register across the loop at ")).at(span);
        (RemarkKind::Passed, span, msg)
    } else {
        // Why is spread over many checks (aliasing accesses, a base that
        // may be nil or out of bounds, the loop's shape): not said.
        let msg = Msg::new(format!(
            "could not keep {place} in a register across the loop at "
        ))
        .at(span);
        (RemarkKind::Missed, span, msg)
    }
}

/// How deep [`Describe::operand`] looks through loads and arithmetic.
const DEPTH: u32 = 3;

impl Describe<'_> {
    /// `i`, `a`, `3`, `a[i]`, `i + 1`, or `%7` when nothing better is known.
    pub fn operand(&self, op: &Operand) -> String {
        self.operand_at(op, DEPTH)
    }

    /// The place a load or store of statement `v` accesses (`a[i]`,
    /// `a.len`, `p.x`, `total`; `*p` for Bril's `load`/`store` calls).
    pub fn place_of(&self, v: Value) -> String {
        match self.ir.stmts.get(v) {
            Some(
                Inst::Load { loc, base, index }
                | Inst::Store {
                    loc, base, index, ..
                },
            ) => self.place(loc, base.as_ref(), index.as_ref(), DEPTH),
            Some(Inst::Runtime { func, args })
                if matches!(
                    func.row().effect,
                    crate::rtfns::Effect::ReadsBrilSlot | crate::rtfns::Effect::WritesBrilSlot
                ) && !args.is_empty() =>
            {
                format!("*{}", self.operand(&args[0]))
            }
            _ => v.to_string(),
        }
    }

    /// A memory-writing statement as the source says it: `store a[i]`,
    /// `call f`, `runtime push`, `allocation`.
    pub fn access_stmt(&self, v: Value) -> String {
        match self.ir.stmts.get(v) {
            Some(Inst::Store { .. }) => format!("store {}", self.place_of(v)),
            Some(Inst::Call { func, .. }) => format!(
                "call {}",
                self.names
                    .functions
                    .get(func.index())
                    .map_or("?", |s| s.as_str())
            ),
            Some(Inst::Runtime { func, .. }) => format!("runtime {}", func.row().ir_name),
            Some(Inst::NewArray { .. } | Inst::NewStruct { .. }) => "allocation".into(),
            _ => v.to_string(),
        }
    }

    /// A description of `loc` with these operands.
    pub fn place(
        &self,
        loc: &Loc,
        base: Option<&Operand>,
        index: Option<&Operand>,
        depth: u32,
    ) -> String {
        let sub = |o: Option<&Operand>| o.map_or_else(String::new, |o| self.operand_at(o, depth));
        match loc {
            Loc::ArrayLen => format!("{}.len", sub(base)),
            Loc::ArrayElem(_) => format!("{}[{}]", sub(base), sub(index)),
            Loc::Field { strukt, field } => {
                format!("{}.{}", sub(base), self.names.field(*strukt, *field))
            }
            Loc::Global(g) => self.names.global(*g),
        }
    }

    fn operand_at(&self, op: &Operand, depth: u32) -> String {
        if let Some(n) = self.ir.source_name(op) {
            return n.to_string();
        }
        match op {
            Operand::Value(v) => self.value(*v, depth),
            Operand::Arg(a) => format!("_{}", a + 1),
            Operand::Int(i) => i.to_string(),
            Operand::Float(x) => format!("{x:?}"),
            Operand::Bool(b) => b.to_string(),
            Operand::Nil => "nil".into(),
        }
    }

    fn value(&self, v: Value, depth: u32) -> String {
        let Some(depth) = depth.checked_sub(1) else {
            return v.to_string();
        };
        match self.ir.stmts.get(v) {
            Some(Inst::Load { loc, base, index }) => {
                self.place(loc, base.as_ref(), index.as_ref(), depth)
            }
            Some(Inst::Pi { value, .. } | Inst::Copy(value)) => self.operand_at(value, depth),
            Some(Inst::Binary(BinaryOp::ICmp(Cmp::Ult), a, b)) => format!(
                "0 <= {} < {}",
                self.operand_at(a, depth),
                self.operand_at(b, depth)
            ),
            Some(Inst::Binary(op, a, b)) if infix(*op).is_some() => format!(
                "{} {} {}",
                self.operand_at(a, depth),
                infix(*op).unwrap_or("?"),
                self.operand_at(b, depth)
            ),
            _ => v.to_string(),
        }
    }
}

/// The source operator of an arithmetic op, for descriptions.
fn infix(op: BinaryOp) -> Option<&'static str> {
    Some(match op {
        BinaryOp::IAdd | BinaryOp::FAdd => "+",
        BinaryOp::ISub | BinaryOp::FSub => "-",
        BinaryOp::IMul | BinaryOp::FMul => "*",
        BinaryOp::IDiv | BinaryOp::FDiv => "/",
        BinaryOp::IRem | BinaryOp::FRem => "%",
        BinaryOp::ICmp(c) | BinaryOp::FCmp(c) => match c {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Ult => return None,
        },
        _ => return None,
    })
}
