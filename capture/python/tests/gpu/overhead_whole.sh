#!/bin/bash
# GPU evidence for issue 30 item 5, one device call: the recorder installed as a user would, then
# overhead_whole.py (whole program and median step, interleaved rounds). LIMIT bounds the rounds.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:?output directory}
PKG=$(mktemp -d) && WORK=$(mktemp -d) && trap 'rm -rf "$PKG" "$WORK"' EXIT
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." && echo "pip install: ok"
export PYTHONPATH=$PKG VRAMSCOPE_CACHE=${VRAMSCOPE_CACHE:-$HOME/.cache/vramscope}
python -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
python "$HERE/overhead_whole.py" "$WORK" --rounds "${ROUNDS:-3}" --limit "${LIMIT:-420}" "$@" 2>&1 | tee "$OUT/overhead_whole.txt"
cp "$WORK/overhead_whole.json" "$OUT/" 2>/dev/null
ls -la "$WORK" | head -20
