#!/usr/bin/env bash
# Compile-time scaling of the backend on one giant function: generates
# `main` with N `if`s (N = 1k, 10k, 100k source lines) and N/3 small loops,
# runs `toyc run --time-passes` at -O0 and -O2, and prints the `clif`
# (translation) and `cranelift` (compilation) phases. Linear scaling means
# each 10x step costs about 10x; a quadratic regression shows as ~100x.
# Usage: bench/scale_codegen.sh [path/to/toyc]   (default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
TOYC=${1:-target/release/toyc}
[ -x "$TOYC" ] || cargo build --release --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gen_ifs() {
  { echo 'fn main() {'; echo '  var s = 0;'; echo '  let c = len(args()) == 0;'
    for ((i = 0; i < $1; i++)); do echo "  if c { s += $i; } else { s -= 1; }"; done
    echo '  print(s);'; echo '}'; } > "$2"
}
gen_loops() {
  { echo 'fn main() {'; echo '  var s = 0;'; echo '  var a = [1, 2, 3];'
    for ((i = 0; i < $1; i++)); do echo "  for i in 0..3 { if a[i] > $((i % 5)) { s += i; } else { s -= 1; } }"; done
    echo '  print(s);'; echo '}'; } > "$2"
}
printf '%-6s %-7s %-4s %12s %14s\n' shape lines opt clif_ms cranelift_ms
for shape in ifs loops; do
  for n in 1000 10000 100000; do
    f="$dir/$shape$n.toy"
    if [ "$shape" = ifs ]; then gen_ifs "$n" "$f"; else gen_loops $((n / 3)) "$f"; fi
    for opt in -O0 -O2; do
      out=$("$TOYC" run "$opt" --time-passes "$f" 2>&1 >/dev/null || true)
      clif=$(sed -n 's/^time\.clif: \(.*\) ms/\1/p' <<<"$out")
      cl=$(sed -n 's/^time\.cranelift: \(.*\) ms/\1/p' <<<"$out")
      printf '%-6s %-7s %-4s %12s %14s\n' "$shape" "$n" "$opt" "${clif:-?}" "${cl:-?}"
    done
  done
done
