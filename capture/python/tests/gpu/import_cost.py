"""What torch's lazily imported parts cost a program that never uses them (issue 30: PyTorch's stack
symbolization asks hasattr(torch, "_inductor"), which imports torch._inductor); own_symbols_check.py
times the first _snapshot(), which pays it. Each import is timed in a fresh process, three times:
    python import_cost.py"""
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


if __name__ == "__main__":
    for name, stmt in PROBES.items():
        runs = [timed(stmt) for _ in range(3)]
        print("%-30s %s s (modules after: %d)" % (name, " / ".join("%.2f" % r[0] for r in runs), runs[0][1]))
