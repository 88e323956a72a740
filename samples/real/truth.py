"""What each program writes about itself: NAME.truth.json in the style of shared/captures/real
({"kind", "leak_file", "leak_lines": [allocating line, holding line], "steps": [...]}). The lines are
found by their markers in the program's source (`# ALLOC-SITE`, `# HOLD-SITE`), so they stay right
when the program is edited."""
import json
import os
import sys
import time

import torch


def site_lines(path, hold="HOLD"):
    lines = open(path).read().splitlines()
    find = lambda tag: next((i + 1 for i, l in enumerate(lines) if tag in l), None)  # noqa: E731
    return [n for n in (find("# ALLOC" + "-SITE"), find("# " + hold + "-SITE")) if n]


class Truth:
    def __init__(self, path, kind, program, hold="HOLD", **extra):
        self.path = path
        self.program = os.path.abspath(program)
        self.d = {"kind": kind, "leak_file": os.path.basename(program) if kind != "none" else None,
                  "leak_lines": site_lines(self.program, hold) if kind != "none" else [],
                  "argv": " ".join(sys.argv), "torch": torch.__version__, "steps": []}
        self.d.update(extra)
        self.t0 = time.time()

    def step(self, epoch, step, device=None):
        torch.cuda.synchronize(device)
        self.d["steps"].append({"epoch": epoch, "step": step, "allocated": torch.cuda.memory_allocated(device),
                                "reserved": torch.cuda.memory_reserved(device),
                                "time_us": time.time_ns() // 1000})

    def write(self, device=None):
        torch.cuda.synchronize(device)
        self.d["final_allocated"] = torch.cuda.memory_allocated(device)
        self.d["final_reserved"] = torch.cuda.memory_reserved(device)
        self.d["max_allocated"] = torch.cuda.max_memory_allocated(device)
        self.d["seconds"] = round(time.time() - self.t0, 2)
        if self.path:
            with open(self.path, "w") as f:
                json.dump(self.d, f)
