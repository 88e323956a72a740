#!/usr/bin/env python3
"""Records a torch.profiler trace with memory events that vramscope opens (run on a CUDA machine):

    python3 samples/profiler/record.py [OUT.json[.gz]]   # default: samples/profiler/mlp_train.json.gz

A small MLP trains for a few steps under torch.profiler.profile(profile_memory=True) and the trace is
written with export_chrome_trace; its "[memory]" instant events carry Addr, Bytes, Total Allocated,
Total Reserved, Device Id and Device Type. The profiler runs on a schedule and prof.step() ends each
step, so PyTorch itself writes a "ProfilerStep#N" span around step N (vramscope's step markers).
Beside the trace, OUT.truth.json holds what PyTorch reported at the end of every step, just before
prof.step() closes its span (memory_allocated / memory_reserved), to compare with
`vramscope-cli series OUT.json.gz --csv`. A list keeps every step's loss with its graph: a small leak.
"""
import gzip
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule

STEPS = 20


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/profiler/mlp_train.json.gz"
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.AdamW(model.parameters())  # allocated before the profiler: a baseline
    kept, steps = [], []
    # active past the last step: every step recorded, the trace exported once at the end
    every_step = schedule(wait=0, warmup=0, active=STEPS + 1, repeat=1)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True, record_shapes=True,
                 with_stack=True, schedule=every_step) as prof:
        for step in range(STEPS):
            x = torch.randn(256, 1024, device=dev)
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            kept.append(loss)  # the leak: every loss and the graph behind it
            torch.cuda.synchronize()
            steps.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                          "reserved": torch.cuda.memory_reserved()})
            prof.step()  # closes "ProfilerStep#<step>"
    prof.export_chrome_trace(out)
    with open(out.rsplit(".json", 1)[0] + ".truth.json", "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "steps": steps,
                   "final_allocated": torch.cuda.memory_allocated(),
                   "final_reserved": torch.cuda.memory_reserved()}, f, indent=1)
    check(out, steps)


def check(out, steps):
    """Prints, per step, the profiler's Total Allocated after the last [memory] event inside its span."""
    with (gzip.open if out.endswith(".gz") else open)(out, "rt") as f:
        events = json.load(f)["traceEvents"]
    memory = sorted((e["ts"], e["args"]["Total Allocated"]) for e in events
                    if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1)
    for e in sorted((e for e in events if e.get("name", "").startswith("ProfilerStep#") and e.get("ph") == "X"),
                    key=lambda e: e["ts"]):
        n = int(e["name"].split("#")[1])
        end = e["ts"] + e["dur"]
        inside = [a for t, a in memory if t <= end]
        truth = steps[n]["allocated"] if n < len(steps) else None
        print(e["name"], e.get("cat"), e["ts"], end, inside[-1] if inside else None, truth)


if __name__ == "__main__":
    main()
