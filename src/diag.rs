//! Compile-time diagnostics and their rendering through ariadne.
//!
//! Every stage reports problems as [`Diagnostic`] values and keeps going;
//! nothing prints directly. A diagnostic is an error or a warning
//! ([`Severity`]). The driver renders them all, in order, with
//! [`render`] (or, for `toyc check --format=json`, [`render_json`]). ariadne is configured with byte indices because every
//! [`Span`] is a byte range.

use crate::span::{SourceMap, Span};
use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// The headline, e.g. ``mismatched types: expected `int`, found `str` ``.
    pub message: String,
    /// Where the error is; the report's `file:line:col` is its start.
    pub span: Span,
    /// The text under the primary span.
    pub label: String,
    /// Secondary spans with their text (e.g. "the loop starts here").
    pub secondary: Vec<(Span, String)>,
    /// Free-form notes shown after the labels; one starting with `help: `
    /// (a suggested fix) is rendered as ariadne's `Help:`.
    pub notes: Vec<String>,
    /// An error stops compilation; a warning does not.
    pub severity: Severity,
}

/// How serious a [`Diagnostic`] is: rendered as ariadne's red `Error` or
/// yellow `Warning` report, and as `"error"`/`"warning"` in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        let message = message.into();
        Diagnostic {
            label: message.clone(),
            message,
            span,
            secondary: Vec::new(),
            notes: Vec::new(),
            severity: Severity::Error,
        }
    }
    /// A warning: reported, but the program still compiles.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

struct Cache<'a>(&'a SourceMap, Vec<Option<ariadne::Source<&'a str>>>);

impl<'a> ariadne::Cache<crate::span::FileId> for Cache<'a> {
    type Storage = &'a str;
    fn fetch(
        &mut self,
        id: &crate::span::FileId,
    ) -> Result<&ariadne::Source<&'a str>, impl std::fmt::Debug> {
        let i = id.0 as usize;
        if self.1.len() <= i {
            self.1.resize_with(i + 1, || None);
        }
        let map = self.0;
        Ok::<_, String>(
            self.1[i].get_or_insert_with(|| ariadne::Source::from(map.get(*id).text.as_str())),
        )
    }
    fn display<'b>(&self, id: &'b crate::span::FileId) -> Option<impl std::fmt::Display + 'b> {
        Some(self.0.get(*id).name.clone())
    }
}

/// Renders diagnostics to a string, ariadne style, each naming
/// `file:line:col` in its header line.
pub fn render(map: &SourceMap, diags: &[Diagnostic], colour: bool) -> String {
    let mut out = Vec::new();
    let mut cache = Cache(map, Vec::new());
    for d in diags {
        let file = map.get(d.span.file);
        let (line, col) = file.line_col(d.span.start);
        let config = Config::default()
            .with_index_type(IndexType::Byte)
            .with_color(colour);
        let (kind, colour) = match d.severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
        };
        let mut report = Report::build(kind, (d.span.file, d.span.range()))
            .with_config(config)
            .with_message(format!("{}:{}:{}: {}", file.name, line, col, d.message))
            .with_label(
                Label::new((d.span.file, d.span.range()))
                    .with_message(&d.label)
                    .with_color(colour),
            );
        for (s, l) in &d.secondary {
            report = report.with_label(
                Label::new((s.file, s.range()))
                    .with_message(l)
                    .with_color(Color::Blue),
            );
        }
        for n in &d.notes {
            report = match n.strip_prefix("help: ") {
                Some(help) => report.with_help(help),
                None => report.with_note(n),
            };
        }
        let _ = report.finish().write(&mut cache, &mut out);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What every internal compiler error ends with: how to report it and how
/// to find the pass at fault.
pub const ICE_HELP: &str = "help: this is a bug in toyc; please report the program. \
`toyc run --passes=none FILE` runs it without toyc's passes, and \
`toyc bisect FILE` names the first pass after which its behaviour changes";

/// One diagnostic as a JSON object on one line (the `--format=json`
/// schema, docs/diagnostics.md): `file`, `line`, `col`, `end_line`,
/// `end_col` (1-based, columns in characters; 0 when there is no position),
/// `severity`, `message`, `label`, `notes`.
pub struct JsonDiag<'a> {
    pub file: &'a str,
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub severity: &'a str,
    pub message: &'a str,
    pub label: &'a str,
    pub notes: &'a [String],
}

impl JsonDiag<'_> {
    pub fn to_line(&self) -> String {
        let notes: Vec<String> = self.notes.iter().map(|n| json_str(n)).collect();
        format!(
            "{{\"file\":{},\"line\":{},\"col\":{},\"end_line\":{},\"end_col\":{},\
             \"severity\":{},\"message\":{},\"label\":{},\"notes\":[{}]}}\n",
            json_str(self.file),
            self.start.0,
            self.start.1,
            self.end.0,
            self.end.1,
            json_str(self.severity),
            json_str(self.message),
            json_str(self.label),
            notes.join(",")
        )
    }
}

/// Renders diagnostics as JSON Lines: one [`JsonDiag`] object per line, in
/// the order given.
pub fn render_json(map: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let file = map.get(d.span.file);
        out.push_str(
            &JsonDiag {
                file: &file.name,
                start: file.line_col(d.span.start),
                end: file.line_col(d.span.end),
                severity: d.severity.name(),
                message: &d.message,
                label: &d.label,
                notes: &d.notes,
            }
            .to_line(),
        );
    }
    out
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}é"), "\"a\\\"b\\\\c\\nd\\u0001é\"");
    }
}
