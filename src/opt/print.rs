//! `--print-before`, `--print-after` and `--print-changed`: the IR printed
//! to stderr around the passes of the pipeline, for every function or only
//! the one [`PipelineOptions::only`] names.
//!
//! - `*** IR before PASS ***` / `*** IR after PASS ***`, then the module
//!   header and the selected functions as `toyc ir` prints them.
//! - `--print-changed`: `*** IR at start (fn F) ***` with each selected
//!   function before the first pass, then `*** IR after PASS (fn F) ***`
//!   with a function only when PASS changed its text; with
//!   `--print-changed=diff`, `*** IR diff after PASS (fn F) ***` and a
//!   unified diff of the text before and after the pass instead.

use super::{Counters, PassObserver, PipelineOptions, PrintChanged, PrintSel};
use crate::ir::{IrCode, Module};
use std::collections::BTreeMap;

/// The [`PassObserver`] that prints for the `--print-*` flags.
pub struct PrintObserver<'a> {
    before: PrintSel,
    after: PrintSel,
    changed: Option<PrintChanged>,
    only: Option<String>,
    print: &'a dyn Fn(&IrCode) -> String,
    /// With `--print-changed`: each function's text after the last pass
    /// (by position in the module; passes never change the function list).
    last: Vec<String>,
    /// What the passes counted in the function `only` names.
    only_counters: Counters,
}

impl<'a> PrintObserver<'a> {
    /// Prints what `opts` asks for, each function rendered by `print`.
    pub fn new(opts: &PipelineOptions, print: &'a dyn Fn(&IrCode) -> String) -> PrintObserver<'a> {
        PrintObserver {
            before: opts.print_before.clone(),
            after: opts.print_after.clone(),
            changed: opts.print_changed,
            only: opts.only.clone(),
            print,
            last: Vec::new(),
            only_counters: Counters::default(),
        }
    }

    /// What the passes counted in the function [`PipelineOptions::only`]
    /// names (empty without one): `--stats --fn NAME`.
    pub fn counters(&self) -> &Counters {
        &self.only_counters
    }

    fn selected(&self, f: &IrCode) -> bool {
        self.only.as_ref().is_none_or(|n| *n == f.name)
    }

    /// The module header, then each selected function, separated by empty
    /// lines (as `toyc ir` prints a module).
    fn module_text(&self, module: &Module) -> String {
        let mut out = crate::ir::print::print_header(module);
        let texts: Vec<String> = module
            .funcs
            .iter()
            .filter(|f| self.selected(f))
            .map(|f| (self.print)(f))
            .collect();
        out.push_str(&texts.join("\n"));
        out
    }
}

impl PassObserver for PrintObserver<'_> {
    fn watches_each_row(&self) -> bool {
        self.before != PrintSel::None || self.after != PrintSel::None || self.changed.is_some()
    }

    fn counts_by_function(&self) -> bool {
        self.only.is_some()
    }

    fn start(&mut self, module: &Module) {
        if self.changed.is_none() {
            return;
        }
        self.last = module.funcs.iter().map(|f| (self.print)(f)).collect();
        for (f, text) in module.funcs.iter().zip(&self.last) {
            if self.selected(f) {
                eprint!("*** IR at start (fn {}) ***\n{text}", f.name);
            }
        }
    }

    fn before(&mut self, pass: &str, module: &Module) {
        if self.before.selects(pass) {
            eprint!("*** IR before {pass} ***\n{}", self.module_text(module));
        }
    }

    fn after(&mut self, pass: &str, module: &Module, counters: &BTreeMap<String, Counters>) {
        if let Some(c) = self.only.as_ref().and_then(|n| counters.get(n)) {
            for (name, &n) in &c.0 {
                self.only_counters.add(name, n);
            }
        }
        if self.after.selects(pass) {
            eprint!("*** IR after {pass} ***\n{}", self.module_text(module));
        }
        let Some(mode) = self.changed else {
            return;
        };
        for (i, f) in module.funcs.iter().enumerate() {
            let text = (self.print)(f);
            let selected = self.selected(f);
            let Some(old) = self.last.get_mut(i) else {
                continue;
            };
            if *old == text {
                continue;
            }
            if selected {
                match mode {
                    PrintChanged::Full => {
                        eprint!("*** IR after {pass} (fn {}) ***\n{text}", f.name)
                    }
                    PrintChanged::Diff => eprint!(
                        "*** IR diff after {pass} (fn {}) ***\n{}",
                        f.name,
                        unified_diff(old, &text, pass)
                    ),
                }
            }
            *old = text;
        }
    }
}

/// A unified diff (3 lines of context) of a function's text before and
/// after `pass`, with `--- before PASS` and `+++ after PASS` headers.
pub fn unified_diff(old: &str, new: &str, pass: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("before {pass}"), &format!("after {pass}"))
        .to_string()
}
