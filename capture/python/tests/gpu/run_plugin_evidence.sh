#!/bin/bash
# GPU evidence for issue 48, in one device call: the 12-test suite (plugin_suite/test_memory.py) with
# `pytest --vramscope -n 4` and unrecorded, timed both ways (and serially), the JUnit properties, the
# HF Trainer and Lightning callbacks on real runs (a leaking and a clean one each), assert_no_leak.
# The recorder is installed as a user installs it (its pytest11 entry point included); vramscope-cli
# is a carried build ($FALLBACK/bin) when it runs here, else built here from source; pytest and
# pytest-xdist come from $FALLBACK/vendor only where the machine lacks them. Everything goes to
# $OUT/evidence.tgz (packed after each part) and the printed lines to $OUT/log.txt.
#     OUT=/tmp/ev FALLBACK=build-vs48 capture/python/tests/gpu/run_plugin_evidence.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
FINAL=${OUT:-/tmp/plugin-evidence}
OUT=$(mktemp -d)
FALLBACK=$(cd "$ROOT" && readlink -f "${FALLBACK:-build-vs48}")
mkdir -p "$FINAL"
exec > >(tee "$FINAL/log.txt") 2>&1
pack() { tar czf "$FINAL/evidence.tgz" -C "$OUT" . 2>/dev/null; }
now() { date +%s.%N; }
secs() { python3 -c "print('%.1f' % ($2 - $1))"; }

echo "== machine"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
python3 -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__)"
for m in pytest xdist transformers lightning pytorch_lightning; do
  python3 -c "import $m; print('$m', getattr($m, '__version__', '?'))" 2>/dev/null || echo "$m: missing"
done
if ! python3 -c "import pytest, xdist" 2>/dev/null; then
  export PYTHONPATH_VENDOR=$FALLBACK/vendor && echo "pytest/xdist from the carried Debian packages ($FALLBACK/vendor)"
fi

echo "== vramscope-cli"
t0=$(now)
if "$FALLBACK/bin/vramscope-cli" summary "$ROOT/samples/recorded/clean_train.vscap" >/dev/null 2>&1; then
  export VRAMSCOPE_CLI=$FALLBACK/bin/vramscope-cli
elif cmake -S "$ROOT" -B /tmp/vs-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAMSCOPE_GUI=OFF >/tmp/vs-build.log 2>&1 &&
   cmake --build /tmp/vs-build --target vramscope-cli -j 16 >>/tmp/vs-build.log 2>&1; then
  export VRAMSCOPE_CLI=/tmp/vs-build/app/vramscope-cli
else
  tail -5 /tmp/vs-build.log; echo "no vramscope-cli: findings will be missing"
fi
echo "cli: $VRAMSCOPE_CLI ($(secs "$t0" "$(now)") s)"

echo "== the recorder, installed as a user installs it"
PKG=$(mktemp -d)
pip install -q --no-deps --no-build-isolation --target "$PKG" "$ROOT/capture/python" && echo "pip install: ok"
export PYTHONPATH=$PKG${PYTHONPATH_VENDOR:+:$PYTHONPATH_VENDOR}
python3 -c "import vramscope.native as n; m, r = n.load(); print('native tracker:', 'built' if m else r)"
python3 -m pytest --help | grep -c -- "--vramscope" | sed 's/^/pytest --help lines naming --vramscope (entry point): /'

echo "== the 12-test suite"
cd "$HERE/plugin_suite"
run() {  # run NAME ARGS...: the suite, its time and its summary line
  local name=$1; shift
  local t0; t0=$(now)
  python3 -m pytest -p no:cacheprovider -q "$@" test_memory.py > "$OUT/$name.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc, $(secs "$t0" "$(now)") s, $(grep -E '(passed|failed)' "$OUT/$name.txt" | tail -1)"
}
run plain_n4 -n 4
run vramscope_n4 -n 4 --vramscope --vramscope-dir "$OUT/caps" --junitxml "$OUT/junit.xml"
run plain_serial
run vramscope_serial --vramscope --vramscope-dir /tmp/caps-serial
pack
sed -n '/vramscope: CUDA memory per test/,/^captures kept/p' "$OUT/vramscope_n4.txt"
grep -E '^FAILED' "$OUT/vramscope_n4.txt"
echo "-- each failure's first lines"
grep -E -A3 '^vramscope: test_memory.py::' "$OUT/vramscope_n4.txt" | grep -E 'vramscope: test_memory|memory kept|line:' | cut -c1-240
echo "-- JUnit properties of test_kept_output"
python3 - "$OUT/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
for c in ET.parse(sys.argv[1]).iter("testcase"):
    if c.get("name") == "test_kept_output":
        for p in c.iter("property"):
            print("  %s = %s" % (p.get("name"), p.get("value")[:160]))
PY
ls "$OUT/caps" | sed 's/^/kept: /'
pack

echo "== assert_no_leak"
python3 "$HERE/plugin_suite/assert_no_leak_run.py" /tmp/anl 2>&1 | grep -v "^vramscope: wrote" | cut -c1-300

echo "== HF Trainer and Lightning with the callbacks, recorded"
for prog in hf_trainer_run lightning_run; do
  for mode in leak clean; do
    t0=$(now)
    python3 -m vramscope record -o "/tmp/${prog}_$mode.vscap" -- "$HERE/plugin_suite/$prog.py" $mode \
      > "$OUT/${prog}_$mode.txt" 2>&1
    echo "$prog $mode: exit $?, $(secs "$t0" "$(now)") s"
    grep -E '^(hf|pl) |^    ' "$OUT/${prog}_$mode.txt" | cut -c1-300
    pack
  done
done
