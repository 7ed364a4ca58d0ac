#!/usr/bin/env python3
"""Writes a valid Toy program of about N lines for compile-time measurements.

The program has many functions with nested loops (for/while, break and
continue), if/else chains, int and float arithmetic, calls, and (unless
--scalar) arrays, structs and try/catch. `main` calls every function once
and prints a checksum; each call does little work, so running the program is
short next to compiling it. `main` prints its checksum, then its own run
time in milliseconds (from `clock()`).

--scalar restricts the functions to int/float/bool locals, arithmetic,
comparisons, `&&`/`||`, loops and calls (the subset that ssa_bench lowers
both through our SSA builder and through cranelift-frontend).

Usage: gen_program.py --lines N [--scalar] [--seed S] [--out FILE]
"""

import argparse
import random
import sys

INT_OPS = ["+", "-", "*", "^", "&", "|"]
CMP_OPS = ["<", "<=", ">", ">=", "==", "!="]


class Gen:
    def __init__(self, rng, scalar):
        self.rng = rng
        self.scalar = scalar
        self.lines = []
        self.counter = 0

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def int_atom(self, ints):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(ints)
        return str(self.rng.randint(1, 97))

    def int_expr(self, ints, size=2):
        if size <= 0:
            return self.int_atom(ints)
        r = self.rng.random()
        if r < 0.7:
            return f"({self.int_expr(ints, size - 1)} {self.rng.choice(INT_OPS)} {self.int_atom(ints)})"
        if r < 0.8:
            return f"({self.int_expr(ints, size - 1)} / ({self.int_atom(ints)} | 1))"
        if r < 0.9:
            return f"({self.int_expr(ints, size - 1)} % ({self.int_atom(ints)} | 1))"
        return f"(({self.int_atom(ints)} << 2) >> 1)"

    def cond(self, ints, floats):
        r = self.rng.random()
        a = f"{self.int_expr(ints, 1)} {self.rng.choice(CMP_OPS)} {self.int_atom(ints)}"
        if r < 0.5:
            return a
        if r < 0.7 and floats:
            return f"{self.rng.choice(floats)} < {self.rng.randint(1, 50)}.5"
        # A variable on the left: a comparison of two literals is a warning.
        b = f"{self.rng.choice(ints)} {self.rng.choice(CMP_OPS)} {self.int_atom(ints)}"
        return f"{a} {self.rng.choice(['&&', '||'])} {b}"

    def stmts(self, depth, ints, floats, mutable, in_loop, budget):
        """Emits about `budget` statements at indentation `depth`."""
        ints = list(ints)
        for _ in range(budget):
            self.stmt(depth, ints, floats, mutable, in_loop)

    def stmt(self, depth, ints, floats, mutable, in_loop):
        rng = self.rng
        r = rng.random()
        nest = depth < 4
        target = rng.choice(mutable)
        if r < 0.22:
            op = rng.choice(["+=", "-=", "^=", "="])
            self.emit(depth, f"{target} {op} {self.int_expr(ints)};")
        elif r < 0.30:
            name = self.fresh("t")
            self.emit(depth, f"let {name} = {self.int_expr(ints)};")
            self.emit(depth, f"{target} ^= {name};")
            ints.append(name)
        elif r < 0.38:
            f = rng.choice(floats)
            self.emit(depth, f"{f} = {f} * 0.5 + float({rng.choice(ints)} & 15);")
        elif r < 0.50 and nest:
            self.emit(depth, f"if {self.cond(ints, floats)} {{")
            self.stmts(depth + 1, ints, floats, mutable, in_loop, rng.randint(1, 3))
            if rng.random() < 0.5:
                self.emit(depth, "} else {")
                self.stmts(depth + 1, ints, floats, mutable, in_loop, rng.randint(1, 2))
            self.emit(depth, "}")
        elif r < 0.60 and nest:
            i = self.fresh("i")
            self.emit(depth, f"for {i} in 0..{rng.randint(2, 4)} {{")
            self.emit(depth + 1, f"{target} += {i};")
            self.stmts(depth + 1, ints + [i], floats, mutable, True, rng.randint(1, 3))
            self.emit(depth, "}")
        elif r < 0.68 and nest:
            w = self.fresh("w")
            self.emit(depth, f"var {w} = 0;")
            self.emit(depth, f"while {w} < {rng.randint(2, 4)} {{")
            self.emit(depth + 1, f"{w} += 1;")
            self.stmts(depth + 1, ints + [w], floats, mutable, True, rng.randint(1, 3))
            self.emit(depth, "}")
        elif r < 0.74 and in_loop:
            self.emit(depth, f"if {self.cond(ints, floats)} {{")
            self.emit(depth + 1, rng.choice(["break;", "continue;"]))
            self.emit(depth, "}")
        elif r < 0.80:
            self.emit(depth, f"{target} += leaf{rng.randint(0, 7)}({rng.choice(ints)} & 255);")
        elif not self.scalar and r < 0.86:
            self.emit(depth, f"arr[{rng.choice(ints)} & 3] = {self.int_expr(ints, 1)};")
            self.emit(depth, f"{target} += arr[({self.int_atom(ints)}) & 3];")
        elif not self.scalar and r < 0.92:
            rec = self.fresh("r")
            k = rng.randint(0, 3)
            self.emit(depth, f"let {rec} = Rec{k} {{ a: {rng.choice(ints)}, b: {rng.choice(floats)}, next: nil }};")
            self.emit(depth, f"{rec}.next = Rec{k} {{ a: {rec}.a + 1, b: 0.25, next: nil }};")
            self.emit(depth, f"{target} += {rec}.next.a & 7;")
        elif not self.scalar and nest:
            e = self.fresh("e")
            self.emit(depth, "try {")
            self.emit(depth + 1, f"if {self.cond(ints, floats)} {{")
            self.emit(depth + 2, 'throw "gen";')
            self.emit(depth + 1, "}")
            self.emit(depth + 1, f"{target} += arr[{rng.choice(ints)} & 7];")
            self.emit(depth, f"}} catch {e} {{")
            self.emit(depth + 1, f"{target} += len({e});")
            self.emit(depth, "}")
        else:
            self.emit(depth, f"{target} = ({target} * 31 + {self.int_atom(ints)}) & 65535;")

    def function(self, idx):
        self.emit(0, f"fn f{idx}(x: int, y: float) -> int {{")
        self.emit(1, "var acc = x;")
        self.emit(1, "var acc2 = x + 1;")
        self.emit(1, "var fl = y;")
        if not self.scalar:
            self.emit(1, "let arr = [0; 6];")
        self.stmts(1, ["x", "acc", "acc2"], ["fl"], ["acc", "acc2"], False, self.rng.randint(4, 9))
        # Every local is read and every `var` reassigned (no warnings).
        self.emit(1, "fl += 0.5;")
        self.emit(1, "acc2 += acc & 1;")
        if not self.scalar:
            self.emit(1, "acc += arr[0];")
        self.emit(1, "if fl > 1000000.0 {")
        self.emit(2, "acc += 1;")
        self.emit(1, "}")
        self.emit(1, "return acc ^ acc2;")
        self.emit(0, "}")
        self.emit(0, "")

    def program(self, target_lines):
        self.emit(0, f"// Generated by bench/gen_program.py ({'scalar' if self.scalar else 'full'}).")
        if not self.scalar:
            for k in range(4):
                self.emit(0, f"struct Rec{k} {{ a: int, b: float, next: Rec{k} }}")
        for k in range(8):
            self.emit(0, f"fn leaf{k}(v: int) -> int {{")
            self.emit(1, f"return (v * {2 * k + 3} + {k}) & 1023;")
            self.emit(0, "}")
        self.emit(0, "")
        n = 0
        # Each function costs about 30 lines; main one line per function.
        while len(self.lines) + n + 5 < target_lines:
            self.function(n)
            n += 1
        self.emit(0, "fn main() {")
        self.emit(1, "let t0 = clock();")
        self.emit(1, "var total = 0;")
        for i in range(n):
            self.emit(1, f"total ^= f{i}({i % 50}, {i % 7}.5);")
        self.emit(1, "print(total);")
        self.emit(1, "// The run time of main in ms (bench/run subtracts it from codegen).")
        self.emit(1, "print((clock() - t0) * 1000.0);")
        self.emit(0, "}")
        return "\n".join(self.lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, required=True)
    ap.add_argument("--scalar", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out")
    a = ap.parse_args()
    text = Gen(random.Random(a.seed), a.scalar).program(a.lines)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
