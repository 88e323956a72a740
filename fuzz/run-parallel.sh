#!/bin/bash
# Runs the libFuzzer build of fuzz_snapshot on several cores at once, each group of workers on one
# reader (VRAMSCOPE_FUZZ_MODE), seeded from fuzz/corpus with the reader's dictionary, and prints the
# executions per reader and per core and any crash, leak or timeout found (reproducers under
# OUT/artifacts); exits 1 when it found any.
#   fuzz/run-parallel.sh FUZZER SECONDS OUT [MODE:WORKERS ...]
#   (modes: pickle snp vscap rec raw profiler trc ana rnk rmt; default: every mode, the cores (nproc, or
#   FUZZ_CORES) shared out evenly, the ones left over to the slowest: ana, pickle, snp, trc)
# Without clang or libFuzzer on the machine: fuzz/run-standalone.sh (g++, the standalone driver).
# FUZZ_SEEDS_FROM=DIR also seeds each reader with DIR/corpus-MODE (what an earlier run found, e.g. a
# throughput run's corpus replayed and mutated further under ASan: scripts/fuzz-long.sh).
set -u
fuzzer=$(realpath "$1"); seconds=$2; out=$(realpath -m "$3"); shift 3
groups=("$@")
if [ ${#groups[@]} -eq 0 ]; then
  cores=${FUZZ_CORES:-$(nproc)}; extra=$((cores % 10)); per=$((cores / 10))
  for m in ana pickle snp trc profiler vscap rec raw rnk rmt; do
    w=$per; [ $extra -gt 0 ] && w=$((w + 1)) && extra=$((extra - 1))
    [ $w -gt 0 ] && groups+=("$m:$w")
  done
fi
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/artifacts"
for g in "${groups[@]}"; do
  mode=${g%%:*}; workers=${g##*:}
  seeds="$out/seeds-$mode"; mkdir -p "$seeds" "$out/corpus-$mode" "$out/log-$mode"
  dict=$src/snapshot.dict; max_len=65536
  case $mode in # the 1 GiB zstd bomb is a regression seed, too slow to mutate for hours
    pickle) cp "$src"/corpus/*.pickle* "$seeds"/ ;;
    vscap) cp "$src"/corpus/*.vscap "$seeds"/ ;;
    raw) cp "$src"/corpus/*.raw "$seeds"/; max_len=8192 ;;
    profiler) cp "$src"/corpus/*.json "$seeds"/; dict=$src/profiler.dict ;;
    ana) for f in "$src"/corpus/ana_*; do # recipes past their ANA! tag; the reproducers as they are
           if [ "$(head -c 4 "$f")" = 'ANA!' ]; then tail -c +5 "$f" > "$seeds/${f##*/}"; else cp "$f" "$seeds"/; fi
         done; max_len=4096 ;;
    rnk) cp "$src"/corpus/*.vsrank "$seeds"/ ;;
    rmt) for f in "$src"/corpus/rmt_*; do tail -c +5 "$f" > "$seeds/${f##*/}"; done; max_len=1024 ;; # past RMT!
    *) head -c 64 /dev/urandom > "$seeds/random"; max_len=4096 ;; # recipes: a few hundred bytes say it all
  esac
  earlier=${FUZZ_SEEDS_FROM:+$(realpath "$FUZZ_SEEDS_FROM")/corpus-$mode}
  [ -n "$earlier" ] && [ -d "$earlier" ] || earlier=
  (cd "$out/log-$mode" && VRAMSCOPE_FUZZ_MODE=$mode "$fuzzer" -jobs="$workers" -workers="$workers" \
     -max_total_time="$seconds" -dict="$dict" -rss_limit_mb=2048 -timeout=20 -max_len=$max_len \
     -print_final_stats=1 -artifact_prefix="$out/artifacts/$mode-" "$out/corpus-$mode" "$seeds" $earlier \
     > /dev/null 2>&1) &
done
wait
total=0
for g in "${groups[@]}"; do
  mode=${g%%:*}; workers=${g##*:}
  n=$(cat "$out/log-$mode"/fuzz-*.log 2>/dev/null | awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}')
  total=$((total + n))
  echo "$mode: $n executions on $workers cores ($((n / seconds / workers)) /s per core), $(ls "$out/corpus-$mode" | wc -l) corpus inputs"
done
echo "total: $total executions in $seconds s"
found=$(ls "$out/artifacts" | wc -l)
echo "findings: $found"; ls "$out/artifacts"
[ "$found" -eq 0 ]
