//! Warning tests with exact messages and positions: edge values of literal
//! comparisons, shadowing, compound assignment, calls from global
//! initialisers, nested unreachable code. lang-tests/warnings/ has the
//! rest (every kind, imported modules, the command line's effect).

use super::tests::errors_of;
use crate::span::SourceMap;

/// The warnings of `src` (which must have no errors) as `line:col: message`.
fn warnings(src: &str) -> Vec<String> {
    let mut sm = SourceMap::new();
    let f = sm.add("test.toy".into(), None, src.into());
    match super::check(&mut sm, f) {
        Ok(c) => errors_of(&sm, &c.warnings)
            .into_iter()
            .map(|s| s.trim_start_matches("test.toy:").to_string())
            .collect(),
        Err(_) => vec!["<errors>".into()],
    }
}

#[test]
fn literal_comparisons_follow_toy_semantics() {
    let src = "fn main() {\n\
               print(-9223372036854775808 < 0, -0.0 == 0.0, \"\u{e9}\" > \"z\", \"ab\" < \"a\");\n\
               }\n";
    assert_eq!(
        warnings(src),
        [
            "2:7: comparison is always true",
            "2:33: comparison is always true",
            "2:46: comparison is always true",
            "2:57: comparison is always false",
        ]
    );
}

#[test]
fn a_shadowed_local_is_its_own_variable() {
    let src = "fn main() {\n    let x = 1;\n    let x = 2;\n    print(x);\n}\n";
    assert_eq!(warnings(src), ["2:9: unused variable `x`"]);
}

#[test]
fn compound_assignment_is_not_a_read_and_reading_in_the_value_is() {
    let src = "fn main() {\n    var a = 1;\n    a += 1;\n    var b = 1;\n    b = b + 1;\n}\n";
    assert_eq!(
        warnings(src),
        ["2:9: variable `a` is assigned to, but never used"]
    );
}

#[test]
fn a_function_used_only_by_a_global_initialiser_is_used() {
    let src = "let G = f();\nfn f() -> int {\n    return 1;\n}\nfn main() {\n    print(G);\n}\n";
    assert_eq!(warnings(src), Vec::<String>::new());
}

#[test]
fn unreachable_is_reported_once_per_block_and_in_nested_blocks() {
    let src = "fn main() {\n    return;\n    {\n        return;\n        print(1);\n    }\n    print(2);\n}\n";
    assert_eq!(
        warnings(src),
        ["3:5: unreachable statement", "5:9: unreachable statement"]
    );
}
