#!/usr/bin/env bash
# Checks the formatting, then builds and runs every test: the Release build with all suites (GUI ones offscreen), the core
# suites again under AddressSanitizer + UndefinedBehaviorSanitizer, and the libFuzzer target on
# the committed corpus for a bounded time (FUZZ_SECONDS, default 60). A plain configure builds only
# what a user runs: the suites, benchmarks and CUDA samples are turned on here, explicitly.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
jobs=$(nproc)

echo "== Formatting: every C++ file as .clang-format says (clang-format -i FILE fixes one)"
# samples/: programs whose recordings (and the tests reading them) name their source lines
sources=(git ls-files -z '*.h' '*.cpp' '*.cu' '*.cc' ':!samples')
"${sources[@]}" | xargs -0 clang-format --dry-run --Werror
echo "format: $("${sources[@]}" | tr -cd '\0' | wc -c) files as .clang-format says"

echo "== Release build and all tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAMSCOPE_TESTS=ON -DVRAMSCOPE_BENCH=ON -DVRAMSCOPE_CUDA_SAMPLES=ON >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== Core tests under ASan + UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVRAMSCOPE_GUI=OFF -DVRAMSCOPE_TESTS=ON -DVRAMSCOPE_BENCH=OFF -DVRAMSCOPE_CUDA_SAMPLES=OFF \
  -DVRAMSCOPE_SANITIZE=address,undefined >/dev/null
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan -L core --output-on-failure -j "$jobs"

echo "== Fuzzing the snapshot reader for ${FUZZ_SECONDS:-60} s"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DVRAMSCOPE_FUZZ=ON -DVRAMSCOPE_CUDA_SAMPLES=OFF \
  -DVRAMSCOPE_GUI=OFF -DVRAMSCOPE_TESTS=OFF -DVRAMSCOPE_BENCH=OFF -DVRAMSCOPE_SANITIZE=address,undefined >/dev/null
cmake --build build-fuzz -j "$jobs" --target fuzz_snapshot
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build-fuzz/fuzz/fuzz_snapshot -max_total_time="${FUZZ_SECONDS:-60}" -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$work/" -print_final_stats=1 "$work" fuzz/corpus 2>&1 | tail -n 3
echo "fuzz: 1 passed, 0 failed"
