"""Where a recorded whole program's extra wall time goes (issue 30, item 5). Each program of
observer_programs.py runs in fresh processes, as a user runs it: `python observer_programs.py MODE`
and `python -m vramscope record -o FILE -- observer_programs.py MODE`, alternately, after one
unmeasured warm-up run (plain: it fills the bytecode cache all runs share, PYTHONPYCACHEPREFIX, and
torch.compile's kernel cache). With
OBSERVER_MOMENTS=1 the program prints when torch was imported, when it began and ended and when its
exit handlers ran (time.time()); this script notes when it started the process and when the
process was gone. So each run's wall time splits into:
    before    process start -> the program's module has imported torch (the interpreter, import
              torch; recorded: also `-m vramscope` and the recorder's start, which imports torch
              and initialises CUDA: the plain program initialises CUDA in `program`)
    setup     torch imported -> the program's main() (the module's own definitions)
    program   main() -> its end (the steps; recorded: the per-event cost, automatic retention graphs)
    stop      its end -> its exit handlers (recorded: the recorder's stop, the exit retention graph)
    exit      exit handlers -> the process gone (finalization, CUDA teardown)
and the recorder's own line "vramscope: recorder cost: ..." (the file's recorder_cost fact) says
what it timed of itself.
    python fixed_costs.py [--rounds R] MODE[=SCALE]...
Prints one line per run and, per program, a table of medians per part."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from overhead_whole import HERE, PROGRAM, SCALES  # the same programs at the same lengths
PARTS = ("before", "setup", "program", "stop", "exit", "total")


def run(mode, recorded, env, tmp):
    out = os.path.join(tmp, mode + ".vscap")
    cmd = [sys.executable, PROGRAM, mode]
    if recorded:
        cmd = [sys.executable, "-m", "vramscope", "record", "-o", out, "--", PROGRAM, mode]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    t1 = time.time()
    moments = None
    for line in p.stdout.splitlines():
        if line.startswith("VRAMSCOPE_MOMENTS "):
            moments = json.loads(line[len("VRAMSCOPE_MOMENTS "):])
    if p.returncode != 0 or moments is None:
        sys.stderr.write("%s %s exit %d: %s\n" % (mode, "recorded" if recorded else "plain", p.returncode,
                                                 p.stderr[-1500:]))
        return None
    parts = {"before": moments["loaded"] - t0, "setup": moments["begun"] - moments["loaded"],
             "program": moments["ended"] - moments["begun"], "stop": moments["atexit"] - moments["ended"],
             "exit": t1 - moments["atexit"], "total": t1 - t0}
    parts["said"] = [line for line in p.stderr.splitlines() if line.startswith("vramscope: ")]
    for line in parts["said"]:  # what the recorder timed of itself (the file's recorder_cost)
        if line.startswith("vramscope: recorder cost: "):
            parts["recorder_cost"] = line[len("vramscope: recorder cost: "):]
    return parts


def table(mode, runs):
    print("\n| %s (%d rounds) | plain (s) | recorded (s) | recorded - plain (s) |" % (mode, len(runs[False])))
    print("| --- | --- | --- | --- |")
    for part in PARTS:
        a = statistics.median(r[part] for r in runs[False])
        b = statistics.median(r[part] for r in runs[True])
        print("| %s | %.3f | %.3f | %+.3f |" % (part, a, b, b - a))
    for r in runs[True]:
        if r.get("recorder_cost"):
            print("recorder_cost: %s" % r["recorder_cost"])
    for line in runs[True][0]["said"]:  # the recorder's other lines once (warnings, what it wrote)
        if not line.startswith("vramscope: recorder cost: "):
            print(line)
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description="where a recorded program's extra wall time goes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("programs", nargs="*", metavar="MODE[=SCALE]")
    opts = parser.parse_args()
    rounds, args = opts.rounds, opts.programs
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, OBSERVER_MOMENTS="1")
    env.pop("VRAMSCOPE_QUIET", None)  # the recorder's lines on stderr: its cost
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tmp, "pycache"))
    for spec in args or ["eager", "cuda_graph"]:
        mode, _, scale = spec.partition("=")
        env["OBSERVER_SCALE"] = scale or str(SCALES[mode])
        runs = {False: [], True: []}
        for r in range(rounds + 1):  # round 0 warms the caches, unmeasured; then ABBA order
            for recorded in ((False,) if r == 0 else (False, True) if r % 2 == 0 else (True, False)):
                parts = run(mode, recorded, env, tmp)
                if parts is None:
                    continue
                print(mode, "recorded" if recorded else "plain", r,
                      " ".join("%s %.3f" % (k, parts[k]) for k in PARTS), flush=True)
                if r:
                    runs[recorded].append(parts)
        if runs[False] and runs[True]:
            table(mode, runs)


if __name__ == "__main__":
    main()
