#!/usr/bin/env python3
"""Before/after the inliner on bench/toy: median wall and CPU time (release
toyc, compilation included) and total_dyn_inst from the interpreter.

Usage: bench/inline_measure.py PASS_LIST_BEFORE [RUNS]
(e.g. sccp,dce,simplifycfg,loops,checks,gvn_load,licm,dse 5); "after" is -O2."""
import subprocess, sys, time, statistics, re, resource
import os
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOYC = os.path.join(ROOT, "target", "release", "toyc")
B = os.path.join(ROOT, "bench", "toy") + "/"
BEFORE = "--passes=" + sys.argv[1]
SIZES_WALL = {"spectral": 1000, "fib": 35, "nbody": 5000000, "mandelbrot": 1000, "matmul": 300,
              "quicksort": 1000000, "fannkuch": 10, "sieve": 10000000, "binarytrees": 16, "strings": 100000}
SIZES_DYN = {"spectral": 300, "fib": 30, "nbody": 200000, "mandelbrot": 400, "matmul": 120,
             "quicksort": 200000, "fannkuch": 9, "sieve": 2000000, "binarytrees": 14, "strings": 20000}
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
def wall(flags, prog, n):
    ts = []
    cs = []
    out = None
    for _ in range(RUNS):
        t = time.perf_counter()
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = subprocess.run([TOYC, "run", *flags, B + prog + ".toy", "--", str(n)], capture_output=True)
        ts.append(time.perf_counter() - t)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cs.append(ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime)
        assert r.returncode == 0, (prog, r.stderr)
        out = r.stdout if out is None else out
    return statistics.median(ts), statistics.median(cs), out
def dyn(flags, prog, n):
    r = subprocess.run([TOYC, "run", "--interp", "--profile", *flags, B + prog + ".toy", "--", str(n)], capture_output=True)
    m = re.search(rb"total_dyn_inst: (\d+)", r.stderr)
    return int(m.group(1)), r.stdout
print("| program | size | wall before s | wall after s | CPU before s | CPU after s | CPU after/before | size (interp) | dyn before | dyn after | after/before |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for prog in SIZES_WALL:
    (tb, cb, ob) = wall([BEFORE], prog, SIZES_WALL[prog])
    (ta, ca, oa) = wall(["-O2"], prog, SIZES_WALL[prog])
    assert ob == oa, prog
    (db, o1) = dyn([BEFORE], prog, SIZES_DYN[prog])
    (da, o2) = dyn(["-O2"], prog, SIZES_DYN[prog])
    assert o1 == o2, prog
    print(f"| {prog} | {SIZES_WALL[prog]} | {tb:.3f} | {ta:.3f} | {cb:.3f} | {ca:.3f} | {ca/cb:.3f} | {SIZES_DYN[prog]} | {db:,} | {da:,} | {da/db:.3f} |", flush=True)
