#!/bin/bash
# Records the comparison and rank samples on a GPU machine (run from the repository root):
#     bash samples/compare/record.sh OUTDIR
# compare/: keep_logits.py before (--leaky) and after the fix; ranks/: ddp_leak.py, one snapshot per
# rank (NCCL with a GPU per rank, else gloo with every rank on GPU 0). Every pickle xz-compressed.
set -u
OUT=$(mkdir -p "${1:?OUTDIR}" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "GPUs", torch.cuda.device_count())'
python3 "$HERE/compare/keep_logits.py" "$OUT/keep_logits_leak.pickle" "$OUT/keep_logits_leak.truth.json" --leaky || exit 1
python3 "$HERE/compare/keep_logits.py" "$OUT/keep_logits_fixed.pickle" "$OUT/keep_logits_fixed.truth.json" || exit 1
RANKS=${RANKS:-2}
python3 "$HERE/ranks/ddp_leak.py" "$OUT/ranks" --ranks "$RANKS" --leaky-rank 1 || exit 1
for f in "$OUT"/*.pickle "$OUT"/ranks/*.pickle; do xz -9e -T0 "$f"; done
ls -la "$OUT" "$OUT/ranks"
