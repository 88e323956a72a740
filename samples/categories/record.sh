#!/bin/bash
# Records issue 17's evidence on a GPU machine: real programs with both levels in one file
# (`python -m vramscope record --native`), the phases and tags, and the overhead of each recorder.
#     bash samples/categories/record.sh OUTDIR
# Needs: torch, torchvision, lightning, transformers, nvcc + ninja (load_inline, the native tracker);
# the CUPTI agent at $VRAMSCOPE_CUPTI_LIB (default .gpu/bin/libvramscope_cupti.so, libdw/libelf beside it).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
LOGS=$OUT/logs && mkdir -p $LOGS
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
pip install -q --no-deps --no-build-isolation --target "$PKG" "$ROOT/capture/python" >/dev/null 2>&1
export PYTHONPATH=$PKG${PYTHONPATH:+:$PYTHONPATH}
export VRAMSCOPE_CUPTI_LIB=${VRAMSCOPE_CUPTI_LIB:-$ROOT/.gpu/bin/libvramscope_cupti.so}
export LD_LIBRARY_PATH=$(dirname "$VRAMSCOPE_CUPTI_LIB"):/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
REAL=$ROOT/samples/real
# compile once, unrecorded: the native tracker and the extension
python3 -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)" &
python3 "$REAL/cuda_ext_scratch.py" /dev/null --build-only >$LOGS/ext_build.txt 2>&1 &
wait
rec() { # rec NAME FLAGS -- PROGRAM ARGS
  local name=$1; shift
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done; shift
  local prog=$1; shift
  python3 -m vramscope record "${flags[@]}" -o "$OUT/$name.vscap" -- "$prog" "$OUT/$name.truth.json" "$@" >$LOGS/$name.txt 2>&1
  echo "$name: rc=$? $(grep -h 'vramscope:\|median' $LOGS/$name.txt | tr '\n' '|')"
}
rec resnet_both --native -- "$HERE/train_categories.py" &
rec ext_leak_both --native -- "$REAL/cuda_ext_scratch.py" --steps 40 &
wait
[ -n "${QUICK:-}" ] || { rec lightning_phases -- "$REAL/lightning_outputs.py" --leaky &
rec hf_both --native -- "$REAL/hf_trainer_zloss.py" &
wait; }
# overhead of a training step (median over 80 steps), each way, one at a time, twice, interleaved
O="--steps 80 --truth-step 1000"
for round in 1 2; do
  python3 "$HERE/train_categories.py" $OUT/ov_none.json $O >>$LOGS/ov_none.txt 2>&1
  python3 -m vramscope record -o $OUT/ov_rec.vscap -- "$HERE/train_categories.py" $OUT/ov_rec.json $O >>$LOGS/ov_rec.txt 2>&1
  CUDA_INJECTION64_PATH=$VRAMSCOPE_CUPTI_LIB VRAMSCOPE_OUTPUT=$OUT/ov_agent.vscap python3 "$HERE/train_categories.py" $OUT/ov_agent.json $O >>$LOGS/ov_agent.txt 2>&1
  python3 -m vramscope record --native -o $OUT/ov_both.vscap -- "$HERE/train_categories.py" $OUT/ov_both.json $O >>$LOGS/ov_both.txt 2>&1
done
for v in none rec agent both; do echo "overhead $v: $(grep -h median $LOGS/ov_$v.txt | tr '\n' ' ')"; done
rm -f $OUT/ov_*.vscap
ls -la $OUT
