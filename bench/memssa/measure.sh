#!/bin/bash
# usage: measure.sh toyc  -- JIT wall time (best of 3) and interpreter total_dyn_inst, MemorySSA passes off vs on
T=$1
# ON: the -O2 pipeline; OFF: the same without the MemorySSA passes
# (gvn_load, licm — with its check hoisting and promotion —, dse).
ON=sccp,dce,simplifycfg,inline,loops,cse,checks,rotate,gvn_load,licm,gvn_load,cse,simplifycfg,dse
OFF=sccp,dce,simplifycfg,inline,loops,cse,checks,rotate,cse,simplifycfg
B=bench/toy
while read n p jitarg intarg; do
  for mode in OFF ON; do
    passes=${!mode}
    best=999
    for r in 1 2 3; do
      s=$(date +%s.%N); $T run --passes=$passes $p -- $jitarg >/dev/null 2>&1; e=$(date +%s.%N)
      t=$(echo "$e - $s" | bc); best=$(echo "if ($t < $best) $t else $best" | bc)
    done
    ip=$p; case $n in sim) ip=bench/memssa/sim_small.toy;; sums) ip=bench/memssa/sums_small.toy;; esac
    dyn=$($T run --interp --profile --passes=$passes $ip -- $intarg 2>&1 >/dev/null | grep total_dyn_inst)
    echo "$n $mode jit_wall_best_of_3=${best}s (arg $jitarg) interp[$intarg] $dyn"
  done
done <<LIST
nbody $B/nbody.toy 5000000 20000
matmul $B/matmul.toy 400 60
sim bench/memssa/sim.toy 0 0
sums bench/memssa/sums.toy 0 0
accum bench/memssa/accum.toy 200000 20
elems bench/memssa/elems.toy 300 60
LIST
