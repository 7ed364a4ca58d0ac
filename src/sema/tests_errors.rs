//! Sema error tests: exact headlines (docs/diagnostics.md) at exact
//! `line:col`, all errors reported, no cascades.

use super::tests::{check_dir, errors_of, errs, temp_dir};

fn one(src: &str, expected: &str) {
    assert_eq!(errs(src), [expected], "program:\n{src}");
}

#[test]
fn unknown_names() {
    one(
        "fn main() { let a = b + 1; }",
        "1:21: cannot find value `b` in this scope",
    );
    one("fn main() { foo(1); }", "1:13: cannot find function `foo`");
    one(
        "fn main() { let p: Pt = nil; }",
        "1:20: cannot find type `Pt`",
    );
    one(
        "fn main() { let p = Pt { x: 1 }; }",
        "1:21: cannot find type `Pt`",
    );
    one(
        "import math;\nfn main() { math.nope(1); }",
        "2:18: module `math` has no item `nope`",
    );
    one(
        "import math;\nfn main() { let x = math.TAU; }",
        "2:26: module `math` has no item `TAU`",
    );
    one(
        "fn main() { let x = len; }",
        "1:21: cannot find value `len` in this scope",
    );
}

#[test]
fn modules_as_values() {
    one(
        "import math;\nfn main() { let m = math; }",
        "2:21: `math` is a module, not a value",
    );
    one(
        "import math;\nfn main() { math(1); }",
        "2:13: `math` is a module, not a value",
    );
}

#[test]
fn not_a_function() {
    one(
        "fn main() { let x = 1; x(2); }",
        "1:24: `x` is not a function",
    );
    one(
        "struct P { f: int }\nfn main() { let p = P { f: 1 }; p.f(); }",
        "2:33: `p.f` is not a function",
    );
}

#[test]
fn mismatched_types() {
    one(
        "fn main() { let x: int = \"s\"; }",
        "1:26: mismatched types: expected `int`, found `str`",
    );
    one(
        "fn f(a: float) {}\nfn main() { f(1); }",
        "2:15: mismatched types: expected `float`, found `int`",
    );
    one(
        "fn main() { if 1 { } }",
        "1:16: mismatched types: expected `bool`, found `int`",
    );
    one(
        "fn main() { var a = [1]; a[0] = 1.5; }",
        "1:33: mismatched types: expected `int`, found `float`",
    );
    one(
        "fn main() { let a = [1, \"x\"]; }",
        "1:25: mismatched types: expected `int`, found `str`",
    );
    one(
        "fn main() { let a: int = nil; }",
        "1:26: mismatched types: expected `int`, found `nil`",
    );
    one(
        "fn main() { throw 1; }",
        "1:19: mismatched types: expected `str`, found `int`",
    );
    one(
        "fn main() { let x = len(1); }",
        "1:25: mismatched types: expected an array or `str`, found `int`",
    );
    one(
        "fn main() { let x = str([1]); }",
        "1:25: mismatched types: expected `int`, `float`, `bool` or `str`, found `[int]`",
    );
    one(
        "fn main() { push([1], \"a\"); }",
        "1:23: mismatched types: expected `int`, found `str`",
    );
}

#[test]
fn operators() {
    one(
        "fn main() { let x = true + false; }",
        "1:21: cannot apply `+` to `bool` and `bool`",
    );
    one(
        "fn main() { let x = 1 + 2.0; }",
        "1:21: cannot apply `+` to `int` and `float`",
    );
    one(
        "fn main() { let x = 1.0 & 2.0; }",
        "1:21: cannot apply `&` to `float` and `float`",
    );
    one(
        "fn main() { let x = true < false; }",
        "1:21: cannot apply `<` to `bool` and `bool`",
    );
    one(
        "fn main() { let x = [1] == [1]; }",
        "1:21: cannot apply `==` to `[int]` and `[int]`",
    );
    one(
        "fn main() { let x = -true; }",
        "1:21: cannot apply `-` to `bool`",
    );
    one(
        "fn main() { let x = !1; }",
        "1:21: cannot apply `!` to `int`",
    );
    one(
        "fn main() { let x = 1 && true; }",
        "1:21: cannot apply `&&` to `int` and `bool`",
    );
    one(
        "fn main() { var s = \"a\"; s -= \"b\"; }",
        "1:26: cannot apply `-=` to `str` and `str`",
    );
    one(
        "fn main() { var n = 1; n += 1.0; }",
        "1:24: cannot apply `+=` to `int` and `float`",
    );
}

#[test]
fn arity() {
    one(
        "fn f(a: int) {}\nfn main() { f(); }",
        "2:13: function `f` takes 1 argument but 0 were given",
    );
    one(
        "fn f(a: int, b: int) {}\nfn main() { f(1); }",
        "2:13: function `f` takes 2 arguments but 1 was given",
    );
    one(
        "fn main() { let x = len(\"a\", \"b\"); }",
        "1:21: function `len` takes 1 argument but 2 were given",
    );
    one(
        "fn main() { assert(true, \"a\", \"b\"); }",
        "1:13: function `assert` takes 1 or 2 arguments but 3 were given",
    );
    one(
        "fn main() { let t = clock(1); }",
        "1:21: function `clock` takes 0 arguments but 1 was given",
    );
}

#[test]
fn assignments() {
    one(
        "fn main() { let x = 1; x = 2; }",
        "1:24: cannot assign to immutable `x`",
    );
    one(
        "let g = 1;\nfn main() { g += 1; }",
        "2:13: cannot assign to immutable `g`",
    );
    one(
        "fn main() { for i in 0..3 { i = 1; } }",
        "1:29: cannot assign to immutable `i`",
    );
    one(
        "fn main() { try { } catch e { e = \"x\"; } }",
        "1:31: cannot assign to immutable `e`",
    );
    one(
        "import math;\nfn main() { math.PI = 3.0; }",
        "2:13: cannot assign to immutable `math.PI`",
    );
    one("fn main() { 1 = 2; }", "1:13: invalid assignment target");
    one(
        "fn main() { let s = \"ab\"; s[0] = 1; }",
        "1:27: invalid assignment target",
    );
    one(
        "fn f() {}\nfn main() { f = 1; }",
        "2:13: invalid assignment target",
    );
}

#[test]
fn control_flow() {
    one("fn main() { break; }", "1:13: `break` outside of a loop");
    one(
        "fn main() { if true { continue; } }",
        "1:23: `continue` outside of a loop",
    );
    one(
        "fn main() { while true { break 'x; } }",
        "1:32: cannot find label `'x`",
    );
    one(
        "fn main() { 'a: while true { 'a: while true { break 'a; } break; } }",
        "1:30: label `'a` is already in use",
    );
    one(
        "fn f() -> int { }\nfn main() { f(); }",
        "1:4: function `f` must return `int` on every path",
    );
    one(
        "fn f(x: int) -> int { if x > 0 { return 1; } }\nfn main() { f(1); }",
        "1:4: function `f` must return `int` on every path",
    );
    one(
        "fn f() -> int { while true { break; } }\nfn main() { f(); }",
        "1:4: function `f` must return `int` on every path",
    );
    one(
        "fn f() { return 1; }\nfn main() { f(); }",
        "1:17: mismatched types: expected nothing, found `int`",
    );
    one(
        "fn f() -> str { return; }\nfn main() { f(); }",
        "1:17: mismatched types: expected `str`, found nothing",
    );
}

#[test]
fn structs() {
    let pt = "struct Point { x: float, y: float }\n";
    one(
        &format!("{pt}fn main() {{ let p = Point {{ x: 1.0 }}; }}"),
        "2:21: missing field `y` in `Point` literal",
    );
    one(
        &format!("{pt}fn main() {{ let p = Point {{ x: 1.0, y: 2.0, x: 3.0 }}; }}"),
        "2:45: field `x` given twice",
    );
    one(
        &format!("{pt}fn main() {{ let p = Point {{ x: 1.0, y: 2.0, z: 3.0 }}; }}"),
        "2:45: no field `z` on `Point`",
    );
    one(
        &format!("{pt}fn main() {{ let p = Point {{ x: 1.0, y: 2.0 }}; let z = p.z; }}"),
        "2:57: no field `z` on `Point`",
    );
    one(
        "fn main() { let a = 1; let b = a.x; }",
        "1:34: no field `x` on `int`",
    );
    one(
        "fn main() { let a = 1; let b = a[0]; }",
        "1:32: cannot index `int`",
    );
    one(
        "fn main() { for x in 5 { } }",
        "1:22: cannot iterate over `int`",
    );
}

#[test]
fn inference_failures() {
    one(
        "fn main() { let p = nil; }",
        "1:21: cannot infer the type of `nil`",
    );
    one(
        "fn main() { let a = []; }",
        "1:21: cannot infer the element type of `[]`",
    );
    one(
        "fn main() { print(nil); }",
        "1:19: cannot infer the type of `nil`",
    );
}

#[test]
fn void_results() {
    one(
        "fn f() {}\nfn main() { let x = f(); }",
        "2:21: cannot use the result of `f`: it returns nothing",
    );
    one(
        "fn f() {}\nfn main() { let x: int = f(); }",
        "2:26: mismatched types: expected `int`, found nothing",
    );
    one(
        "fn main() { print(push([1], 2)); }",
        "1:19: cannot use the result of `push`: it returns nothing",
    );
}

#[test]
fn duplicates() {
    one(
        "fn f() {}\nfn f() {}\nfn main() {}",
        "2:4: duplicate definition of `f`",
    );
    one(
        "struct S { a: int, a: int }\nfn main() {}",
        "1:20: duplicate definition of `a`",
    );
    one(
        "fn f(a: int, a: int) {}\nfn main() {}",
        "1:14: duplicate definition of `a`",
    );
    one(
        "let x = 1;\nstruct x { a: int }\nfn main() {}",
        "2:8: duplicate definition of `x`",
    );
    one(
        "import math;\nimport math;\nfn main() {}",
        "2:8: duplicate definition of `math`",
    );
    one(
        "fn len(a: int) -> int { return a; }\nfn main() {}",
        "1:4: duplicate definition of `len`",
    );
}

#[test]
fn main_function() {
    one("fn helper() {}", "1:1: no `main` function in `test.toy`");
    one(
        "fn main(a: int) {}",
        "1:4: `main` must be `fn main()` or `fn main() -> int`",
    );
    one(
        "fn main() -> str { return \"\"; }",
        "1:4: `main` must be `fn main()` or `fn main() -> int`",
    );
}

#[test]
fn globals_before_initialisation() {
    one(
        "let a = b;\nlet b = 1;\nfn main() {}",
        "1:9: cannot use global `b` before it is initialised",
    );
}

#[test]
fn every_error_in_source_order_without_cascades() {
    let e = errs(
        "fn main() {
    let a = nope + 1;
    let b = a * 2;
    let c: int = \"s\";
    let d = c.field;
    undefined(a, also_missing);
}",
    );
    assert_eq!(
        e,
        [
            "2:13: cannot find value `nope` in this scope",
            "4:18: mismatched types: expected `int`, found `str`",
            "5:15: no field `field` on `int`",
            "6:5: cannot find function `undefined`",
            "6:18: cannot find value `also_missing` in this scope",
        ]
    );
}

#[test]
fn module_errors() {
    one(
        "import nowhere;\nfn main() {}",
        "1:8: cannot find module `nowhere`",
    );
    let dir = temp_dir(
        "cycle",
        &[
            ("main.toy", "import a;\nfn main() { a.f(); }\n"),
            ("a.toy", "import b;\nfn f() {}\n"),
            ("b.toy", "import a;\nfn g() {}\n"),
        ],
    );
    let (sm, r) = check_dir(&dir);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    let a = dir.join("b.toy").display().to_string();
    assert_eq!(e, [format!("{a}:1:8: import cycle: a -> b -> a")]);
    let dir2 = temp_dir(
        "errors-in-module",
        &[
            (
                "main.toy",
                "import geom;\nfn main() { let p = geom.Point { x: 1 }; }\n",
            ),
            (
                "geom.toy",
                "struct Point { x: float }\nfn bad() -> int { return \"s\"; }\n",
            ),
        ],
    );
    let (sm, r) = check_dir(&dir2);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    let main = dir2.join("main.toy").display().to_string();
    let geom = dir2.join("geom.toy").display().to_string();
    assert_eq!(
        e,
        [
            format!("{main}:2:37: mismatched types: expected `float`, found `int`"),
            format!("{geom}:2:26: mismatched types: expected `int`, found `str`"),
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}

#[test]
fn cycles_through_the_main_file_and_self_imports() {
    let dir = temp_dir(
        "cycle-main",
        &[
            ("main.toy", "import a;\nfn main() {}\n"),
            ("a.toy", "import main;\n"),
        ],
    );
    let (sm, r) = check_dir(&dir);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    assert_eq!(
        e,
        [format!(
            "{}:1:8: import cycle: main -> a -> main",
            dir.join("a.toy").display()
        )]
    );
    // A file named like a stdlib module importing that name gets the stdlib.
    let dir2 = temp_dir(
        "self-import",
        &[(
            "main.toy",
            "import math;\nfn main() { print(math.gcd(4, 6)); }\n",
        )],
    );
    std::fs::rename(dir2.join("main.toy"), dir2.join("math.toy")).expect("rename");
    let mut sm = crate::span::SourceMap::new();
    let main = crate::driver::load_main_file(&dir2.join("math.toy"), &mut sm).expect("main file");
    let r = super::analyze(&mut sm, main);
    assert!(
        r.is_ok(),
        "{:?}",
        errors_of(&sm, &r.err().unwrap_or_default())
    );
    // Without a stdlib module of that name, importing oneself is a cycle.
    let dir3 = temp_dir(
        "self-cycle",
        &[("selfie.toy", "import selfie;\nfn main() {}\n")],
    );
    let mut sm = crate::span::SourceMap::new();
    let main = crate::driver::load_main_file(&dir3.join("selfie.toy"), &mut sm).expect("main file");
    let r = super::analyze(&mut sm, main);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    assert_eq!(
        e,
        [format!(
            "{}:1:8: import cycle: selfie -> selfie",
            dir3.join("selfie.toy").display()
        )]
    );
    for d in [dir, dir2, dir3] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn local_modules_shadow_the_stdlib() {
    let dir = temp_dir(
        "shadow-std",
        &[
            (
                "main.toy",
                "import math;\nfn main() { print(math.twice(2)); let g = math.gcd(1, 2); }\n",
            ),
            ("math.toy", "fn twice(x: int) -> int { return 2 * x; }\n"),
        ],
    );
    let (sm, r) = check_dir(&dir);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    assert_eq!(
        e,
        [format!(
            "{}:2:48: module `math` has no item `gcd`",
            dir.join("main.toy").display()
        )]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn names_resolve_in_their_own_module() {
    let dir = temp_dir(
        "own-module",
        &[
            (
                "main.toy",
                "import geom;\nstruct Point { z: int }\nfn main() { let p: geom.Point = geom.origin(); let q = Point { z: 1 }; let r: Point = p; }\n",
            ),
            (
                "geom.toy",
                "struct Point { x: float }\nlet ZERO = 0.0;\nfn origin() -> Point { return Point { x: ZERO }; }\n",
            ),
        ],
    );
    let (sm, r) = check_dir(&dir);
    let e = errors_of(&sm, &r.err().unwrap_or_default());
    let main = dir.join("main.toy").display().to_string();
    assert_eq!(
        e,
        [format!(
            "{main}:3:87: mismatched types: expected `Point`, found `geom.Point`"
        )]
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn no_cascades_from_unknown_types_and_failed_imports() {
    assert_eq!(
        errs(
            "import nowhere;\nfn f(p: Missing) -> Missing { return p; }\nfn main() { let x = f(nil); let y = nowhere.g(1) + x; let z: nowhere.T = nil; }"
        ),
        [
            "1:8: cannot find module `nowhere`",
            "2:9: cannot find type `Missing`",
            "2:21: cannot find type `Missing`"
        ]
    );
}

#[test]
fn sema_runs_on_the_recovered_tree_without_cascades() {
    let e = errs(
        "fn main() {\n    let x = 1 +;\n    let y: int = \"s\";\n    if x > { }\n    print(x);\n}\n",
    );
    assert!(
        e.contains(&"3:18: mismatched types: expected `int`, found `str`".to_string()),
        "{e:?}"
    );
    // Only syntax errors besides: nothing about `x`, whose initialiser did not parse.
    assert!(
        e.iter()
            .all(|m| !m.contains("`x`") && !m.contains("cannot apply")),
        "{e:?}"
    );
    // A `main` that did not parse is not also reported missing.
    let e = errs("fn main( {\n}\n");
    assert!(
        !e.is_empty() && e.iter().all(|m| !m.contains("no `main`")),
        "{e:?}"
    );
}

#[test]
fn chained_comparisons_are_only_a_syntax_error() {
    assert_eq!(
        errs(
            "fn main() {\n    print(1 < 2 < 3);\n    let b = (1 < 2) == true;\n    let c = (1 < 2) < 3;\n}\n"
        ),
        // The whole expression `(1 < 2) < 3` starts at its `(`.
        [
            "2:17: comparison operators cannot be chained",
            "4:13: cannot apply `<` to `bool` and `int`"
        ]
    );
}

#[test]
fn unknown_names_get_suggestions() {
    let src = "import math;\nstruct Point { x: float }\nfn main() {\n    let count = 1;\n    print(conut);\n    print(gcd(4, 6));\n    print(lenn(\"a\"));\n    let p = Point { x: 1.0 };\n    print(p.xx);\n    print(math.gdc(1, 2));\n    let q: Piont = nil;\n    print(zebra);\n}\n";
    let Err(diags) = super::tests::check(src) else {
        panic!("no errors")
    };
    let notes: Vec<String> = diags.iter().map(|d| d.notes.join("; ")).collect();
    assert_eq!(
        notes,
        [
            "did you mean `count`?",
            "`gcd` is defined in module `math`: write `math.gcd`",
            "did you mean `len`?",
            "did you mean `x`?",
            "did you mean `gcd`?",
            "did you mean `Point`?",
            "",
        ]
    );
}

#[test]
fn globals_read_before_initialisation_through_calls() {
    // Through a chain of calls, including a recursive cycle.
    one(
        "let a = f(1);\nlet b = [1];\nfn f(n: int) -> int { if n > 0 { return g(n - 1); } return 0; }\nfn g(n: int) -> int { if n > 5 { return len(b); } return f(n); }\nfn main() {}",
        "1:9: cannot use global `b` before it is initialised",
    );
    // A compound assignment reads; a global reading itself through a call.
    one(
        "var c = bump();\nfn bump() -> int { c += 1; return c; }\nfn main() {}",
        "1:9: cannot use global `c` before it is initialised",
    );
    // Reading earlier globals and writing later ones is fine; functions of
    // imported modules are initialised first.
    assert_eq!(
        errs(
            "import math;\nlet x = 2;\nlet y = twice() + math.abs(-1);\nvar z = 0;\nfn twice() -> int { z = 1; return 2 * x; }\nfn main() {}"
        ),
        ["<no errors>"]
    );
}
