//! Tokens of the IR text form, one line at a time.
//!
//! Invariants: every token knows its 1-based line and column (in
//! characters); a line's tokens never include a comment (`;` to the end of
//! the line, outside strings) and `# names` is one token to the end of the
//! line (or a `;`); lexing never panics on any input, it
//! returns an error at the offending character instead.

use super::ParseError;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name or keyword: letters, digits, `_`, `.` (`math.gcd`), or
    /// `<init>`-style names in angle brackets.
    Ident(String),
    Int(i64),
    Float(f64),
    Str(String),
    /// `%n` as written (1-based).
    Value(u32),
    /// `_n` as written (1-based).
    Arg(u32),
    /// `#n` as written (1-based).
    Block(u32),
    /// `@name`.
    Global(String),
    /// `─` or `┄` (or ASCII `-` standing alone): a block starts here.
    BlockStart,
    /// `│` or `└──` (or ASCII `|`): the block continues.
    Cont,
    /// Punctuation: `( ) [ ] { } , = :: -> => < <= . ! _`.
    Punct(&'static str),
    /// `# text` (a `#` followed by a space) to the end of the line: the
    /// source names of a statement (`# i`) or of the parameters (`# a, n`).
    SourceNames(String),
}

/// A token with its position.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

const PUNCT: &[&str] = &[
    "::", "->", "=>", "<=", "(", ")", "[", "]", "{", "}", ",", "=", "<", ".", "!",
];

/// The tokens of every line that has any, in order.
pub fn lex(text: &str) -> Result<Vec<Vec<Token>>, ParseError> {
    let mut lines = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let toks = lex_line(line, n as u32 + 1)?;
        if !toks.is_empty() {
            lines.push(toks);
        }
    }
    Ok(lines)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Whether the name at `chars[..i]` goes on at `i`: a name character, `ᶜ`
/// (`φᶜ`), or a `-` between letters (`non-nil`).
fn name_goes_on(chars: &[char], i: usize) -> bool {
    match chars[i] {
        'ᶜ' => true,
        '-' => chars.get(i + 1).is_some_and(|c| c.is_alphabetic()),
        c => is_name_char(c),
    }
}

fn lex_line(line: &str, lno: u32) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i as u32 + 1;
        let err = |msg: String| ParseError::new(lno, col, msg);
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == ';' {
            break;
        }
        let (tok, len) = match c {
            '#' if chars.get(i + 1).is_some_and(|c| c.is_whitespace()) => {
                let rest: String = chars[i + 1..].iter().take_while(|c| **c != ';').collect();
                (
                    Tok::SourceNames(rest.trim().to_string()),
                    1 + rest.chars().count(),
                )
            }
            '─' | '┄' => (Tok::BlockStart, 1),
            '│' | '|' => (Tok::Cont, 1),
            '└' => (Tok::Cont, run_of(&chars, i + 1, '─') + 1),
            '-' if chars.get(i + 1).is_none_or(|c| c.is_whitespace()) => (Tok::BlockStart, 1),
            '"' => lex_string(&chars, i).map_err(|(k, m)| ParseError::new(lno, k as u32 + 1, m))?,
            '%' | '#' | '_' if chars.get(i + 1).is_some_and(char::is_ascii_digit) => {
                let len = 1 + chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let s: String = chars[i + 1..i + len].iter().collect();
                let n: u32 = s
                    .parse()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| err(format!("bad number `{c}{s}` (numbers start at 1)")))?;
                let tok = match c {
                    '%' => Tok::Value(n),
                    '#' => Tok::Block(n),
                    _ => Tok::Arg(n),
                };
                (tok, len)
            }
            '@' => {
                let len = chars[i + 1..]
                    .iter()
                    .take_while(|c| is_name_char(**c))
                    .count();
                if len == 0 {
                    return Err(err("expected a global name after `@`".into()));
                }
                (
                    Tok::Global(chars[i + 1..i + 1 + len].iter().collect()),
                    len + 1,
                )
            }
            '<' if chars.get(i + 1).is_some_and(|c| c.is_alphabetic()) => {
                let len = chars[i..].iter().take_while(|c| **c != '>').count();
                if i + len >= chars.len() {
                    return Err(err("unclosed `<` in a name".into()));
                }
                (Tok::Ident(chars[i..=i + len].iter().collect()), len + 1)
            }
            c if c.is_ascii_digit() || (c == '-' && starts_number(&chars, i + 1)) => {
                lex_number(&chars, i).map_err(err)?
            }
            c if c.is_alphabetic() || c == '_' || c == 'φ' || c == 'ϒ' || c == 'π' => {
                let len = (i..chars.len())
                    .take_while(|&k| k == i || name_goes_on(&chars, k))
                    .count();
                let s: String = chars[i..i + len].iter().collect();
                if s == "_" {
                    (Tok::Punct("_"), 1)
                } else {
                    (Tok::Ident(s), len)
                }
            }
            _ => match PUNCT.iter().find(|p| starts_with(&chars, i, p)) {
                Some(p) => (Tok::Punct(p), p.chars().count()),
                None => return Err(err(format!("unexpected character `{c}`"))),
            },
        };
        out.push(Token {
            tok,
            line: lno,
            col,
        });
        i += len;
    }
    Ok(out)
}

fn run_of(chars: &[char], from: usize, c: char) -> usize {
    chars[from.min(chars.len())..]
        .iter()
        .take_while(|x| **x == c)
        .count()
}

fn starts_with(chars: &[char], i: usize, p: &str) -> bool {
    p.chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

fn starts_number(chars: &[char], i: usize) -> bool {
    chars.get(i).is_some_and(char::is_ascii_digit)
        || starts_with(chars, i, "inf")
        || starts_with(chars, i, "NaN")
}

/// An int or float literal at `i` (with an optional `-`), as Rust's `{:?}`
/// prints them: `3`, `-2`, `1.5`, `1e-7`, `-inf`, `-NaN` (`inf` and `NaN` alone
/// are names the statement parser reads as floats).
fn lex_number(chars: &[char], i: usize) -> Result<(Tok, usize), String> {
    let mut j = i + usize::from(chars[i] == '-');
    if starts_with(chars, j, "inf") {
        return Ok((Tok::Float(f64::NEG_INFINITY), j + 3 - i));
    }
    if starts_with(chars, j, "NaN") {
        return Ok((Tok::Float(-f64::NAN), j + 3 - i));
    }
    let mut float = false;
    while let Some(&c) = chars.get(j) {
        let exp_sign = (c == '-' || c == '+') && matches!(chars.get(j - 1), Some('e' | 'E'));
        if c.is_ascii_digit() || exp_sign {
            j += 1;
        } else if (c == '.' && chars.get(j + 1).is_some_and(char::is_ascii_digit))
            || c == 'e'
            || c == 'E'
        {
            float = true;
            j += 1;
        } else {
            break;
        }
    }
    let s: String = chars[i..j].iter().collect();
    let tok = if float {
        Tok::Float(s.parse().map_err(|_| format!("bad float `{s}`"))?)
    } else {
        Tok::Int(
            s.parse()
                .map_err(|_| format!("bad int `{s}` (out of range?)"))?,
        )
    };
    Ok((tok, j - i))
}

/// A string literal at `i` with Rust's escapes (`\n`, `\t`, `\r`, `\0`,
/// `\\`, `\"`, `\'`, `\u{…}`), as the printer's `{:?}` writes it. The
/// error gives the character index and the message.
fn lex_string(chars: &[char], i: usize) -> Result<(Tok, usize), (usize, String)> {
    let mut s = String::new();
    let mut j = i + 1;
    loop {
        match chars.get(j) {
            None => return Err((i, "unterminated string".into())),
            Some('"') => return Ok((Tok::Str(s), j + 1 - i)),
            Some('\\') => {
                let (c, len) = escape(chars, j).ok_or((j, "bad escape in string".to_string()))?;
                s.push(c);
                j += len;
            }
            Some(&c) => {
                s.push(c);
                j += 1;
            }
        }
    }
}

fn escape(chars: &[char], j: usize) -> Option<(char, usize)> {
    let c = match chars.get(j + 1)? {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        '\\' => '\\',
        '"' => '"',
        '\'' => '\'',
        'u' if chars.get(j + 2) == Some(&'{') => {
            let len = chars[j + 3..].iter().take_while(|c| **c != '}').count();
            let hex: String = chars[j + 3..j + 3 + len].iter().collect();
            let c = char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?;
            chars.get(j + 3 + len)?;
            return Some((c, len + 4));
        }
        _ => return None,
    };
    Some((c, 2))
}
