#!/bin/bash
# Records every run of samples/corpus/runs.txt on a GPU machine, twice, as separate runs of the same
# program and arguments: with PyTorch's own memory history (samples/real/with_history.py ->
# NAME.pickle.xz + NAME.truth.json) and with vramscope's recorder (python -m vramscope record ->
# NAME.vscap + NAME.rec.truth.json).
#     bash samples/corpus/record.sh OUTDIR [JOBS]
# JOBS runs at a time (default 8). ONLY=REGEX records only the runs whose line in runs.txt matches;
# MODES="hist" or MODES="rec" only that recorder (default both); TIMEOUT=S per program (default 300).
# Writes OUTDIR/status.tsv (NAME, recorder, exit code, seconds) and OUTDIR/logs/, then checks the
# truth files (check_truth.py). Needs torch with CUDA; Lightning and transformers for three programs.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUTDIR=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
JOBS=${2:-8}
MODES=" ${MODES:-hist rec} "
TIMEOUT=${TIMEOUT:-300}
LOGS=$OUTDIR/logs && mkdir -p "$LOGS"
PROGRAMS=$HERE/programs
# Many small processes share the machine: few CPU threads each; nothing is downloaded.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
if ! python3 -c "import vramscope" 2>/dev/null; then
  PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
  pip install -q --no-deps --no-build-isolation --target "$PKG" "$ROOT/capture/python" >/dev/null 2>&1
  export PYTHONPATH=$PKG${PYTHONPATH:+:$PYTHONPATH}
fi
# Build the native tracker once, before the parallel runs (each run would otherwise race to build it).
python3 -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)"

xz9() { python3 -c "import lzma,sys,os; d=open(sys.argv[1],'rb').read(); open(sys.argv[1]+'.xz','wb').write(lzma.compress(d, preset=9|lzma.PRESET_EXTREME)); os.remove(sys.argv[1])" "$1"; }
status() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$OUTDIR/status.tsv"; }
hist() { # hist NAME PROGRAM ARGS: PyTorch's history -> NAME.pickle.xz, NAME.truth.json
  [[ $MODES == *" hist "* ]] || return 0
  local name=$1 prog=$2 t0=$SECONDS rc; shift 2
  timeout "$TIMEOUT" python3 "$ROOT/samples/real/with_history.py" "$OUTDIR/$name.pickle" "$PROGRAMS/$prog" \
    "$OUTDIR/$name.truth.json" "$@" >"$LOGS/$name.hist.txt" 2>&1
  rc=$?
  status "$name" history $rc $((SECONDS - t0))
  echo "$name (history): rc=$rc $((SECONDS - t0)) s $(tail -1 "$LOGS/$name.hist.txt" | cut -c1-160)"
  [ -f "$OUTDIR/$name.pickle" ] && xz9 "$OUTDIR/$name.pickle"
}
rec() { # rec NAME PROGRAM ARGS: vramscope's recorder -> NAME.vscap, NAME.rec.truth.json
  [[ $MODES == *" rec "* ]] || return 0
  local name=$1 prog=$2 t0=$SECONDS rc; shift 2
  timeout "$TIMEOUT" python3 -m vramscope record -o "$OUTDIR/$name.vscap" -- "$PROGRAMS/$prog" \
    "$OUTDIR/$name.rec.truth.json" "$@" >"$LOGS/$name.rec.txt" 2>&1
  rc=$?
  status "$name" vramscope $rc $((SECONDS - t0))
  echo "$name (vramscope): rc=$rc $((SECONDS - t0)) s $(grep -h 'vramscope:' "$LOGS/$name.rec.txt" | tr '\n' '|' | cut -c1-300)"
}
both() { hist "$@"; rec "$@"; }

T0=$SECONDS
while read -r line; do
  [[ -z $line || $line == \#* ]] && continue
  [[ $line =~ ${ONLY:-.} ]] || continue  # ONLY=REGEX: just the runs that match
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.3; done
  # shellcheck disable=SC2086
  both $line </dev/null &
done <"$HERE/runs.txt"
wait
echo "all runs done in $((SECONDS - T0)) s"
python3 "$HERE/check_truth.py" "$OUTDIR"
du -sh "$OUTDIR"
