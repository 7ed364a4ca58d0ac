//! `toyc ir --bril` / `--bril-json` on the command line.
use crate::driver::bril::{temp, toyc};

const SQUARES: &str = "\
fn sq(x: int) -> int {
    return x * x;
}

fn main() {
    var i = 0;
    while i < 3 {
        print(i, sq(i), i % 2 == 0);
        i += 1;
    }
}
";

#[test]
fn bril_text_runs_and_prints_what_the_toy_program_prints() {
    let toy = temp("squares.toy", SQUARES);
    let (code, want, err) = toyc(&["run", &toy]);
    assert_eq!(
        (code, want.as_str(), err.as_str()),
        (0, "0 0 true\n1 1 false\n2 4 true\n", "")
    );
    for level in ["-O0", "-O2"] {
        let (code, text, err) = toyc(&["ir", "--bril", level, &toy]);
        assert_eq!((code, err.as_str()), (0, ""), "{level}");
        assert!(
            text.starts_with("@") && text.contains("@main {"),
            "{level}: {text}"
        );
        let (code, json, err) = toyc(&["ir", "--bril-json", level, &toy]);
        assert_eq!((code, err.as_str()), (0, ""), "{level}");
        let bril = temp(&format!("squares{level}.bril"), &text);
        let json = temp(&format!("squares{level}.json"), &json);
        for file in [&bril, &json] {
            for mode in ["-O0", "--interp"] {
                let (code, out, err) = toyc(&["run", mode, file]);
                assert_eq!(
                    (code, out.as_str(), err.as_str()),
                    (0, want.as_str(), ""),
                    "{level} {mode} {file}"
                );
            }
        }
    }
}

#[test]
fn the_optimised_program_is_the_folded_one() {
    let toy = temp(
        "folded.toy",
        "fn sq(x: int) -> int {\n    return x * x;\n}\n\nfn main() {\n    print(sq(3), 1 < 2);\n}\n",
    );
    let (code, text, err) = toyc(&["ir", "--bril", "-A", "warnings", &toy]);
    assert_eq!((code, err.as_str()), (0, ""));
    let expected = "\
@main {
  %c1: int = const 9;
  %c2: bool = const true;
.b1:
  print %c1 %c2;
  ret;
}
";
    assert_eq!(text, expected);
}

#[test]
fn a_construct_without_a_bril_form_is_an_error_at_its_position() {
    let toy = temp(
        "strings.toy",
        "fn main() {\n    let n = 2;\n    print(\"n is\", n);\n}\n",
    );
    let (code, out, err) = toyc(&["ir", "--bril", &toy]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    let headline = err.lines().next().unwrap_or_default();
    assert!(
        headline.ends_with("strings.toy:3:11: cannot express strings in Bril"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bril_output_conflicts_with_the_other_ir_forms() {
    for other in ["--memssa", "--dot", "--flags", "--bril-json"] {
        let (code, _, err) = toyc(&["ir", "--bril", other, "examples/fib.toy"]);
        assert_eq!(code, 2, "{other}: {err}");
    }
}
