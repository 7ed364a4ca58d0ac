//! The lexer: source text → tokens with byte spans, plus lexical errors.
//!
//! A hand-written scanner ([`Scanner`]) over the text's bytes: each token
//! kind is chosen by its first character, and numbers, strings, trivia
//! (whitespace and comments) and punctuation scan the remaining text
//! directly, so lexing is linear in the input and never recurses (nested
//! block comments are tracked with a counter). The parser (chumsky) runs
//! on its tokens.
//!
//! The lexer never fails: a character outside the language is reported and
//! skipped, a malformed literal is reported and still yields a token, so
//! the parser sees a plausible token stream and does not cascade.

use super::token::Token;
use chumsky::span::SimpleSpan;

/// A lexical error: span and message.
#[derive(Clone, Debug, PartialEq)]
pub struct LexError {
    pub span: SimpleSpan,
    pub message: String,
    pub label: String,
}

/// 2^63, the magnitude of i64::MIN.
pub const I64_MIN_MAGNITUDE: u64 = 1 << 63;

/// Splits `text` into tokens. Always returns every token it could form and
/// every lexical error (adjacent unexpected characters are reported once).
pub fn lex(text: &str) -> (Vec<(Token<'_>, SimpleSpan)>, Vec<LexError>) {
    let mut sc = Scanner {
        text,
        pos: 0,
        // About one token per four bytes of source.
        tokens: Vec::with_capacity(text.len() / 4 + 1),
        errors: Vec::new(),
    };
    sc.run();
    let mut errors: Vec<LexError> = Vec::new();
    for (span, message) in sc.errors {
        // A run of adjacent unexpected characters is one error.
        if let Some(prev) = errors.last_mut()
            && prev.message.starts_with("unexpected character")
            && message.starts_with("unexpected character")
            && prev.span.end == span.start
        {
            prev.span = SimpleSpan::from(prev.span.start..span.end);
            continue;
        }
        let label = label_for(&message, text.get(span.start..span.end).unwrap_or(""));
        errors.push(LexError {
            span,
            message,
            label,
        });
    }
    (sc.tokens, errors)
}

/// Texts shorter than this are lexed whole.
pub(crate) const MIN_PIECE_BYTES: usize = 128 * 1024;

/// How many pieces a large text is cut into (more than threads, so that
/// uneven pieces still keep every thread busy).
const PIECES: usize = 8;

/// [`lex`], on `pool`'s threads when the text is large: the text is cut
/// at the starts of lines that begin with `fn ` or `struct ` ([`line_cuts`])
/// and the pieces are lexed separately. Where a cut is a token boundary of
/// the whole text's lexing, which it is unless it falls inside a block
/// comment or a string, the pieces' tokens (spans moved by the piece's
/// start) are exactly the whole text's. A cut inside a comment or a string
/// leaves the piece before it with an unterminated comment or string, so
/// when any piece has an error the text is lexed whole instead: errors
/// never depend on the pieces.
pub fn lex_on<'a>(
    text: &'a str,
    pool: &crate::par::Pool,
) -> (Vec<(Token<'a>, SimpleSpan)>, Vec<LexError>) {
    match lex_pieces(text, pool) {
        Some(pieces) => (pieces.concat(), Vec::new()),
        None => lex(text),
    }
}

/// The tokens of a large text lexed in pieces on `pool`'s threads, piece by
/// piece (spans are the whole text's), as [`lex_on`] joins them: `None`
/// for a text lexed whole (small, too few cuts, or a lexical error in
/// some piece).
pub(crate) fn lex_pieces<'a>(
    text: &'a str,
    pool: &crate::par::Pool,
) -> Option<Vec<Vec<(Token<'a>, SimpleSpan)>>> {
    let cuts = piece_cuts(text)?;
    let work = text.len() / crate::par::SOURCE_BYTES_PER_STATEMENT;
    let lexed = pool.map(cuts.len() - 1, work, |k| {
        lex_piece(text, cuts[k]..cuts[k + 1])
    });
    lexed.into_iter().collect()
}

/// Where a large text is cut into pieces ([`line_cuts`], [`PIECES`] of
/// them): `None` for a text lexed whole (small, or too few cuts).
pub(crate) fn piece_cuts(text: &str) -> Option<Vec<usize>> {
    if text.len() < MIN_PIECE_BYTES {
        return None;
    }
    let cuts = line_cuts(text, PIECES);
    (cuts.len() >= 3).then_some(cuts)
}

/// The tokens of `text[piece]`, their spans in `text`; `None` when the
/// piece has a lexical error.
pub(crate) fn lex_piece(
    text: &str,
    piece: std::ops::Range<usize>,
) -> Option<Vec<(Token<'_>, SimpleSpan)>> {
    let start = piece.start;
    let (mut tokens, errors) = lex(&text[piece]);
    if !errors.is_empty() {
        return None;
    }
    for (_, s) in &mut tokens {
        *s = SimpleSpan::from(s.start + start..s.end + start);
    }
    Some(tokens)
}

/// `0`, then up to `pieces - 1` byte offsets near even shares of `text`
/// where a line starts with `fn ` or `struct `, then `text.len()`: strictly
/// increasing (a line start is found at or after the previous cut plus one,
/// and before the end).
pub(crate) fn line_cuts(text: &str, pieces: usize) -> Vec<usize> {
    let share = text.len() / pieces;
    let mut cuts = vec![0];
    let b = text.as_bytes();
    for k in 1..pieces {
        let from = (k * share).max(cuts[cuts.len() - 1] + 1);
        // A line start is right after a `\n`, always a char boundary.
        let next = (from..b.len()).find(|&i| {
            b[i - 1] == b'\n' && (b[i..].starts_with(b"fn ") || b[i..].starts_with(b"struct "))
        });
        match next {
            Some(i) => cuts.push(i),
            None => break,
        }
    }
    cuts.push(text.len());
    cuts
}

/// The error for `'c'` and `'\n'`.
const CHAR_LITERAL: &str = "Toy has no character literals";
/// The error for `'word'`.
const SINGLE_QUOTED: &str = "Toy has no single-quoted strings";

/// The label under a lexical error; `source` is the text it covers.
fn label_for(message: &str, source: &str) -> String {
    match message {
        CHAR_LITERAL | SINGLE_QUOTED => {
            let inner = source.get(1..source.len().saturating_sub(1)).unwrap_or("");
            let inner = match inner {
                "\\'" => "'",
                "\"" => "\\\"",
                s => s,
            };
            format!("write a string in double quotes: `\"{inner}\"`")
        }
        "unterminated string literal" => "this string is never closed".into(),
        "unterminated block comment" => "this comment is never closed".into(),
        "integer literal out of range for int" => "does not fit in a 64-bit signed integer".into(),
        m => m.into(),
    }
}

/// The scanner's state: the text, the position of the next byte, and what
/// it has found so far (errors as span and message, in text order).
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    tokens: Vec<(Token<'a>, SimpleSpan)>,
    errors: Vec<(SimpleSpan, String)>,
}

impl<'a> Scanner<'a> {
    /// Trivia, then tokens each followed by trivia, to the end of the text.
    /// Where no token starts, one character is reported and skipped.
    fn run(&mut self) {
        self.skip_trivia();
        while self.pos < self.text.len() {
            let start = self.pos;
            match self.token() {
                Some(tok) => self.tokens.push((tok, span(start, self.pos))),
                None => self.bad_char(),
            }
            self.skip_trivia();
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn error(&mut self, start: usize, end: usize, message: impl Into<String>) {
        self.errors.push((span(start, end), message.into()));
    }

    /// Reports and skips the character at the position.
    fn bad_char(&mut self) {
        let start = self.pos;
        let c = self.rest().chars().next().unwrap_or('\0');
        self.pos += c.len_utf8();
        let shown = if c.is_control() || c.is_whitespace() {
            c.escape_debug().to_string()
        } else {
            c.to_string()
        };
        self.error(start, self.pos, format!("unexpected character `{shown}`"));
    }

    /// One token, chosen by its first character (the kinds start with
    /// disjoint characters, so no alternative is tried and undone): an
    /// identifier or keyword (ASCII letters, digits and `_`), a number, a
    /// string, a single-quoted literal or else a label `'name`, or
    /// punctuation. `None`, consuming nothing, where no token starts.
    fn token(&mut self) -> Option<Token<'a>> {
        let rest = self.rest();
        match rest.as_bytes().first().copied().unwrap_or(0) {
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let word = &rest[..ident_len(rest)];
                self.pos += word.len();
                Some(Token::keyword(word).unwrap_or(Token::Ident(word)))
            }
            c if c.is_ascii_digit() => Some(self.number()),
            b'"' => Some(self.string()),
            b'\'' => self.single_quoted().or_else(|| self.label()),
            _ => self.punct(),
        }
    }

    /// Skips whitespace, `//` comments and nested `/* */` comments.
    fn skip_trivia(&mut self) {
        let start = self.pos;
        let rest = self.rest();
        let b = rest.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\r' | b'\n' => i += 1,
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = self.skip_block_comment(start, i);
                    // Stay on a char boundary (a comment may end inside
                    // none, but an unterminated one ends at the end).
                    while !rest.is_char_boundary(i) {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        self.pos = start + i;
    }

    /// The offset (from `start`) just past the nested block comment that
    /// opens at offset `open`, or the end of the text, reported, when it
    /// is not closed.
    fn skip_block_comment(&mut self, start: usize, open: usize) -> usize {
        let b = &self.text.as_bytes()[start..];
        let mut i = open;
        let mut depth = 0usize;
        loop {
            if i >= b.len() {
                self.error(start + open, start + open + 2, "unterminated block comment");
                return i;
            }
            if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                depth += 1;
                i += 2;
            } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            } else {
                i += 1;
            }
        }
    }

    /// Punctuation and operators, longest match first.
    fn punct(&mut self) -> Option<Token<'a>> {
        let (tok, len) = punct_at(self.rest().as_bytes())?;
        self.pos += len;
        Some(tok)
    }

    /// A label `'name`; `None`, consuming nothing, if no name follows.
    fn label(&mut self) -> Option<Token<'a>> {
        let rest = self.rest();
        match ident_len(&rest[1..]) {
            0 => None,
            len => {
                self.pos += 1 + len;
                Some(Token::Label(&rest[1..1 + len]))
            }
        }
    }

    /// `'c'`, `'\n'` or `'word'`, which Toy does not have: reported, and
    /// lexed as the string it would be in double quotes, so the parser
    /// sees a plausible token; `None`, consuming nothing, where none is
    /// (then it may be a label `'name`, which is never directly followed
    /// by `'`).
    fn single_quoted(&mut self) -> Option<Token<'a>> {
        let start = self.pos;
        let rest = self.rest();
        let (len, word) = single_quoted_len(rest)?;
        let inner = &rest[1..len - 1];
        let value = match inner {
            "\\'" => "'".to_string(),
            s if s.starts_with('\\') => scan_string(&format!("\"{s}\"")).value,
            s => s.to_string(),
        };
        self.pos += len;
        let message = if word { SINGLE_QUOTED } else { CHAR_LITERAL };
        self.error(start, start + len, message);
        Some(Token::Str(value))
    }

    fn number(&mut self) -> Token<'a> {
        let start = self.pos;
        let (len, tok) = scan_number(self.rest());
        self.pos += len;
        tok.unwrap_or_else(|msg| {
            self.error(start, start + len, msg);
            Token::Int(0)
        })
    }

    fn string(&mut self) -> Token<'a> {
        let start = self.pos;
        let scanned = scan_string(self.rest());
        self.pos += scanned.len;
        for (a, b, msg) in scanned.errors {
            self.error(start + a, start + b, msg);
        }
        Token::Str(scanned.value)
    }
}

/// The length of the ASCII identifier at the start of `s` (a letter or `_`,
/// then letters, digits and `_`), 0 if there is none.
fn ident_len(s: &str) -> usize {
    let b = s.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            1 + b[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count()
        }
        _ => 0,
    }
}

fn span(start: usize, end: usize) -> SimpleSpan {
    SimpleSpan::from(start..end)
}

/// The punctuation or operator at the start of `b` and its length in
/// bytes, longest match first.
fn punct_at(b: &[u8]) -> Option<(Token<'static>, usize)> {
    use Token::*;
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let (tok, len) = match (at(0), at(1), at(2)) {
        (b'<', b'<', b'=') => (ShlEq, 3),
        (b'>', b'>', b'=') => (ShrEq, 3),
        (b'<', b'<', _) => (Shl, 2),
        (b'>', b'>', _) => (Shr, 2),
        (b'<', b'=', _) => (Le, 2),
        (b'>', b'=', _) => (Ge, 2),
        (b'=', b'=', _) => (EqEq, 2),
        (b'!', b'=', _) => (NotEq, 2),
        (b'&', b'&', _) => (AndAnd, 2),
        (b'|', b'|', _) => (OrOr, 2),
        (b'+', b'=', _) => (PlusEq, 2),
        (b'-', b'=', _) => (MinusEq, 2),
        (b'*', b'=', _) => (StarEq, 2),
        (b'/', b'=', _) => (SlashEq, 2),
        (b'%', b'=', _) => (PercentEq, 2),
        (b'&', b'=', _) => (AmpEq, 2),
        (b'|', b'=', _) => (PipeEq, 2),
        (b'^', b'=', _) => (CaretEq, 2),
        (b'-', b'>', _) => (Arrow, 2),
        (b'.', b'.', _) => (DotDot, 2),
        (b'<', _, _) => (Lt, 1),
        (b'>', _, _) => (Gt, 1),
        (b'=', _, _) => (Assign, 1),
        (b'!', _, _) => (Bang, 1),
        (b'&', _, _) => (Amp, 1),
        (b'|', _, _) => (Pipe, 1),
        (b'+', _, _) => (Plus, 1),
        (b'-', _, _) => (Minus, 1),
        (b'*', _, _) => (Star, 1),
        (b'/', _, _) => (Slash, 1),
        (b'%', _, _) => (Percent, 1),
        (b'^', _, _) => (Caret, 1),
        (b'.', _, _) => (Dot, 1),
        (b'(', _, _) => (LParen, 1),
        (b')', _, _) => (RParen, 1),
        (b'{', _, _) => (LBrace, 1),
        (b'}', _, _) => (RBrace, 1),
        (b'[', _, _) => (LBracket, 1),
        (b']', _, _) => (RBracket, 1),
        (b',', _, _) => (Comma, 1),
        (b';', _, _) => (Semi, 1),
        (b':', _, _) => (Colon, 1),
        _ => return None,
    };
    Some((tok, len))
}

/// The length of a single-quoted literal at the start of `s` (which starts
/// with `'`): one character, a backslash escape of one character, or a
/// word of ASCII letters, digits and `_` (then `.1` is true).
fn single_quoted_len(s: &str) -> Option<(usize, bool)> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    let (body_end, word) = match c {
        '\\' => {
            let (i, e) = chars.next()?;
            (i + e.len_utf8(), false)
        }
        '\'' | '\n' | '\r' => return None,
        c if c.is_ascii_alphanumeric() || c == '_' => {
            let n = s[1..]
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            (1 + n, n > 1)
        }
        c => (1 + c.len_utf8(), false),
    };
    s[body_end..]
        .starts_with('\'')
        .then_some((body_end + 1, word))
}

/// The result of scanning a number: its length in bytes and its token, or
/// an error message (the token is then a harmless placeholder).
pub(crate) fn scan_number(s: &str) -> (usize, Result<Token<'static>, &'static str>) {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let radix = match (at(0), at(1)) {
        (b'0', b'x' | b'X') => 16,
        (b'0', b'b' | b'B') => 2,
        _ => 10,
    };
    let mut i;
    let mut is_float = false;
    if radix != 10 {
        i = 2;
        while word(at(i)) {
            i += 1;
        }
    } else {
        i = 0;
        while at(i).is_ascii_digit() || at(i) == b'_' {
            i += 1;
        }
        if at(i) == b'.' && at(i + 1).is_ascii_digit() {
            is_float = true;
            i += 1;
            while at(i).is_ascii_digit() || at(i) == b'_' {
                i += 1;
            }
        }
        if matches!(at(i), b'e' | b'E') {
            let sign = usize::from(matches!(at(i + 1), b'+' | b'-'));
            if at(i + 1 + sign).is_ascii_digit() {
                is_float = true;
                i += 1 + sign;
                while at(i).is_ascii_digit() || at(i) == b'_' {
                    i += 1;
                }
            }
        }
        // Letters glued to a number make the whole word invalid (`12ab`, `1e`).
        if word(at(i)) {
            while word(at(i)) {
                i += 1;
            }
            return (i, Err("invalid number literal"));
        }
    }
    let digits: String = s[..i].chars().filter(|&c| c != '_').collect();
    if is_float {
        return match digits.parse::<f64>() {
            Ok(v) if v.is_finite() => (i, Ok(Token::Float(v))),
            _ => (i, Err("invalid number literal")),
        };
    }
    let body = if radix == 10 {
        &digits[..]
    } else {
        &digits[2..]
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return (i, Err("invalid number literal"));
    }
    match u64::from_str_radix(body, radix) {
        Ok(v) if v <= I64_MIN_MAGNITUDE => (i, Ok(Token::Int(v))),
        _ => (i, Err("integer literal out of range for int")),
    }
}

/// The result of scanning a string literal starting at its `"`.
pub(crate) struct ScannedStr {
    /// Length in bytes, including the quotes that were present.
    pub len: usize,
    pub value: String,
    /// Errors with spans relative to the opening quote.
    pub errors: Vec<(usize, usize, String)>,
}

pub(crate) fn scan_string(s: &str) -> ScannedStr {
    let mut value = String::new();
    let mut errors = Vec::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                return ScannedStr {
                    len: i + 1,
                    value,
                    errors,
                };
            }
            '\\' => {
                let Some((j, e)) = chars.next() else { break };
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    '\\' => Some('\\'),
                    '"' => Some('"'),
                    '0' => Some('\0'),
                    _ => None,
                };
                if let Some(ch) = simple {
                    value.push(ch);
                    continue;
                }
                let mut end = j + e.len_utf8();
                if e == 'u' {
                    // \u{X...}: up to 6 hex digits naming a Unicode scalar value.
                    let mut ok = false;
                    if let Some(&(_, '{')) = chars.peek() {
                        chars.next();
                        end += 1;
                        let mut hex = String::new();
                        while let Some(&(k, h)) = chars.peek() {
                            if h.is_ascii_hexdigit() && hex.len() < 8 {
                                hex.push(h);
                                chars.next();
                                end = k + 1;
                            } else {
                                break;
                            }
                        }
                        if let Some(&(k, '}')) = chars.peek() {
                            chars.next();
                            end = k + 1;
                            if let Some(ch) = (hex.len() <= 6)
                                .then(|| u32::from_str_radix(&hex, 16).ok())
                                .flatten()
                                .and_then(char::from_u32)
                            {
                                value.push(ch);
                                ok = true;
                            }
                        }
                    }
                    if ok {
                        continue;
                    }
                }
                errors.push((i, end, format!("invalid escape `{}` in string", &s[i..end])));
            }
            c => value.push(c),
        }
    }
    errors.push((0, 1, "unterminated string literal".to_string()));
    ScannedStr {
        len: s.len(),
        value,
        errors,
    }
}
