#!/bin/bash
# Records the programs of samples/real on a GPU machine, each twice: with PyTorch's own memory
# history (NAME.pickle.xz + NAME.truth.json) and with vramscope's recorder (NAME.vscap +
# NAME.rec.truth.json); the CUDA-extension programs with the CUPTI agent instead of the recorder.
#     bash samples/real/record.sh OUTDIR [main|heldout] [JOBS]
# MODES="rec cupti" (any of hist rec cupti; default all three) records only those; ONLY=REGEX only
# the programs whose task line matches (e.g. ONLY=hf_trainer).
# Needs: torch, lightning, transformers, nvcc + ninja (load_inline); the CUPTI agent at
# $VRAMSCOPE_CUPTI_LIB (default .gpu/bin/libvramscope_cupti.so with its libdw/libelf/libunwind beside it).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUTDIR=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
SET=${2:-main}
JOBS=${3:-4}
MODES=" ${MODES:-hist rec cupti} "
LOGS=$OUTDIR/logs && mkdir -p $LOGS
if ! python3 -c "import vramscope" 2>/dev/null; then
  PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
  pip install -q --no-deps --no-build-isolation --target "$PKG" "$ROOT/capture/python" >/dev/null 2>&1
  export PYTHONPATH=$PKG${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)"
AGENT=${VRAMSCOPE_CUPTI_LIB:-$ROOT/.gpu/bin/libvramscope_cupti.so}
export LD_LIBRARY_PATH=$(dirname "$AGENT"):/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[[ cuda_ext =~ ${ONLY:-.} ]] && python3 "$HERE/cuda_ext_scratch.py" /dev/null --build-only  # compile once, unrecorded

xz9() { python3 -c "import lzma,sys,os; d=open(sys.argv[1],'rb').read(); open(sys.argv[1]+'.xz','wb').write(lzma.compress(d, preset=9|lzma.PRESET_EXTREME)); os.remove(sys.argv[1])" "$1"; }
hist() { # hist NAME PROGRAM ARGS: PyTorch's history -> NAME.pickle.xz, NAME.truth.json
  [[ $MODES == *" hist "* ]] || return 0
  local name=$1 prog=$2; shift 2
  python3 "$HERE/with_history.py" "$OUTDIR/$name.pickle" "$HERE/$prog" "$OUTDIR/$name.truth.json" "$@" >$LOGS/$name.hist.txt 2>&1
  echo "$name (history): rc=$? $(tail -1 $LOGS/$name.hist.txt)"; xz9 "$OUTDIR/$name.pickle"
}
rec() { # rec NAME PROGRAM ARGS: vramscope's recorder -> NAME.vscap, NAME.rec.truth.json
  [[ $MODES == *" rec "* ]] || return 0
  local name=$1 prog=$2; shift 2
  python3 -m vramscope record -o "$OUTDIR/$name.vscap" -- "$HERE/$prog" "$OUTDIR/$name.rec.truth.json" "$@" >$LOGS/$name.rec.txt 2>&1
  echo "$name (vramscope): rc=$? $(grep -h 'vramscope:' $LOGS/$name.rec.txt | tr '\n' '|')"
}
cupti() { # cupti NAME PROGRAM ARGS: the CUPTI agent -> NAME.vscap, NAME.rec.truth.json
  [[ $MODES == *" cupti "* ]] || return 0
  local name=$1 prog=$2; shift 2
  CUDA_INJECTION64_PATH=$AGENT VRAMSCOPE_OUTPUT=$OUTDIR/$name.vscap python3 "$HERE/$prog" "$OUTDIR/$name.rec.truth.json" "$@" >$LOGS/$name.cupti.txt 2>&1
  echo "$name (cupti): rc=$? $(tail -1 $LOGS/$name.cupti.txt)"
}
both() { hist "$@"; rec "$@"; }
hist_cupti() { hist "$@"; cupti "$@"; }

if [ "$SET" = main ]; then
  L=""; H=""; W=""; C=""
else  # held out: other seeds, sizes and step counts of the same programs
  L="--seed 7 --epochs 2 --steps 200 --width 1024 --batch 96 --step-ms 30"
  H="--seed 5 --steps 150 --layers 3 --batch 8 --seq 96 --step-ms 30"
  W="--seed 3 --epochs 3 --batches 80 --hidden 384 --bptt 30 --step-ms 20"
  C="--seed 2 --steps 90 --scratch-kib 512 --width 2048 --step-ms 15"
fi
tasks=(
  "both lightning_outputs_clean lightning_outputs.py $L"
  "both lightning_outputs_accumulation lightning_outputs.py --leaky $L"
  "both hf_trainer_clean hf_trainer_zloss.py $H"
  "both hf_trainer_zloss_leak hf_trainer_zloss.py --leaky $H"
  "both word_lm_clean word_lm_cache.py $W"
  "both word_lm_cache_leak word_lm_cache.py --leaky $W"
  "both word_lm_cycle word_lm_cycle.py $W"
  "hist_cupti cuda_ext_scratch_leak cuda_ext_scratch.py $C"
  "hist_cupti cuda_clean_cupti cuda_ext_scratch.py --clean $C"
)
for t in "${tasks[@]}"; do
  [[ $t =~ ${ONLY:-.} ]] || continue  # ONLY=REGEX: just the tasks that match
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.5; done
  eval "$t" &
done
wait
ls -la "$OUTDIR"
