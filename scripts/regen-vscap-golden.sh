#!/bin/sh
# Rewrites tests/golden/vscap/*.bin from core's .vscap encoder (tst_vscap_codec, built in BUILD_DIR, which
# it configures with -DVRAMSCOPE_TESTS=ON as scripts/test.sh does),
# then checks the Python fallback (codec.py) against them. Run it only after a deliberate change of a record
# layout (docs/vscap.md first), and commit the files with the change.
#   scripts/regen-vscap-golden.sh [BUILD_DIR]   (default: build)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
cmake -S "$root" -B "$build" -DVRAMSCOPE_TESTS=ON >/dev/null # the suites are off by default
cmake --build "$build" --target tst_vscap_codec
VRAMSCOPE_WRITE_GOLDEN=1 "$build/tests/tst_vscap_codec" coreCodecMatchesGolden
"$build/tests/tst_vscap_codec"
python3 "$root/capture/python/tests/test_vscap_golden.py"
