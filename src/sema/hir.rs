//! The typed, name-resolved program that sema produces and SSA construction
//! consumes.
//!
//! Invariants (sema guarantees them; later stages may rely on them):
//! - Every expression has its final [`Type`]; there is no inference left.
//!   `nil` and `[]` literals carry the struct / array type of their context.
//! - Every name is resolved: locals to [`LocalId`] (per function), globals
//!   to [`GlobalId`], functions to [`FuncId`], struct fields to a field index.
//!   Imported items are ordinary entries of these tables.
//! - `break`/`continue` name their loop by [`LoopId`]; every loop statement
//!   carries its own id. Loop ids are per function, numbered from 0 in the
//!   order loops start in the source.
//! - A function with a non-void return type never reaches its end.
//! - Both operands of `Binary` have the same type (for struct `==`, a `nil`
//!   operand is typed with the other side's struct type).
//! - Compound assignment keeps its operator (`op: Some(..)`); the place's
//!   sub-expressions must be evaluated once.
//! - Evaluation order is left to right, the order of the vectors here.

pub use crate::rtfns::Builtin;
use crate::span::Span;
pub use crate::syntax::ast::{BinOp, UnOp};
pub use crate::types::{FuncId, GlobalId, StructId, Type};
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

/// The whole program: the main file plus every imported module.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub structs: Vec<StructDef>,
    pub globals: Vec<GlobalDef>,
    pub functions: Vec<Function>,
    /// `main` of the main file.
    pub main: FuncId,
    /// A synthesised function `<init>` (no params, returns nothing) that
    /// assigns every global its initial value: modules in import order
    /// (dependencies first), each module's globals in source order.
    pub init: FuncId,
}

impl Program {
    pub fn func(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }
    pub fn strukt(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }
    pub fn global(&self, id: GlobalId) -> &GlobalDef {
        &self.globals[id.0 as usize]
    }
    /// The source bytes of every function's span: how much work a walk
    /// over all bodies is, for [`crate::par::Pool`]'s estimates.
    pub fn body_bytes(&self) -> usize {
        (self.functions.iter())
            .map(|f| f.span.end.saturating_sub(f.span.start) as usize)
            .sum()
    }
    /// How a type is written in Toy (`[int]`, `geom.Point`).
    pub fn type_name(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "()".into(),
            Type::Int => "int".into(),
            Type::Float => "float".into(),
            Type::Bool => "bool".into(),
            Type::Str => "str".into(),
            Type::Array(t) => format!("[{}]", self.type_name(t)),
            Type::Struct(s) => self.strukt(*s).name.clone(),
        }
    }

    /// Adds a struct with these fields (for programs read from IR text,
    /// which declare their tables instead of deriving them from source).
    pub fn declare_struct(&mut self, name: &str, fields: Vec<(String, Type)>) -> StructId {
        self.structs.push(StructDef {
            name: name.to_string(),
            fields: fields
                .into_iter()
                .map(|(name, ty)| FieldDef { name, ty })
                .collect(),
            span: Span::default(),
        });
        StructId(self.structs.len() as u32 - 1)
    }

    /// Adds a global (see [`Program::declare_struct`]).
    pub fn declare_global(&mut self, name: &str, ty: Type, mutable: bool) -> GlobalId {
        self.globals.push(GlobalDef {
            name: name.to_string(),
            ty,
            mutable,
            span: Span::default(),
        });
        GlobalId(self.globals.len() as u32 - 1)
    }

    /// Adds a function signature with an empty body: its parameters are
    /// its first locals, named `_1`, `_2`, ... (see [`Program::declare_struct`]).
    pub fn declare_function(&mut self, name: &str, params: Vec<Type>, ret: Type) -> FuncId {
        let locals: Vec<LocalDef> = params
            .into_iter()
            .enumerate()
            .map(|(i, ty)| LocalDef {
                name: format!("_{}", i + 1).into(),
                ty,
                mutable: false,
                span: Span::default(),
                assigned: false,
            })
            .collect();
        self.functions.push(Function {
            name: name.to_string(),
            params: (0..locals.len() as u32).map(LocalId).collect(),
            ret,
            locals,
            body: Block::default(),
            span: Span::default(),
        });
        FuncId(self.functions.len() as u32 - 1)
    }
}

#[derive(Clone, Debug)]
pub struct StructDef {
    /// Qualified for imported modules (`geom.Point`), bare in the main file.
    pub name: String,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug)]
pub struct GlobalDef {
    /// Qualified for imported modules (`math.PI`).
    pub name: String,
    pub ty: Type,
    pub mutable: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    /// Qualified for imported modules (`math.gcd`); `<init>` for the
    /// global initialiser.
    pub name: String,
    /// The first `params.len()` locals are the parameters, in order.
    pub params: Vec<LocalId>,
    pub ret: Type,
    pub locals: Vec<LocalDef>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct LocalDef {
    /// Shared, so that every IR statement named after it can refer to it.
    pub name: std::sync::Arc<str>,
    pub ty: Type,
    pub mutable: bool,
    pub span: Span,
    /// Written again after its definition: by an assignment of the
    /// program (`x = e`, `x += e`), or (a `for x in a` loop's hidden
    /// `<index>`) by its loop's step. When false the local has one
    /// definition (its declaration, a parameter's value at entry, what a
    /// `for` or `catch` binds), which dominates every read of it.
    pub assigned: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// Declares (or shadows) a local; every local is declared once.
    Let {
        local: LocalId,
        init: Expr,
    },
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then_block: Block,
        else_block: Block,
    },
    While {
        id: LoopId,
        cond: Expr,
        body: Block,
    },
    /// `end` is evaluated once, before the first iteration.
    ForRange {
        id: LoopId,
        var: LocalId,
        start: Expr,
        end: Expr,
        body: Block,
    },
    /// Elements by index; the length is re-read every step. `index` is a
    /// hidden int local holding the position.
    ForEach {
        id: LoopId,
        var: LocalId,
        index: LocalId,
        array: Expr,
        body: Block,
    },
    Break(LoopId),
    Continue(LoopId),
    Return(Option<Expr>),
    /// The operand is a `str`.
    Throw(Expr),
    /// `catch_var` is a `str` local bound in `handler`.
    Try {
        body: Block,
        catch_var: LocalId,
        handler: Block,
    },
    Block(Block),
}

/// Something assignable.
#[derive(Clone, Debug)]
pub enum Place {
    Local(LocalId),
    Global(GlobalId),
    Index {
        array: Expr,
        index: Expr,
    },
    Field {
        object: Expr,
        strukt: StructId,
        field: u32,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// Typed with the struct type of its context.
    Nil,
    Local(LocalId),
    Global(GlobalId),
    Unary(UnOp, Box<Expr>),
    /// Not `And`/`Or`: those are [`ExprKind::And`] / [`ExprKind::Or`].
    Binary(BinOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Call {
        func: FuncId,
        args: Vec<Expr>,
    },
    Builtin {
        builtin: Builtin,
        args: Vec<Expr>,
    },
    /// `a[i]` on an array (element type) or a `str` (the byte, as int).
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Field {
        object: Box<Expr>,
        strukt: StructId,
        field: u32,
    },
    ArrayLit(Vec<Expr>),
    ArrayRepeat {
        value: Box<Expr>,
        count: Box<Expr>,
    },
    /// Field values in source order, each with its field index.
    StructLit {
        strukt: StructId,
        fields: Vec<(u32, Expr)>,
    },
}

/// A walk over the HIR. Each hook's default visits the node's children in
/// evaluation order (the `walk_*` functions); a visitor overrides the hooks
/// it needs and calls the matching `walk_*` to go on into the children.
pub trait Visitor {
    fn block(&mut self, b: &Block) {
        walk_block(self, b);
    }
    fn stmt(&mut self, s: &Stmt) {
        walk_stmt(self, s);
    }
    /// The place of an assignment, visited before the assigned value.
    fn place(&mut self, p: &Place) {
        walk_place(self, p);
    }
    fn expr(&mut self, e: &Expr) {
        walk_expr(self, e);
    }
}

/// Visits every statement of `b`.
pub fn walk_block<V: Visitor + ?Sized>(v: &mut V, b: &Block) {
    for s in &b.stmts {
        v.stmt(s);
    }
}

/// Visits the expressions, place and blocks of `s`, in evaluation order.
pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, s: &Stmt) {
    match &s.kind {
        StmtKind::Let { init, .. } => v.expr(init),
        StmtKind::Assign { place, value, .. } => {
            v.place(place);
            v.expr(value);
        }
        StmtKind::Expr(e) | StmtKind::Throw(e) | StmtKind::Return(Some(e)) => v.expr(e),
        StmtKind::If {
            cond,
            then_block,
            else_block,
        } => {
            v.expr(cond);
            v.block(then_block);
            v.block(else_block);
        }
        StmtKind::While { cond, body, .. } => {
            v.expr(cond);
            v.block(body);
        }
        StmtKind::ForRange {
            start, end, body, ..
        } => {
            v.expr(start);
            v.expr(end);
            v.block(body);
        }
        StmtKind::ForEach { array, body, .. } => {
            v.expr(array);
            v.block(body);
        }
        StmtKind::Try { body, handler, .. } => {
            v.block(body);
            v.block(handler);
        }
        StmtKind::Block(b) => v.block(b),
        StmtKind::Break(_) | StmtKind::Continue(_) | StmtKind::Return(None) => {}
    }
}

/// Visits the expressions of a place (array and index, or object).
pub fn walk_place<V: Visitor + ?Sized>(v: &mut V, p: &Place) {
    match p {
        Place::Local(_) | Place::Global(_) => {}
        Place::Index { array, index } => {
            v.expr(array);
            v.expr(index);
        }
        Place::Field { object, .. } => v.expr(object),
    }
}

/// Visits the operands of `e`, left to right.
pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, e: &Expr) {
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::Local(_)
        | ExprKind::Global(_) => {}
        ExprKind::Unary(_, x) | ExprKind::Field { object: x, .. } => v.expr(x),
        ExprKind::Binary(_, l, r)
        | ExprKind::And(l, r)
        | ExprKind::Or(l, r)
        | ExprKind::Index { base: l, index: r }
        | ExprKind::ArrayRepeat { value: l, count: r } => {
            v.expr(l);
            v.expr(r);
        }
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } | ExprKind::ArrayLit(args) => {
            args.iter().for_each(|a| v.expr(a))
        }
        ExprKind::StructLit { fields, .. } => fields.iter().for_each(|(_, x)| v.expr(x)),
    }
}
