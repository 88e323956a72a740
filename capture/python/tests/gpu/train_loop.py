"""A small transformer training loop for overhead, SIGKILL and live tests.
    python train_loop.py [STEPS] [--print-times]"""
import sys
import time

import torch
from torch import nn

try:
    import vramscope
except ImportError:
    vramscope = None


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 100
    layer = nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=6).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    times = []
    for step in range(steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        x = torch.randn(16, 256, 512, device="cuda")
        loss = model(x).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        if vramscope:
            vramscope.mark("step", step)
        if "--print-times" in sys.argv:
            print("step %d %.6f" % (step, time.time()), flush=True)
    warm = sorted(times[10:]) or times
    print("median step %.3f ms" % (1000 * warm[len(warm) // 2]))


if __name__ == "__main__":
    main()
