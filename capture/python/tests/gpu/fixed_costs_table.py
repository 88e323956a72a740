"""The whole-program table of issue 30 item 5 from fixed_costs.py's outputs (one line per run:
`MODE plain|recorded ROUND before S ... total S`; round 0 is the warm-up and is not counted).
Per program: the median wall time of the plain and the recorded runs, their difference, the
median of each round's own difference (the two runs of a round ran next to each other, ABBA),
how far the plain runs spread among themselves (the machine's noise that any figure must beat)
and the recorder's stop (its exit retention graph and the file's end, timed in the process).
    python fixed_costs_table.py [--leave-out FILE:MODE:recorded:ROUND ...] FILE...
--leave-out drops a run that did something a user's run does once per machine (building the
tracker); the table says how many runs each figure has."""
import argparse
import collections
import os
import statistics


def read(paths, leave_out):
    runs = collections.defaultdict(lambda: {"plain": {}, "recorded": {}})
    for path in paths:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) < 4 or w[1] not in ("plain", "recorded") or not w[2].isdigit() or "total" not in w:
                    continue
                mode, variant, rnd = w[0], w[1], int(w[2])
                if rnd == 0 or "%s:%s:%s:%d" % (os.path.basename(path), mode, variant, rnd) in leave_out:
                    continue
                parts = dict(zip(w[3::2], map(float, w[4::2])))
                runs[mode][variant][(path, rnd)] = parts
    return runs


def pct(a, b):
    return "%+.1f %%" % (100.0 * (b - a) / a)


def row(mode, r):
    plain = [p["total"] for p in r["plain"].values()]
    rec = [p["total"] for p in r["recorded"].values()]
    paired = [100.0 * (r["recorded"][k]["total"] - r["plain"][k]["total"]) / r["plain"][k]["total"]
              for k in r["plain"] if k in r["recorded"]]
    a, b = statistics.median(plain), statistics.median(rec)
    stop = statistics.median(p["stop"] for p in r["recorded"].values())
    return "| %s | %d / %d | %.2f / %.2f s | %s | %+.1f %% (%d rounds) | %.1f %% | %.2f s |" % (
        mode, len(plain), len(rec), a, b, pct(a, b), statistics.median(paired) if paired else float("nan"),
        len(paired), 100.0 * (max(plain) - min(plain)) / min(plain), stop)


def main():
    parser = argparse.ArgumentParser(description="issue 30's whole-program table from fixed_costs.py outputs")
    parser.add_argument("--leave-out", action="append", default=[], metavar="FILE:MODE:VARIANT:ROUND")
    parser.add_argument("files", nargs="+")
    opts = parser.parse_args()
    runs = read(opts.files, set(opts.leave_out))
    print("| program | runs plain / recorded | median wall plain / recorded | recorded | "
          "median of the rounds' own difference | plain runs spread | recorder's stop |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for mode, r in runs.items():
        if r["plain"] and r["recorded"]:
            print(row(mode, r))


if __name__ == "__main__":
    main()
