#!/bin/sh
# Measurements for docs/passes.md ("Measured"):
#  1. `compact` time on generated functions of 10^5 and 10^6 statements with
#     pending inserted nodes, copies, deletions and constant branches spread
#     through them (the ignored test `compact_scale` in tests/it/ir/compact_scale.rs,
#     best of 3 runs per size, release build);
#  2. `total_dyn_inst` of the IR interpreter at -O0 and -O2 for every program
#     in examples/, as a Markdown table.
# Usage: bench/compact_scale.sh   (from the repository root)
set -eu
cd "$(dirname "$0")/.."
cargo test --release --test it compact_scale -- --ignored --nocapture 2>/dev/null | grep '^compact_scale:'
cargo build --release --quiet
echo
echo "| program | -O0 | -O2 | -O2 / -O0 |"
echo "|---|---:|---:|---:|"
for f in examples/*.toy; do
    o0=$(./target/release/toyc run --interp --profile -O0 "$f" 2>&1 >/dev/null | sed -n 's/^total_dyn_inst: //p')
    o2=$(./target/release/toyc run --interp --profile -O2 "$f" 2>&1 >/dev/null | sed -n 's/^total_dyn_inst: //p')
    ratio=$(awk -v a="$o0" -v b="$o2" 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "-" }')
    echo "| $(basename "$f") | $o0 | $o2 | $ratio |"
done
