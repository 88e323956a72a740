#!/bin/bash
# GPU evidence for issue 30 item 5 (what the recorder costs), one device call; everything to $OUT.
#   1. own_symbols_check.py (builds the tracker): its own symbolization and block list equal
#      _snapshot()'s, and a recording never imports torch._inductor (import_cost.py: what that costs)
#   2. own_stacks_check.py: the stacks the tracker gathers are PyTorch's; history_guard_check.py: a
#      program that turns PyTorch's history on itself imports torch._inductor on its own thread
#   3. observer_programs.py eager recorded with PyTorch's stacks and with ours: OUT/stacks0.vscap and
#      OUT/stacks1.vscap, to compare with vramscope-cli (the GPU machine has no viewer)
#   4. INPROC=1: overhead_inproc.py, the per-step cost of each part in one process (paired blocks;
#      MODES=... picks them: by default PyTorch's history without stacks, asking for contexts and
#      given none, with our stacks of everything and of allocations only, and the whole recorder)
#   5. overhead_whole.py on $PROGRAMS (default: generation eager), interleaved rounds; or, FIXED=1,
#      fixed_costs.py (default: eager cuda_graph): each run's wall time split into before the
#      program, its setup, the program, the stop and the exit, plain against recorded, and
#      fixed_costs_table.py's whole-program table (OUT/fixed_table.md)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?output directory}
PKG=$(mktemp -d) && WORK=$(mktemp -d) && trap 'rm -rf "$PKG" "$WORK"' EXIT
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." 2>/dev/null && echo "pip install: ok"
export PYTHONPATH=$PKG VRAMSCOPE_CACHE=${VRAMSCOPE_CACHE:-$HOME/.cache/vramscope}
cd "$HERE"
python -c "import vramscope.native as n; m, r = n.load(); print('tracker:', n.load.how if m else r); exit(0 if m else 1)" \
  || exit 1
python own_symbols_check.py "$WORK" 2>&1 | tail -12 | tee "$OUT/own_symbols.txt"
python own_stacks_check.py 2>&1 | tail -3 | tee "$OUT/own_stacks.txt"
python history_guard_check.py "$WORK/guard" 2>&1 | tail -3 | tee "$OUT/history_guard.txt"
for g in 0 1; do
  VRAMSCOPE_OWN_STACKS=$g VRAMSCOPE_QUIET=1 python -m vramscope record -o "$OUT/stacks$g.vscap" -- observer_programs.py eager \
    > /dev/null && echo "recorded stacks$g.vscap (VRAMSCOPE_OWN_STACKS=$g)"
done
if [ "${INPROC:-0}" = 1 ]; then
  python overhead_inproc.py --reps "${REPS:-12}" --modes "${MODES:-off,hist_nostack,hist_nocontext,hist_own,hist_own_alloc,recorder}" \
    --json "$OUT/inproc.json" 2>&1 | grep -v '_token_id' | tee "$OUT/inproc.txt"
fi
export PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX:-$WORK/pycache}  # torch's own __pycache__ is not writable there
if [ "${FIXED:-0}" = 1 ]; then  # where the extra wall time goes: before, setup, program, stop, exit
  timeout "${LIMIT:-300}" python fixed_costs.py --rounds "${ROUNDS:-2}" ${PROGRAMS:-eager cuda_graph} 2>&1 | tee "$OUT/fixed.txt"
  python fixed_costs_table.py "$OUT/fixed.txt" | tee "$OUT/fixed_table.md"
else
  python overhead_whole.py "$WORK" --rounds "${ROUNDS:-2}" --limit "${LIMIT:-300}" ${PROGRAMS:-generation eager} 2>&1 \
    | tee "$OUT/overhead_whole.txt"
fi
