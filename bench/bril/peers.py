"""`run-suite --bench`: toyc -O2 beside Bril's other implementations.

Every implementation runs each benchmark as its user would run it, and the
time is the whole process, from start to exit: parsing and compilation are
included for toyc (`toyc run -O2 FILE -- ARGS`) and for brilift's JIT
(`brilift -j ARGS < FILE.json`), as is brilirs's parsing
(`brilirs -t -f FILE ARGS`). `brili` (`brili ARGS < FILE.json`) runs when
it is on the PATH or given. brilift and brili read JSON, which
`bril2json` writes once per benchmark before any timing.

1. A first round runs every implementation once on every benchmark and
   checks its stdout against the `.out` file. A benchmark is timed when
   some implementation took at least `--min-ms` in that round.
2. `--runs` rounds follow, round-robin: every selected benchmark in each
   round, the implementations in an order that rotates every round, so
   that drift in the machine's load hits all alike.
3. Every implementation that is a native executable runs from a copy made
   in a temporary folder (`same_page_cache`), since how a file's pages
   came into the page cache changes how fast it starts.
4. The table has each implementation's median, toyc's ratio to each peer
   (below 1: toyc is faster), and the geometric mean of each ratio over the
   benchmarks both ran correctly.

A missing implementation is a missing column, and a run that fails or
prints something else is a cell with the reason below the table: neither
fails the command.
"""
import math
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

MISSING = "missing"
CACHEGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


@dataclass
class Tool:
    """An implementation: its command for a benchmark, and whether it
    reads the benchmark's JSON form on stdin."""

    name: str
    exe: str | None
    why_missing: str = ""
    reads_json: bool = False

    def command(self, bench):
        if self.name == "toyc":
            return [self.exe, "run", "-O2", bench.path, "--", *bench.args]
        if self.name == "brilirs":
            return [self.exe, "-t", "-f", bench.path, *bench.args]
        if self.name == "brilift":
            # `--`: its option parser would take `-1` for an option.
            return [self.exe, "-j", "--", *bench.args]
        return [self.exe, *bench.args]


@dataclass
class Bench:
    name: str
    path: str
    args: list
    expected: str
    json: str | None = None
    # Per tool: the times of its correct runs, or why it has none.
    times: dict = field(default_factory=dict)


@dataclass
class Run:
    wall: float | None
    cpu: float | None
    out: str
    err: str
    code: int | None


def locate(given, *candidates):
    """`given` (a path or a name on the PATH) when there is one, else the
    first candidate that is an executable file or a name on the PATH."""
    for c in [given] if given else candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
        if c and os.sep not in c and shutil.which(c):
            return shutil.which(c)
    return None


def find_tools(opts, toyc):
    """The implementations, each with its executable or why it is missing."""
    root = opts.bril

    def release(*parts):
        return os.path.join(root, *parts, "target", "release", parts[-1])

    bril2json = locate(opts.bril2json, release("bril-rs", "bril2json"), "bril2json")
    brilirs = locate(opts.brilirs, release("brilirs"), "brilirs")
    brilift = locate(opts.brilift, release("brilift"), "brilift")
    brili = locate(opts.brili, "brili")
    tools = [Tool("toyc", toyc), Tool("brilirs", brilirs)]
    for name, exe in [("brilift", brilift), ("brili", brili)]:
        tools.append(Tool(name, exe if bril2json else None, reads_json=True))
    for t in tools:
        if t.exe is not None:
            continue
        if t.reads_json and not bril2json:
            t.why_missing = "no bril2json for its JSON input (--bril2json PATH)"
        elif t.name == "brili":
            t.why_missing = "not found (--brili PATH)"
        else:
            t.why_missing = f"not built (cargo build --release in {t.name}/, or --{t.name} PATH)"
    return tools, bril2json


def same_page_cache(tools, folder):
    """Points every tool that is an ELF executable at a copy of it in
    `folder`. An executable as the linker wrote it (through `mmap`) starts
    measurably slower than a copy written with `write`, which is what an
    install does: on this machine about 0.7 ms for both toyc and brilift,
    and it stayed so for as long as we watched. Copying all of
    them makes the comparison independent of how each was last built."""
    for t in tools:
        with open(t.exe, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        copy = os.path.join(folder, f"{t.name}.exe")
        shutil.copy2(t.exe, copy)
        t.exe = copy


def run_timed(cmd, stdin_path, timeout):
    """One run: wall and CPU (user + system) time in seconds, the outputs
    and the exit code. The CPU time is the child's own, from `wait4`."""
    with (
        open(stdin_path or os.devnull, "rb") as inp,
        tempfile.TemporaryFile() as out_f,
        tempfile.TemporaryFile() as err_f,
    ):
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=inp, stdout=out_f, stderr=err_f)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.perf_counter() > deadline:
                p.kill()
                os.wait4(p.pid, 0)
                return Run(None, None, "", f"timeout after {timeout} s", None)
            time.sleep(0.001)
        wall = time.perf_counter() - start
        out_f.seek(0)
        err_f.seek(0)
        return Run(
            wall,
            usage.ru_utime + usage.ru_stime,
            out_f.read().decode(errors="replace"),
            err_f.read().decode(errors="replace"),
            os.waitstatus_to_exitcode(status),
        )


def instructions(log_path):
    """The instruction count of a cachegrind log (`I refs:`), or None."""
    with open(log_path, encoding="utf-8", errors="replace") as f:
        m = re.search(r"I\s+refs:\s+([\d,]+)", f.read())
    return int(m.group(1).replace(",", "")) if m else None


def measure(tool, bench, opts, clock):
    """One run of `bench` by `tool`: its cost on `clock` (seconds, or
    instructions under cachegrind for `instr`), or the reason it has none
    (failed, wrong output, timeout)."""
    cmd = tool.command(bench)
    with tempfile.NamedTemporaryFile(suffix=".cachegrind") as log:
        if clock == "instr":
            cmd = [*CACHEGRIND, f"--log-file={log.name}", *cmd]
        r = run_timed(cmd, bench.json if tool.reads_json else None, opts.timeout)
        if r.code is None:
            return r.err
        if r.code != 0 or r.out != bench.expected:
            first = (r.err.strip().splitlines() or ["stdout differs from .out"])[0]
            return f"exit {r.code}: {first[:100]}"
        if clock == "instr":
            return instructions(log.name) or "no instruction count from cachegrind"
    return r.cpu if clock == "cpu" else r.wall


def to_json(bril2json, bench, folder):
    """Writes the JSON form of `bench` into `folder`; None on failure."""
    dest = os.path.join(folder, bench.name.replace("/", "_") + ".json")
    with open(bench.path, "rb") as src, open(dest, "wb") as out:
        p = subprocess.run([bril2json], stdin=src, stdout=out, stderr=subprocess.DEVNULL)
    return dest if p.returncode == 0 else None


def record(bench, tool, t):
    """Adds a time, or replaces the times by the first reason of failure."""
    cur = bench.times.get(tool.name)
    if isinstance(cur, str):
        return
    if isinstance(t, str):
        bench.times[tool.name] = t
    else:
        bench.times.setdefault(tool.name, []).append(t)


def select(benches, tools, opts, log):
    """The first round: every implementation once on every benchmark,
    timed (CPU time with `--clock cpu`, else wall time). The benchmarks some
    implementation took `--min-ms` on."""
    clock = "cpu" if opts.clock == "cpu" else "wall"
    chosen = []
    for b in benches:
        for t in tools:
            record(b, t, measure(t, b, opts, clock))
        ok = [v[0] for v in b.times.values() if isinstance(v, list)]
        if ok and max(ok) * 1000 >= opts.min_ms:
            chosen.append(b)
        log(f"  first round {b.name}: " + ", ".join(f"{k} {show(v)}" for k, v in b.times.items()))
    return chosen


def rounds(benches, tools, opts, log):
    """`--runs` more rounds over `benches`, round-robin, the order of the
    implementations rotating every round."""
    for rnd in range(opts.runs):
        k = rnd % len(tools)
        for b in benches:
            for t in tools[k:] + tools[:k]:
                record(b, t, measure(t, b, opts, opts.clock))
        log(f"  round {rnd + 1}/{opts.runs} done")


def show(v):
    """A first-round cell for the log (always seconds)."""
    if isinstance(v, list):
        return f"{statistics.median(v) * 1000:.0f} ms" if v else "-"
    return "failed"


def unit(clock):
    """The column unit of `clock` and the factor from its measure."""
    return ("M instr", 1e-6) if clock == "instr" else ("ms", 1000.0)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def table(benches, tools, clock):
    """The table of medians and toyc's ratio to each peer, then the
    geometric means and the reasons of failed cells."""
    live = [t for t in tools if t.exe]
    peers = [t.name for t in live if t.name != "toyc"]
    name, factor = unit(clock)
    head = f"{'benchmark':28}" + "".join(f"{t.name + ' ' + name:>16}" for t in tools)
    head += "".join(f"{'toyc/' + p:>15}" for p in peers)
    lines = [head]
    logs = {p: [] for p in peers}
    notes = []
    for b in benches:
        med = {}
        cells = []
        for t in tools:
            v = b.times.get(t.name, MISSING) if t.exe else MISSING
            if isinstance(v, list) and v:
                med[t.name] = statistics.median(v)
                cells.append(f"{med[t.name] * factor:16.1f}")
            else:
                cells.append(f"{'-' if v == MISSING else 'FAILED':>16}")
                if v != MISSING:
                    notes.append(f"{b.name}, {t.name}: {v}")
        ratios = []
        for p in peers:
            if "toyc" in med and p in med:
                q = med["toyc"] / med[p]
                logs[p].append(math.log(q))
                ratios.append(f"{q:15.3f}")
            else:
                ratios.append(f"{'-':>15}")
        lines.append(f"{b.name:28}" + "".join(cells) + "".join(ratios))
    for p in peers:
        if logs[p]:
            g = math.exp(sum(logs[p]) / len(logs[p]))
            lines.append(f"geometric mean of toyc/{p} over {len(logs[p])} benchmarks: {g:.3f}")
    for t in tools:
        if not t.exe:
            lines.append(f"{t.name}: {t.why_missing}")
    return lines + notes


def bench_suite(progs, args_of, opts, toyc, log=print):
    """Runs the comparison over `progs` (paths of `.bril` files with an
    `.out`; `args_of` gives a file's arguments) and returns the lines to
    print."""
    from_root = os.path.join(opts.bril, "benchmarks")
    tools, bril2json = find_tools(opts, toyc)
    benches = []
    with tempfile.TemporaryDirectory() as folder:
        for p in progs:
            with open(p[: -len(".bril")] + ".out", encoding="utf-8", errors="replace") as f:
                expected = f.read()
            name = os.path.relpath(p, from_root)[: -len(".bril")]
            b = Bench(name, p, args_of(p), expected)
            if bril2json:
                b.json = to_json(bril2json, b, folder)
            benches.append(b)
        for t in tools:
            if not t.exe:
                continue
            if t.reads_json:
                for b in benches:
                    if b.json is None:
                        b.times[t.name] = "bril2json failed"
        live = [t for t in tools if t.exe]
        same_page_cache(live, folder)
        chosen = select(benches, live, opts, log)
        log(f"{len(chosen)} of {len(benches)} benchmarks take >= {opts.min_ms:g} ms somewhere")
        for b in chosen:
            b.times = {k: v for k, v in b.times.items() if isinstance(v, str)}
        rounds(chosen, live, opts, log)
    what = {
        "wall": "wall time",
        "cpu": "CPU time (user + system)",
        "instr": "instructions (cachegrind)",
    }[opts.clock]
    head = [f"median {what} of {opts.runs} runs, whole process (compilation included)"]
    return head + table(chosen, tools, opts.clock)
