//! Runtime values of the reference evaluator ([`super::oracle`]) and their
//! print format (docs/language.md §7), written from the language reference
//! alone.
//!
//! Invariant: arrays and structs are shared references (`Rc<RefCell<..>>`);
//! struct equality is identity (`Rc::ptr_eq`); `nil` is `Struct(sid, None)`.

use std::cell::RefCell;
use std::rc::Rc;

/// The storage of an array or a struct, shared by reference. Dropping the
/// last reference to a long chain of them (a linked list of structs)
/// frees it with a worklist, not by recursion, so no chain overflows the
/// fuzzer's stack.
#[derive(Clone, Debug)]
pub struct Shared(Rc<RefCell<Vec<Val>>>);

impl Shared {
    pub fn new(v: Vec<Val>) -> Shared {
        Shared(Rc::new(RefCell::new(v)))
    }
    /// Whether `a` and `b` are the same array or struct.
    pub fn ptr_eq(a: &Shared, b: &Shared) -> bool {
        Rc::ptr_eq(&a.0, &b.0)
    }
}

impl std::ops::Deref for Shared {
    type Target = RefCell<Vec<Val>>;
    fn deref(&self) -> &RefCell<Vec<Val>> {
        &self.0
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Each storage this drop frees is emptied into `work` first, so
        // the values dropped below never hold more than empty storage.
        let mut work = Vec::new();
        let take = |s: &Shared, work: &mut Vec<Val>| {
            if Rc::strong_count(&s.0) == 1
                && let Ok(mut items) = s.0.try_borrow_mut()
            {
                work.append(&mut items);
            }
        };
        take(self, &mut work);
        while let Some(v) = work.pop() {
            if let Val::Arr(s) | Val::Struct(_, Some(s)) = &v {
                take(s, &mut work);
            }
        }
    }
}

#[derive(Clone, Debug)]
pub enum Val {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Rc<String>),
    Arr(Shared),
    /// A struct (index into the program's structs) or `nil`.
    Struct(usize, Option<Shared>),
    /// The result of a call of a function without a return type.
    Unit,
}

impl Val {
    pub fn int(&self) -> i64 {
        match self {
            Val::Int(i) => *i,
            v => panic!("fuzz oracle: expected int, got {v:?}"),
        }
    }
    pub fn float(&self) -> f64 {
        match self {
            Val::Float(f) => *f,
            v => panic!("fuzz oracle: expected float, got {v:?}"),
        }
    }
    pub fn bool(&self) -> bool {
        match self {
            Val::Bool(b) => *b,
            v => panic!("fuzz oracle: expected bool, got {v:?}"),
        }
    }
    pub fn str(&self) -> Rc<String> {
        match self {
            Val::Str(s) => s.clone(),
            v => panic!("fuzz oracle: expected str, got {v:?}"),
        }
    }
    pub fn arr(&self) -> Shared {
        match self {
            Val::Arr(a) => a.clone(),
            v => panic!("fuzz oracle: expected array, got {v:?}"),
        }
    }
}

/// Formatting fails (`None`) when a value is nested deeper than this: a
/// cyclic struct graph, which the evaluator rejects as a program to skip.
const MAX_DEPTH: usize = 40;

/// `value` as `print` writes it; `names` are the struct names and
/// `fields` their field names.
pub fn format_top(v: &Val, structs: &[(String, Vec<String>)]) -> Option<String> {
    match v {
        Val::Str(s) => Some(s.to_string()),
        _ => {
            let mut out = String::new();
            format_nested(v, structs, 0, &mut out)?;
            Some(out)
        }
    }
}

fn format_nested(
    v: &Val,
    structs: &[(String, Vec<String>)],
    depth: usize,
    out: &mut String,
) -> Option<()> {
    if depth > MAX_DEPTH || out.len() > 1 << 16 {
        return None;
    }
    match v {
        Val::Int(i) => out.push_str(&i.to_string()),
        Val::Float(f) => out.push_str(&format!("{f:?}")),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Str(s) => out.push_str(&format!("{:?}", s.as_str())),
        Val::Arr(a) => {
            out.push('[');
            for (k, e) in a.borrow().iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                format_nested(e, structs, depth + 1, out)?;
            }
            out.push(']');
        }
        Val::Struct(_, None) => out.push_str("nil"),
        Val::Struct(sid, Some(obj)) => {
            let (name, fields) = &structs[*sid];
            out.push_str(name);
            out.push_str(" { ");
            for (k, e) in obj.borrow().iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(&fields[k]);
                out.push_str(": ");
                format_nested(e, structs, depth + 1, out)?;
            }
            out.push_str(" }");
        }
        Val::Unit => out.push_str("()"),
    }
    Some(())
}

/// `str(x)` of an int, float or bool.
pub fn to_str(v: &Val) -> String {
    match v {
        Val::Int(i) => i.to_string(),
        Val::Float(f) => format!("{f:?}"),
        Val::Bool(b) => b.to_string(),
        v => panic!("fuzz oracle: str() of {v:?}"),
    }
}

/// int `/`: `None` on division by zero; `MIN / -1 == MIN`.
pub fn int_div(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        None
    } else {
        Some(a.wrapping_div(b))
    }
}

/// int `%`: `None` on division by zero; `MIN % -1 == 0`.
pub fn int_rem(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        None
    } else {
        Some(a.wrapping_rem(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of a million structs (each `{ value, next }`) and an array
    /// nesting a million deep are freed without overflowing the stack.
    #[test]
    fn long_chains_drop_without_recursion() {
        let mut list = Val::Struct(0, None);
        for i in 0..1_000_000 {
            list = Val::Struct(0, Some(Shared::new(vec![Val::Int(i), list])));
        }
        let mut nested = Val::Arr(Shared::new(Vec::new()));
        for _ in 0..1_000_000 {
            nested = Val::Arr(Shared::new(vec![nested]));
        }
        // A second reference keeps a shared tail alive.
        let Val::Struct(_, Some(head)) = &list else {
            panic!("a struct")
        };
        let tail = head.borrow()[1].clone();
        drop(list);
        drop(nested);
        let Val::Struct(_, Some(t)) = &tail else {
            panic!("a struct")
        };
        assert_eq!(t.borrow()[0].int(), 999_998);
    }
}
