"""Recorder overhead on whole programs (issue 30, item 5): each program of observer_programs.py
(the item-1 programs and a generation loop) runs in fresh processes unrecorded and under
`python -m vramscope record` (Python stacks, the default pause budget), in rounds of plain, the
other variants, plain again, after one unmeasured warm-up run of each. After every round, per
program, it prints the
median whole-program wall time and the median of the per-round median step times, both variants,
and the overheads, then the CPU seconds of the whole program (user + system, all its threads)
the median of each round's recorded run against the mean of its two plain runs, and how much
the two plain runs differ (the machine's noise), and writes OUTDIR/overhead_whole.json (so a run
cut by a time limit still reports). --variants adds, beside plain and recorded,
`history` (PyTorch's own _record_memory_history with Python stacks: the floor any recorder of
Python stacks pays), `nostacks` (the recorder with --stacks none) and `noretention` (the
recorder with no retention graph: a pause budget of 0).
    python overhead_whole.py OUTDIR [--rounds R] [--limit SECONDS] [--variants V,V...] [MODE[=SCALE]...]
Runs stop being started once --limit seconds have passed (the table says how many rounds ran).
All runs share one bytecode cache (PYTHONPYCACHEPREFIX, a private directory unless set), filled by
the warm-up runs."""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "observer_programs.py")
SCALES = {"eager": 60, "compile_default": 60, "compile_reduce_overhead": 60, "cuda_graph": 60, "amp": 60,
          "ddp": 120, "hf_trainer": 15, "generation": 4}


def run(variant, mode, scale, outdir):
    env = dict(os.environ, OBSERVER_SCALE=str(scale), OBSERVER_TIME="1", VRAMSCOPE_QUIET="1")
    cmd = [sys.executable, PROGRAM, mode]
    if variant == "history":
        cmd.append("--history")
    elif variant in ("recorded", "nostacks", "noretention"):
        if variant == "noretention":
            env["VRAMSCOPE_PAUSE_BUDGET"] = "0"  # every retention graph skipped
        stacks = ["--stacks", "none"] if variant == "nostacks" else []
        cmd = [sys.executable, "-m", "vramscope", "record", "-o", os.path.join(outdir, mode + ".vscap")] + stacks + \
            ["--"] + cmd[1:]
    t0, cpu0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    wall, cpu1 = time.monotonic() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of the program (all its threads, the recorder's writer too): what the recorder
    # costs when other tenants of the machine make wall times swing (runs are sequential, so the
    # difference is this child's)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    step = None
    for line in p.stdout.splitlines():
        if line.startswith("VRAMSCOPE_STEPS "):
            step = json.loads(line[len("VRAMSCOPE_STEPS "):])["median_s"]
    if p.returncode != 0:
        sys.stderr.write("%s %s exit %d: %s\n" % (mode, variant, p.returncode, p.stderr[-2000:]))
    return {"rc": p.returncode, "wall_s": wall, "cpu_s": cpu, "step_s": step}


def pct(a, b):
    return 100.0 * (b - a) / a if a else float("nan")


def main():
    args = sys.argv[1:]
    rounds, limit, variants = 3, 1e9, ["plain", "recorded"]
    for flag in ("--rounds", "--limit", "--variants"):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i:i + 2]
            if flag == "--rounds":
                rounds = int(value)
            elif flag == "--limit":
                limit = float(value)
            else:
                variants = ["plain"] + [v for v in value.split(",") if v != "plain"]
    outdir = os.path.abspath(args[0])
    chosen = {}
    for a in args[1:] or list(SCALES):
        mode, _, scale = a.partition("=")
        chosen[mode] = int(scale) if scale else SCALES[mode]
    os.makedirs(outdir, exist_ok=True)
    # Bytecode cached for every run: where site-packages cannot be written (the GPU machine), each
    # process otherwise compiles torch's sources again (cProfile: 6-7 s of a 12-s run, and as noisy)
    if "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="pycache-", dir=outdir)
    start = time.monotonic()
    for mode, scale in chosen.items():  # warm caches (compile, the tracker) before anything is measured
        w = run("recorded" if mode == "eager" else "plain", mode, scale, outdir)
        print("warm-up %s: %.1f s" % (mode, w["wall_s"]), flush=True)
    runs = {m: {v: [] for v in variants + ["plain_after"]} for m in chosen}
    for r in range(rounds):
        if time.monotonic() - start > limit:
            break
        for mode, scale in chosen.items():
            if time.monotonic() - start > limit:
                break
            # plain first and again last: every other run sits between two plain ones (the machine's
            # speed drifts by tens of per cent over minutes), and the two plain runs tell the noise
            for v in variants:
                runs[mode][v].append(run(v, mode, scale, outdir))
            runs[mode]["plain_after"].append(run("plain", mode, scale, outdir))
        # after every round: a run cut by its time limit still reports the rounds it finished
        print("after round %d:" % (r + 1), flush=True)
        report(runs, variants, chosen, outdir)


def report(runs, variants, chosen, outdir):
    """Prints the table of the rounds so far and writes OUTDIR/overhead_whole.json."""
    table = {}
    others = variants[1:]
    print("| program | rounds | whole program %s (s) | %s | median step %s (ms) | %s |" % (
        " / ".join(variants), " | ".join("whole " + v for v in others), " / ".join(variants),
        " | ".join("step " + v for v in others)))
    print("|" + " --- |" * (4 + 2 * len(others)))
    for mode, by in runs.items():
        n = min(len(x) for x in by.values())
        if n == 0:
            continue
        ok = all(x["rc"] == 0 for v in by.values() for x in v)
        wall = {v: statistics.median(x["wall_s"] for x in by[v][:n]) for v in by}
        step = {v: statistics.median([x["step_s"] for x in by[v][:n] if x["step_s"]] or [float("nan")]) for v in by}
        cpu = {v: statistics.median(x["cpu_s"] for x in by[v][:n]) for v in by}
        # each round's run against the mean of that round's two plain runs around it, then the median
        around = [(a["wall_s"] + z["wall_s"]) / 2 for a, z in zip(by["plain"][:n], by["plain_after"][:n])]
        paired = {v: statistics.median(pct(a, b["wall_s"]) for a, b in zip(around, by[v][:n])) for v in others}
        noise = statistics.median(abs(pct(a["wall_s"], z["wall_s"])) for a, z in zip(by["plain"][:n], by["plain_after"][:n]))
        table[mode] = {"rounds": n, "exit_ok": ok, "wall_s": wall, "step_s": step, "cpu_s": cpu,
                       "scale": chosen[mode],
                       "wall_overhead_pct": {v: pct(wall["plain"], wall[v]) for v in others},
                       "wall_paired_overhead_pct": paired, "plain_vs_plain_pct": noise,
                       "cpu_overhead_pct": {v: pct(cpu["plain"], cpu[v]) for v in others},
                       "step_overhead_pct": {v: pct(step["plain"], step[v]) for v in others}}
        print("| %s | %d | %s | %s | %s | %s |%s" % (
            mode, n, " / ".join("%.2f" % wall[v] for v in variants),
            " | ".join("%+.1f %%" % table[mode]["wall_overhead_pct"][v] for v in others),
            " / ".join("%.3f" % (step[v] * 1e3) for v in variants),
            " | ".join("%+.1f %%" % table[mode]["step_overhead_pct"][v] for v in others), "" if ok else " (a run failed)"))
        print("|   CPU s, paired | | %s | %s | wall, each between two plain runs: %s (plain vs plain: %.1f %%) | |" % (
            " / ".join("%.2f" % cpu[v] for v in variants),
            " | ".join("%+.1f %%" % table[mode]["cpu_overhead_pct"][v] for v in others),
            " / ".join("%+.1f %%" % paired[v] for v in others), noise), flush=True)
    with open(os.path.join(outdir, "overhead_whole.json"), "w") as f:
        json.dump({"table": table, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
