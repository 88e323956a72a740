#!/bin/bash
# GPU evidence for issue 30 item 5 (what the recorder costs), one device call; everything to $OUT.
#   1. own_stacks_check.py (builds the tracker): the stacks the tracker gathers are PyTorch's
#   2. observer_programs.py eager recorded with PyTorch's stacks and with ours: OUT/stacks0.vscap and
#      OUT/stacks1.vscap, to compare with vramscope-cli (the GPU machine has no viewer)
#   3. overhead_inproc.py: the per-step cost of each part, in one process (paired blocks)
#   0. how long importing torch._dynamo takes (the recorder does at start)
#   4. overhead_whole.py with no steps (eager=0, generation=0): the recorder's fixed cost per run
#      (start, the graph at exit, the file's end), interleaved rounds
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?output directory}
PKG=$(mktemp -d) && WORK=$(mktemp -d) && trap 'rm -rf "$PKG" "$WORK"' EXIT
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." 2>/dev/null && echo "pip install: ok"
export PYTHONPATH=$PKG VRAMSCOPE_CACHE=${VRAMSCOPE_CACHE:-$HOME/.cache/vramscope}
cd "$HERE"
# the recorder imports torch._dynamo at start (an import race with the writer thread): what a program
# that never uses an optimizer or torch.compile pays for it
python -c "import time; t = time.time(); import torch; a = time.time(); import torch._dynamo; b = time.time(); \
print('import torch %.2f s, then torch._dynamo %.2f s' % (a - t, b - a))" | tee "$OUT/imports.txt"
python own_stacks_check.py 2>&1 | tail -3 | tee "$OUT/own_stacks.txt"
for g in 0 1; do
  VRAMSCOPE_OWN_STACKS=$g VRAMSCOPE_QUIET=1 python -m vramscope record -o "$OUT/stacks$g.vscap" -- observer_programs.py eager \
    > /dev/null && echo "recorded stacks$g.vscap (VRAMSCOPE_OWN_STACKS=$g)"
done
python overhead_inproc.py --reps "${REPS:-12}" --modes off,hist_own,tracker_own,recorder,rec_torchstacks \
  --json "$OUT/inproc.json" 2>&1 | grep -v '_token_id' | tee "$OUT/inproc.txt"
python overhead_whole.py "$WORK" --rounds "${ROUNDS:-5}" --limit "${LIMIT:-150}" eager=0 generation=0 2>&1 | tee "$OUT/fixed.txt"
