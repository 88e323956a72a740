"""The tracker's own Python stacks (OwnStacks, _own_stacks.h) are PyTorch's stacks: with the history
switched to them, every allocation and free made at a known line, at several depths, from a
generator, a thread and with the GIL released inside torch ops, carries in torch.cuda.memory._snapshot()
exactly the frames Python's traceback gives for that line; one made inside a TorchScript function
carries the script's frame too (left to PyTorch's gather). Exit status 1 on any difference.
    python own_stacks_check.py     (the recorder importable: with_recorder.sh)"""
import sys
import threading
import traceback

import torch

from vramscope import native

m, why = native.load()
assert m is not None, why
failures = []


def expect(where, frames, stack):
    got = [(f["filename"], f["line"], f["name"]) for f in frames]
    want = [(f.filename, f.lineno, f.name) for f in reversed(stack)]
    if got != want:
        failures.append("%s: got %s, want %s" % (where, got[:3], want[:3]))


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


def site():
    t, st = torch.empty(4096 * 1024, device="cuda"), traceback.extract_stack()  # one line: same stack
    return t, st


def scripted(n: int):
    return torch.empty(n, device="cuda")


def main():
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=100000)
    why = m.use_own_stacks(100000, True)
    if why:
        sys.exit("own stacks not used: " + why)
    cases = {}
    for depth in (0, 5, 40):
        cases["depth %d" % depth] = deep(depth, site)

    def gen():
        yield site()
    cases["generator"] = next(gen())
    box = {}
    th = threading.Thread(target=lambda: box.update(thread=deep(3, site)))
    th.start()
    th.join()
    cases.update(box)
    # inside TorchScript PyTorch's stack holds the script's frames: the tracker leaves those to it
    scripted_out = torch.jit.script(scripted)(4096 * 1024)
    a = torch.randn(512, 512, device="cuda")
    mm, mm_stack = a @ a, traceback.extract_stack()  # allocated inside a torch op (GIL released)
    cases["matmul"] = (mm, mm_stack)
    snap = torch.cuda.memory._snapshot()
    blocks = {b["address"]: b for s in snap["segments"] for b in s["blocks"] if b["state"] == "active_allocated"}
    sb = blocks.get(scripted_out.data_ptr())
    if sb is None or not any(f["name"] == "scripted" for f in sb["frames"]):
        failures.append("torchscript: no frame of the scripted function in %s" % (sb or {}).get("frames"))
    for name, (t, st) in cases.items():
        b = blocks.get(t.data_ptr())
        if b is None:
            failures.append("%s: no block at its address" % name)
        else:
            expect(name, b["frames"], st)
    # a free at a known line: the trace's free_requested entry carries that line's stack
    t = cases.pop("depth 5")[0]
    ptr = t.data_ptr()
    del t; free_stack = traceback.extract_stack()  # noqa: E702 - the free and its expected stack, one line
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    frees = [e for e in trace if e["action"] == "free_requested" and e["addr"] == ptr]
    if not frees:
        failures.append("free: no free_requested entry")
    else:
        expect("free", frees[-1]["frames"], free_stack)
    print("own stacks: %d distinct cached; %d cases checked" % (m.own_stacks(), len(cases) + 1))
    torch.cuda.memory._record_memory_history(None)


if __name__ == "__main__":
    main()
    for f in failures:
        print("DIFFERENT", f)
    print("own_stacks_check: %s" % ("all equal" if not failures else "%d different" % len(failures)))
    sys.exit(1 if failures else 0)
