"""No observer effect (issue 30, item 1): each program of observer_programs.py runs in a fresh
process three ways - unrecorded, under `python -m vramscope record`, and under PyTorch's own
_record_memory_history - and must end with the same peak and final allocated and reserved bytes
recorded as unrecorded (or as one of up to RETRIES more unrecorded runs, for a program that
varies by itself), exit the same way, and print no warning line that the unrecorded run lacks.
Prints a table (and writes OUTDIR/observer_effect.json); exit status 1 when any program differs.
    python observer_effect.py OUTDIR [MODE...] [--jobs N]
The recorder must be importable (installed, or on PYTHONPATH). Compiled programs run once
unmeasured first, so that the three measured runs find torch.compile's caches equally warm."""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "observer_programs.py")
MODES = ["eager", "compile_default", "compile_reduce_overhead", "cuda_graph", "amp", "ddp", "hf_trainer"]
FIGURES = ["max_allocated", "max_reserved", "allocated", "reserved"]
RETRIES = 4  # further unrecorded runs of a program whose recorded figures differ (unrecorded_variation)


def command(variant, mode, outdir):
    py = sys.executable
    if variant == "plain":
        return [py, PROGRAM, mode]
    if variant == "history":
        return [py, PROGRAM, mode, "--history"]
    return [py, "-m", "vramscope", "record", "-o", os.path.join(outdir, mode + ".vscap"), "--", PROGRAM, mode]


def run(variant, mode, outdir):
    t0 = time.monotonic()
    p = subprocess.run(command(variant, mode, outdir), capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - t0
    mem = None
    for line in p.stdout.splitlines():
        if line.startswith("VRAMSCOPE_MEM "):
            mem = json.loads(line[len("VRAMSCOPE_MEM "):])
    with open(os.path.join(outdir, "%s.%s.stderr.txt" % (mode, variant)), "w") as f:
        f.write(p.stderr)
    return {"rc": p.returncode, "wall_s": round(wall, 2), "mem": mem, "stderr": p.stderr}


_WARNING = re.compile(r"warn", re.IGNORECASE)


def warning_lines(stderr):
    """Warning lines, normalised (addresses, temporary paths and numbers that vary run to run)."""
    out = set()
    for line in stderr.splitlines():
        if line.startswith("vramscope: ") or not _WARNING.search(line):
            continue
        line = re.sub(r"0x[0-9a-fA-F]+", "0x…", line)
        line = re.sub(r"/tmp/[^\s'\"]+", "/tmp/…", line)
        out.add(line.strip())
    return out


def unrecorded_variation(mode, outdir, first, recorded, tries=RETRIES):
    """The figures of further unrecorded runs, when the recorded ones differ from the first: some
    programs differ from run to run by themselves (DDP with gloo: a block freed on the collective's
    stream is reusable only once its event has completed, a race with the GPU, so the peak reserved
    varied between 232,783,872 and 247,463,936 B in unrecorded runs on the H200). The recorder changes
    nothing when the recorded figures are ones the program also ends with unrecorded."""
    seen = [first]
    for _ in range(tries):
        if recorded in seen:
            break
        mem = run("plain", mode, outdir)["mem"]
        if mem is not None and mem not in seen:
            seen.append(mem)
    return seen


def jobs_option(args, default):
    """--jobs N taken out of args (programs run at once); default when absent."""
    if "--jobs" not in args:
        return default
    i = args.index("--jobs")
    jobs = int(args[i + 1])
    del args[i:i + 2]
    return jobs


def main():
    args = sys.argv[1:]
    jobs = jobs_option(args, 3)
    outdir = os.path.abspath(args[0])
    modes = args[1:] or MODES
    os.makedirs(outdir, exist_ok=True)
    results = {m: {} for m in modes}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        # a warm-up run of each program first, unrecorded and not measured: torch.compile's caches
        # are then as warm for each of the three runs (compiled programs' figures differ between a
        # cold and a warm cache, recorder or not)
        list(pool.map(lambda m: run("plain", m, outdir), [m for m in modes if "compile" in m]))
        futures = {pool.submit(run, v, m, outdir): (m, v) for m in modes for v in ("plain", "recorded", "history")}
        for fut in concurrent.futures.as_completed(futures):
            m, v = futures[fut]
            try:
                results[m][v] = fut.result()
            except Exception as e:  # a timeout: the program's row says so
                results[m][v] = {"rc": None, "wall_s": None, "mem": None, "stderr": "%s: %s" % (type(e).__name__, e)}
    failed = []
    rows = []
    for m in modes:
        r = results[m]
        plain, rec, hist = r["plain"], r["recorded"], r["history"]
        problems = []
        if plain["mem"] is None:
            problems.append("the program failed unrecorded (rc %s): %s" % (plain["rc"], plain["stderr"][-300:]))
        else:
            if rec["rc"] != plain["rc"]:
                problems.append("exit code %s recorded, %s unrecorded" % (rec["rc"], plain["rc"]))
            if rec["mem"] != plain["mem"]:
                seen = unrecorded_variation(m, outdir, plain["mem"], rec["mem"])
                r["unrecorded_figures"] = seen
                if rec["mem"] not in seen:
                    problems.append("figures differ recorded: %s (unrecorded: %s)" % (rec["mem"], seen))
            new = warning_lines(rec["stderr"]) - warning_lines(plain["stderr"])
            if new:
                problems.append("warnings only when recorded: %s" % sorted(new))
        r["problems"] = problems
        r["history_equal"] = hist["mem"] == plain["mem"]
        if problems:
            failed.append(m)
        rows.append((m, plain, rec, hist, problems))
    print("%-24s %-9s %15s %15s %15s %15s  %s" % ("program", "run", "peak alloc", "peak reserved", "final alloc",
                                                  "final reserved", "wall s"))
    for m, plain, rec, hist, problems in rows:
        for name, x in (("plain", plain), ("recorded", rec), ("history", hist)):
            mem = x["mem"] or {}
            print("%-24s %-9s %15s %15s %15s %15s  %s" % (m if name == "plain" else "", name,
                  *("{:,}".format(mem[k]) if k in mem else "-" for k in FIGURES), x["wall_s"]))
        varies = results[m].get("unrecorded_figures")
        same = ("equal to one of %d unrecorded runs that differ by themselves, no new warning" % len(varies)
                if varies else "equal, no new warning")
        print("%-24s %s" % ("", same if not problems else "DIFFERENT: " + "; ".join(problems)))
    for m in modes:
        for v in ("plain", "recorded", "history"):
            results[m][v]["stderr_tail"] = results[m][v].pop("stderr")[-2000:]
    with open(os.path.join(outdir, "observer_effect.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("%d passed, %d failed" % (len(modes) - len(failed), len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
