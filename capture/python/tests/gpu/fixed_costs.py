"""Where a recorded whole program's extra time goes (issue 30, item 5), in the program's own process:
the recorder's start, the program itself (plain or recorded), the stop (retention graph at exit, the
final block list, the file's end), the pauses, and the CPU seconds of the recorder's writer thread
(from /proc: it drains, symbolizes and compresses beside the program). Each program of
observer_programs.py runs in fresh processes, alternately plain and recorded.
    python fixed_costs.py [--rounds R] MODE[=SCALE]...
Prints one line per run and a table of medians; FIXED_PROFILE=1 adds a cProfile of start and stop."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def thread_cpu_s(native_id):
    """utime + stime of one thread of this process, from /proc (clock ticks)."""
    try:
        with open("/proc/self/task/%d/stat" % native_id) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def child(mode, recorded, path):
    """One run, in this process: prints a JSON line with the parts' seconds."""
    t0 = time.perf_counter()
    sys.path.insert(0, HERE)
    import torch  # noqa: F401
    import observer_programs as prog
    t_import = time.perf_counter() - t0
    parts = {"import_s": t_import}
    rec = None
    profile = None
    if os.environ.get("FIXED_PROFILE"):  # where start and stop spend their time
        import cProfile
        profile = cProfile.Profile()
    if recorded:
        t = time.perf_counter()
        import vramscope
        profile and profile.enable()
        rec = vramscope.start(path, before_program=True)
        profile and profile.disable()
        parts["start_s"] = time.perf_counter() - t
    t = time.perf_counter()
    cpu = time.process_time()
    prog.MODES[mode]()
    torch.cuda.synchronize()
    parts["program_s"] = time.perf_counter() - t
    parts["program_cpu_s"] = time.process_time() - cpu
    if rec is not None:
        writer = rec._thread.native_id
        parts["writer_cpu_s"] = thread_cpu_s(writer)
        t = time.perf_counter()
        profile and profile.enable()
        vramscope.stop()
        profile and profile.disable()
        parts["stop_s"] = time.perf_counter() - t
        parts["pauses"] = rec.pause_budget.summary()
        parts["retention"] = [(trigger, round(s, 3)) for trigger, s in rec.retention_pauses]
        parts["stats"] = rec.retention_stats
        parts["file_mb"] = round(os.path.getsize(path) / 1e6, 2)
    parts["total_s"] = time.perf_counter() - t0
    print("FIXED " + json.dumps(parts), flush=True)
    if profile is not None and recorded:
        import pstats
        pstats.Stats(profile, stream=sys.stderr).sort_stats("cumulative").print_stats(25)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--child":
        return child(args[1], args[2] == "1", args[3])
    rounds = 3
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, VRAMSCOPE_QUIET="1", OBSERVER_TIME="1")
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tmp, "pycache"))
    results = {}
    for spec in args:
        mode, _, scale = spec.partition("=")
        if scale:
            env["OBSERVER_SCALE"] = scale
        runs = {False: [], True: []}
        for r in range(rounds + 1):  # the first round warms the bytecode cache, unmeasured
            for recorded in (False, True) if r % 2 == 0 else (True, False):
                path = os.path.join(tmp, "%s.vscap" % mode)
                p = subprocess.run([sys.executable, __file__, "--child", mode, "1" if recorded else "0", path],
                                   capture_output=True, text=True, env=env, timeout=600)
                line = [x for x in p.stdout.splitlines() if x.startswith("FIXED ")]
                if p.returncode != 0 or not line:
                    print("%s recorded=%s failed (%d): %s" % (mode, recorded, p.returncode, p.stderr[-1500:]))
                    continue
                parts = json.loads(line[0][6:])
                print(mode, "recorded" if recorded else "plain", r, json.dumps(parts), flush=True)
                if recorded and os.environ.get("FIXED_PROFILE"):
                    print(p.stderr[-6000:])
                if r:
                    runs[recorded].append(parts)
        results[mode] = runs
        print("\n| %s | plain | recorded |" % mode)
        print("| --- | --- | --- |")
        for key in ("import_s", "start_s", "program_s", "program_cpu_s", "writer_cpu_s", "stop_s", "total_s"):
            def med(xs):
                v = [x[key] for x in xs if key in x]
                return "%.3f" % statistics.median(v) if v else "-"
            print("| %s | %s | %s |" % (key, med(runs[False]), med(runs[True])), flush=True)


if __name__ == "__main__":
    main()
