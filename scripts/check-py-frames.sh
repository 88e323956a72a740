#!/bin/bash
# The recorder's GIL-free Python stack reader (capture/python/vramscope/_py_frames.cpp) against
# PyTorch's own frame walk, on every CPython it can find here (PATH, pyenv): builds
# capture/python/tests/py_frames_probe.cpp for each and runs test_py_frames.py. CI runs the same
# test for the distribution's python3 only (tst_py_frames_python); this covers the other versions
# the reader knows (3.11-3.13) and that the others say "cannot read".
#   scripts/check-py-frames.sh [PYTHON...]
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d) && trap 'rm -rf "$WORK"' EXIT
pythons=("$@")
if [ ${#pythons[@]} -eq 0 ]; then
  for p in python3 python3.{8..14} "$HOME"/.pyenv/versions/3.*/bin/python3; do
    command -v "$p" > /dev/null 2>&1 && pythons+=("$(command -v "$p")")
  done
fi
failed=0
declare -A seen
for p in "${pythons[@]}"; do
  version=$("$p" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) || continue
  [ -n "${seen[$version]:-}" ] && continue
  [ $# -eq 0 ] && [ "$("$p" -c 'import sys; print(int(sys.version_info < (3, 8)))')" = 1 ] && continue  # torch needs newer
  seen[$version]=1
  include=$("$p" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  suffix=$("$p" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  module="$WORK/$version/vramscope_py_frames$suffix"
  mkdir -p "$WORK/$version"
  if ! g++ -std=c++20 -O1 -fPIC -shared -I"$include" -I"$ROOT/capture/python/vramscope" \
      "$ROOT/capture/python/tests/py_frames_probe.cpp" "$ROOT/capture/python/vramscope/_py_frames.cpp" \
      -o "$module" 2> "$WORK/$version/build.log"; then
    echo "python $version: the probe does not build ($(head -c 200 "$WORK/$version/build.log"))"
    failed=1
    continue
  fi
  if out=$(VRAMSCOPE_FRAMES_MODULE="$module" "$p" "$ROOT/capture/python/tests/test_py_frames.py" 2>&1); then
    echo "python $version: $(echo "$out" | grep -E '^Ran ') OK"
  else
    echo "python $version: FAILED"; echo "$out" | tail -15
    failed=1
  fi
done
exit $failed
