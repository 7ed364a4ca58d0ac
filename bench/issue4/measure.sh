#!/usr/bin/env bash
# Measures the issue-4 programs in Toy (release toyc, -O2) and in C (gcc -O2).
# Run from the repository root after `cargo build --release`.
# The string-building programs run under a 4 GB address-space limit and a
# 60 s timeout: before `+` appended in place they were quadratic and could
# not finish (see README.md); the limit keeps a regression from taking the
# machine down.
set -u
D=bench/issue4
T=target/release/toyc
TMP=$(mktemp -d)
for c in sieve nbody sort string_concat; do gcc -O2 -o "$TMP/$c" "$D/$c.c" -lm; done
for p in sieve nbody sort string_concat; do
    /usr/bin/time -f "$p C: %e s wall, %M KB max RSS" "$TMP/$p" >/dev/null
done
for p in sieve nbody sort string_repeat; do
    /usr/bin/time -f "$p toy: %e s wall, %M KB max RSS" "$T" run -O2 "$D/$p.toy" >/dev/null
done
for p in string_concat string_join; do
    ( ulimit -v 4000000; /usr/bin/time -f "$p toy: %e s wall, %M KB max RSS, exit %x" timeout 60 "$T" run -O2 "$D/$p.toy" >/dev/null )
done
rm -rf "$TMP"
