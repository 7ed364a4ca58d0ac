//! "Did you mean" notes for unknown names: a similar name in scope (by
//! edit distance), or the qualified name of an item of an imported module.

use super::hir::Builtin;
use super::{ItemRef, Sema};
use crate::diag::Diagnostic;

/// Edit distance over bytes (insertions, deletions, substitutions and
/// transpositions of neighbours each cost 1: optimal string alignment).
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * w + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[(i - 1) * w + j - 1] + cost)
                    .min(d[(i - 1) * w + j] + 1)
                    .min(d[i * w + j - 1] + 1);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[(i - 2) * w + j - 2] + 1);
                }
                v
            };
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `name`, if close enough to be a likely typo
/// (distance at most a third of the length, at least 1); ties go to the
/// first candidate.
pub(super) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (name.len() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || name.len().abs_diff(c.len()) > limit {
            continue;
        }
        let d = distance(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Value,
    Function,
    Type,
}

impl Sema<'_> {
    /// Adds a note suggesting what an unknown `name` of this kind may mean.
    pub(super) fn suggest(&self, d: Diagnostic, m: usize, name: &str, kind: Kind) -> Diagnostic {
        let module = &self.modules[m];
        let fits = |item: &ItemRef| {
            matches!(
                (kind, item),
                (Kind::Value, ItemRef::Global(_))
                    | (Kind::Function, ItemRef::Func(_))
                    | (Kind::Type, ItemRef::Struct(_))
            )
        };
        // An item of that exact name in an imported module.
        let mut imports: Vec<&String> = module.imports.keys().collect();
        imports.sort();
        for m in imports {
            if let Some(Some(t)) = module.imports.get(m)
                && self.modules[*t]
                    .items
                    .get(name)
                    .is_some_and(|(i, _)| fits(i))
            {
                return d.with_note(format!(
                    "`{name}` is defined in module `{m}`: write `{m}.{name}`"
                ));
            }
        }
        let mut candidates: Vec<&str> = Vec::new();
        if kind == Kind::Value && m == self.cx.module {
            candidates.extend(
                self.cx
                    .visible
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(n, _)| n.as_str()),
            );
        }
        if kind == Kind::Function {
            candidates.extend(Builtin::all().map(|b| b.name()));
        }
        if kind == Kind::Type {
            candidates.extend(["int", "float", "bool", "str"]);
        }
        candidates.extend(
            module
                .items
                .iter()
                .filter(|(_, (i, _))| fits(i))
                .map(|(n, _)| n.as_str()),
        );
        candidates.sort_unstable();
        match closest(name, candidates) {
            Some(c) => d.with_note(format!("did you mean `{c}`?")),
            None => d,
        }
    }

    /// Adds a note naming a similar item of module `t`.
    pub(super) fn suggest_item(&self, d: Diagnostic, t: usize, name: &str) -> Diagnostic {
        let mut names: Vec<&str> = self.modules[t].items.keys().map(String::as_str).collect();
        names.sort_unstable();
        match closest(name, names) {
            Some(c) => d.with_note(format!("did you mean `{c}`?")),
            None => d,
        }
    }

    /// Adds a note naming a similar field of a struct.
    pub(super) fn suggest_field(&self, d: Diagnostic, s: usize, name: &str) -> Diagnostic {
        match closest(
            name,
            self.structs[s].fields.iter().map(|(n, _, _)| n.as_str()),
        ) {
            Some(c) => d.with_note(format!("did you mean `{c}`?")),
            None => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn closest_names() {
        assert_eq!(closest("conut", ["count", "total"]), Some("count"));
        assert_eq!(closest("x", ["y", "xs"]), Some("y"));
        assert_eq!(closest("lenght", ["len", "length"]), Some("length"));
        assert_eq!(closest("apple", ["zebra"]), None);
        assert_eq!(closest("same", ["same"]), None);
        assert_eq!(closest("gdc", ["gcd", "lcm"]), Some("gcd"));
        assert_eq!(closest("Piont", ["Point"]), Some("Point"));
    }
}
