#!/bin/bash
# Runs a command with the recorder installed as a user would (pip, into a fresh private directory on
# PYTHONPATH) and the tracker's build cache in $VRAMSCOPE_CACHE (default ~/.cache/vramscope).
#   capture/python/tests/gpu/with_recorder.sh python overhead_inproc.py --reps 6 --json "$OUT/inproc.json"
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." && echo "pip install: ok" >&2
export PYTHONPATH=$PKG VRAMSCOPE_CACHE=${VRAMSCOPE_CACHE:-$HOME/.cache/vramscope}
cd "$HERE" && "$@"
