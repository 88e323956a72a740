#!/bin/bash
# GPU evidence for issue 30 (items 1-3, the recorder's part), one device call; everything to $OUT.
#   1. the tracker extension: first load builds it into the cache, a second process finds it there;
#      own_stacks_check.py: the stacks it gathers itself are PyTorch's
#   2. hostile_heap.py under the real recorder: exit codes, stdout and stderr as unrecorded
#   3. observer_effect.py: seven programs unrecorded / recorded / under PyTorch's history
#      (4 at a time, JOBS=N sets it: DDP with gloo races with the GPU, likelier on a loaded machine)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?output directory}
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." && echo "pip install: ok"
export PYTHONPATH=$PKG
export VRAMSCOPE_CACHE=${VRAMSCOPE_CACHE:-$HOME/.cache/vramscope}
python -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'transformers', transformers.__version__)"
for i in 1 2; do
  t0=$(date +%s.%N)
  python -c "import vramscope.native as n; m, r = n.load(); print('tracker load $i:', n.load.how if m else r)"
  echo "tracker load $i took $(python -c "print(round($(date +%s.%N) - $t0, 1))") s (process start and import torch included)"
done
ls -la "$VRAMSCOPE_CACHE"
python "$HERE/own_stacks_check.py" 2>&1 | tail -4 | tee "$OUT/own_stacks.txt"
# the hostile heap before the observer effect (the longest part): a device call's time limit then
# cuts the latter, whose table is printed as programs finish; its files go to a folder of their own
mkdir -p "$OUT/hostile" && cd "$OUT/hostile"
for how in ok exit3 raise; do
  python "$HERE/hostile_heap.py" $how > plain.$how.out 2> plain.$how.err; prc=$?
  python -m vramscope record -o hostile.$how.vscap -- "$HERE/hostile_heap.py" $how > rec.$how.out 2> rec.$how.err; rrc=$?
  grep -v '^vramscope: ' rec.$how.err > rec.$how.err.program
  same_out=$(cmp -s plain.$how.out rec.$how.out && echo same || echo DIFFERENT)
  same_err=$(cmp -s plain.$how.err rec.$how.err.program && echo same || echo DIFFERENT)
  echo "hostile $how: exit $prc unrecorded, $rrc recorded; stdout $same_out; stderr (recorder's lines aside) $same_err; $(grep '^vramscope: wrote' rec.$how.err)"
done
VRAMSCOPE_PAUSE_BUDGET=none python -m vramscope record -o hostile.full.vscap -- "$HERE/hostile_heap.py" ok > /dev/null 2> rec.full.err
echo "hostile, no pause budget: exit $?; $(grep '^vramscope: ' rec.full.err | tr '\n' '|')"
cd "$HERE"
python "$HERE/observer_effect.py" "$OUT/observer" --jobs ${JOBS:-4} 2>&1 | tee "$OUT/observer_effect.txt"
du -sh "$OUT"/hostile/*.vscap "$OUT"/observer/*.vscap 2>/dev/null | tail -20
