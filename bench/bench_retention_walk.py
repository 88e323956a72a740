"""How fast the recorder's retention walk (capture/python/vramscope/retention.py) indexes a heap:
a synthetic heap shaped like a training program's (objects with attributes, their dicts, lists,
tuples, closures, small "tensors" holding block addresses), N objects in all; prints objects per
second of the whole collect(), best of R runs (a busy 2-core machine stalls), with the Python index
and, when VRAMSCOPE_HEAP_MODULE names the built module (build/tests/vramscope_heap*.so), the
compiled one (_heap_index.cpp, what the recorder uses when its tracker is built).
The recorder's exit and automatic graphs get a share of the run's time (docs/recorder.md): what the
walk does per second is how much of a big heap they see.
    VRAMSCOPE_HEAP_MODULE=build/tests/vramscope_heap.so python3 bench/bench_retention_walk.py [N=1000000] [R=3]"""
import gc
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capture", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "capture", "python", "tests"))
from vramscope import retention  # noqa: E402
import built_module  # noqa: E402


class FakeTensor:
    def __init__(self, ptr):
        self.ptr = ptr
        self.shape = (4, 4)


class Layer:
    def __init__(self, i, tensors):
        self.name = "layer%d" % i
        self.weight = tensors[i % len(tensors)]
        self.config = {"dim": i, "act": "gelu"}
        self.history = [i, i + 1, (i, "x")]


def make_heap(n):
    """About n tracked objects (each Layer: itself, its config dict, its history list, a tuple)."""
    tensors = [FakeTensor(0x10000 + 512 * k) for k in range(1000)]
    layers = [Layer(i, tensors) for i in range(n // 5)]
    closures = []
    for i in range(n // 20):
        cell = {"step": i}

        def f(cell=cell):
            return cell["step"]
        closures.append(f)
    return tensors, layers, closures


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    heap = make_heap(n)  # noqa: F841 (kept alive for the walk)
    blocks = [(0x10000 + 512 * k, 512) for k in range(10)]  # 10 of the 1000 "tensors": ~2k holders
    storage_of = lambda o: o.ptr if type(o) is FakeTensor else None  # noqa: E731
    print("| index | heap objects | graph nodes / edges | walk (s) | objects per second |")
    print("| --- | --- | --- | --- | --- |")
    native = built_module.load("VRAMSCOPE_HEAP_MODULE", "vramscope_heap")
    for name, module in (("Python", None), ("compiled", native)):
        if name == "compiled" and module is None:
            print("| compiled | (VRAMSCOPE_HEAP_MODULE not set) | | | |")
            continue
        best = None
        for _ in range(reps):
            gc.collect()
            t0 = time.perf_counter()
            g = retention.collect(blocks, None, budget_s=600, storage_of=storage_of, native=module,
                                  tensor_types=(FakeTensor,))
            took = time.perf_counter() - t0
            assert not g.truncated, g.cut
            best = took if best is None else min(best, took)
        print("| %s | %d | %d / %d | %.2f | %.0f |" % (name, g.objects, len(g.nodes), len(g.edges), best,
                                                      g.objects / best), flush=True)
        # a walk given 20 ms: how long the program really stands still (the budget's overrun: taking
        # the heap's object list and the deadline's checks)
        t0 = time.perf_counter()
        g = retention.collect(blocks, None, budget_s=0.02, storage_of=storage_of, native=module,
                              tensor_types=(FakeTensor,))
        print("| %s, 20 ms budget | %d | %s | %.3f | |" % (name, g.objects, g.cut, time.perf_counter() - t0),
              flush=True)


if __name__ == "__main__":
    main()
