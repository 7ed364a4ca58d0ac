//! Tokens produced by the lexer and consumed by the parser.

use std::fmt;

/// One token. Identifier and label texts borrow from the source; string
/// literals carry their decoded contents.
///
/// Invariant: `Int` holds a value `<= 2^63` (larger literals are reported
/// by the lexer and replaced by `Int(0)`); `2^63` itself is only valid
/// directly under unary minus, which the delimiter pass folds into
/// [`Token::MinInt`].
#[derive(Clone, Debug, PartialEq)]
pub enum Token<'a> {
    Ident(&'a str),
    /// `'name` (the text without the quote).
    Label(&'a str),
    Int(u64),
    /// `-9223372036854775808`: unary minus directly applied to `2^63`.
    MinInt,
    Float(f64),
    Str(String),
    // Keywords.
    Fn,
    Let,
    Var,
    If,
    Else,
    While,
    For,
    In,
    Break,
    Continue,
    Return,
    Struct,
    Import,
    True,
    False,
    Nil,
    Throw,
    Try,
    Catch,
    // Delimiters.
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    // Punctuation.
    Comma,
    Semi,
    Colon,
    Dot,
    DotDot,
    Arrow,
    // Operators.
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Shl,
    Shr,
    Bang,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    AndAnd,
    OrOr,
    Assign,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
}

impl<'a> Token<'a> {
    /// The keyword token for `word`, if it is one.
    pub fn keyword(word: &str) -> Option<Token<'static>> {
        use Token::*;
        Some(match word {
            "fn" => Fn,
            "let" => Let,
            "var" => Var,
            "if" => If,
            "else" => Else,
            "while" => While,
            "for" => For,
            "in" => In,
            "break" => Break,
            "continue" => Continue,
            "return" => Return,
            "struct" => Struct,
            "import" => Import,
            "true" => True,
            "false" => False,
            "nil" => Nil,
            "throw" => Throw,
            "try" => Try,
            "catch" => Catch,
            _ => return None,
        })
    }

    /// The fixed source text of keywords and punctuation; `None` for tokens
    /// with a payload.
    pub fn fixed_text(&self) -> Option<&'static str> {
        use Token::*;
        Some(match self {
            Ident(_) | Label(_) | Int(_) | MinInt | Float(_) | Str(_) => return None,
            Fn => "fn",
            Let => "let",
            Var => "var",
            If => "if",
            Else => "else",
            While => "while",
            For => "for",
            In => "in",
            Break => "break",
            Continue => "continue",
            Return => "return",
            Struct => "struct",
            Import => "import",
            True => "true",
            False => "false",
            Nil => "nil",
            Throw => "throw",
            Try => "try",
            Catch => "catch",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            Comma => ",",
            Semi => ";",
            Colon => ":",
            Dot => ".",
            DotDot => "..",
            Arrow => "->",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Amp => "&",
            Pipe => "|",
            Caret => "^",
            Shl => "<<",
            Shr => ">>",
            Bang => "!",
            EqEq => "==",
            NotEq => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            AndAnd => "&&",
            OrOr => "||",
            Assign => "=",
            PlusEq => "+=",
            MinusEq => "-=",
            StarEq => "*=",
            SlashEq => "/=",
            PercentEq => "%=",
            AmpEq => "&=",
            PipeEq => "|=",
            CaretEq => "^=",
            ShlEq => "<<=",
            ShrEq => ">>=",
        })
    }

    /// How an expected token of this kind is named in messages.
    pub fn describe_expected(&self) -> String {
        match self {
            Token::Ident(_) => "identifier".into(),
            Token::Label(_) => "label".into(),
            Token::Int(_) | Token::MinInt => "integer literal".into(),
            Token::Float(_) => "float literal".into(),
            Token::Str(_) => "string literal".into(),
            t => format!("`{}`", t.fixed_text().unwrap_or("?")),
        }
    }

    pub fn is_opener(&self) -> bool {
        matches!(self, Token::LParen | Token::LBrace | Token::LBracket)
    }

    pub fn is_closer(&self) -> bool {
        matches!(self, Token::RParen | Token::RBrace | Token::RBracket)
    }

    /// Keywords that can only begin a statement or an item: recovery stops
    /// skipping before them.
    pub fn starts_statement(&self) -> bool {
        use Token::*;
        matches!(
            self,
            Let | Var
                | If
                | While
                | For
                | Break
                | Continue
                | Return
                | Throw
                | Try
                | Label(_)
                | Fn
                | Struct
                | Import
        )
    }

    /// Keywords that can only begin a statement or an item (labels, which
    /// also appear after `break`, excluded).
    pub fn starts_statement_keyword(&self) -> bool {
        !matches!(self, Token::Label(_)) && self.starts_statement()
    }

    /// Keywords that can only begin a top-level item.
    pub fn starts_item(&self) -> bool {
        matches!(
            self,
            Token::Fn | Token::Struct | Token::Import | Token::Let | Token::Var
        )
    }
}

impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "{s}"),
            Token::Label(s) => write!(f, "'{s}"),
            Token::Int(v) => write!(f, "{v}"),
            Token::MinInt => write!(f, "-9223372036854775808"),
            Token::Float(v) => write!(f, "{v:?}"),
            Token::Str(s) => write!(f, "{s:?}"),
            t => write!(f, "{}", t.fixed_text().unwrap_or("?")),
        }
    }
}
