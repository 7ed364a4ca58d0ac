//! Loading modules: the main file, then every `import`, depth first.
//!
//! `import m;` in a file loaded from folder `D` loads `D/m.toy` if that file
//! exists, else the stdlib module `m` embedded in the binary (shown as
//! `<stdlib>/m.toy`); stdlib modules only import other stdlib modules.
//! Exception: `D/m.toy` itself importing `m` gets the stdlib module `m` if
//! there is one (instead of an import cycle of one file). Each
//! module is loaded once (keyed by canonical path, or by stdlib name). The
//! main module has index 0. An import of a module that is still being
//! loaded further up the import chain is a cycle, reported at that import.

use super::{ItemRef, ModuleInfo, STDLIB};
use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap};
use crate::syntax::ast;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub(super) struct Loaded {
    pub modules: Vec<ModuleInfo>,
    /// The parsed module of each entry of `modules`.
    pub asts: Vec<ast::Module>,
    /// Module indices, dependencies first (each after all it imports,
    /// except around a cycle); the main module is last.
    pub order: Vec<usize>,
    /// Syntax errors of every file plus import errors.
    pub diags: Vec<Diagnostic>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Path(PathBuf),
    Std(String),
}

struct Loader<'a> {
    sources: &'a mut SourceMap,
    modules: Vec<ModuleInfo>,
    asts: Vec<ast::Module>,
    order: Vec<usize>,
    diags: Vec<Diagnostic>,
    keys: HashMap<Key, usize>,
    /// Modules whose imports are being loaded, outermost first.
    stack: Vec<usize>,
    /// The threads a large file's parse may use.
    pool: &'a crate::par::Pool,
}

pub(super) fn load(sources: &mut SourceMap, main: FileId, pool: &crate::par::Pool) -> Loaded {
    let mut l = Loader {
        sources,
        pool,
        modules: Vec::new(),
        asts: Vec::new(),
        order: Vec::new(),
        diags: Vec::new(),
        keys: HashMap::new(),
        stack: Vec::new(),
    };
    let file = l.sources.get(main);
    let name = Path::new(&file.name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let key = file.path.clone().map(Key::Path);
    let m = l.add_module(name, main, true, key);
    l.visit(m);
    Loaded {
        modules: l.modules,
        asts: l.asts,
        order: l.order,
        diags: l.diags,
    }
}

impl Loader<'_> {
    fn add_module(&mut self, name: String, file: FileId, is_main: bool, key: Option<Key>) -> usize {
        let (ast, diags) = crate::syntax::parse_on(file, &self.sources.get(file).text, self.pool);
        self.diags.extend(diags);
        let idx = self.modules.len();
        self.modules.push(ModuleInfo {
            name,
            file,
            is_main,
            imports: HashMap::new(),
            items: HashMap::new(),
            used_imports: Default::default(),
        });
        self.asts.push(ast);
        if let Some(k) = key {
            self.keys.insert(k, idx);
        }
        idx
    }

    fn visit(&mut self, m: usize) {
        self.stack.push(m);
        let imports: Vec<ast::Import> = self.asts[m]
            .items
            .iter()
            .filter_map(|it| match it {
                ast::Item::Import(i) => Some(i.clone()),
                _ => None,
            })
            .collect();
        for imp in imports {
            let target = self.import(m, &imp);
            self.modules[m]
                .imports
                .entry(imp.name.name.clone())
                .or_insert(target);
        }
        self.stack.pop();
        self.order.push(m);
    }

    /// Loads (or finds) the module `imp` names; `None` if it cannot be.
    fn import(&mut self, m: usize, imp: &ast::Import) -> Option<usize> {
        let name = &imp.name.name;
        let key = match self.find(m, name) {
            Ok(k) => k,
            Err(reason) => {
                self.diags.push(
                    Diagnostic::error(imp.name.span, format!("cannot find module `{name}`"))
                        .with_label(reason),
                );
                return None;
            }
        };
        if let Some(&t) = self.keys.get(&key) {
            if let Some(pos) = self.stack.iter().position(|&s| s == t) {
                let mut names: Vec<&str> = self.stack[pos..]
                    .iter()
                    .map(|&s| self.modules[s].name.as_str())
                    .collect();
                names.push(&self.modules[t].name);
                let cycle = names.join(" -> ");
                self.diags.push(
                    Diagnostic::error(imp.name.span, format!("import cycle: {cycle}"))
                        .with_label(format!("this import closes the cycle {cycle}")),
                );
            }
            return Some(t);
        }
        let (display, path, text) = match &key {
            Key::Std(n) => {
                let text = STDLIB
                    .iter()
                    .find(|(s, _)| s == n)
                    .map(|(_, t)| t.to_string())
                    .unwrap_or_default();
                (format!("<stdlib>/{n}.toy"), None, text)
            }
            Key::Path(p) => {
                let text = match std::fs::read(p).map(String::from_utf8) {
                    Ok(Ok(t)) => t,
                    Ok(Err(e)) => {
                        let at = e.utf8_error().valid_up_to();
                        self.diags.push(
                            Diagnostic::error(
                                imp.name.span,
                                format!("cannot find module `{name}`"),
                            )
                            .with_label(format!(
                                "`{}` is not valid UTF-8 (invalid byte at offset {at})",
                                p.display()
                            )),
                        );
                        return None;
                    }
                    Err(e) => {
                        self.diags.push(
                            Diagnostic::error(
                                imp.name.span,
                                format!("cannot find module `{name}`"),
                            )
                            .with_label(format!("cannot read `{}`: {e}", p.display())),
                        );
                        return None;
                    }
                };
                let importer = &self.sources.get(self.modules[m].file).name;
                let shown = match Path::new(importer).parent() {
                    Some(d) if !d.as_os_str().is_empty() => {
                        d.join(format!("{name}.toy")).display().to_string()
                    }
                    _ => format!("{name}.toy"),
                };
                (shown, Some(p.clone()), text)
            }
        };
        let file = self.sources.add(display, path, text);
        let t = self.add_module(name.clone(), file, false, Some(key));
        self.visit(t);
        Some(t)
    }

    /// Where `import name;` in module `m` points, or why it points nowhere.
    fn find(&self, m: usize, name: &str) -> Result<Key, String> {
        let file = self.sources.get(self.modules[m].file);
        let std = STDLIB.iter().any(|(s, _)| *s == name);
        if let Some(dir) = file.path.as_deref().and_then(Path::parent) {
            let candidate = dir.join(format!("{name}.toy"));
            if candidate.is_file() {
                let candidate = candidate.canonicalize().unwrap_or(candidate);
                // A file never imports itself when a stdlib module of that
                // name exists (`math.toy` may use `import math;`).
                if !(std && file.path.as_deref() == Some(candidate.as_path())) {
                    return Ok(Key::Path(candidate));
                }
            }
        }
        if std {
            return Ok(Key::Std(name.to_string()));
        }
        let stdlib: Vec<&str> = STDLIB.iter().map(|(s, _)| *s).collect();
        Err(format!(
            "no `{name}.toy` beside this file, and the standard library has only {}",
            stdlib.join(", ")
        ))
    }
}

impl ModuleInfo {
    /// The module an import name of this module refers to; marks the
    /// import used (for the unused-import warning).
    pub(super) fn import_target(&self, name: &str) -> Option<Option<usize>> {
        match self.items.get(name) {
            Some((ItemRef::Import(t), _)) => {
                self.used_imports.borrow_mut().insert(name.to_string());
                Some(*t)
            }
            _ => None,
        }
    }
}
