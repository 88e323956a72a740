#!/bin/bash
# Fuzzes every mode on CORES cores for SECONDS without clang, libFuzzer or Qt: the standalone driver
# (fuzz/standalone_main.cpp: random recipes for SNP!/REC!/TRC!/ANA!/RNK! and byte mutations of the corpus
# files), built with the machine's C++ compiler under ASan+UBSan, one process per core. Prints each
# core's executions and the findings; a crash, a sanitizer report or an input running past 30 s is a
# finding: its input goes to OUT/findings/ (with the report beside it) and the script exits 1.
#   fuzz/run-standalone.sh CORES SECONDS OUT [BUILD]
#   fuzz/run-standalone.sh ship BUILD SHIP    for a machine that cannot build it: SHIP gets the driver
#                                             (debug info stripped: symbolise from BUILD) and the
#                                             libraries it needs past libc and libstdc++; then run
#                                             with SHIP as BUILD
# BUILD (default build-fuzz-standalone) is configured and built first when it has no driver yet (cmake,
# a C++20 compiler, libzstd, zlib and nlohmann-json headers, pkg-config); BUILD/lib, when there is
# one, is searched for libraries first.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)

build() { # the driver in $1, built unless it is there
  local dir=$1 gen=()
  [ -x "$dir/fuzz/fuzz_snapshot_standalone" ] && return 0
  echo "building $dir/fuzz/fuzz_snapshot_standalone (ASan+UBSan)"
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S "$src" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVRAMSCOPE_SANITIZE=address,undefined \
    -DVRAMSCOPE_FUZZ_STANDALONE=ON -DVRAMSCOPE_GUI=OFF -DVRAMSCOPE_TESTS=OFF -DVRAMSCOPE_BENCH=OFF \
    -DVRAMSCOPE_CUDA_SAMPLES=OFF > "$dir.configure.log" 2>&1 || { tail -20 "$dir.configure.log"; return 2; }
  cmake --build "$dir" -j "$(nproc)" --target fuzz_snapshot_standalone > "$dir.build.log" 2>&1 ||
    { grep -m 20 -E "error|Error" "$dir.build.log"; return 2; }
}

if [ "${1:-}" = ship ] && [ $# -eq 3 ]; then
  dir=$(realpath -m "$2"); ship=$(realpath -m "$3")
  build "$dir" || exit 2
  mkdir -p "$ship/fuzz" "$ship/lib"
  strip --strip-debug -o "$ship/fuzz/fuzz_snapshot_standalone" "$dir/fuzz/fuzz_snapshot_standalone"
  ldd "$dir/fuzz/fuzz_snapshot_standalone" | awk '/libzstd|libz\.|libasan|libubsan/ {print $3}' | xargs -r cp -L -t "$ship/lib"
  du -sh "$ship"; exit 0
fi
[ $# -ge 3 ] || { sed -n 2,14p "$0"; exit 2; }
cores=$1; seconds=$2; out=$(realpath -m "$3")
dir=$(realpath -m "${4:-$src/build-fuzz-standalone}")
build "$dir" || exit 2
driver=$dir/fuzz/fuzz_snapshot_standalone
[ -d "$dir/lib" ] && export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then echo "OUT ($out) must be a new or empty folder" >&2; exit 2; fi
mkdir -p "$out/findings"
corpus=("$src"/fuzz/corpus/*)
# Sanitizers stop at the first report (built with -fno-sanitize-recover); leaks count too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# One core: the driver again and again (a new seed each time) until the time is spent; a run that
# ends badly leaves its input in crash-standalone, kept as a finding.
worker() {
  local k=$1 dir=$out/core-$1 start=$SECONDS round=0 found=0 left rc
  mkdir -p "$dir" && cd "$dir" || return
  # three findings end a core's run: a corpus file that crashes would otherwise crash every round
  while left=$((seconds - (SECONDS - start))); [ "$left" -gt 0 ] && [ $found -lt 3 ]; do
    "$driver" "${corpus[@]}" --input-timeout 30 --random 0 $((k * 1000003 + round)) --for "$left" \
      > "run-$round.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
      local name=core$k-run$round-exit$rc
      [ $rc -eq 142 ] && name=$name-timeout
      cp crash-standalone "$out/findings/$name.input" 2>/dev/null
      cp "run-$round.log" "$out/findings/$name.log"
      found=$((found + 1))
    fi
    round=$((round + 1))
  done
}

for ((k = 0; k < cores; k++)); do worker "$k" & done
wait
total=0
for ((k = 0; k < cores; k++)); do
  n=$(cat "$out/core-$k"/run-*.log 2>/dev/null | awk '/^executions:/ {s += $2} END {print s + 0}')
  runs=$(ls "$out/core-$k"/run-*.log 2>/dev/null | wc -l)
  echo "core $k: $n executions in $seconds s ($((n / seconds)) /s), $runs driver run(s)"
  total=$((total + n))
done
found=$(ls "$out/findings" | grep -c '\.log$')
echo "total: $total executions on $cores cores in $seconds s"
echo "findings: $found (inputs and reports in $out/findings)"
ls "$out/findings"
[ "$found" -eq 0 ]
