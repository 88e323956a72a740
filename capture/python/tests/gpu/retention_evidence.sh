#!/bin/bash
# GPU evidence for issue 7: leaking scenarios (and clean ones) recorded with retention collection.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SCEN=${SCEN:?path to scenarios.py}
cd "$HERE"
PKG=$(mktemp -d) && trap 'rm -rf "$PKG"' EXIT  # 0700, fresh: nobody can plant a module on PYTHONPATH
pip install -q --no-deps --no-build-isolation --target "$PKG" "$HERE/../.." 2>/dev/null && echo "pip install: ok"
export PYTHONPATH=$PKG
mkdir -p "$OUT/ret"
for s in leak_global_cache leak_eval_no_grad leak_autograd_ctx leak_hook cycle_gc_delayed clean_train; do
  python run_scenario.py "$SCEN" $s "$OUT/ret" --retention 2>&1 | tail -3
  python -c "import json;print('$s', json.load(open('$OUT/ret/$s.truth.json'))['retention_stats'])"
done
python retention_cost.py "$OUT/ret/cost.vscap" 2 2>&1 | tail -2
tar -C "$OUT" -cf "$OUT/ret.tar" ret && rm -rf "$OUT/ret"
