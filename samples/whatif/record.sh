#!/bin/bash
# Records the what-if samples on a GPU machine: every workload of programs.py under six allocator
# settings (the defaults with PyTorch's memory history, the others only their figures), then, from
# the default run's peak, three runs under a memory fraction: garbage collection at 0.6 of 1.25x the
# peak, and the defaults and expandable segments under a fraction between their two peaks (or just
# below the default peak), where one may run out of memory.
#     bash samples/whatif/record.sh OUTDIR [JOBS]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUTDIR=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
JOBS=${2:-8}
PROGS="mixed_sizes clean_loop resnet18 gpt2"
run() { # run PROGRAM NAME CONF [ARGS]; CONF "-" is the defaults (xargs drops an empty '')
  local prog=$1 name=$2 conf=$3; shift 3
  [ "$conf" = - ] && conf=""
  (cd "$HERE" && PYTORCH_CUDA_ALLOC_CONF=$conf python3 run_one.py "$prog" "$name" "$OUTDIR" "$@" >"$OUTDIR/$name.log" 2>&1; tail -1 "$OUTDIR/$name.log")
}
export -f run; export HERE OUTDIR
phase1() {
  for p in $PROGS; do
    echo "run $p ${p}_default - --pickle"
    echo "run $p ${p}_expandable expandable_segments:True"
    echo "run $p ${p}_split64 max_split_size_mb:64"
    echo "run $p ${p}_split256 max_split_size_mb:256"
    echo "run $p ${p}_roundup4 roundup_power2_divisions:4"
    echo "run $p ${p}_async backend:cudaMallocAsync"
  done
}
phase2() {
  for p in $PROGS; do
    python3 - "$OUTDIR" "$p" <<'PY'
import json, sys
out, p = sys.argv[1], sys.argv[2]
d = json.load(open(f"{out}/{p}_default.truth.json")); e = json.load(open(f"{out}/{p}_expandable.truth.json"))
total, pd, pe = d["device_total"], d["max_memory_reserved"], e["max_memory_reserved"]
cap = (pd + pe) / 2 if pe < 0.98 * pd else 0.98 * pd
print(f"run {p} {p}_gc06 garbage_collection_threshold:0.6 --fraction {1.25 * pd / total:.9f}")
print(f"run {p} {p}_fraction_default - --fraction {cap / total:.9f}")
print(f"run {p} {p}_fraction_expandable expandable_segments:True --fraction {cap / total:.9f}")
PY
  done
}
phase1 | xargs -P "$JOBS" -I{} bash -c "{}"
phase2 | xargs -P "$JOBS" -I{} bash -c "{}"
ls -la "$OUTDIR"
