#!/usr/bin/env python3
"""Records a torch.profiler trace with memory events that vramscope opens (run on a CUDA machine):

    python3 samples/profiler/record.py [OUT.json]      # default: samples/profiler/mlp_train.json

A small MLP trains for a few steps under torch.profiler.profile(profile_memory=True) and the trace is
written with export_chrome_trace; its "[memory]" instant events carry Addr, Bytes, Total Allocated,
Total Reserved, Device Id and Device Type. Beside it, OUT.truth.json holds what PyTorch itself
reported after every step (memory_allocated / memory_reserved), to compare with
`vramscope-cli series OUT.json --csv`. A list keeps every step's loss with its graph: a small leak.
"""
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/profiler/mlp_train.json"
    assert torch.cuda.is_available(), "needs a CUDA GPU"
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(dev)
    opt = torch.optim.AdamW(model.parameters())  # allocated before the profiler: a baseline
    kept, steps = [], []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        for step in range(20):
            x = torch.randn(256, 1024, device=dev)
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            kept.append(loss)  # the leak: every loss and the graph behind it
            torch.cuda.synchronize()
            steps.append({"step": step, "allocated": torch.cuda.memory_allocated(),
                          "reserved": torch.cuda.memory_reserved()})
    prof.export_chrome_trace(out)
    with open(out.rsplit(".json", 1)[0] + ".truth.json", "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "steps": steps,
                   "final_allocated": torch.cuda.memory_allocated(),
                   "final_reserved": torch.cuda.memory_reserved()}, f, indent=1)
    print(out)


if __name__ == "__main__":
    main()
