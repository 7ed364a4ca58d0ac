//! IR text in, Bril text out: each construct's translation, exactly.
use toyc::bril::print::{to_json, to_text};

/// The Bril text of an IR module, or the messages of its errors.
fn bril(ir: &str) -> Result<String, Vec<String>> {
    let module = toyc::ir::parse::parse(ir).unwrap_or_else(|e| {
        let msgs: Vec<String> = e.iter().map(|e| e.to_string()).collect();
        panic!("the test's IR does not parse: {msgs:?}")
    });
    toyc::bril_out::emit_module(&module, None)
        .map(|p| to_text(&p))
        .map_err(|d| d.into_iter().map(|d| d.message).collect())
}

const LOOP: &str = "\
fn main()
1 ─      goto #2
2 ┄ %2 = φ (#1 => 0, #3 => %9)::int
│   %3 = ilt(%2, 3)::bool
└──      goto #4 if not %3
3 ─      runtime print_int(%2)
│        runtime print_space()
│        runtime print_bool(%3)
│        runtime print_newline()
│   %9 = iadd(%2, 1)::int
└──      goto #2
4 ─      return
";

#[test]
fn a_loop_phi_is_a_get_with_a_set_on_each_edge() {
    let expected = "\
@main {
  %c1: int = const 0;
  %c2: int = const 3;
  %c3: int = const 1;
.b1:
  set %2 %c1;
.b2:
  %2: int = get;
  %3: bool = lt %2 %c2;
  br %3 .b3 .b4;
.b3:
  print %2 %3;
  %9: int = add %2 %c3;
  set %2 %9;
  jmp .b2;
.b4:
  ret;
}
";
    assert_eq!(bril(LOOP).unwrap(), expected);
}

#[test]
fn ops_bril_lacks_expand_to_several() {
    let ir = "\
fn f(_1::int, _2::int) -> int  # a, b
1 ─ %1 = irem(_1, _2)::int
│   %2 = ineg(%1)::int
│   %3 = ine(%2, _2)::bool
│   %4 = ieq(%3, true)::bool
│   %5 = not(%4)::bool
└──      goto #3 if not %5
2 ─      return %2
3 ─      return 0

fn main()
1 ─ %1 = invoke f(7, 2)::int
│        runtime print_int(%1)
│        runtime print_newline()
└──      return
";
    let expected = "\
@f(a: int, b: int): int {
  %c1: int = const 0;
  %c2: bool = const true;
.b1:
  %1.1: int = div a b;
  %1.2: int = mul %1.1 b;
  %1: int = sub a %1.2;
  %2: int = sub %c1 %1;
  %3.1: bool = eq %2 b;
  %3: bool = not %3.1;
  %4.1: bool = and %3 %c2;
  %4.2: bool = or %3 %c2;
  %4.3: bool = not %4.2;
  %4: bool = or %4.1 %4.3;
  %5: bool = not %4;
  br %5 .b2 .b3;
.b2:
  ret %2;
.b3:
  ret %c1;
}
@main {
  %c1: int = const 7;
  %c2: int = const 2;
.b1:
  %1: int = call @f %c1 %c2;
  print %1;
  ret;
}
";
    assert_eq!(bril(ir).unwrap(), expected);
}

#[test]
fn division_by_zero_is_a_bril_division_by_zero() {
    let ir = "\
fn d(_1::int) -> int
1 ─ %1 = ine(_1, 0)::bool
└──      goto #3 if not %1
2 ─ %3 = idiv(10, _1)::int
└──      return %3
3 ─      raise division_by_zero()
└──      unwind

fn main()
1 ─ %1 = invoke d(0)::int
│   %2 = no_exception()::bool
└──      goto #3 if not %2
2 ─      runtime print_int(%1)
│        runtime print_newline()
└──      return
3 ─      unwind
";
    let expected = "\
@d(_1: int): int {
  %c1: int = const 0;
  %c2: int = const 10;
.b1:
  %1.1: bool = eq _1 %c1;
  %1: bool = not %1.1;
  br %1 .b2 .b3;
.b2:
  %3: int = div %c2 _1;
  ret %3;
.b3:
  %5: int = div %c1 %c1;
  ret %c1;
}
@main {
  %c1: int = const 0;
  %c2: bool = const true;
.b1:
  %1: int = call @d %c1;
  %2: bool = id %c2;
  br %2 .b2 .b3;
.b2:
  print %1;
  ret;
.b3:
  ret;
}
";
    assert_eq!(bril(ir).unwrap(), expected);
}

#[test]
fn floats_negate_by_multiplying_and_compare_with_not_feq() {
    let ir = "\
fn g(_1::float) -> bool
1 ─ %1 = fneg(_1)::float
│   %2 = fmul(%1, 0.5)::float
│   %3 = fne(%2, 1e100)::bool
└──      return %3

fn main()
1 ─ %1 = invoke g(-0.0)::bool
│        runtime print_bool(%1)
│        runtime print_newline()
└──      return
";
    let expected = "\
@g(_1: float): bool {
  %c1: float = const -1.0;
  %c2: float = const 0.5;
  %c3: float = const 1e100;
.b1:
  %1: float = fmul _1 %c1;
  %2: float = fmul %1 %c2;
  %3.1: bool = feq %2 %c3;
  %3: bool = not %3.1;
  ret %3;
}
@main {
  %c1: float = const -0.0;
.b1:
  %1: bool = call @g %c1;
  print %1;
  ret;
}
";
    assert_eq!(bril(ir).unwrap(), expected);
}

#[test]
fn constructs_without_a_bril_form_are_errors_naming_them() {
    let ir = "\
fn main()
1 ─ %1 = int_to_float(3)::float
│        runtime print_float(%1)
│        runtime print_newline()
│   %4 = ishl(1, 3)::int
│   %5 = \"hi\"::str
│        runtime print_str(%5)
│        runtime print_newline()
│        runtime print_int(%4)
└──      return
";
    let errors = bril(ir).unwrap_err();
    let expected = [
        "cannot express the conversion `float(int)` in Bril",
        "cannot express printing a float (Toy prints `0.1`, Bril `0.10000000000000001`) in Bril",
        "cannot express shifts in Bril",
        "cannot express strings in Bril",
        "cannot express output without a newline (`write`) in Bril",
    ];
    assert_eq!(errors, expected);
}

#[test]
fn json_is_bril2json_format_and_both_forms_read_back() {
    let ir = "\
fn main()
1 ─ %1 = iadd(40, 2)::int
│        runtime print_int(%1)
│        runtime print_newline()
└──      return
";
    let module = toyc::ir::parse::parse(ir).unwrap_or_else(|_| panic!("parses"));
    let prog = toyc::bril_out::emit_module(&module, None).unwrap();
    let expected = r#"{
  "functions": [
    {
      "instrs": [
        {
          "dest": "%c1",
          "op": "const",
          "type": "int",
          "value": 40
        },
        {
          "dest": "%c2",
          "op": "const",
          "type": "int",
          "value": 2
        },
        {
          "label": "b1"
        },
        {
          "args": [
            "%c1",
            "%c2"
          ],
          "dest": "%1",
          "op": "add",
          "type": "int"
        },
        {
          "args": [
            "%1"
          ],
          "op": "print"
        },
        {
          "op": "ret"
        }
      ],
      "name": "main"
    }
  ]
}
"#;
    assert_eq!(to_json(&prog), expected);
    let file = toyc::span::FileId(0);
    let from_json = toyc::bril::json::parse(file, &to_json(&prog)).unwrap();
    let from_text = toyc::bril::text::parse(file, &to_text(&prog)).unwrap();
    assert_eq!(to_text(&from_json), to_text(&prog));
    assert_eq!(to_text(&from_text), to_text(&prog));
}
