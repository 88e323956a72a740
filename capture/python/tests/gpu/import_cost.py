"""What torch's lazily imported parts cost a program that never uses them (issue 30: PyTorch's stack
symbolization asks hasattr(torch, "_inductor"), which imports torch._inductor), and what one
torch.cuda.memory._snapshot() costs with the history on, against the allocator's own C++ snapshot.
Each import is timed in a fresh process:  python import_cost.py"""
import subprocess
import sys

PROBES = {
    "torch": "import torch",
    "torch._dynamo": "import torch._dynamo",
    "torch._inductor": "import torch._inductor",
    "hasattr(torch, '_inductor')": "hasattr(torch, '_inductor')",
}


def timed(stmt, setup="import torch"):
    code = ("import time, sys; %s; t = time.perf_counter(); %s; d = time.perf_counter() - t; "
            "print('%%.3f %%d' %% (d, len(sys.modules)))" % (setup if stmt != "import torch" else "pass", stmt))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1])


def snapshot_cost():
    import time
    import torch
    torch.cuda.memory._record_memory_history(max_entries=100000)
    keep = [torch.empty(1 << 12, device="cuda") for _ in range(2000)]
    for _ in range(20000):
        torch.empty(1 << 10, device="cuda")
    torch.cuda.synchronize()
    had = "torch._inductor" in sys.modules
    t = time.perf_counter()
    snap = torch.cuda.memory._snapshot()
    first = time.perf_counter() - t
    t = time.perf_counter()
    torch.cuda.memory._snapshot()
    second = time.perf_counter() - t
    print("_snapshot() with %d blocks kept, %d trace entries: first %.3f s (torch._inductor imported before: %s, "
          "after: %s), second %.3f s" % (len(keep), sum(len(d) for d in snap["device_traces"]), first, had,
                                        "torch._inductor" in sys.modules, second))


if __name__ == "__main__":
    for name, stmt in PROBES.items():
        runs = [timed(stmt) for _ in range(3)]
        print("%-30s %s s (modules after: %d)" % (name, " / ".join("%.2f" % r[0] for r in runs), runs[0][1]))
    snapshot_cost()
