"""Whole-program overhead of the recorder without the noise of importing torch (issue 30, item 5).
On the GPU machine `import torch` alone takes 3-5 s and varies by a second from process to process,
more than the recorder costs; the recorder does not change it (the program imports torch either
way). So this parent imports torch and transformers once and forks every run from there: each child
runs observer_programs.py as `python observer_programs.py MODE` would (runpy, as __main__), plain or
under `python -m vramscope record` (vramscope.__main__.main: the recorder's import, start, the
program, the exit retention graph, the final block list, the file's end), runs the exit handlers
and exits. CUDA is first touched in the child. The wall time of each run is fork to exit as the
parent sees it; rounds alternate the order (plain first, then recorded first) after one unmeasured
warm-up round at scale 1 (set PYTHONPYCACHEPREFIX to a writable directory: the GPU machine's torch
has no writable __pycache__, and every process would compile its lazily imported modules again).
    python overhead_forked.py [--rounds R] [--limit SECONDS] MODE[=SCALE]...
Prints after every round, per program: median wall time plain / recorded, the median of the
rounds' ratios, the median step times, and the CPU seconds (all the child's threads)."""
import atexit
import json
import os
import runpy
import statistics
import sys
import tempfile
import time

import torch  # noqa: F401 (imported once, before the forks: what this measurement leaves out)

from overhead_whole import HERE, PROGRAM, SCALES  # the same programs at the same lengths


def child(mode, scale, recorded, out, log):
    """The forked run: never returns."""
    code = 70
    try:
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.environ.update(OBSERVER_SCALE=str(scale), OBSERVER_TIME="1", VRAMSCOPE_QUIET="1")
        if recorded:
            import vramscope.__main__ as cli
            code = cli.main(["record", "-o", out, "--", PROGRAM, mode]) or 0
        else:
            sys.argv = [PROGRAM, mode]
            sys.path.insert(0, HERE)
            runpy.run_path(PROGRAM, run_name="__main__")
            code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException as e:
        sys.stderr.write("child failed: %r\n" % (e,))
        code = 71
    try:
        atexit._run_exitfuncs()  # what the interpreter's exit runs (the recorder's stop is done already)
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def run(mode, scale, recorded, tmp):
    out, log = os.path.join(tmp, mode + ".vscap"), os.path.join(tmp, "%s.%d.log" % (mode, recorded))
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        child(mode, scale, recorded, out, log)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    step = None
    with open(log, errors="replace") as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("VRAMSCOPE_STEPS "):
            step = json.loads(line[len("VRAMSCOPE_STEPS "):])["median_s"]
    if rc != 0:
        sys.stderr.write("%s %s exit %d: %s\n" % (mode, "recorded" if recorded else "plain", rc, text[-1500:]))
    return {"rc": rc, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "step_s": step}


def table(results, rounds_done):
    print("after round %d:" % rounds_done)
    print("| program | rounds | whole program plain / recorded (s) | median of the rounds' ratios | "
          "median step plain / recorded (ms) | CPU s plain / recorded |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode, rounds in results.items():
        ok = [r for r in rounds if r[0]["rc"] == 0 and r[1]["rc"] == 0]
        if not ok:
            continue

        def med(i, key, scale=1.0):
            v = [r[i][key] for r in ok if r[i][key] is not None]
            return statistics.median(v) * scale if v else float("nan")
        ratio = statistics.median(r[1]["wall_s"] / r[0]["wall_s"] for r in ok)
        print("| %s | %d | %.2f / %.2f | %+.1f %% | %.3f / %.3f | %.2f / %.2f |" % (
            mode, len(ok), med(0, "wall_s"), med(1, "wall_s"), 100 * (ratio - 1), med(0, "step_s", 1e3),
            med(1, "step_s", 1e3), med(0, "cpu_s"), med(1, "cpu_s")), flush=True)


def main():
    args = sys.argv[1:]
    rounds, limit = 3, 1e9
    for flag in ("--rounds", "--limit"):
        if flag in args:
            i = args.index(flag)
            value = float(args[i + 1])
            del args[i:i + 2]
            rounds, limit = (int(value), limit) if flag == "--rounds" else (rounds, value)
    programs = []
    for spec in args or ["eager", "generation"]:
        mode, _, scale = spec.partition("=")
        programs.append((mode, int(scale) if scale else SCALES[mode]))
    if any(m in ("generation", "hf_trainer") for m, _ in programs):
        import transformers  # noqa: F401 (the programs' own import, left out like torch's)
    tmp = tempfile.mkdtemp()
    start = time.monotonic()
    results = {m: [] for m, _ in programs}
    for r in range(rounds + 1):
        for mode, scale in programs:
            if time.monotonic() - start > limit:
                break
            order = (False, True) if r % 2 == 0 else (True, False)
            # the warm-up fills the bytecode cache (PYTHONPYCACHEPREFIX) for what the program and the
            # recorder import: at scale 1, it only has to import the same
            pair = {rec: run(mode, scale if r else 1, rec, tmp) for rec in order}
            if r == 0:
                print("warm-up %s: plain %.1f s, recorded %.1f s" % (mode, pair[False]["wall_s"], pair[True]["wall_s"]),
                      flush=True)
            else:
                results[mode].append((pair[False], pair[True]))
        if r:
            table(results, r)
        if time.monotonic() - start > limit:
            print("stopped by --limit after %.0f s" % (time.monotonic() - start))
            break


if __name__ == "__main__":
    main()
