"""The tracker symbolizes Python stacks and reads the block list itself (_own_symbols.h,
_allocator_state.h) so that a recording never imports torch._inductor: check on the GPU that
  1. a whole recording (vramscope.start/stop, own stacks, auto and exit retention graphs) of a
     program that never compiles leaves torch._inductor unimported;
  2. m.allocator_state(True) equals torch.cuda.memory._snapshot() on every segment, block, stack
     and setting - once before torch._inductor is imported, once after torch.compile has run (its
     generated code's extra frames, PyCodeCache.stack_frames_for_code);
  3. what reading the state costs, both ways.
Exit status 1 on any difference.   python own_symbols_check.py OUTDIR  (the recorder importable)"""
import os
import sys
import threading
import time

import torch

import vramscope
from vramscope import native

failures = []
KEYS = ("device", "address", "total_size", "allocated_size", "active_size", "requested_size", "stream",
        "segment_type", "segment_pool_id", "is_expandable", "frames")


def compare(where, mine, theirs):
    segs = {s["address"]: s for s in theirs["segments"]}
    if sorted(segs) != sorted(s["address"] for s in mine["segments"]):
        failures.append("%s: segment addresses differ" % where)
    blocks = frames = 0
    for s in mine["segments"]:
        t = segs.get(s["address"], {})
        for k in KEYS:
            if k in s or k in t:
                a, b = s.get(k), t.get(k)
                if k == "segment_pool_id":
                    a, b = tuple(a or ()), tuple(b or ())
                if a != b:
                    failures.append("%s: segment %#x %s: %r != %r" % (where, s["address"], k, a, b))
        tb = t.get("blocks", [])
        if len(tb) != len(s["blocks"]):
            failures.append("%s: segment %#x: %d blocks != %d" % (where, s["address"], len(s["blocks"]), len(tb)))
        for b, c in zip(s["blocks"], tb):
            for k in ("address", "size", "requested_size", "state", "frames"):
                if b.get(k) != c.get(k):
                    failures.append("%s: block %#x %s: %r != %r" % (where, b["address"], k, str(b.get(k))[:200],
                                                                    str(c.get(k))[:200]))
            blocks += 1
            frames += len(b.get("frames", []))
    ms, ts = mine.get("allocator_settings", {}), theirs.get("allocator_settings", {})
    for k in sorted(set(ms) | set(ts)):
        if ms.get(k) != ts.get(k):
            failures.append("%s: setting %s: %r != %r" % (where, k, ms.get(k), ts.get(k)))
    print("%s: %d segments, %d blocks, %d frames compared" % (where, len(mine["segments"]), blocks, frames))


def site(n):
    return [torch.empty(1024 * (i + 1), device="cuda") for i in range(n)]


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


def workload(keep):
    keep += site(50)
    keep.append(deep(20, lambda: torch.randn(256, 256, device="cuda") @ torch.randn(256, 256, device="cuda")))
    th = threading.Thread(target=lambda: keep.extend(site(3)))
    th.start(), th.join()
    for _ in range(200):
        x = torch.empty(1 << 20, device="cuda")  # freed again: inactive blocks in the list
    del x


def main(out):
    m, why = native.load()
    assert m is not None, why
    os.makedirs(out, exist_ok=True)
    before = "torch._inductor" in sys.modules
    keep = []
    vramscope.start(os.path.join(out, "own_symbols.vscap"))
    workload(keep)
    vramscope.collect_retention()
    vramscope.stop()
    print("1. recorded without compiling: torch._inductor imported before %s, after %s" %
          (before, "torch._inductor" in sys.modules))
    if "torch._inductor" in sys.modules and not before:
        failures.append("the recording imported torch._inductor")
    # 2. the same contexts, symbolized both ways (history on, own stacks, as the recorder has it)
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=100000)
    why = m.use_own_stacks(100000, True)
    if why:
        sys.exit("own stacks not used: " + why)
    workload(keep)
    t = time.perf_counter()
    mine = m.allocator_state(True)
    t_mine = time.perf_counter() - t
    t = time.perf_counter()
    m.allocator_state(False)
    t_bare = time.perf_counter() - t
    print("2a. after allocator_state: torch._inductor imported %s" % ("torch._inductor" in sys.modules))
    t = time.perf_counter()
    theirs = torch.cuda.memory._snapshot()
    t_theirs = time.perf_counter() - t
    t = time.perf_counter()
    torch.cuda.memory._snapshot()
    t_theirs2 = time.perf_counter() - t
    compare("2a. eager", mine, theirs)
    print("3. reading the state: allocator_state(True) %.4f s, (False) %.4f s; _snapshot() first %.3f s "
          "(imports torch._inductor), again %.4f s" % (t_mine, t_bare, t_theirs, t_theirs2))
    f = torch.compile(lambda x: (x * 2).sin() + x.cos())
    for _ in range(3):
        keep.append(f(torch.randn(1 << 16, device="cuda")))
    torch.cuda.synchronize()
    compare("2b. after torch.compile", m.allocator_state(True), torch.cuda.memory._snapshot())
    torch.cuda.memory._record_memory_history(None)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
    for f in failures[:30]:
        print("DIFFERENT", f)
    print("own_symbols_check: %s" % ("all equal" if not failures else "%d different" % len(failures)))
    sys.exit(1 if failures else 0)
