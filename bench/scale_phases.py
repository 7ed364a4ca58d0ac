#!/usr/bin/env python3
"""Compile-time scaling, phase by phase: every `time.PHASE` that
`toyc run --time-passes` reports (front end, SSA, each of our passes,
Cranelift), at -O0 and -O2, on generated programs of 1k, 10k and 100k
lines, with the growth factor per 10x lines. Linear phases grow ~10x; a
phase growing over ~11x per 10x is flagged with `!`.

Programs (--kind):
  program  bench/gen_program.py: many functions with nested loops, arrays,
           structs, try/catch (the bench/run scaling programs).
  vars     bench/gen_vars.py --shape loop: one function with N/3 variables.
  calls    bench/gen_vars.py --shape calls: `main` with N calls of a small
           function that may throw (inlined: N loops and one `unwind`
           block with N predecessors).

Each cell is the median of --reps runs (default 3).
Usage: bench/scale_phases.py [--kind program|vars|calls] [--toyc PATH] [--sizes 1000,10000,100000]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)


def generate(kind, lines, path):
    if kind == "program":
        cmd = [sys.executable, os.path.join(BENCH, "gen_program.py"), "--lines", str(lines), "--out", path]
    elif kind == "calls":
        cmd = [sys.executable, os.path.join(BENCH, "gen_vars.py"), str(lines), "--shape", "calls", "--out", path]
    else:
        cmd = [sys.executable, os.path.join(BENCH, "gen_vars.py"), str(lines // 3), "--shape", "loop", "--out", path]
    subprocess.run(cmd, check=True)


def phases(toyc, opt, path, reps):
    runs = []
    for _ in range(reps):
        r = subprocess.run([toyc, "run", opt, "--time-passes", path], capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            raise SystemExit(f"toyc run {opt} {path} failed: {r.stderr.strip()[:300]}")
        ph = {}
        for m in re.finditer(r"^time\.(\S+): ([0-9.]+) ms$", r.stderr, re.M):
            ph[m.group(1)] = ph.get(m.group(1), 0.0) + float(m.group(2))
        runs.append(ph)
    keys = []
    for ph in runs:
        keys += [k for k in ph if k not in keys]
    return {k: statistics.median([p.get(k, 0.0) for p in runs]) for k in keys}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", default="program", choices=["program", "vars", "calls"])
    ap.add_argument("--toyc", default=os.path.join(ROOT, "target", "release", "toyc"))
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    tmp = tempfile.mkdtemp()
    for opt in ["-O0", "-O2"]:
        table = {}
        for n in sizes:
            path = os.path.join(tmp, f"{a.kind}{n}.toy")
            if not os.path.exists(path):
                generate(a.kind, n, path)
            table[n] = phases(a.toyc, opt, path, a.reps)
        keys = []
        for n in sizes:
            keys += [k for k in table[n] if k not in keys and k != "run"]
        keys.append("total")
        for n in sizes:
            table[n]["total"] = sum(v for k, v in table[n].items() if k != "run")
        head = ["phase"] + [f"{n} lines (ms)" for n in sizes]
        head += [f"{sizes[i]}→{sizes[i + 1]}" for i in range(len(sizes) - 1)]
        print(f"\n{a.kind}, {opt}\n")
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for k in keys:
            vals = [table[n].get(k, 0.0) for n in sizes]
            cells = [k] + [f"{v:.1f}" for v in vals]
            for i in range(len(sizes) - 1):
                lo, hi = vals[i], vals[i + 1]
                if lo < 1.0:
                    cells.append("—")
                else:
                    g = hi / lo * 10 / (sizes[i + 1] / sizes[i])
                    cells.append(f"{g:.1f}×{' !' if g > 11 and hi > 50 else ''}")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
