#!/usr/bin/env python3
"""Checks the truth files of recorded corpus runs (NAME.truth.json, NAME.rec.truth.json): a leak's
allocated memory (after each step, as the program measured it) rises by at least MIN MiB from 10 %
of its steps to the last; an accumulation's or a cycle's swings by that much; a clean run's is flat
once warmed up: neither the lowest nor the highest value of its last third of steps is MIN/2 MiB
above that of the middle third (a cache that fills in the first third, or a step-to-step level
that varies with the batch, is clean). Prints one line per truth file, and exits 1 when any is wrong.
    check_truth.py DIR [--min-mib 16]"""
import glob
import json
import os
import sys

MiB = 1 << 20


def verdict(t, min_mib):
    steps = [s["allocated"] for s in t.get("steps", [])]
    if len(steps) < 5:
        return False, "fewer than 5 steps"
    n = len(steps)
    kind = t["kind"]
    early = steps[n // 10]
    mid, last = steps[n // 3:(2 * n) // 3], steps[(2 * n) // 3:]
    rise = (steps[-1] - early) / MiB
    swing = (max(steps[n // 10:]) - min(steps[n // 10:])) / MiB
    late_rise = max(min(last) - min(mid), max(last) - max(mid)) / MiB
    facts = f"steps {n:4d}  at 10% {early / MiB:8.1f}  last {steps[-1] / MiB:8.1f}  max {max(steps) / MiB:8.1f} MiB  " \
            f"rise {rise:7.1f}  swing {swing:7.1f}  late rise {late_rise:6.1f}"
    if kind == "leak":
        return rise >= min_mib, facts
    if kind in ("accumulation", "cycle"):
        return swing >= min_mib, facts
    return late_rise < min_mib / 2, facts


def main():
    folder = sys.argv[1]
    min_mib = float(sys.argv[sys.argv.index("--min-mib") + 1]) if "--min-mib" in sys.argv else 16.0
    bad = 0
    files = sorted(glob.glob(os.path.join(folder, "*.truth.json")))
    for f in files:
        try:
            t = json.load(open(f))
        except (OSError, ValueError) as e:
            print(f"BAD {os.path.basename(f):52s} unreadable: {e}")
            bad += 1
            continue
        ok, facts = verdict(t, min_mib)
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {os.path.basename(f):52s} {t['kind']:12s} {facts}")
    print(f"truth files: {len(files)}, wrong: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
