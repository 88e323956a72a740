#!/bin/bash
# GPU evidence for issue 6, one device call: scenarios under the recorder, overhead, SIGKILL, live.
# Writes everything to $OUT. Needs ../shared/captures/scenarios.py copied to $SCEN.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SCEN=${SCEN:?path to scenarios.py}
cd "$HERE"
# Installed as a user would (offline: no build isolation, torch is already there).
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." && echo "pip install: ok"
export PYTHONPATH=$PKG
mkdir -p "$OUT/scen" "$OUT/poll"
t0=$(date +%s)
python -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)"
echo "build took $(( $(date +%s) - t0 )) s"
for s in clean_train leak_global_cache leak_eval_no_grad leak_autograd_ctx leak_hook cycle_gc_delayed \
         cache_fragmentation oom side_stream; do
  python run_scenario.py "$SCEN" $s "$OUT/scen" 2>&1 | tail -2
done
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python run_scenario.py "$SCEN" expandable_train "$OUT/scen" 2>&1 | tail -2
python run_scenario.py "$SCEN" leak_global_cache "$OUT/poll" --no-native 2>&1 | tail -2
for m in off history agent-nostack agent-python; do python overhead.py $m "$OUT" 2>&1 | grep -v Warning; done
# SIGKILL mid-run
python -m vramscope record -o "$OUT/killed.vscap" -- train_loop.py 100000 > /dev/null 2>&1 &
pid=$!; sleep 25; kill -9 $pid; wait $pid 2>/dev/null; ls -la "$OUT/killed.vscap"
# live stream to a listening stand-in viewer
python live_viewer.py "$PKG/vs.sock" "$OUT/live_stream.vscap" "$OUT/live_arrivals.txt" &
vpid=$!; sleep 1
VRAMSCOPE_LIVE="$PKG/vs.sock" python -m vramscope record -o "$OUT/live_file.vscap" -- train_loop.py 300 --print-times > "$OUT/live_steps.txt"
wait $vpid
cmp "$OUT/live_stream.vscap" "$OUT/live_file.vscap" && echo "live stream == file"
tar -C "$OUT" -cf "$OUT/runs.tar" scen poll && rm -rf "$OUT/scen" "$OUT/poll"
echo "total $(( $(date +%s) - t0 )) s"
