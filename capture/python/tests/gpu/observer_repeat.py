"""How a program's memory figures vary by themselves, against how they vary recorded (issue 30, item 1):
runs one program of observer_programs.py N times each unrecorded, under `python -m vramscope record`
and under PyTorch's own history, the three interleaved, and prints how often each distinct set of
figures came out per run kind. For a program that races with the GPU (DDP with gloo), observer_effect.py
can only ask that the recorded figures be ones the program also ends with unrecorded; this says
whether the recorder shifts how often each comes out.
    python observer_repeat.py OUTDIR MODE N [--jobs J]
Exit status 1 when a recorded run ends with figures no unrecorded run ended with."""
import collections
import concurrent.futures
import os
import sys

from observer_effect import FIGURES, jobs_option, run

VARIANTS = ("plain", "recorded", "history")


def label(mem):
    return "failed" if mem is None else " / ".join("{:,}".format(mem[k]) for k in FIGURES)


def main():
    args = sys.argv[1:]
    jobs = jobs_option(args, 4)
    outdir, mode, n = os.path.abspath(args[0]), args[1], int(args[2])
    os.makedirs(outdir, exist_ok=True)
    order = [v for _ in range(n) for v in VARIANTS]  # interleaved: a busy moment hits each kind alike
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        mems = list(pool.map(lambda v: run(v, mode, outdir)["mem"], order))
    counts = {v: collections.Counter() for v in VARIANTS}
    for v, mem in zip(order, mems):
        counts[v][label(mem)] += 1
    print("%s, %d runs of each kind, %d at a time; figures: %s" % (mode, n, jobs, " / ".join(FIGURES)))
    for key in sorted(set().union(*counts.values())):
        print("  %-70s %s" % (key, "  ".join("%s %d" % (v, counts[v][key]) for v in VARIANTS)))
    unseen = set(counts["recorded"]) - set(counts["plain"])
    print("recorded figures never seen unrecorded: %s" % (sorted(unseen) or "none"))
    return 1 if unseen else 0


if __name__ == "__main__":
    sys.exit(main())
