"""What the recorder's own gatherer of Python stacks (capture/python/vramscope/_own_stacks.h) costs
per allocator event, on this machine's CPU: PyTorch's allocator calls OwnStacks::context() at every
allocation and free (with the recorder's default, stacks of both). For stacks D frames deeper than
the benchmark's own, the time of one call, split into reading the frames (_py_frames.cpp), computing
the cache's key (_stack_cache.h) and the rest (the lock, the lookup, the shared_ptr handed out);
best of R runs of N calls (a busy 2-core machine stalls). Built against tests/torch_headers' stand-in
for PyTorch's header: the same code as in the tracker.
    VRAMSCOPE_OWN_STACKS_MODULE=build/tests/vramscope_own_stacks.so python3 bench/bench_own_stacks.py [N=300000] [R=5]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capture", "python", "tests"))
import built_module  # noqa: E402


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    probe = built_module.load("VRAMSCOPE_OWN_STACKS_MODULE", "vramscope_own_stacks")
    if probe is None:
        sys.exit("VRAMSCOPE_OWN_STACKS_MODULE: the built probe module (tests/CMakeLists.txt) is needed")
    why = probe.check()
    if why:
        sys.exit("own stacks cannot be used here: " + why)
    print("| frames deeper | read (ns) | + key (ns) | context() (ns) | per frame (ns) |")
    print("| --- | --- | --- | --- | --- |")
    for depth in (0, 10, 20, 40, 80):
        def measure():
            read = min(probe.parts(n, 0)[0] for _ in range(runs))
            keyed = min(probe.parts(n, 1)[0] for _ in range(runs))
            whole = min(probe.context(n)[0] for _ in range(runs))
            return read, keyed, whole
        read, keyed, whole = deep(depth, measure)
        per_frame = (whole - deep(0, lambda: min(probe.context(n)[0] for _ in range(runs)))) / depth if depth else 0
        print("| %d | %.0f | %.0f | %.0f | %s |" % (depth, read, keyed, whole, "%.1f" % per_frame if depth else "-"))


if __name__ == "__main__":
    main()
