"""A program that goes quiet on the GPU for a while (a long evaluation, waiting for data): some
allocations, IDLE seconds without any, then a few more. For the live keepalive check (keepalive.sh).
    python idle_program.py IDLE_SECONDS"""
import sys
import time

import torch

idle = float(sys.argv[1]) if len(sys.argv) > 1 else 130.0
kept = [torch.empty(1 << 20, device="cuda") for _ in range(8)]
torch.cuda.synchronize()
print("idle from %.3f" % time.time(), flush=True)
time.sleep(idle)
print("idle until %.3f" % time.time(), flush=True)
kept += [torch.empty(1 << 20, device="cuda") for _ in range(4)]
del kept[:6]
torch.cuda.synchronize()
