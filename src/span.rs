//! Source files and byte spans shared by every stage.
//!
//! Invariants:
//! - A [`Span`] is a half-open byte range `start..end` into the text of one
//!   [`FileId`]; `start <= end <= text.len()`. Spans are byte offsets because
//!   chumsky produces byte offsets and ariadne is configured for bytes.
//! - Line and column numbers shown to users are 1-based; the column counts
//!   Unicode scalar values from the start of the line (what editors show).

use std::path::PathBuf;

/// Index of a file in the [`SourceMap`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one source file.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// The smallest span covering both (both must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One loaded source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (`examples/hello.toy`, `<stdlib>/math.toy`).
    pub name: String,
    /// The path it was read from; `None` for embedded stdlib modules.
    pub path: Option<PathBuf>,
    pub text: String,
    /// Byte offset of the start of every line.
    line_starts: Vec<u32>,
    /// Parts of the text that came from elsewhere (the lines of a REPL
    /// session, put together into one program): a runtime position inside
    /// one is reported under its name, counting lines from its start.
    /// Sorted, disjoint, within the text.
    segments: Vec<Segment>,
}

/// A named byte range of a [`SourceFile`] with positions of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: u32,
    pub end: u32,
    pub name: String,
}

impl SourceFile {
    /// The segment that holds all of `span` (which must be in this file).
    pub fn segment_at(&self, span: Span) -> Option<&Segment> {
        self.segments
            .iter()
            .find(|s| s.start <= span.start && span.end <= s.end)
    }

    /// 1-based (line, column) of a byte offset; the column counts chars.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count();
        (line as u32 + 1, col as u32 + 1)
    }
}

/// All files of one compilation, indexed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file; invalid UTF-8 must already have been rejected or replaced.
    pub fn add(&mut self, name: String, path: Option<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        self.files.push(SourceFile {
            name,
            path,
            text,
            line_starts,
            segments: Vec::new(),
        });
        FileId(self.files.len() as u32 - 1)
    }

    /// Adds a file made of `segments` (sorted, disjoint, within `text`)
    /// and the text between them; see [`SourceFile::segment_at`].
    pub fn add_segmented(
        &mut self,
        name: String,
        path: Option<PathBuf>,
        text: String,
        segments: Vec<Segment>,
    ) -> FileId {
        let id = self.add(name, path, text);
        self.files[id.0 as usize].segments = segments;
        id
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    /// `file:line:col` of the start of a span, as runtime errors print it;
    /// inside a segment, `segment:line:col` counted from the segment's start.
    pub fn position(&self, span: Span) -> String {
        let f = self.get(span.file);
        if let Some(seg) = f.segment_at(span) {
            let mut end = span.start as usize;
            while !f.text.is_char_boundary(end) {
                end -= 1;
            }
            let before = &f.text[seg.start as usize..end];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            return format!("{}:{line}:{col}", seg.name);
        }
        let (l, c) = f.line_col(span.start);
        format!("{}:{}:{}", f.name, l, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_inside_a_segment_count_from_its_start() {
        let text = "glue\nfn f() {\nlet x = 1;\n  y\n}\n";
        let seg_start = text.find("let").unwrap();
        let seg_end = text.find("\n}").unwrap();
        let mut map = SourceMap::new();
        let id = map.add_segmented(
            "<repl>".into(),
            None,
            text.into(),
            vec![Segment {
                start: seg_start as u32,
                end: seg_end as u32,
                name: "<line 3>".into(),
            }],
        );
        let at = |needle: &str| {
            let s = text.find(needle).unwrap();
            Span::new(id, s, s + needle.len())
        };
        assert_eq!(map.position(at("x")), "<line 3>:1:5");
        assert_eq!(map.position(at("y")), "<line 3>:2:3");
        // Outside the segment, and across its end: the file's own position.
        assert_eq!(map.position(at("fn")), "<repl>:2:1");
        assert_eq!(map.position(at("y\n}")), "<repl>:4:3");
        assert!(map.get(id).segment_at(at("glue")).is_none());
    }
}
