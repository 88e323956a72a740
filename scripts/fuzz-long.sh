#!/bin/bash
# The long fuzzing run (issue 19: >= 10^8 executions per reader): a throughput pass with libFuzzer +
# UBSan and no ASan (several times the executions per core) on every core, then a shorter pass under
# ASan + UBSan that replays the throughput pass's corpus and mutates it further. Builds with clang;
# runs wherever the binaries' libraries are, e.g. a many-core machine without clang:
#   scripts/fuzz-long.sh build BUILD SHIP         builds BUILD/ubsan, BUILD/asan; SHIP gets the fuzzers
#                                                 (stripped) and the libraries they need beyond libc/libstdc++
#   scripts/fuzz-long.sh run SHIP FAST_S ASAN_S OUT   both passes; per-reader totals in OUT/summary.txt
#   scripts/fuzz-long.sh call SHIP ubsan|asan SECONDS MODE:CORES...
#                                                 one device call (at most 10 minutes each) of a run spread
#                                                 over several: the corpus lives in build-fuzzrun/ (a warm
#                                                 device keeps ignored paths between calls) and each call
#                                                 is seeded from the one before (the first from
#                                                 SHIP/seeds.tar.xz when there is one); prints the counts
# FUZZ_PLAN / FUZZ_ASAN_PLAN ("pickle:4 snp:2 ...", modes of fuzz/run-parallel.sh) override the cores
# per reader; the default gives the slow readers more cores and is written for 16 cores.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)

build() {
  local dir=$1 ship=$2
  for v in ubsan:undefined asan:address,undefined; do
    cmake -S "$src" -B "$dir/${v%%:*}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DVRAMSCOPE_FUZZ=ON -DVRAMSCOPE_CUDA_SAMPLES=OFF -DVRAMSCOPE_GUI=OFF -DVRAMSCOPE_TESTS=OFF \
      -DVRAMSCOPE_BENCH=OFF -DVRAMSCOPE_SANITIZE="${v#*:}" >/dev/null
    cmake --build "$dir/${v%%:*}" -j "$(nproc)" --target fuzz_snapshot
  done
  mkdir -p "$ship/lib"
  strip --strip-debug -o "$ship/fuzz_ubsan" "$dir/ubsan/fuzz/fuzz_snapshot" # symbolised here, from BUILD
  strip --strip-debug -o "$ship/fuzz_asan" "$dir/asan/fuzz/fuzz_snapshot"
  ldd "$dir/ubsan/fuzz/fuzz_snapshot" | awk '/libzstd|libz\./ {print $3}' | xargs -r cp -L -t "$ship/lib"
  rm -rf "$ship/fuzz-src" # cp -r into an existing one would nest it
  cp -r "$src/fuzz" "$ship/fuzz-src" # run-parallel.sh, dictionaries, corpus: the run needs no checkout
}

run() {
  local ship out fast slow
  ship=$(realpath "$1"); fast=$2; slow=$3; out=$(realpath -m "$4")
  export LD_LIBRARY_PATH="$ship/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$out"
  # Cores by each reader's executions per second (measured: the pickle reader is the slowest).
  read -ra plan <<< "${FUZZ_PLAN:-pickle:5 snp:2 profiler:2 trc:2 vscap:2 rec:1 raw:2}"
  read -ra asan <<< "${FUZZ_ASAN_PLAN:-pickle:4 snp:2 profiler:2 trc:2 vscap:2 rec:2 raw:2}"
  { echo "== throughput: libFuzzer + UBSan, $fast s"; "$ship/fuzz-src/run-parallel.sh" "$ship/fuzz_ubsan" "$fast" "$out/fast" "${plan[@]}"
    echo "== ASan + UBSan on the throughput corpus, $slow s"
    FUZZ_SEEDS_FROM="$out/fast" "$ship/fuzz-src/run-parallel.sh" "$ship/fuzz_asan" "$slow" "$out/asan" "${asan[@]}"
  } 2>&1 | tee "$out/summary.txt"
}

call() {
  local ship=$1 pass=$2 secs=$3 run seeds n out status=0
  shift 3
  ship=$(realpath "$ship"); run=$(realpath -m build-fuzzrun)
  export LD_LIBRARY_PATH="$ship/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  mkdir -p "$run/seeds"
  [ -f "$ship/seeds.tar.xz" ] && [ -z "$(ls "$run/seeds")" ] && tar -C "$run/seeds" -xJf "$ship/seeds.tar.xz"
  n=$(ls -d "$run"/call-* 2>/dev/null | wc -l); out=$run/call-$n
  seeds=$run/seeds; [ "$n" -gt 0 ] && seeds=$run/call-$((n - 1))
  FUZZ_SEEDS_FROM=$seeds "$ship/fuzz-src/run-parallel.sh" "$ship/fuzz_$pass" "$secs" "$out" "$@" || status=$?
  for d in "$seeds"/corpus-*; do # what earlier calls kept seeds the next call too
    [ -d "$d" ] || continue
    mkdir -p "$out/$(basename "$d")" && cp -n "$d"/* "$out/$(basename "$d")"/ 2>/dev/null
  done
  return $status # non-zero: run-parallel.sh found something
}

case ${1:-} in
  call) shift; call "$@" ;;
  build) build "$2" "$3" ;;
  run) run "$2" "$3" "$4" "$5" ;;
  *) sed -n 2,10p "$0"; exit 2 ;;
esac
