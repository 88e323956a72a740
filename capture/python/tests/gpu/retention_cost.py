"""The retention collection's cost on a large heap: N Python objects beside a transformer, some of
whose activations are kept in a global list (the leak). Prints objects/s and the pause.
    python retention_cost.py OUT.vscap [MILLIONS]"""
import sys
import time

import torch
from torch import nn

import vramscope

KEPT = []


def main():
    millions = float(sys.argv[2]) if len(sys.argv) > 2 else 2
    heap = [{"i": i, "v": [i]} for i in range(int(millions * 1e6 / 3))]  # ~3 objects each
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=6).cuda()
    with vramscope.record(sys.argv[1], retention=False) as rec:
        for step in range(20):
            out = model(torch.randn(16, 256, 512, device="cuda"))
            KEPT.append(out)  # keeps each output and its autograd graph
        t0 = time.perf_counter()
        rec.collect_retention()
        pause = time.perf_counter() - t0
    trig, blocks, objects, nodes, secs, trunc = rec.retention_stats[-1]
    print("retention: %d blocks, %d objects scanned, %d nodes kept, pause %.2f s (%.0f objects/s), truncated %s"
          % (blocks, objects, nodes, pause, objects / pause, trunc))
    del heap


if __name__ == "__main__":
    main()
