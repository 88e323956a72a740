#!/bin/bash
# The agent's cost per allocation on the GPU machine (.gpu/bin staged by stage.sh): cudaMalloc+cudaFree
# and cudaMallocAsync+cudaFreeAsync pairs without the agent, with it (native stacks, libunwind), with
# glibc's unwinder instead, and with VRAMSCOPE_STACKS=none; three runs each. Also records leak 50
# with each unwinder into $OUT (their stacks must agree).
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=$ROOT/.gpu/bin
export LD_LIBRARY_PATH=$B:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
AGENT=$B/libvramscope_cupti.so
cd /tmp
for mode in off native glibc none; do
  for i in 1 2 3; do
    case $mode in
      off) env=() ;;
      glibc) env=(CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=/tmp/o.vscap VRAMSCOPE_UNWINDER=glibc) ;;
      *) env=(CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=/tmp/o.vscap VRAMSCOPE_STACKS=$mode) ;;
    esac
    a=$(env "${env[@]}" $B/leak 1 --bench 20000 2>/dev/null | grep -o "[0-9.]* us")
    p=$(env "${env[@]}" $B/pool --bench 20000 2>/dev/null | grep -o "[0-9.]* us per")
    echo "$mode run $i: cudaMalloc+cudaFree $a, cudaMallocAsync+cudaFreeAsync ${p% per}"
  done
done
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$OUT/leak.vscap $B/leak 50
CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$OUT/leak_glibc.vscap VRAMSCOPE_UNWINDER=glibc $B/leak 50
