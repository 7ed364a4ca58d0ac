//! Compile-time diagnostics and their rendering through ariadne.
//!
//! Every stage reports problems as [`Diagnostic`] values and keeps going;
//! nothing prints directly. The driver renders them all, in order, with
//! [`render`]. ariadne is configured with byte indices because every
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
    /// Free-form notes shown after the labels.
    pub notes: Vec<String>,
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
        let mut report = Report::build(ReportKind::Error, (d.span.file, d.span.range()))
            .with_config(config)
            .with_message(format!("{}:{}:{}: {}", file.name, line, col, d.message))
            .with_label(
                Label::new((d.span.file, d.span.range()))
                    .with_message(&d.label)
                    .with_color(Color::Red),
            );
        for (s, l) in &d.secondary {
            report = report.with_label(
                Label::new((s.file, s.range()))
                    .with_message(l)
                    .with_color(Color::Blue),
            );
        }
        for n in &d.notes {
            report = report.with_note(n);
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
