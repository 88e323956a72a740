"""What automatic retention graphs cost a training loop: a transformer whose outputs are kept in a
global list (a leak, ~16 MiB a step) beside a heap of MILLIONS x 1e6 Python objects, 40 ms steps
for SECONDS. Prints each step's time around the collections, the collections' pauses, and the cost
of the writer thread's memory_allocated() sample.
    python auto_retention_cost.py OUT.vscap [SECONDS] [MILLIONS]   (VRAMSCOPE_AUTO_RETENTION=0: off)"""
import os
import statistics
import sys
import time

import torch
from torch import nn

import vramscope

KEPT = []


def main():
    out = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 45
    millions = float(sys.argv[3]) if len(sys.argv) > 3 else 1
    heap = [{"i": i, "v": [i]} for i in range(int(millions * 1e6 / 3))]  # ~3 objects each
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=4).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats_as_nested_dict
    t0 = time.perf_counter()
    for _ in range(1000):
        stats(0)["allocated_bytes"]["all"]["current"]
    sample_us = (time.perf_counter() - t0) / 1000 * 1e6
    times = []
    with vramscope.record(out) as rec:
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            t = time.perf_counter()
            x = torch.randn(16, 128, 512, device="cuda")
            y = model(x)
            loss = y.pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            KEPT.append(y.detach()[:, :64].clone())  # the leak: 2 MiB a step
            time.sleep(0.03)
            torch.cuda.synchronize()
            times.append((t - start, time.perf_counter() - t))
    med = statistics.median(d for _, d in times)
    slow = [(round(s, 2), round(d * 1000, 1)) for s, d in times if d > 2 * med]
    print("auto retention %s: %d steps in %.0f s, median step %.1f ms, slowed steps (start s, ms): %s"
          % (os.environ.get("VRAMSCOPE_AUTO_RETENTION", "default"), len(times), seconds, med * 1000, slow))
    print("collections (trigger, s):", [(t, round(p, 3)) for t, p in rec.retention_pauses])
    print("retention stats (trigger, blocks, objects, nodes, s, truncated):", rec.retention_stats)
    print("writer-thread sample memory_stats_as_nested_dict(): %.1f us" % sample_us)
    del heap


if __name__ == "__main__":
    main()
