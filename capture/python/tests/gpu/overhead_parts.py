"""Where the recorder's per-step cost goes (issue 30, item 5): one program of observer_programs.py run
in fresh processes under variants that add the recorder's parts one at a time, in interleaved rounds.
Per variant: median step time, whole-run wall time, and the CPU seconds of the program's main
thread and of the recorder's writer thread (from /proc/self/task/TID/stat).
    python overhead_parts.py OUTDIR [--rounds R] [--limit S] [--variants V,V...] MODE[=SCALE]...
Variants (VARIANTS): plain; history (PyTorch's own _record_memory_history as the recorder asks for it:
Python stacks, alloc and free contexts, a 1-entry ring); tracker (history + the native tracker's
allocator hook, drained once at the end); tracker_drain (+ a thread draining every 0.1 s); rec_bare
(the Recorder without phases, GC annotations, retention, driver sampling); rec_no* (the Recorder
without one part); rec (the Recorder as `python -m vramscope record` starts it)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ["plain", "history", "tracker", "tracker_drain", "rec_bare", "rec_nodriver", "rec_noauto",
            "rec_nophases", "rec_nogc", "rec_slow", "rec"]
SCALES = {"eager": 20, "generation": 2, "amp": 20, "hf_trainer": 8, "compile_default": 20}


def thread_cpu_s(native_id):
    try:
        with open("/proc/self/task/%d/stat" % native_id) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def recorder_options(variant):
    off = {"rec_bare": ["phases", "gc", "retention", "driver"], "rec_nodriver": ["driver"],
           "rec_noauto": ["auto"], "rec_nophases": ["phases"], "rec_nogc": ["gc"]}.get(variant, [])
    kw = {}
    if "phases" in off:
        kw["phases"] = False
    if "gc" in off:
        kw["gc_annotations"] = False
    if "retention" in off:
        kw["retention"] = False
    if "auto" in off:
        kw["auto_retention"] = False
    if variant == "rec_slow":
        kw["interval"] = 1.0
    return kw, "driver" in off


def child(variant, mode, outdir):
    sys.path.insert(0, HERE)
    import observer_programs as prog
    import torch
    torch.cuda.init()
    rec, drainer, stop = None, None, threading.Event()
    if variant in ("history", "tracker", "tracker_drain"):
        torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=1)
        if variant != "history":
            from vramscope import native
            m, why = native.load()
            assert m is not None, why
            m.start(1 << 26, True)
            if variant == "tracker_drain":
                def loop():
                    while not stop.wait(0.1):
                        m.drain()
                drainer = threading.Thread(target=loop, name="vramscope-writer", daemon=True)
                drainer.start()
    elif variant != "plain":
        import vramscope
        from vramscope import driver
        kw, no_driver = recorder_options(variant)
        if no_driver:
            driver.DriverSampler = lambda *a: None
        rec = vramscope.start(os.path.join(outdir, "%s.%s.vscap" % (mode, variant)), **kw)
    t0 = time.perf_counter()
    c0 = time.thread_time()
    prog.MODES[mode]()
    torch.cuda.synchronize()
    main_cpu = time.thread_time() - c0
    wall = time.perf_counter() - t0
    writer = [t for t in threading.enumerate() if t.name == "vramscope-writer"]
    writer_cpu = thread_cpu_s(writer[0].native_id) if writer else None
    if rec is not None:
        import vramscope
        t1 = time.perf_counter()
        vramscope.stop()
        stop_s = time.perf_counter() - t1
    else:
        stop_s = 0.0
        stop.set()
    print("PARTS " + json.dumps({"step_s": statistics.median(prog.STEP_S) if prog.STEP_S else None,
                                 "steps": len(prog.STEP_S), "run_s": wall, "main_cpu_s": main_cpu,
                                 "writer_cpu_s": writer_cpu, "stop_s": stop_s}), flush=True)


def run(variant, mode, scale, outdir):
    env = dict(os.environ, OBSERVER_SCALE=str(scale), OBSERVER_TIME="1", VRAMSCOPE_QUIET="1")
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, __file__, "--child", variant, mode, outdir], capture_output=True,
                       text=True, env=env, timeout=600)
    out = {"rc": p.returncode, "wall_s": time.monotonic() - t0}
    for line in p.stdout.splitlines():
        if line.startswith("PARTS "):
            out.update(json.loads(line[6:]))
    if p.returncode != 0:
        sys.stderr.write("%s %s exit %d: %s\n" % (mode, variant, p.returncode, p.stderr[-1500:]))
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--child":
        return child(*args[1:4])
    rounds, limit, variants = 2, 1e9, list(VARIANTS)
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
    os.makedirs(outdir, exist_ok=True)
    chosen = {}
    for a in args[1:] or ["eager", "generation"]:
        mode, _, scale = a.partition("=")
        chosen[mode] = int(scale) if scale else SCALES.get(mode, 4)
    start = time.monotonic()
    for mode, scale in chosen.items():
        run("rec", mode, scale, tempfile.mkdtemp(dir=outdir))  # warm-up: caches, the tracker's build
    results = {m: {v: [] for v in variants} for m in chosen}
    for r in range(rounds):
        for mode, scale in chosen.items():
            for v in variants if r % 2 == 0 else variants[::-1]:
                if time.monotonic() - start > limit:
                    break
                results[mode][v].append(run(v, mode, scale, outdir))
    for mode, by in results.items():
        base = med(x.get("step_s") for x in by["plain"])
        print("\n%s (scale %d)\n| variant | runs | median step (ms) | vs plain | run (s) | main CPU (s) | writer CPU (s) | stop (s) |"
              % (mode, chosen[mode]))
        print("| --- |" * 8)
        for v, xs in by.items():
            if not xs:
                continue
            step = med(x.get("step_s") for x in xs)
            print("| %s | %d | %.3f | %+.1f %% | %.2f | %.2f | %.2f | %.2f |" % (
                v, len(xs), step * 1e3, 100 * (step - base) / base, med(x.get("run_s") for x in xs),
                med(x.get("main_cpu_s") for x in xs), med(x.get("writer_cpu_s") for x in xs),
                med(x.get("stop_s") for x in xs)), flush=True)
    with open(os.path.join(outdir, "overhead_parts.json"), "w") as f:
        json.dump({"scales": chosen, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
