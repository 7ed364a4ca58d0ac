//! THE table of runtime functions and builtins: every fact about a runtime
//! function (IR name, signature, may-throw, memory effect, allocation,
//! symbol) and about a Toy builtin (name, arity, signature, which runtime
//! functions it lowers to) is written here once. Sema (builtin typing),
//! SSA construction (may-throw, statement flags), the IR verifier
//! (runtime signatures), the alias analysis (effects), codegen (machine
//! signatures, symbol imports) and the interpreter (type-tag arguments)
//! read it. A base module: it imports nothing of the compiler but `types`.
//!
//! Invariants (checked by the tests at the end and by `tests/it/rtfns.rs`):
//! - `RUNTIME[f as usize].func == f` and `BUILTINS[b as usize].builtin == b`
//!   (rows in enum order, so [`RuntimeFn::row`] is an index).
//! - A builtin with a fixed signature that lowers to exactly one runtime
//!   function has that function's parameter and result types.
//! - Every symbol here is exported by `runtime::symbols()`, and every
//!   exported symbol is here or one of codegen's own entry points
//!   (`codegen::rtfn::internal`).
//!
//! How to add a builtin: ARCHITECTURE.md, "Adding a builtin".

use crate::types::Type;

/// A parameter or result type of a runtime function or builtin. The
/// generic ones (`Ref`, `Array`, `Elem`) are checked against the operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Void,
    Int,
    Float,
    Bool,
    Str,
    /// `[str]`.
    StrArray,
    /// Any reference (string, array or struct); passed as a pointer.
    Ref,
    /// Any array `[T]`; binds `T` for `Elem`.
    Array,
    /// The element type `T` of the `Array` parameter; crosses the machine
    /// boundary as its 8-byte slot image.
    Elem,
}

impl Ty {
    /// The Toy type, for the non-generic types.
    pub fn concrete(self) -> Option<Type> {
        Some(match self {
            Ty::Void => Type::Void,
            Ty::Int => Type::Int,
            Ty::Float => Type::Float,
            Ty::Bool => Type::Bool,
            Ty::Str => Type::Str,
            Ty::StrArray => Type::Array(Box::new(Type::Str)),
            Ty::Ref | Ty::Array | Ty::Elem => return None,
        })
    }
}

/// What a runtime function does besides computing its result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing: no Toy-visible memory, no outside state (strings are
    /// immutable, so making one is pure). Removable when unused unless it
    /// may throw.
    Pure,
    /// Outside state only (output, the clock, ending the process); touches
    /// no Toy-visible memory.
    Io,
    /// Output that reads every location reachable from its argument.
    ReadsReachable,
    /// Reads and writes the length and elements of its first argument, an
    /// array (`push`, `pop`).
    UpdatesArray,
    /// Reads the Bril memory slot its first argument points to (`load`).
    ReadsBrilSlot,
    /// Writes the Bril memory slot its first argument points to (`store`).
    WritesBrilSlot,
    /// Reads and writes the Bril heap as a whole: which allocations exist
    /// (`alloc`, `free`, the leak check at the end of `main`).
    UpdatesBrilHeap,
}

/// A type tag the machine-level call takes after the IR arguments (the
/// tag numbering is codegen's and the interpreter's).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TagArg {
    /// The tag of the first argument's static type.
    OfArg,
    /// The tag of the result type.
    OfResult,
}

/// Functions of the Rust runtime (`extern "C"`, in `src/runtime/`) that the
/// IR calls (`Inst::Runtime`). Facts about each are in its [`RtRow`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeFn {
    PrintInt,
    PrintFloat,
    PrintBool,
    PrintStr,
    /// Writes a composite value (array/struct) with nested strings quoted.
    PrintValue,
    PrintSpace,
    PrintNewline,
    Clock,
    Exit,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Atan,
    Atan2,
    Exp,
    Ln,
    Pow,
    Floor,
    Ceil,
    Fabs,
    FMod,
    StrConcat,
    StrEq,
    StrCmp,
    StrLen,
    StrByte,
    StrOfInt,
    StrOfFloat,
    StrOfBool,
    Substr,
    Chr,
    Fixed,
    ParseInt,
    ParseFloat,
    ArrayPush,
    ArrayPop,
    Args,
    ReadLine,
    AtEof,
    ReadAll,
    ReadFile,
    WriteFile,
    /// Bril's memory extension (`runtime/bril.rs`): pointers are ints.
    BrilAlloc,
    BrilFree,
    BrilLoadInt,
    BrilLoadFloat,
    BrilLoadBool,
    BrilStoreInt,
    BrilStoreFloat,
    BrilStoreBool,
    /// Memory still allocated when Bril's `main` returns is an error.
    BrilCheckLeaks,
    /// A float as `brili` prints it (JavaScript's `toFixed(17)`).
    BrilPrintFloat,
    /// A Bril char (a Unicode scalar value).
    BrilPrintChar,
    BrilFloatToBits,
    BrilBitsToFloat,
}

/// One runtime function. The machine-level call (codegen and the
/// interpreter alike) passes the IR arguments, then the type tag if `tag`,
/// then the statement's position id if `may_throw`.
#[derive(Copy, Clone, Debug)]
pub struct RtRow {
    pub func: RuntimeFn,
    /// How `toyc ir` prints it (`runtime print_int(..)`).
    pub ir_name: &'static str,
    pub params: &'static [Ty],
    pub ret: Ty,
    /// May return with an exception pending (the IR checks `NoException`
    /// after the call).
    pub may_throw: bool,
    pub effect: Effect,
    /// May allocate heap memory (a new object, a grown array buffer or an
    /// exception message): a function returning a string or an array, and
    /// one that may throw, allocates.
    pub allocates: bool,
    /// The `extern "C"` symbol; `None` when there is no such function and
    /// codegen and the interpreter always inline it.
    pub symbol: Option<&'static str>,
    pub tag: Option<TagArg>,
}

const fn rt(
    func: RuntimeFn,
    ir_name: &'static str,
    params: &'static [Ty],
    ret: Ty,
    effect: Effect,
    symbol: Option<&'static str>,
) -> RtRow {
    RtRow {
        func,
        ir_name,
        params,
        ret,
        may_throw: false,
        effect,
        allocates: false,
        symbol,
        tag: None,
    }
}

impl RtRow {
    const fn throws(mut self) -> RtRow {
        self.may_throw = true;
        self
    }
    const fn allocates(mut self) -> RtRow {
        self.allocates = true;
        self
    }
    const fn tag(mut self, t: TagArg) -> RtRow {
        self.tag = Some(t);
        self
    }
}

use Effect::{
    Io, Pure, ReadsBrilSlot, ReadsReachable, UpdatesArray, UpdatesBrilHeap, WritesBrilSlot,
};
use RuntimeFn as R;
use Ty::{Array, Bool, Elem, Float, Int, Ref, Str, StrArray, Void};

/// Every runtime function, in [`RuntimeFn`] order: function, IR name,
/// parameters, result, effect, symbol, then `throws()` (may throw),
/// `allocates()`, `tag(..)` where they hold.
#[rustfmt::skip]
pub const RUNTIME: [RtRow; 56] = [
    rt(R::PrintInt,     "print_int",     &[Int],           Void,     Io,             Some("toy_print_int")),
    rt(R::PrintFloat,   "print_float",   &[Float],         Void,     Io,             Some("toy_print_float")),
    rt(R::PrintBool,    "print_bool",    &[Bool],          Void,     Io,             Some("toy_print_bool")),
    rt(R::PrintStr,     "print_str",     &[Str],           Void,     Io,             Some("toy_print_str")),
    rt(R::PrintValue,   "print_value",   &[Ref],           Void,     ReadsReachable, Some("toy_print_value")).tag(TagArg::OfArg),
    rt(R::PrintSpace,   "print_space",   &[],              Void,     Io,             Some("toy_print_space")),
    rt(R::PrintNewline, "print_newline", &[],              Void,     Io,             Some("toy_print_newline")),
    rt(R::Clock,        "clock",         &[],              Float,    Io,             Some("toy_clock")),
    rt(R::Exit,         "exit",          &[Int],           Void,     Io,             Some("toy_exit")),
    rt(R::Sqrt,         "sqrt",          &[Float],         Float,    Pure,           Some("toy_sqrt")),
    rt(R::Sin,          "sin",           &[Float],         Float,    Pure,           Some("toy_sin")),
    rt(R::Cos,          "cos",           &[Float],         Float,    Pure,           Some("toy_cos")),
    rt(R::Tan,          "tan",           &[Float],         Float,    Pure,           Some("toy_tan")),
    rt(R::Atan,         "atan",          &[Float],         Float,    Pure,           Some("toy_atan")),
    rt(R::Atan2,        "atan2",         &[Float, Float],  Float,    Pure,           Some("toy_atan2")),
    rt(R::Exp,          "exp",           &[Float],         Float,    Pure,           Some("toy_exp")),
    rt(R::Ln,           "ln",            &[Float],         Float,    Pure,           Some("toy_ln")),
    rt(R::Pow,          "pow",           &[Float, Float],  Float,    Pure,           Some("toy_pow")),
    rt(R::Floor,        "floor",         &[Float],         Float,    Pure,           Some("toy_floor")),
    rt(R::Ceil,         "ceil",          &[Float],         Float,    Pure,           Some("toy_ceil")),
    rt(R::Fabs,         "fabs",          &[Float],         Float,    Pure,           Some("toy_fabs")),
    rt(R::FMod,         "fmod",          &[Float, Float],  Float,    Pure,           Some("toy_fmod")),
    rt(R::StrConcat,    "str_concat",    &[Str, Str],      Str,      Pure,           Some("toy_str_concat")).allocates(),
    rt(R::StrEq,        "str_eq",        &[Str, Str],      Bool,     Pure,           Some("toy_str_eq")),
    rt(R::StrCmp,       "str_cmp",       &[Str, Str],      Int,      Pure,           Some("toy_str_cmp")),
    rt(R::StrLen,       "str_len",       &[Str],           Int,      Pure,           None),
    rt(R::StrByte,      "str_byte",      &[Str, Int],      Int,      Pure,           None),
    rt(R::StrOfInt,     "str_of_int",    &[Int],           Str,      Pure,           Some("toy_str_of_int")).allocates(),
    rt(R::StrOfFloat,   "str_of_float",  &[Float],         Str,      Pure,           Some("toy_str_of_float")).allocates(),
    rt(R::StrOfBool,    "str_of_bool",   &[Bool],          Str,      Pure,           Some("toy_str_of_bool")).allocates(),
    rt(R::Substr,       "substr",        &[Str, Int, Int], Str,      Pure,           Some("toy_substr")).throws().allocates(),
    rt(R::Chr,          "chr",           &[Int],           Str,      Pure,           Some("toy_chr")).throws().allocates(),
    rt(R::Fixed,        "fixed",         &[Float, Int],    Str,      Pure,           Some("toy_fixed")).allocates(),
    rt(R::ParseInt,     "parse_int",     &[Str],           Int,      Pure,           Some("toy_parse_int")).throws().allocates(),
    rt(R::ParseFloat,   "parse_float",   &[Str],           Float,    Pure,           Some("toy_parse_float")).throws().allocates(),
    rt(R::ArrayPush,    "array_push",    &[Array, Elem],   Void,     UpdatesArray,   Some("toy_array_push")).allocates(),
    rt(R::ArrayPop,     "array_pop",     &[Array],         Elem,     UpdatesArray,   Some("toy_array_pop")),
    rt(R::Args,         "args",          &[],              StrArray, Pure,           Some("toy_args")).allocates().tag(TagArg::OfResult),
    rt(R::ReadLine,     "read_line",     &[],              Str,      Io,             Some("toy_read_line")).throws().allocates(),
    rt(R::AtEof,        "at_eof",        &[],              Bool,     Io,             Some("toy_at_eof")),
    rt(R::ReadAll,      "read_all",      &[],              Str,      Io,             Some("toy_read_all")).allocates(),
    rt(R::ReadFile,     "read_file",     &[Str],           Str,      Io,             Some("toy_read_file")).throws().allocates(),
    rt(R::WriteFile,    "write_file",    &[Str, Str],      Void,     Io,             Some("toy_write_file")).throws().allocates(),
    rt(R::BrilAlloc,    "bril_alloc",    &[Int],           Int,      UpdatesBrilHeap, Some("toy_bril_alloc")).throws().allocates(),
    rt(R::BrilFree,     "bril_free",     &[Int],           Void,     UpdatesBrilHeap, Some("toy_bril_free")).throws().allocates(),
    rt(R::BrilLoadInt,  "bril_load_int", &[Int],           Int,      ReadsBrilSlot, Some("toy_bril_load_int")).throws().allocates(),
    rt(R::BrilLoadFloat,"bril_load_float",&[Int],          Float,    ReadsBrilSlot, Some("toy_bril_load_float")).throws().allocates(),
    rt(R::BrilLoadBool, "bril_load_bool",&[Int],           Bool,     ReadsBrilSlot, Some("toy_bril_load_bool")).throws().allocates(),
    rt(R::BrilStoreInt, "bril_store_int",&[Int, Int],      Void,     WritesBrilSlot, Some("toy_bril_store_int")).throws().allocates(),
    rt(R::BrilStoreFloat,"bril_store_float",&[Int, Float], Void,     WritesBrilSlot, Some("toy_bril_store_float")).throws().allocates(),
    rt(R::BrilStoreBool,"bril_store_bool",&[Int, Bool],    Void,     WritesBrilSlot, Some("toy_bril_store_bool")).throws().allocates(),
    rt(R::BrilCheckLeaks,"bril_check_leaks",&[],           Void,     UpdatesBrilHeap, Some("toy_bril_check_leaks")).throws().allocates(),
    rt(R::BrilPrintFloat,"bril_print_float",&[Float],      Void,     Io,             Some("toy_bril_print_float")),
    rt(R::BrilPrintChar,"bril_print_char",&[Int],          Void,     Io,             Some("toy_bril_print_char")),
    rt(R::BrilFloatToBits,"bril_float_to_bits",&[Float],   Int,      Pure,           Some("toy_bril_float_to_bits")),
    rt(R::BrilBitsToFloat,"bril_bits_to_float",&[Int],     Float,    Pure,           Some("toy_bril_bits_to_float")),
];

impl RuntimeFn {
    /// This function's row of [`RUNTIME`].
    pub fn row(self) -> &'static RtRow {
        &RUNTIME[self as usize]
    }

    /// Every runtime function, in enum order.
    pub fn all() -> impl Iterator<Item = RuntimeFn> {
        RUNTIME.iter().map(|r| r.func)
    }

    /// Neither throws nor has an effect: removable when unused and free to
    /// move (the `PURE` statement flags).
    pub fn is_pure(self) -> bool {
        let r = self.row();
        !r.may_throw && r.effect == Effect::Pure
    }
}

/// The built-in functions of LANGUAGE.md. Which overload is meant follows
/// from the argument types (`str(1)` vs `str(1.5)`, `len(s)` vs `len(a)`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Print,
    Write,
    Len,
    Push,
    Pop,
    /// `float(x)`
    ToFloat,
    /// `int(x)`
    ToInt,
    /// `str(x)`
    ToStr,
    Args,
    Clock,
    Exit,
    Assert,
    ParseInt,
    ParseFloat,
    Chr,
    Substr,
    Fixed,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Atan,
    Atan2,
    Exp,
    Ln,
    Pow,
    Floor,
    Ceil,
    Fabs,
    ReadLine,
    AtEof,
    ReadAll,
    ReadFile,
    WriteFile,
}

/// How sema types a builtin call.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BuiltinSig {
    /// Fixed types; a call with `n` arguments (within the arity) takes the
    /// first `n` parameters.
    Fixed { params: &'static [Ty], ret: Ty },
    /// Overloaded or generic: sema's rule for this builtin types it.
    Overloaded,
}

/// One builtin.
#[derive(Copy, Clone, Debug)]
pub struct BuiltinRow {
    pub builtin: Builtin,
    /// The Toy name.
    pub name: &'static str,
    pub min_args: usize,
    /// `None`: any number.
    pub max_args: Option<usize>,
    pub sig: BuiltinSig,
    /// Runs an explicit check that can raise (`pop` of an empty array,
    /// `assert`).
    pub checks: bool,
    /// The runtime functions a call may lower to. A `Fixed` builtin with
    /// exactly one is lowered generically: one call with its arguments.
    pub calls: &'static [RuntimeFn],
}

const fn fixed(
    builtin: Builtin,
    name: &'static str,
    params: &'static [Ty],
    ret: Ty,
    calls: &'static [RuntimeFn],
) -> BuiltinRow {
    BuiltinRow {
        builtin,
        name,
        min_args: params.len(),
        max_args: Some(params.len()),
        sig: BuiltinSig::Fixed { params, ret },
        checks: false,
        calls,
    }
}

const fn overloaded(
    builtin: Builtin,
    name: &'static str,
    args: Option<usize>,
    calls: &'static [RuntimeFn],
) -> BuiltinRow {
    BuiltinRow {
        builtin,
        name,
        min_args: match args {
            Some(n) => n,
            None => 0,
        },
        max_args: args,
        sig: BuiltinSig::Overloaded,
        checks: false,
        calls,
    }
}

impl BuiltinRow {
    const fn checks(mut self) -> BuiltinRow {
        self.checks = true;
        self
    }
    /// Trailing parameters may be left out down to `n` arguments.
    const fn min_args(mut self, n: usize) -> BuiltinRow {
        self.min_args = n;
        self
    }
}

use Builtin as B;

const PRINTS: &[RuntimeFn] = &[
    R::PrintSpace,
    R::PrintInt,
    R::PrintFloat,
    R::PrintBool,
    R::PrintStr,
    R::PrintValue,
    R::PrintNewline,
];

/// Every builtin, in [`Builtin`] order: `overloaded(builtin, name, arity
/// (`None`: any), runtime functions)` or `fixed(builtin, name, parameters,
/// result, runtime functions)`, then `checks()` (an explicit IR check may
/// raise) where it holds.
#[rustfmt::skip]
pub const BUILTINS: [BuiltinRow; 34] = [
    overloaded(B::Print,      "print",       None,            PRINTS),
    overloaded(B::Write,      "write",       None,            PRINTS),
    overloaded(B::Len,        "len",         Some(1),         &[R::StrLen]),
    overloaded(B::Push,       "push",        Some(2),         &[R::ArrayPush]),
    overloaded(B::Pop,        "pop",         Some(1),         &[R::ArrayPop]).checks(),
    overloaded(B::ToFloat,    "float",       Some(1),         &[]),
    overloaded(B::ToInt,      "int",         Some(1),         &[]),
    overloaded(B::ToStr,      "str",         Some(1),         &[R::StrOfInt, R::StrOfFloat, R::StrOfBool]),
    fixed(B::Args,       "args",        &[],                StrArray, &[R::Args]),
    fixed(B::Clock,      "clock",       &[],                Float,    &[R::Clock]),
    fixed(B::Exit,       "exit",        &[Int],             Void,     &[R::Exit]),
    fixed(B::Assert,     "assert",      &[Bool, Str],       Void,     &[]).checks().min_args(1),
    fixed(B::ParseInt,   "parse_int",   &[Str],             Int,      &[R::ParseInt]),
    fixed(B::ParseFloat, "parse_float", &[Str],             Float,    &[R::ParseFloat]),
    fixed(B::Chr,        "chr",         &[Int],             Str,      &[R::Chr]),
    fixed(B::Substr,     "substr",      &[Str, Int, Int],   Str,      &[R::Substr]),
    fixed(B::Fixed,      "fixed",       &[Float, Int],      Str,      &[R::Fixed]),
    fixed(B::Sqrt,       "sqrt",        &[Float],           Float,    &[R::Sqrt]),
    fixed(B::Sin,        "sin",         &[Float],           Float,    &[R::Sin]),
    fixed(B::Cos,        "cos",         &[Float],           Float,    &[R::Cos]),
    fixed(B::Tan,        "tan",         &[Float],           Float,    &[R::Tan]),
    fixed(B::Atan,       "atan",        &[Float],           Float,    &[R::Atan]),
    fixed(B::Atan2,      "atan2",       &[Float, Float],    Float,    &[R::Atan2]),
    fixed(B::Exp,        "exp",         &[Float],           Float,    &[R::Exp]),
    fixed(B::Ln,         "ln",          &[Float],           Float,    &[R::Ln]),
    fixed(B::Pow,        "pow",         &[Float, Float],    Float,    &[R::Pow]),
    fixed(B::Floor,      "floor",       &[Float],           Float,    &[R::Floor]),
    fixed(B::Ceil,       "ceil",        &[Float],           Float,    &[R::Ceil]),
    fixed(B::Fabs,       "fabs",        &[Float],           Float,    &[R::Fabs]),
    fixed(B::ReadLine,   "read_line",   &[],                Str,      &[R::ReadLine]),
    fixed(B::AtEof,      "at_eof",      &[],                Bool,     &[R::AtEof]),
    fixed(B::ReadAll,    "read_all",    &[],                Str,      &[R::ReadAll]),
    fixed(B::ReadFile,   "read_file",   &[Str],             Str,      &[R::ReadFile]),
    fixed(B::WriteFile,  "write_file",  &[Str, Str],        Void,     &[R::WriteFile]),
];

impl Builtin {
    /// This builtin's row of [`BUILTINS`].
    pub fn row(self) -> &'static BuiltinRow {
        &BUILTINS[self as usize]
    }

    /// The Toy name.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Every builtin, in enum order.
    pub fn all() -> impl Iterator<Item = Builtin> {
        BUILTINS.iter().map(|r| r.builtin)
    }

    pub fn from_name(name: &str) -> Option<Builtin> {
        BUILTINS.iter().find(|r| r.name == name).map(|r| r.builtin)
    }

    /// Whether a call may end with an exception pending: it runs a check
    /// or may call a runtime function that may throw.
    pub fn may_throw(self) -> bool {
        let r = self.row();
        r.checks || r.calls.iter().any(|f| f.row().may_throw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_enum_order() {
        for (i, r) in RUNTIME.iter().enumerate() {
            assert_eq!(r.func as usize, i, "RUNTIME row {i} is {:?}", r.func);
        }
        for (i, r) in BUILTINS.iter().enumerate() {
            assert_eq!(r.builtin as usize, i, "BUILTINS row {i} is {:?}", r.builtin);
        }
    }

    #[test]
    fn names_and_symbols_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for r in &RUNTIME {
            assert!(seen.insert(r.ir_name), "ir name {} twice", r.ir_name);
            if let Some(s) = r.symbol {
                assert!(seen.insert(s), "symbol {s} twice");
            }
        }
        let mut names = std::collections::HashSet::new();
        assert!(BUILTINS.iter().all(|r| names.insert(r.name)));
    }

    #[test]
    fn a_fixed_builtin_has_concrete_types_and_at_most_one_runtime_function() {
        for r in &BUILTINS {
            if let BuiltinSig::Fixed { params, ret } = r.sig {
                assert!(params.iter().all(|t| t.concrete().is_some()), "{}", r.name);
                assert!(ret.concrete().is_some(), "{}", r.name);
                assert!(r.calls.len() <= 1, "{}", r.name);
                assert!(r.min_args <= params.len(), "{}", r.name);
                assert_eq!(r.max_args, Some(params.len()), "{}", r.name);
            }
        }
    }

    #[test]
    fn made_strings_arrays_and_exceptions_allocate() {
        for r in &RUNTIME {
            let makes = matches!(r.ret, Ty::Str | Ty::StrArray) || r.may_throw;
            assert!(!makes || r.allocates, "{:?}", r.func);
        }
    }

    #[test]
    fn a_fixed_builtin_has_its_runtime_function_signature() {
        for r in &BUILTINS {
            if let (BuiltinSig::Fixed { params, ret }, [f]) = (r.sig, r.calls) {
                assert_eq!(params, f.row().params, "{}", r.name);
                assert_eq!(ret, f.row().ret, "{}", r.name);
            }
        }
    }
}
