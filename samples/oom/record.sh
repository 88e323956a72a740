#!/bin/bash
# Records the programs of samples/oom on a GPU machine, each twice, as separate runs: with PyTorch's
# own memory history (samples/real/with_history.py -> NAME.pickle.xz + NAME.truth.json) and with
# vramscope's recorder (python -m vramscope record -> NAME.vscap + NAME.rec.truth.json).
#     bash samples/oom/record.sh OUTDIR
# The peak programs run first, all four runs at once; the OOM programs fill the device, so they run
# one at a time, alone on the GPU (the script waits until no other process uses it). ONLY=REGEX
# records only the programs whose name matches; MODES="hist" or "rec" only one recorder;
# TIMEOUT=S per run (default 90). vramscope's runs use VRAMSCOPE_PAUSE_BUDGET=none (full retention
# graphs at the OOM and at exit). Writes OUTDIR/logs, OUTDIR/status.tsv, OUTDIR/check.txt.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUTDIR=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
MODES=" ${MODES:-hist rec} "
TIMEOUT=${TIMEOUT:-90}
LOGS=$OUTDIR/logs && mkdir -p "$LOGS"
unset PYTORCH_CUDA_ALLOC_CONF  # the native caching allocator's defaults (no expandable segments)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} PYTHONUNBUFFERED=1
if ! python3 -c "import vramscope" 2>/dev/null; then
  PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
  pip install -q --no-deps --no-build-isolation --target "$PKG" "$ROOT/capture/python" >/dev/null 2>&1
  export PYTHONPATH=$PKG${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)"
python3 -c "import torch; f, t = torch.cuda.mem_get_info(); print('torch', torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0), 'total %.2f GiB free %.2f GiB' % (t / 2**30, f / 2**30))"

xz9() { python3 -c "import lzma,sys,os; d=open(sys.argv[1],'rb').read(); open(sys.argv[1]+'.xz','wb').write(lzma.compress(d, preset=9|lzma.PRESET_EXTREME)); os.remove(sys.argv[1])" "$1"; }
status() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$OUTDIR/status.tsv"; }
gpu_used() { nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader 2>/dev/null | head -1; }
alone() { # waits (30 s at most) until no other process holds GPU memory
  local i
  for i in $(seq 60); do
    [ -z "$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "warning: other processes still on the GPU: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' ')"
}
hist() { # hist NAME: PyTorch's history -> NAME.pickle.xz, NAME.truth.json
  [[ $MODES == *" hist "* ]] || return 0
  local name=$1 t0=$SECONDS rc
  timeout "$TIMEOUT" python3 "$ROOT/samples/real/with_history.py" "$OUTDIR/$name.pickle" "$HERE/$name.py" \
    "$OUTDIR/$name.truth.json" >"$LOGS/$name.hist.txt" 2>&1
  rc=$?
  status "$name" history $rc $((SECONDS - t0))
  echo "$name (history): rc=$rc $((SECONDS - t0)) s $(tail -1 "$LOGS/$name.hist.txt" | cut -c1-160)"
  [ -f "$OUTDIR/$name.pickle" ] && xz9 "$OUTDIR/$name.pickle"
}
rec() { # rec NAME: vramscope's recorder -> NAME.vscap, NAME.rec.truth.json
  [[ $MODES == *" rec "* ]] || return 0
  local name=$1 t0=$SECONDS rc
  VRAMSCOPE_PAUSE_BUDGET=none timeout "$TIMEOUT" python3 -m vramscope record -o "$OUTDIR/$name.vscap" -- \
    "$HERE/$name.py" "$OUTDIR/$name.rec.truth.json" >"$LOGS/$name.rec.txt" 2>&1
  rc=$?
  status "$name" vramscope $rc $((SECONDS - t0))
  echo "$name (vramscope): rc=$rc $((SECONDS - t0)) s $(grep -h 'vramscope:' "$LOGS/$name.rec.txt" | tr '\n' '|' | cut -c1-300)"
}

T0=$SECONDS
PEAK="peak_eval_spike peak_growing_epochs"
OOM="leak_kept_outputs leak_val_loss_graph accum_eval_outputs accum_epoch_features frag_shard_filter
     frag_kv_sessions ws_mlp_batch_ramp ws_attention_seq_ramp outside_other_process outside_raw_cudamalloc
     leak_hook_features accum_tta_predictions frag_growing_prompts ws_vocab_logits outside_worker_cache"
for name in $PEAK; do  # small: all at once
  [[ $name =~ ${ONLY:-.} ]] || continue
  hist "$name" </dev/null &
  rec "$name" </dev/null &
done
wait
for name in $OOM; do  # each fills the device: one at a time, alone
  [[ $name =~ ${ONLY:-.} ]] || continue
  for mode in hist rec; do
    alone
    echo "  before $name ($mode): GPU used, total: $(gpu_used)"
    $mode "$name" </dev/null
  done
done
echo "all runs done in $((SECONDS - T0)) s"
python3 "$HERE/check.py" "$OUTDIR" | tee "$OUTDIR/check.txt"
du -sh "$OUTDIR"
