//! Names and types: AST modules → the typed [`hir::Program`].
//!
//! The phases, in order (each reports every error it finds and goes on):
//! 1. `modules`: load the main file and, depth first, every import; detect
//!    import cycles; record the dependencies-first order of modules.
//! 2. `items`: register every top-level name of every module (one
//!    namespace per module: imports, structs, functions, globals), then
//!    resolve struct field types and function signatures.
//! 3. `items`: type the global initialisers, modules in dependencies-first
//!    order, each module's globals in source order, into `<init>`.
//! 4. `stmt` / `expr` / `builtins`: type every function body.
//! 5. `init_order`: reject global initialisers that reach, through calls,
//!    a read of a global not yet initialised.
//! 6. `lint`: for a program without errors, the warnings (unused locals,
//!    imports and functions, `var` never reassigned, comparisons of
//!    literals; unreachable statements are found in phase 4).
//!
//! Unknown names get "did you mean" notes (`suggest`).
//!
//! Language decisions taken here (LANGUAGE.md is silent on them):
//! - Calls resolve the callee among functions only: the builtins first, then
//!   the module's functions. Values (locals, globals) never shadow a
//!   function name because Toy has no function values; a local named `len`
//!   does not stop `len(a)` from working. A top-level function (in any
//!   module) named like a builtin is a `duplicate definition` error, so a
//!   call's meaning never depends on which module it is in.
//! - Parameters are mutable locals (as in Go and Java).
//! - A global initialiser may not read a global initialised at the same
//!   point or later (itself, a later global of its module), directly or
//!   through the functions it calls: it would see an uninitialised value.
//! - A file `D/m.toy` importing `m` gets the stdlib module `m` if there is
//!   one, not itself.
//! - `exit(..)` does not end a path for the missing-return analysis.
//! - Statements after `return`/`break`/... are type-checked and kept (the
//!   first one of each block gets the unreachable-statement warning).
//!
//! Internally an expression whose type is unknown because of an earlier
//! error is `None`: no further error is reported about it (no cascades).
//! A struct literal with a wrong field is the exception: its type is known,
//! so it keeps it. A function containing a syntax error gets no
//! missing-return error (recovery may have moved its statements).

pub mod hir;

mod builtins;
mod expr;
mod init_order;
mod items;
mod lint;
mod modules;
mod stmt;
mod suggest;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_hints;
#[cfg(test)]
mod tests_lint;

use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};
use crate::syntax::ast;
use hir::{FuncId, GlobalId, LocalId, LoopId, StructId, Type};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// Parses the main file `main` (already in `sources`), loads its imports
/// (adding them to `sources`), resolves names and checks types. Returns
/// every error found, in source order per file.
pub fn analyze(sources: &mut SourceMap, main: FileId) -> Result<hir::Program, Vec<Diagnostic>> {
    check(sources, main).map(|c| c.program)
}

/// A program that type-checked, with its warnings.
pub struct Checked {
    pub program: hir::Program,
    /// Every warning, sorted by file and position (docs/diagnostics.md).
    pub warnings: Vec<Diagnostic>,
}

/// [`analyze`], keeping the warnings. Warnings are only computed for a
/// program without errors (an error's cascade would make them noise).
pub fn check(sources: &mut SourceMap, main: FileId) -> Result<Checked, Vec<Diagnostic>> {
    check_on(sources, main, &crate::par::Pool::default())
}

/// [`check`], parsing large files on `pool`'s threads.
pub fn check_on(
    sources: &mut SourceMap,
    main: FileId,
    pool: &crate::par::Pool,
) -> Result<Checked, Vec<Diagnostic>> {
    let loaded = modules::load(sources, main, pool);
    let modules::Loaded {
        modules,
        asts,
        order,
        diags,
    } = loaded;
    let mut sema = Sema::new(sources, modules, order, diags);
    sema.register_items(&asts);
    sema.resolve_signatures(&asts);
    sema.check_globals(&asts);
    sema.check_functions(&asts, pool);
    sema.check_init_reads();
    sema.check_main(&asts);
    let checked = sema.finish(pool);
    // A large program's syntax tree is freed on the workers (the work
    // estimate: about 16 statements an item).
    let items: Vec<ast::Item> = asts.into_iter().flat_map(|m| m.items).collect();
    let work = items.len() * 16;
    pool.drop_on(items, work);
    checked
}

/// The stdlib modules shipped inside the binary: (name, source).
pub const STDLIB: [(&str, &str); 3] = [
    ("math", include_str!("../../stdlib/math.toy")),
    ("arrays", include_str!("../../stdlib/arrays.toy")),
    ("strings", include_str!("../../stdlib/strings.toy")),
];

/// What a top-level name of a module stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum ItemRef {
    Struct(StructId),
    Func(FuncId),
    Global(GlobalId),
    /// An import; `None` when the module could not be loaded.
    Import(Option<usize>),
}

/// One loaded module (the main file or an import).
#[derive(Clone)]
struct ModuleInfo {
    /// The name items are qualified with (`math`); the file stem for the
    /// main file, whose items are not qualified.
    name: String,
    file: FileId,
    is_main: bool,
    /// Import name → module index (`None` if it could not be loaded).
    imports: HashMap<String, Option<usize>>,
    /// The module's namespace with the defining span of each name.
    items: HashMap<String, (ItemRef, Span)>,
    /// The imports a name resolved through (`import_target`), for the
    /// unused-import warning. A cell because name lookups take `&self`.
    used_imports: RefCell<HashSet<String>>,
}

#[derive(Clone)]
struct StructInfo {
    name: String,
    span: Span,
    fields: Vec<(String, Option<Type>, Span)>,
}

#[derive(Clone)]
struct FuncInfo {
    name: String,
    module: usize,
    /// Index of the `ast::Item::Fn` in its module.
    item: usize,
    /// Parameter names, types (`None`: erroneous) and spans.
    params: Vec<(String, Option<Type>, Span)>,
    /// `Type::Void` without `-> T`; `None` if the return type is erroneous.
    ret: Option<Type>,
    span: Span,
    name_span: Span,
}

#[derive(Clone)]
struct GlobalInfo {
    name: String,
    module: usize,
    item: usize,
    mutable: bool,
    /// Known once its initialiser is typed; `None` while unknown.
    ty: Option<Type>,
    /// Set once `<init>` has assigned it (for the use-before-init check).
    ready: bool,
    /// Its place in the initialisation order (set when its initialiser is
    /// typed).
    init_pos: Option<usize>,
    span: Span,
}

/// A loop being checked.
struct LoopCx {
    id: LoopId,
    label: Option<(String, Span)>,
    /// Whether some `break` targets this loop.
    broken: bool,
}

/// The function whose body is being checked.
#[derive(Default)]
struct FnCx {
    module: usize,
    /// Every local.
    locals: Vec<LocalCx>,
    /// Every visible binding of each name, innermost last.
    visible: HashMap<String, Vec<LocalId>>,
    /// The names declared in each open scope, innermost last.
    scopes: Vec<Vec<String>>,
    loops: Vec<LoopCx>,
    next_loop: u32,
    /// The declared return type (`Void` for none; `None` if erroneous).
    ret: Option<Type>,
    /// Name of the function, for the missing-return message.
    name: String,
    /// Checking global initialisers (in `<init>`).
    in_init: bool,
    /// The locals that no declaration can make mutable (`for` and `catch`
    /// variables), with the kind of binding, for the advice when one is
    /// assigned.
    fixed_bindings: HashMap<LocalId, FixedBinding>,
}

/// A local of the function being checked (see [`hir::LocalDef`]).
struct LocalCx {
    name: std::sync::Arc<str>,
    /// `None`: erroneous.
    ty: Option<Type>,
    mutable: bool,
    span: Span,
    assigned: bool,
}

/// A binding the language makes immutable, whatever the program writes.
#[derive(Clone, Copy)]
enum FixedBinding {
    ForVar,
    CatchVar,
}

struct Sema<'a> {
    sources: &'a SourceMap,
    modules: Vec<ModuleInfo>,
    /// Module indices, dependencies first (the main module last).
    order: Vec<usize>,
    diags: Vec<Diagnostic>,
    /// Warnings found while checking (unreachable statements, comparisons
    /// of literals); `lint` adds the rest once the program is complete.
    warnings: Vec<Diagnostic>,
    structs: Vec<StructInfo>,
    funcs: Vec<FuncInfo>,
    globals: Vec<GlobalInfo>,
    /// Typed bodies, by function id (filled by `check_functions`).
    bodies: Vec<Option<hir::Function>>,
    /// The assignments of `<init>`.
    init_stmts: Vec<hir::Stmt>,
    main: Option<FuncId>,
    /// Whether the main file has syntax errors (then a missing `main` is
    /// not reported: it may be the part that did not parse).
    main_has_syntax_errors: bool,
    /// Where the errors found while loading and parsing are (sorted by
    /// file and start): a function containing one may have been cut or
    /// merged by recovery, so its missing-return check is skipped.
    load_errors: Vec<(FileId, u32)>,
    cx: FnCx,
}

impl<'a> Sema<'a> {
    fn new(
        sources: &'a SourceMap,
        modules: Vec<ModuleInfo>,
        order: Vec<usize>,
        diags: Vec<Diagnostic>,
    ) -> Self {
        let main_has_syntax_errors = modules
            .first()
            .is_some_and(|m| diags.iter().any(|d| d.span.file == m.file));
        let mut load_errors: Vec<(FileId, u32)> =
            diags.iter().map(|d| (d.span.file, d.span.start)).collect();
        load_errors.sort_unstable();
        Sema {
            load_errors,
            sources,
            modules,
            order,
            diags,
            warnings: Vec::new(),
            structs: Vec::new(),
            funcs: Vec::new(),
            globals: Vec::new(),
            bodies: Vec::new(),
            init_stmts: Vec::new(),
            main: None,
            main_has_syntax_errors,
            cx: FnCx::default(),
        }
    }

    /// Whether a loading or syntax error lies inside `span`.
    fn has_load_error_in(&self, span: Span) -> bool {
        let first = self
            .load_errors
            .partition_point(|&e| e < (span.file, span.start));
        self.load_errors
            .get(first)
            .is_some_and(|&(f, start)| f == span.file && start <= span.end)
    }

    fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn warn(&mut self, d: Diagnostic) {
        self.warnings.push(d);
    }

    /// How a type is written in Toy.
    fn ty_name(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "nothing".into(),
            Type::Int => "int".into(),
            Type::Float => "float".into(),
            Type::Bool => "bool".into(),
            Type::Str => "str".into(),
            Type::Array(t) => format!("[{}]", self.ty_name(t)),
            Type::Struct(s) => self
                .structs
                .get(s.0 as usize)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
        }
    }

    /// The source text under a span (for messages naming an expression).
    fn text(&self, span: Span) -> &str {
        self.sources
            .get(span.file)
            .text
            .get(span.range())
            .unwrap_or("")
    }

    /// `mismatched types: expected `T`, found `U`` at `expr`, with a hint
    /// for an int literal where a float is expected.
    fn mismatch(&mut self, expr: &ast::Expr, expected: &Type, found: &Type) {
        let (e, f) = (self.quoted(expected), self.quoted(found));
        let d = Diagnostic::error(
            expr.span,
            format!("mismatched types: expected {e}, found {f}"),
        )
        .with_label(format!("expected {e}, found {f}"));
        let hint = self.int_literal_for_float(expr, expected, found);
        self.error(match hint {
            Some(h) => d.with_note(h),
            None => d,
        });
    }

    /// A type in backquotes, or `nothing` for void.
    fn quoted(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "nothing".into(),
            t => format!("`{}`", self.ty_name(t)),
        }
    }

    /// Assembles the program and its warnings, or returns every error
    /// sorted by file and position (stable, so errors at one position keep
    /// their order).
    fn finish(mut self, pool: &crate::par::Pool) -> Result<Checked, Vec<Diagnostic>> {
        if !self.diags.is_empty() {
            let mut diags = std::mem::take(&mut self.diags);
            diags.sort_by_key(|d| (d.span.file, d.span.start));
            return Err(diags);
        }
        let structs = self
            .structs
            .iter()
            .map(|s| hir::StructDef {
                name: s.name.clone(),
                fields: s
                    .fields
                    .iter()
                    .map(|(n, t, _)| hir::FieldDef {
                        name: n.clone(),
                        ty: t.clone().unwrap_or(Type::Void),
                    })
                    .collect(),
                span: s.span,
            })
            .collect();
        let globals = self
            .globals
            .iter()
            .map(|g| hir::GlobalDef {
                name: g.name.clone(),
                ty: g.ty.clone().unwrap_or(Type::Void),
                mutable: g.mutable,
                span: g.span,
            })
            .collect();
        let mut functions: Vec<hir::Function> = Vec::with_capacity(self.bodies.len() + 1);
        for (i, body) in std::mem::take(&mut self.bodies).into_iter().enumerate() {
            match body {
                Some(f) => functions.push(f),
                None => {
                    // Unreachable without an error having been reported; keep
                    // the ids dense anyway.
                    let f = &self.funcs[i];
                    functions.push(hir::Function {
                        name: f.name.clone(),
                        params: Vec::new(),
                        ret: Type::Void,
                        locals: Vec::new(),
                        body: hir::Block::default(),
                        span: f.span,
                    });
                }
            }
        }
        let init = FuncId(functions.len() as u32);
        functions.push(hir::Function {
            name: "<init>".into(),
            params: Vec::new(),
            ret: Type::Void,
            locals: Vec::new(),
            body: hir::Block {
                stmts: std::mem::take(&mut self.init_stmts),
            },
            span: Span::new(self.modules[0].file, 0, 0),
        });
        let main = self.main.unwrap_or(FuncId(0));
        let program = hir::Program {
            structs,
            globals,
            functions,
            main,
            init,
        };
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.extend(self.lint(&program, pool));
        warnings.sort_by_key(|d| (d.span.file, d.span.start));
        Ok(Checked { program, warnings })
    }
}

/// Label names are written with their `'`; accept the ident with or
/// without it.
fn label_name(l: &ast::Label) -> String {
    l.name.trim_start_matches('\'').to_string()
}
