//! Static checks of a Bril program, before lowering: every op is known
//! and not a speculation op, operands have the counts and types the op
//! needs, every variable has one type in its function, labels and callees
//! exist. What `brili` would only find when it runs an instruction is an
//! error here for every instruction, reached or not (as `brilck` does),
//! except what depends on values (division by zero, memory errors, reads
//! of variables that are undefined on the path taken).
//!
//! The result, [`Checked`], gives every function its variable types, which
//! is all the lowering needs besides the AST.
use super::ast::{BrilType, Function, Instr, Item, Program};
use crate::diag::Diagnostic;
use std::collections::HashMap;

/// Per function (same order as the program), every variable's type.
#[derive(Debug, Default)]
pub struct Checked {
    pub vars: Vec<HashMap<String, BrilType>>,
}

/// The speculation extension, which toyc does not implement.
pub const SPECULATION_OPS: [&str; 3] = ["speculate", "guard", "commit"];

use BrilType::{Bool, Char, Float, Int};

/// The operand and result types of the ops whose signature is fixed.
pub fn fixed_signature(op: &str) -> Option<(&'static [BrilType], BrilType)> {
    Some(match op {
        "add" | "mul" | "sub" | "div" => (&[Int, Int], Int),
        "eq" | "lt" | "gt" | "le" | "ge" => (&[Int, Int], Bool),
        "not" => (&[Bool], Bool),
        "and" | "or" => (&[Bool, Bool], Bool),
        "fadd" | "fmul" | "fsub" | "fdiv" => (&[Float, Float], Float),
        "feq" | "flt" | "fle" | "fgt" | "fge" => (&[Float, Float], Bool),
        "ceq" | "clt" | "cle" | "cgt" | "cge" => (&[Char, Char], Bool),
        "char2int" => (&[Char], Int),
        "int2char" => (&[Int], Char),
        "float2bits" => (&[Float], Int),
        "bits2float" => (&[Int], Float),
        _ => return None,
    })
}

/// Ops with a special rule in [`FnCheck::instr`].
const OTHER_OPS: [&str; 17] = [
    "const", "id", "jmp", "br", "call", "ret", "print", "nop", "alloc", "free", "store", "load",
    "ptradd", "set", "get", "undef", "phi",
];

pub fn check(prog: &Program) -> Result<Checked, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut seen: HashMap<&str, &Function> = HashMap::new();
    for f in &prog.functions {
        if let Some(first) = seen.insert(&f.name, f) {
            errors.push(
                Diagnostic::error(f.span, format!("function `@{}` is defined twice", f.name))
                    .with_secondary(first.span, "first defined here"),
            );
        }
    }
    let mut checked = Checked::default();
    for f in &prog.functions {
        let mut c = FnCheck {
            funcs: &seen,
            func: f,
            vars: HashMap::new(),
            errors: &mut errors,
        };
        c.collect_vars();
        c.check_labels();
        for item in &f.items {
            if let Item::Instr(i) = item {
                c.instr(i);
            }
        }
        checked.vars.push(c.vars);
    }
    if !seen.contains_key("main") && errors.is_empty() {
        let span = crate::span::Span::default();
        errors.push(Diagnostic::error(
            span,
            "the program has no `@main` function",
        ));
    }
    if errors.is_empty() {
        Ok(checked)
    } else {
        errors.sort_by_key(|d| d.span.start);
        Err(errors)
    }
}

struct FnCheck<'a, 'p> {
    funcs: &'a HashMap<&'p str, &'p Function>,
    func: &'p Function,
    vars: HashMap<String, BrilType>,
    errors: &'a mut Vec<Diagnostic>,
}

impl FnCheck<'_, '_> {
    fn err(&mut self, i: &Instr, msg: String) {
        self.errors.push(Diagnostic::error(i.span, msg));
    }

    /// Every variable's type: parameters, then destinations in order. A
    /// second definition must agree.
    fn collect_vars(&mut self) {
        for p in &self.func.params {
            if self.vars.insert(p.name.clone(), p.ty.clone()).is_some() {
                self.errors.push(Diagnostic::error(
                    p.span,
                    format!("parameter `{}` is declared twice", p.name),
                ));
            }
        }
        for item in &self.func.items {
            let Item::Instr(i) = item else { continue };
            let (Some(d), Some(t)) = (&i.dest, &i.ty) else {
                continue;
            };
            match self.vars.get(d) {
                Some(old) if old != t => {
                    let msg = format!(
                        "variable `{d}` is defined with type `{t}`, elsewhere with `{old}`"
                    );
                    self.err(i, msg);
                }
                Some(_) => {}
                None => {
                    self.vars.insert(d.clone(), t.clone());
                }
            }
        }
    }

    fn check_labels(&mut self) {
        let mut seen = std::collections::HashSet::new();
        for item in &self.func.items {
            if let Item::Label { name, span } = item
                && !seen.insert(name.as_str())
            {
                self.errors.push(Diagnostic::error(
                    *span,
                    format!("label `.{name}` is defined twice in `@{}`", self.func.name),
                ));
            }
        }
        for item in &self.func.items {
            let Item::Instr(i) = item else { continue };
            for l in &i.labels {
                if !seen.contains(l.as_str()) {
                    let msg = format!("no label `.{l}` in `@{}`", self.func.name);
                    self.err(i, msg);
                }
            }
        }
    }

    /// The type of variable `name`, or an error.
    fn var(&mut self, i: &Instr, name: &str) -> Option<BrilType> {
        let t = self.vars.get(name).cloned();
        if t.is_none() {
            self.err(i, format!("undefined variable `{name}`"));
        }
        t
    }

    fn counts(&mut self, i: &Instr, args: usize, funcs: usize, labels: usize) -> bool {
        let ok = i.args.len() == args && i.funcs.len() == funcs && i.labels.len() == labels;
        if !ok {
            let msg = format!(
                "`{}` takes {args} argument(s), {funcs} function(s) and {labels} label(s); \
                 found {}, {} and {}",
                i.op,
                i.args.len(),
                i.funcs.len(),
                i.labels.len()
            );
            self.err(i, msg);
        }
        ok
    }

    fn expect(&mut self, i: &Instr, what: &str, found: Option<BrilType>, want: &BrilType) {
        if let Some(t) = found
            && &t != want
        {
            self.err(
                i,
                format!("`{}`: {what} must be `{want}`, found `{t}`", i.op),
            );
        }
    }

    /// The destination's type, which a value op must have (and only one).
    fn dest(&mut self, i: &Instr, wants: bool) -> Option<BrilType> {
        match (wants, &i.dest, &i.ty) {
            (true, Some(_), Some(t)) => Some(t.clone()),
            (true, _, _) => {
                self.err(i, format!("`{}` needs a destination with a type", i.op));
                None
            }
            (false, None, _) => None,
            (false, Some(_), _) => {
                self.err(i, format!("`{}` has no result", i.op));
                None
            }
        }
    }

    fn instr(&mut self, i: &Instr) {
        let op = i.op.as_str();
        if SPECULATION_OPS.contains(&op) {
            let msg = format!(
                "the speculation op `{op}` is not supported: toyc does not implement Bril's \
                 speculative execution extension"
            );
            return self.err(i, msg);
        }
        if let Some((params, ret)) = fixed_signature(op) {
            let d = self.dest(i, true);
            self.expect(i, "the result", d, &ret);
            if self.counts(i, params.len(), 0, 0) {
                for (k, (a, p)) in i.args.iter().zip(params).enumerate() {
                    let t = self.var(i, a);
                    self.expect(i, &format!("argument {}", k + 1), t, p);
                }
            }
            return;
        }
        if !OTHER_OPS.contains(&op) {
            return self.err(i, format!("unknown Bril op `{op}`"));
        }
        self.special(i);
    }

    fn special(&mut self, i: &Instr) {
        let op = i.op.as_str();
        match op {
            "const" => {
                if let Some(t) = self.dest(i, true) {
                    let ok = matches!(
                        (&t, i.value),
                        (
                            Int | Float,
                            Some(super::ast::Literal::Int(_) | super::ast::Literal::Float(_))
                        ) | (Bool, Some(super::ast::Literal::Bool(_)))
                            | (Char, Some(super::ast::Literal::Char(_)))
                    );
                    if !ok {
                        self.err(
                            i,
                            format!("`const` of type `{t}` needs a literal of that type"),
                        );
                    }
                }
            }
            "id" => {
                let d = self.dest(i, true);
                if self.counts(i, 1, 0, 0) {
                    let t = self.var(i, &i.args[0]);
                    if let Some(d) = d {
                        self.expect(i, "the argument", t, &d);
                    }
                }
            }
            "jmp" => {
                self.dest(i, false);
                self.counts(i, 0, 0, 1);
            }
            "br" => {
                self.dest(i, false);
                if self.counts(i, 1, 0, 2) {
                    let t = self.var(i, &i.args[0]);
                    self.expect(i, "the condition", t, &Bool);
                }
            }
            "nop" => {
                self.dest(i, false);
                self.counts(i, 0, 0, 0);
            }
            "print" => {
                self.dest(i, false);
                for a in &i.args {
                    self.var(i, a);
                }
            }
            "ret" => self.ret(i),
            "call" => self.call(i),
            _ => self.memory_or_ssa(i),
        }
    }

    fn ret(&mut self, i: &Instr) {
        self.dest(i, false);
        match (&self.func.ret, i.args.as_slice()) {
            (None, []) => {}
            (Some(t), [a]) => {
                let t = t.clone();
                let found = self.var(i, a);
                self.expect(i, "the returned value", found, &t);
            }
            (None, _) => self.err(i, format!("`@{}` returns nothing", self.func.name)),
            (Some(t), _) => {
                let msg = format!("`@{}` must return one value of type `{t}`", self.func.name);
                self.err(i, msg);
            }
        }
    }

    fn call(&mut self, i: &Instr) {
        let [callee] = i.funcs.as_slice() else {
            return self.err(i, "`call` names one function".into());
        };
        let Some(f) = self.funcs.get(callee.as_str()).copied() else {
            return self.err(i, format!("no function `@{callee}`"));
        };
        match (&f.ret, &i.dest, &i.ty) {
            (_, None, _) => {}
            (Some(r), Some(_), Some(t)) => self.expect(i, "the result", Some(r.clone()), t),
            (None, Some(_), _) => self.err(i, format!("`@{callee}` returns nothing")),
            (Some(_), Some(_), None) => self.err(i, "`call` with a result needs its type".into()),
        }
        if i.args.len() != f.params.len() {
            let msg = format!(
                "`@{callee}` takes {} argument(s), found {}",
                f.params.len(),
                i.args.len()
            );
            return self.err(i, msg);
        }
        for (k, (a, p)) in i.args.iter().zip(&f.params).enumerate() {
            let t = self.var(i, a);
            self.expect(i, &format!("argument {}", k + 1), t, &p.ty);
        }
    }

    fn memory_or_ssa(&mut self, i: &Instr) {
        let op = i.op.as_str();
        let wants_dest = matches!(op, "alloc" | "load" | "ptradd" | "get" | "undef" | "phi");
        let d = self.dest(i, wants_dest);
        match op {
            "alloc" if self.counts(i, 1, 0, 0) => {
                if !matches!(d, Some(BrilType::Ptr(_)) | None) {
                    self.err(i, "`alloc` must have a pointer type".into());
                }
                let t = self.var(i, &i.args[0]);
                self.expect(i, "the count", t, &Int);
            }
            "free" if self.counts(i, 1, 0, 0) => {
                if let Some(t) = self.var(i, &i.args[0])
                    && !matches!(t, BrilType::Ptr(_))
                {
                    self.err(i, format!("`free` needs a pointer, found `{t}`"));
                }
            }
            "store" if self.counts(i, 2, 0, 0) => {
                let p = self.var(i, &i.args[0]);
                let v = self.var(i, &i.args[1]);
                match p {
                    Some(BrilType::Ptr(elem)) => self.expect(i, "the stored value", v, &elem),
                    Some(t) => self.err(i, format!("`store` needs a pointer, found `{t}`")),
                    None => {}
                }
            }
            "load" if self.counts(i, 1, 0, 0) => match (self.var(i, &i.args[0]), d) {
                (Some(BrilType::Ptr(elem)), Some(d)) => {
                    self.expect(i, "the result", Some(*elem), &d)
                }
                (Some(BrilType::Ptr(_)), None) | (None, _) => {}
                (Some(t), _) => self.err(i, format!("`load` needs a pointer, found `{t}`")),
            },
            "ptradd" if self.counts(i, 2, 0, 0) => {
                let p = self.var(i, &i.args[0]);
                let k = self.var(i, &i.args[1]);
                self.expect(i, "the offset", k, &Int);
                match (p, d) {
                    (Some(t @ BrilType::Ptr(_)), Some(d)) => {
                        self.expect(i, "the result", Some(t), &d)
                    }
                    (Some(BrilType::Ptr(_)), None) | (None, _) => {}
                    (Some(t), _) => self.err(i, format!("`ptradd` needs a pointer, found `{t}`")),
                }
            }
            "set" if self.counts(i, 2, 0, 0) => {
                let target = self.var(i, &i.args[0]);
                let v = self.var(i, &i.args[1]);
                if let Some(t) = target {
                    self.expect(i, "the value", v, &t);
                }
            }
            "get" | "undef" => {
                self.counts(i, 0, 0, 0);
            }
            "phi" => {
                if i.args.len() != i.labels.len() {
                    self.err(i, "`phi` takes one label per argument".into());
                }
                for a in &i.args {
                    if a == "__undefined" {
                        continue;
                    }
                    let t = self.var(i, a);
                    if let Some(d) = &d {
                        self.expect(i, "every argument", t, d);
                    }
                }
            }
            _ => {}
        }
    }
}
