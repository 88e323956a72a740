#!/bin/bash
# The recorder's compiled parts that read CPython's internals, on every CPython it can find here
# (PATH, pyenv; 3.9 and newer, what torch runs on), each built for that Python and tested:
#   - the GIL-free Python stack reader (capture/python/vramscope/_py_frames.cpp) against PyTorch's
#     own frame walk (tests/py_frames_probe.cpp, test_py_frames.py): equal on 3.11-3.13, "cannot
#     read" on the others;
#   - the retention walk's heap index (_heap_index.cpp, test_heap_index.py): the same edges and
#     graphs as its Python fallback;
#   - the own symbolization of Python stacks (_own_symbols.h through tests/own_symbols_probe.cpp,
#     test_own_symbols.py): each frame's line from its code object's own table;
#   - the own gatherer of the events' stacks (_own_stacks.h through tests/own_stacks_probe.cpp,
#     test_own_stacks.py): one cached stack per distinct stack, deep ones left to PyTorch.
# CI runs these tests for the distribution's python3 only (tst_py_frames_python, tst_heap_index_python,
# tst_own_symbols_python, tst_own_stacks_python).
#   scripts/check-pythons.sh [PYTHON...]
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
# check PYTHON VERSION MODULE ENV_VAR TEST SOURCES_AND_FLAGS...: builds the module, runs the test
check() {
  local p=$1 version=$2 name=$3 var=$4 test=$5 out
  shift 5
  local module="$WORK/$version/$name$suffix"
  if ! g++ -std=c++20 -O1 -fPIC -shared -I"$include" -I"$ROOT/capture/python/vramscope" "$@" \
      -o "$module" 2> "$WORK/$version/$name.log"; then
    echo "python $version: $name does not build ($(head -c 200 "$WORK/$version/$name.log"))"
    failed=1
    return
  fi
  if out=$(env "$var=$module" "$p" "$ROOT/capture/python/tests/$test" 2>&1); then
    echo "python $version: $test $(echo "$out" | grep -E '^Ran ') OK"
  else
    echo "python $version: $test FAILED"; echo "$out" | tail -15
    failed=1
  fi
}
for p in "${pythons[@]}"; do
  version=$("$p" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null) || continue
  [ -n "${seen[$version]:-}" ] && continue
  [ $# -eq 0 ] && [ "$("$p" -c 'import sys; print(int(sys.version_info < (3, 9)))')" = 1 ] && continue  # torch needs newer
  seen[$version]=1
  include=$("$p" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  suffix=$("$p" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  mkdir -p "$WORK/$version"
  check "$p" "$version" vramscope_py_frames VRAMSCOPE_FRAMES_MODULE test_py_frames.py \
    "$ROOT/capture/python/tests/py_frames_probe.cpp" "$ROOT/capture/python/vramscope/_py_frames.cpp"
  check "$p" "$version" vramscope_heap VRAMSCOPE_HEAP_MODULE test_heap_index.py \
    -DVRAMSCOPE_HEAP_MODULE "$ROOT/capture/python/vramscope/_heap_index.cpp"
  check "$p" "$version" vramscope_symbols VRAMSCOPE_SYMBOLS_MODULE test_own_symbols.py \
    -I"$ROOT/capture/python/tests/torch_headers" "$ROOT/capture/python/tests/own_symbols_probe.cpp"
  check "$p" "$version" vramscope_own_stacks VRAMSCOPE_OWN_STACKS_MODULE test_own_stacks.py \
    -I"$ROOT/capture/python/tests/torch_headers" "$ROOT/capture/python/tests/own_stacks_probe.cpp" \
    "$ROOT/capture/python/vramscope/_py_frames.cpp"
done
exit $failed
