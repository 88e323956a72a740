"""Recorder overhead on the GPU, one mode per process (PyTorch's history and the tracker are
process-wide). Modes: off, history (PyTorch's own stack gathering, max_entries=1), agent-nostack,
agent-python. Prints µs per alloc+free pair (3 allocator events) and the median training step.
    python overhead.py MODE OUTDIR"""
import os
import sys
import time

import torch

import vramscope  # noqa: E402
import train_loop  # noqa: E402


def churn(n):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        x = torch.empty(4096, device="cuda")
        del x
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n


def main():
    mode, outdir = sys.argv[1], sys.argv[2]
    torch.cuda.init()
    churn(1000)
    if mode == "history":
        torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=1)
    elif mode.startswith("agent"):
        vramscope.start(os.path.join(outdir, "overhead_%s.vscap" % mode),
                        stacks="none" if mode == "agent-nostack" else "python")
    per_pair = min(churn(100_000) for _ in range(3))
    print("%s: %.3f us per alloc+free (3 allocator events)" % (mode, per_pair * 1e6), flush=True)
    sys.argv = ["train_loop", "80"]
    train_loop.main()
    vramscope.stop()


if __name__ == "__main__":
    main()
