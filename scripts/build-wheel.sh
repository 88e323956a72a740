#!/usr/bin/env bash
# Builds the PyTorch recorder's wheel into OUTDIR from a copy of capture/python and core/ (the
# source tree stays clean): with the first Python that has setuptools and wheel (PYTHON, python3, the
# system's: Debian's python3-setuptools and python3-wheel), else through pip, which fetches them.
# Usage: scripts/build-wheel.sh OUTDIR
set -euo pipefail
out=$(realpath -m "${1:?usage: build-wheel.sh OUTDIR}")
repo=$(dirname "$(realpath "$0")")/..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the package and core/ at the same places relative to each other: setup.py copies core's codec
# headers into the wheel (the recorder compiles them)
mkdir -p "$tmp/capture"
cp -r "$repo/capture/python" "$tmp/capture/python"
cp -r "$repo/core" "$tmp/core"
find "$tmp" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$out"
cd "$tmp/capture/python" # imports below must not find directories of the caller's (a build tree's wheel/)
py=""
for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c "import setuptools, wheel.bdist_wheel" 2>/dev/null; then py=$candidate; break; fi
done
if [[ -n $py ]]; then
  "$py" -c "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))" "$out"
else
  "${PYTHON:-python3}" -m pip wheel --quiet --no-deps -w "$out" "$tmp/capture/python"
fi
ls "$out"/vramscope-*.whl
