"""Recorder overhead on whole programs (issue 30, item 5): each program of observer_programs.py
(the item-1 programs and a generation loop) runs in fresh processes unrecorded and under
`python -m vramscope record` (Python stacks, the default pause budget), in interleaved rounds (the
order alternates each round), after one unmeasured warm-up run of each. Per program it prints the
median whole-program wall time and the median of the per-round median step times, both variants,
and the overheads; writes OUTDIR/overhead_whole.json.
    python overhead_whole.py OUTDIR [--rounds R] [--limit SECONDS] [MODE[=SCALE]...]
Runs stop being started once --limit seconds have passed (the table says how many rounds ran)."""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "observer_programs.py")
SCALES = {"eager": 60, "compile_default": 60, "compile_reduce_overhead": 60, "cuda_graph": 60, "amp": 60,
          "ddp": 120, "hf_trainer": 15, "generation": 4}


def run(variant, mode, scale, outdir):
    env = dict(os.environ, OBSERVER_SCALE=str(scale), OBSERVER_TIME="1", VRAMSCOPE_QUIET="1")
    cmd = [sys.executable, PROGRAM, mode]
    if variant == "recorded":
        cmd = [sys.executable, "-m", "vramscope", "record", "-o", os.path.join(outdir, mode + ".vscap"), "--"] + cmd[1:]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    wall = time.monotonic() - t0
    step = None
    for line in p.stdout.splitlines():
        if line.startswith("VRAMSCOPE_STEPS "):
            step = json.loads(line[len("VRAMSCOPE_STEPS "):])["median_s"]
    if p.returncode != 0:
        sys.stderr.write("%s %s exit %d: %s\n" % (mode, variant, p.returncode, p.stderr[-2000:]))
    return {"rc": p.returncode, "wall_s": wall, "step_s": step}


def pct(a, b):
    return 100.0 * (b - a) / a if a else float("nan")


def main():
    args = sys.argv[1:]
    rounds, limit = 3, 1e9
    for flag in ("--rounds", "--limit"):
        if flag in args:
            i = args.index(flag)
            value = float(args[i + 1])
            del args[i:i + 2]
            rounds, limit = (int(value), limit) if flag == "--rounds" else (rounds, value)
    outdir = os.path.abspath(args[0])
    chosen = {}
    for a in args[1:] or list(SCALES):
        mode, _, scale = a.partition("=")
        chosen[mode] = int(scale) if scale else SCALES[mode]
    os.makedirs(outdir, exist_ok=True)
    start = time.monotonic()
    for mode, scale in chosen.items():  # warm caches (compile, the tracker) before anything is measured
        w = run("recorded" if mode == "eager" else "plain", mode, scale, outdir)
        print("warm-up %s: %.1f s" % (mode, w["wall_s"]), flush=True)
    runs = {m: {"plain": [], "recorded": []} for m in chosen}
    for r in range(rounds):
        for mode, scale in chosen.items():
            if time.monotonic() - start > limit:
                break
            order = ("plain", "recorded") if r % 2 == 0 else ("recorded", "plain")
            for v in order:
                runs[mode][v].append(run(v, mode, scale, outdir))
    table = {}
    print("| program | rounds | whole program plain / recorded (s) | overhead | median step plain / recorded (ms) | overhead |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode, by in runs.items():
        n = min(len(by["plain"]), len(by["recorded"]))
        if n == 0:
            continue
        ok = all(x["rc"] == 0 for v in by.values() for x in v)
        wall = {v: statistics.median(x["wall_s"] for x in by[v][:n]) for v in by}
        step = {v: statistics.median(x["step_s"] for x in by[v][:n] if x["step_s"]) for v in by}
        table[mode] = {"rounds": n, "exit_ok": ok, "wall_s": wall, "step_s": step, "scale": chosen[mode],
                       "wall_overhead_pct": pct(wall["plain"], wall["recorded"]),
                       "step_overhead_pct": pct(step["plain"], step["recorded"])}
        print("| %s | %d | %.2f / %.2f | %+.1f %% | %.3f / %.3f | %+.1f %% |%s" % (
            mode, n, wall["plain"], wall["recorded"], table[mode]["wall_overhead_pct"], step["plain"] * 1e3,
            step["recorded"] * 1e3, table[mode]["step_overhead_pct"], "" if ok else " (a run failed)"))
    with open(os.path.join(outdir, "overhead_whole.json"), "w") as f:
        json.dump({"table": table, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
