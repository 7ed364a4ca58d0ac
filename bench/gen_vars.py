#!/usr/bin/env python3
"""Writes a Toy program whose `main` has N local variables, for measuring
SSA construction on functions with thousands of variables.

Shapes (--shape):
  loop   N variables declared up front; one `while` loop whose body has,
         for each variable, an if/else assigning it in one arm (so every
         variable needs a header φ and a join φ); then a sum of all of them.
  seq    N variables; N sequential if/else statements, the i-th assigning
         variable i (reads after the i-th `if` must skip i regions).
  nest   N variables; loops nested 4 deep around groups of if/else, each
         group assigning a few variables.
  try    like `loop`, with each group of 10 assignments inside try/catch.
  calls  no variables but one: N calls of a small function with a loop
         that may throw. Each is inlined into `main`, whose one `unwind`
         block then has N predecessors and which has N loops.

Usage: gen_vars.py N [--shape loop|seq|nest|try|calls] [--out FILE]
"""

import argparse
import sys


def gen_calls(n):
    out = [
        "fn f(x: int) -> int {",
        "    if x > 1000000 {",
        '        throw "big";',
        "    }",
        "    var s = 0;",
        "    for i in 0..x {",
        "        s += i * 3;",
        "    }",
        "    return s;",
        "}",
        "fn main() {",
        "    var c = 0;",
    ]
    for i in range(n):
        out.append(f"    c += f({i % 7});")
    out.append("    print(c);")
    out.append("}")
    return "\n".join(out) + "\n"


def gen(n, shape):
    if shape == "calls":
        return gen_calls(n)
    out = ["fn main() {", "    let c = len(args()) == 0;"]
    for i in range(n):
        out.append(f"    var v{i} = {i};")
    if shape == "seq":
        for i in range(n):
            out.append(f"    if c {{ v{i} += {i % 7 + 1}; }} else {{ v{i} -= 1; }}")
    elif shape == "loop":
        out.append("    var k = 0;")
        out.append("    while k < 3 {")
        out.append("        k += 1;")
        for i in range(n):
            out.append(f"        if k > {i % 3} {{ v{i} += k; }} else {{ v{i} = v{(i * 7 + 1) % n} - 1; }}")
        out.append("    }")
    elif shape == "nest":
        group = 20
        for g in range(0, n, group):
            out.append(f"    for a{g} in 0..2 {{ for b{g} in 0..2 {{ var w{g} = 0; while w{g} < 2 {{ w{g} += 1;")
            for i in range(g, min(n, g + group)):
                out.append(f"        if w{g} > a{g} {{ v{i} += b{g}; }} else {{ v{i} ^= {i}; }}")
            out.append("    } } }")
    elif shape == "try":
        out.append("    var k = 0;")
        out.append("    while k < 3 {")
        out.append("        k += 1;")
        group = 10
        for g in range(0, n, group):
            out.append("        try {")
            for i in range(g, min(n, g + group)):
                out.append(f"            if k > {i % 3} {{ v{i} += k; }} else {{ v{i} = v{(i * 7 + 1) % n} - 1; }}")
            out.append(f"            if v{g} == -12345 {{ throw \"x\"; }}")
            out.append(f"        }} catch e{g} {{ v{g} += len(e{g}); }}")
        out.append("    }")
    else:
        raise SystemExit(f"unknown shape {shape}")
    out.append("    var s = 0;")
    for i in range(n):
        out.append(f"    s ^= v{i};")
    out.append("    print(s);")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int)
    ap.add_argument("--shape", default="loop")
    ap.add_argument("--out")
    a = ap.parse_args()
    text = gen(a.n, a.shape)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
