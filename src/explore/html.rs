//! Renders a [`Page`] as one HTML document with its style sheet
//! (`page.css`) and script (`page.js`) inline.
//!
//! What the script relies on (and the browser test checks):
//! - one `<section class="fn" data-fn=NAME>` per function, the one chosen
//!   in `<select id="fn-picker">` shown;
//! - in it, one `<div class="col" data-col=ID>` per column, the source
//!   first (`data-col="source"`);
//! - every clickable value or block name is an element with `data-k` (its
//!   text: `%12`, `#3`, `v12`, `block3`), CFG blocks too; every row with
//!   `data-line` (its source line) and, in code, `data-bk` (its block);
//! - the script sets `data-ready="1"` on `<body>` when it has set up.

use super::{Column, FunctionView, Page, Row, Syntax};
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// `text` with `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The whole document.
pub fn render(page: &Page) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>toyc explore: {}</title><style>{STYLE}</style></head><body>",
        escape(&page.source_name)
    );
    out.push_str("<header><strong>toyc explore</strong> ");
    let _ = write!(
        out,
        "<span class=\"file\">{}</span> <label>function <select id=\"fn-picker\">",
        escape(&page.source_name)
    );
    let chosen = page
        .functions
        .iter()
        .position(|f| f.name == "main")
        .unwrap_or(0);
    for (i, f) in page.functions.iter().enumerate() {
        let name = escape(&f.name);
        let selected = if i == chosen { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{name}\"{selected}>{name}</option>");
    }
    let passes = if page.pipeline.is_empty() {
        "none".to_string()
    } else {
        escape(&page.pipeline)
    };
    let _ = write!(
        out,
        "</select></label> <span class=\"pipeline\">passes: {passes}</span>\
         <span class=\"help\">click a value or block to mark it in every column (again to unmark); \
         hover a line to see where it came from; click a column title to fold it</span></header><main>"
    );
    for f in &page.functions {
        function_section(&mut out, page, f);
    }
    let _ = writeln!(out, "</main><script>{SCRIPT}</script></body></html>");
    out
}

fn function_section(out: &mut String, page: &Page, f: &FunctionView) {
    let _ = write!(
        out,
        "<section class=\"fn\" data-fn=\"{}\">",
        escape(&f.name)
    );
    out.push_str(
        "<div class=\"col source\" data-col=\"source\"><div class=\"head\"><span class=\"title\">source</span></div><div class=\"code\">",
    );
    for (i, line) in page.source.iter().enumerate() {
        let _ = write!(
            out,
            "<div class=\"row\" data-line=\"{n}\"><span class=\"ln\">{n}</span>{}</div>",
            escape(line),
            n = i + 1
        );
    }
    out.push_str("</div></div>");
    for col in &f.columns {
        column(out, col);
    }
    out.push_str("</section>");
}

fn column(out: &mut String, col: &Column) {
    let _ = write!(
        out,
        "<div class=\"col\" data-col=\"{}\"><div class=\"head\"><span class=\"title\">{}</span>",
        escape(&col.id),
        escape(&col.title)
    );
    if !col.unchanged.is_empty() {
        let names: Vec<String> = col
            .unchanged
            .iter()
            .map(|(p, counted)| {
                let mut s = escape(p);
                if !counted.is_empty() {
                    let c: Vec<String> = counted.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                    let _ = write!(s, " ({})", escape(&c.join(", ")));
                }
                s
            })
            .collect();
        let _ = write!(
            out,
            "<div class=\"unchanged\">unchanged before this: {}</div>",
            names.join(", ")
        );
    }
    if let Some(note) = &col.note {
        let _ = write!(out, "<div class=\"note\">{}</div>", escape(note));
    }
    out.push_str("</div><div class=\"body\">");
    if let Some(g) = &col.cfg
        && !g.nodes.is_empty()
    {
        let _ = write!(
            out,
            "<details class=\"cfgbox\" open><summary>CFG ({} blocks)</summary>{}</details>",
            g.nodes.len(),
            g.to_svg()
        );
    }
    if col.pass.is_some() {
        remarks(out, col);
    }
    out.push_str("<div class=\"code\">");
    for row in &col.rows {
        row_html(out, row, col.syntax);
    }
    if col.rows.is_empty() {
        out.push_str("<div class=\"row empty\">(nothing)</div>");
    }
    out.push_str("</div></div></div>");
}

/// A pass column's remarks and counters.
fn remarks(out: &mut String, col: &Column) {
    out.push_str("<div class=\"remarks\"><div class=\"rtitle\">remarks</div>");
    match &col.remarks {
        Some(rows) if rows.is_empty() => out.push_str("<div class=\"row\">(none)</div>"),
        Some(rows) => {
            for r in rows {
                row_html(out, r, Syntax::Ir);
            }
        }
        None => {}
    }
    if !col.counters.is_empty() {
        let c: Vec<String> = col
            .counters
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let _ = write!(
            out,
            "<div class=\"row counters\">counted: {}</div>",
            escape(&c.join(", "))
        );
    }
    out.push_str("</div>");
}

fn row_html(out: &mut String, row: &Row, syntax: Syntax) {
    out.push_str("<div class=\"row\"");
    if let Some(l) = row.line {
        let _ = write!(out, " data-line=\"{l}\"");
    }
    if let Some(b) = &row.block {
        let _ = write!(out, " data-bk=\"{}\"", escape(b));
    }
    out.push('>');
    out.push_str(&tokens(&row.text, syntax));
    out.push_str("</div>");
}

/// `text` escaped, each value or block name wrapped in
/// `<span class="tok" data-k=NAME>`.
pub fn tokens(text: &str, syntax: Syntax) -> String {
    let prefixes: &[&str] = match syntax {
        Syntax::Ir => &["%", "#", "_"],
        Syntax::Clif => &["block", "v"],
        Syntax::Plain => &[],
    };
    let mut out = String::with_capacity(text.len() * 2);
    let mut i = 0;
    let mut prev: Option<char> = None;
    while i < text.len() {
        let rest = &text[i..];
        let at_boundary = !prev.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let found = prefixes.iter().find_map(|p| {
            let after = rest.strip_prefix(p)?;
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let next = after[digits..].chars().next();
            let whole = digits > 0 && !next.is_some_and(|c| c.is_alphanumeric() || c == '_');
            (at_boundary && whole).then(|| p.len() + digits)
        });
        match found {
            Some(len) => {
                let tok = escape(&rest[..len]);
                let _ = write!(out, "<span class=\"tok\" data-k=\"{tok}\">{tok}</span>");
                i += len;
                prev = Some('0');
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push_str(&escape(c.encode_utf8(&mut [0; 4])));
                i += c.len_utf8();
                prev = Some(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ir_values_blocks_and_parameters_are_tokens() {
        assert_eq!(
            tokens("%12 = add(_1, %3)::int", Syntax::Ir),
            "<span class=\"tok\" data-k=\"%12\">%12</span> = add(\
             <span class=\"tok\" data-k=\"_1\">_1</span>, \
             <span class=\"tok\" data-k=\"%3\">%3</span>)::int"
        );
        assert_eq!(
            tokens("goto #4 if not a_1<", Syntax::Ir),
            "goto <span class=\"tok\" data-k=\"#4\">#4</span> if not a_1&lt;"
        );
    }

    #[test]
    fn clif_names_are_whole_words() {
        assert_eq!(
            tokens("brif v3, block2, block10 ; v3x", Syntax::Clif),
            "brif <span class=\"tok\" data-k=\"v3\">v3</span>, \
             <span class=\"tok\" data-k=\"block2\">block2</span>, \
             <span class=\"tok\" data-k=\"block10\">block10</span> ; v3x"
        );
    }
}
