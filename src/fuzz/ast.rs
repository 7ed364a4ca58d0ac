//! The fuzzer's own program representation: a small typed AST of Toy,
//! independent of `crate::syntax` (it shares no code with the compiler).
//!
//! Invariants (kept by the generator and the shrinker, checked by
//! [`crate::fuzz::shrink::well_formed`]):
//! - every name is unique within its function (no shadowing), so a variable
//!   is identified by its name alone; globals, parameters and locals never
//!   share a name;
//! - every expression is well typed for its context (the generator builds
//!   expressions for a wanted [`Ty`]);
//! - `pos` fields are filled by the printer (`print::print_program`): the
//!   1-based line and column where the node's text starts, including any
//!   parentheses the printer put around it, and whether that is in the
//!   module file. They are what toyc reports for a runtime error thrown by
//!   that node;
//! - a program split into two files ([`Program::module_from`]) has every
//!   struct, every global and the functions from `module_from` on in the
//!   module [`MODULE`]; those functions only call each other (a function
//!   only calls functions after it), so the module never names the main
//!   file's items.

/// The name of the user module a split program imports (file `fzm.toy`).
pub const MODULE: &str = "fzm";

/// A Toy type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Int,
    Float,
    Bool,
    Str,
    Arr(Box<Ty>),
    /// Index into [`Program::structs`].
    Struct(usize),
}

/// A source position, 1-based line and column (in characters), in the main
/// file or in the module file [`MODULE`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub in_module: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&&` (short-circuit).
    LAnd,
    /// `||` (short-circuit).
    LOr,
}

impl BinOp {
    pub fn text(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            And => "&",
            Or => "|",
            Xor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            LAnd => "&&",
            LOr => "||",
        }
    }
}

pub use super::stdlib::LibFn;

/// The builtins the generator uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Len,
    Pop,
    /// `float(i)`
    ToFloat,
    /// `int(f)`
    ToInt,
    /// `str(x)`
    ToStr,
    Sqrt,
    Floor,
    Ceil,
    Fabs,
    ParseInt,
    ParseFloat,
    Chr,
    Substr,
    Fixed,
    Sin,
    Cos,
    Tan,
    Atan,
    Atan2,
    Exp,
    Ln,
    Pow,
    /// `args()`: always `[]` (the fuzzer passes no arguments).
    Args,
    ReadLine,
    AtEof,
    ReadAll,
    ReadFile,
    /// `write_file(path, s)`: only as a statement (it returns nothing).
    WriteFile,
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Len => "len",
            Builtin::Pop => "pop",
            Builtin::ToFloat => "float",
            Builtin::ToInt => "int",
            Builtin::ToStr => "str",
            Builtin::Sqrt => "sqrt",
            Builtin::Floor => "floor",
            Builtin::Ceil => "ceil",
            Builtin::Fabs => "fabs",
            Builtin::ParseInt => "parse_int",
            Builtin::ParseFloat => "parse_float",
            Builtin::Chr => "chr",
            Builtin::Substr => "substr",
            Builtin::Fixed => "fixed",
            Builtin::Sin => "sin",
            Builtin::Cos => "cos",
            Builtin::Tan => "tan",
            Builtin::Atan => "atan",
            Builtin::Atan2 => "atan2",
            Builtin::Exp => "exp",
            Builtin::Ln => "ln",
            Builtin::Pow => "pow",
            Builtin::Args => "args",
            Builtin::ReadLine => "read_line",
            Builtin::AtEof => "at_eof",
            Builtin::ReadAll => "read_all",
            Builtin::ReadFile => "read_file",
            Builtin::WriteFile => "write_file",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// `nil` of the given struct.
    Nil(usize),
    Var(String),
    /// Unary minus (int or float).
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A call of `Program::funcs[i]`.
    Call(usize, Vec<Expr>),
    Builtin(Builtin, Vec<Expr>),
    /// A function or constant of a standard library module
    /// (`math.gcd(a, b)`, `math.PI`); the printer adds the `import`.
    Lib(LibFn, Vec<Expr>),
    /// `a[i]` on an array or a str.
    Index(Box<Expr>, Box<Expr>),
    /// `p.f`: the struct and the field index.
    Field(Box<Expr>, usize, usize),
    /// `[a, b, c]` with the element type (for `[]`).
    ArrayLit(Ty, Vec<Expr>),
    /// `[e; n]`
    ArrayRep(Box<Expr>, Box<Expr>),
    /// `S { f: e, ... }` with fields in the written order (field indices).
    StructLit(usize, Vec<(usize, Expr)>),
}

impl Expr {
    pub fn new(kind: ExprKind) -> Expr {
        Expr {
            kind,
            pos: Pos::default(),
        }
    }
}

/// An assignment target.
#[derive(Clone, Debug)]
pub enum Place {
    Var(String),
    Index(Expr, Expr),
    Field(Expr, usize, usize),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    /// Where the statement starts (filled by the printer).
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `let`/`var NAME[: T] = e;` — `annotate` writes the type.
    Let {
        name: String,
        mutable: bool,
        ty: Ty,
        annotate: bool,
        init: Expr,
    },
    /// `place = e;` or `place op= e;`
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    Print {
        newline: bool,
        args: Vec<Expr>,
    },
    Push(Expr, Expr),
    /// An expression statement: a call (user or `pop`).
    Expr(Expr),
    Assert(Expr, Option<String>),
    /// `exit(code);`
    Exit(Expr),
    If(Expr, Vec<Stmt>, Option<Vec<Stmt>>),
    While {
        label: Option<String>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    ForRange {
        label: Option<String>,
        var: String,
        lo: Expr,
        hi: Expr,
        body: Vec<Stmt>,
    },
    ForEach {
        label: Option<String>,
        var: String,
        elem: Ty,
        arr: Expr,
        body: Vec<Stmt>,
    },
    Break(Option<String>),
    Continue(Option<String>),
    Return(Option<Expr>),
    Throw(Expr),
    Try {
        body: Vec<Stmt>,
        var: String,
        handler: Vec<Stmt>,
    },
    Block(Vec<Stmt>),
}

impl Stmt {
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            pos: Pos::default(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<(String, Ty)>,
}

#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub mutable: bool,
    pub ty: Ty,
    pub init: Expr,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub params: Vec<(String, Ty)>,
    pub ret: Option<Ty>,
    pub body: Vec<Stmt>,
}

/// A whole program; `funcs[0]` is `main` (no parameters, returns nothing
/// or `int`).
#[derive(Clone, Debug)]
pub struct Program {
    pub structs: Vec<StructDef>,
    pub globals: Vec<Global>,
    pub funcs: Vec<Func>,
    /// The program's standard input (ASCII; empty for most programs).
    pub stdin: String,
    /// `Some(k)`: the program is split into the main file and the module
    /// [`MODULE`], which holds the structs, the globals and `funcs[k..]`
    /// (`k >= 1`; it may hold no function).
    pub module_from: Option<usize>,
}
