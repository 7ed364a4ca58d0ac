//! The untyped syntax tree produced by the parser.
//!
//! Invariants:
//! - Every node carries the byte [`Span`] of its source text.
//! - Names are not resolved here: `math.gcd` is `Field(Name(math), gcd)` and
//!   `int(x)` is a `Call` of the name `int`; sema decides what they mean.
//! - After a syntax error the parser still returns a tree; the broken parts
//!   are `ExprKind::Error` / `StmtKind::Error` nodes, which sema skips
//!   silently (the syntax error was already reported).

use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// One parsed file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Import(Import),
    Struct(StructDef),
    Fn(FnDef),
    Global(GlobalDef),
}

/// `import name;`
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    pub name: Ident,
    pub span: Span,
}

/// `struct Name { field: T, ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    pub name: Ident,
    pub fields: Vec<FieldDef>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FieldDef {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// `fn name(p: T, ...) -> R { ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<TypeExpr>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeExpr,
}

/// `let NAME[: T] = expr;` or `var NAME[: T] = expr;` at top level.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalDef {
    pub mutable: bool,
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub init: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub kind: TypeExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    /// `int`, `float`, `bool`, `str` or a struct name.
    Named(Ident),
    /// `module.Name`: the module, then the name (boxed: a rare variant
    /// that would double every type expression's size).
    Qualified(Box<(Ident, Ident)>),
    /// `[T]`
    Array(Box<TypeExpr>),
    /// A type that failed to parse.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// `'name` on a loop.
pub type Label = Ident;

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let x[: T] = e;` (`mutable: false`) or `var x[: T] = e;`
    Let {
        mutable: bool,
        name: Ident,
        ty: Option<TypeExpr>,
        init: Expr,
    },
    /// `place = e;` or, with `op`, `place op= e;`
    Assign {
        target: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    /// `e;`
    Expr(Expr),
    /// `if c { } else if c { } else { }`; an `else if` is an `else` block
    /// holding exactly one `If` statement.
    If {
        cond: Expr,
        then_block: Block,
        else_block: Option<Block>,
    },
    While {
        label: Option<Label>,
        cond: Expr,
        body: Block,
    },
    /// `for var in start..end { }`
    /// Boxed: the largest statement, inline it would make every
    /// statement a third larger.
    ForRange(Box<ForRange>),
    /// `for var in array { }`
    ForEach {
        label: Option<Label>,
        var: Ident,
        iter: Expr,
        body: Block,
    },
    Break {
        label: Option<Label>,
    },
    Continue {
        label: Option<Label>,
    },
    Return(Option<Expr>),
    Throw(Expr),
    /// `try { } catch e { }`
    Try {
        body: Block,
        var: Ident,
        handler: Block,
    },
    /// A nested `{ }` scope.
    Block(Block),
    /// A statement that failed to parse.
    Error,
}

/// `for var in start..end { body }`, with an optional label.
#[derive(Clone, Debug, PartialEq)]
pub struct ForRange {
    pub label: Option<Label>,
    pub var: Ident,
    pub start: Expr,
    pub end: Expr,
    pub body: Block,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal already checked to fit in i64 (a literal of
    /// 9223372036854775808 directly under unary minus is folded to i64::MIN).
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A string literal with escapes already decoded.
    Str(String),
    Nil,
    Name(Ident),
    /// `e.name`: a struct field, or `module.item` when `e` names an import.
    Field(Box<Expr>, Ident),
    Call(Box<Expr>, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `[a, b, c]` (possibly empty)
    ArrayLit(Vec<Expr>),
    /// `[value; count]`
    ArrayRepeat(Box<Expr>, Box<Expr>),
    /// `Name { f: e, ... }` or `module.Name { ... }`; fields in source order.
    /// Boxed: inline, its three fields would make every expression node
    /// twice as large.
    StructLit(Box<StructLit>),
    /// An expression that failed to parse.
    Error,
}

/// `Name { field: value, .. }` or `module.Name { .. }`.
#[derive(Clone, Debug, PartialEq)]
pub struct StructLit {
    pub module: Option<Ident>,
    pub name: Ident,
    pub fields: Vec<(Ident, Expr)>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `!e`
    Not,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&` (short-circuit)
    And,
    /// `||` (short-circuit)
    Or,
}

impl BinOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;

    /// A large file's tree is made of these nodes by the million (a
    /// 100k-line program: about 1 MB of tree per 1,500 lines), and every
    /// parser combinator moves them by value: a rare variant that grows
    /// one of them is boxed (`StructLit`, `ForRange`, `Qualified`).
    #[test]
    fn nodes_keep_their_sizes() {
        assert_eq!(size_of::<Expr>(), 64);
        assert_eq!(size_of::<Stmt>(), 200);
        assert_eq!(size_of::<TypeExpr>(), 56);
        assert_eq!(size_of::<Ident>(), 40);
    }
}
