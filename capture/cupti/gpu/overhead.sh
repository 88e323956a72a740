#!/bin/bash
# The agent's cost per allocation on the GPU machine (.gpu/bin staged by stage.sh): cudaMalloc+cudaFree
# and cudaMallocAsync+cudaFreeAsync pairs without the agent, with it (native stacks), and with
# VRAMSCOPE_STACKS=none; three runs each. Also re-records pool.vscap into $OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=$ROOT/.gpu/bin
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
AGENT=$B/libvramscope_cupti.so
cd /tmp
for mode in off native none; do
  for i in 1 2 3; do
    if [ $mode = off ]; then env=(); else env=(CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=/tmp/o.vscap VRAMSCOPE_STACKS=$mode); fi
    a=$(env "${env[@]}" $B/leak 1 --bench 20000 2>/dev/null | grep -o "[0-9.]* us")
    p=$(env "${env[@]}" $B/pool --bench 20000 2>/dev/null | grep -o "[0-9.]* us per")
    echo "$mode run $i: cudaMalloc+cudaFree $a, cudaMallocAsync+cudaFreeAsync ${p% per}"
  done
done
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$OUT/pool.vscap $B/pool
