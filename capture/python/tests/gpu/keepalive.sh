#!/bin/bash
# GPU check of the live keepalive (issue 19): the Python recorder streams a real CUDA program that
# stays idle for IDLE seconds to a stand-in viewer; the viewer's arrival log must show a small write
# about every 60 s of the idle stretch (the empty keepalive chunks), and the file gets none of them.
#   OUT=dir keepalive.sh [IDLE]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
IDLE=${1:-130}
cd "$HERE"
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT # 0700, fresh
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." && echo "pip install: ok"
export PYTHONPATH=$PKG
python live_viewer.py "$PKG/vs.sock" "$OUT/idle_stream.vscap" "$OUT/idle_arrivals.txt" &
vpid=$!; sleep 1
VRAMSCOPE_LIVE="$PKG/vs.sock" python -m vramscope record -o "$OUT/idle_file.vscap" -- idle_program.py "$IDLE" \
  > "$OUT/idle_program.txt" 2>&1
wait $vpid
python - "$OUT" <<'PY'
import sys
out = sys.argv[1]
lines = open(out + "/idle_program.txt").read().split()
t0 = float(lines[lines.index("from") + 1]); t1 = float(lines[lines.index("until") + 1])
prev = 0
for line in open(out + "/idle_arrivals.txt"):
    total, at = line.split(); total = int(total); at = float(at)
    if t0 + 1 < at < t1:
        print("during the idle stretch: %d bytes at +%.1f s" % (total - prev, at - t0))
    prev = total
print("idle stretch %.1f s" % (t1 - t0))
PY
ls -la "$OUT"/idle_stream.vscap "$OUT"/idle_file.vscap
