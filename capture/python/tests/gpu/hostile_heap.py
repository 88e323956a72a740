"""A CUDA program that keeps a hostile heap (tests/hostile.py: dead weak proxies, objects that raise
or lie, huge containers, a thread mutating objects) alive while it trains and at exit, for the real
recorder's retention walks (issue 30, item 2). It prints the same lines recorded or not.
    python hostile_heap.py [ok|exit3|raise]"""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hostile  # noqa: E402

HEAP = []
KEPT = []


def main():
    how = sys.argv[1] if len(sys.argv) > 1 else "ok"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256)).cuda()
    opt = torch.optim.Adam(model.parameters())
    with hostile.Mutator():
        for step in range(30):
            if step == 1:  # after torch's lazy imports: the heap's module in sys.modules breaks them
                HEAP.extend(hostile.build())
            x = torch.randn(32, 256, device="cuda")
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            KEPT.append(loss.detach())
    print("trained, kept %d tensors, heap of %d hostile objects" % (len(KEPT), len(HEAP)), flush=True)
    if how == "exit3":
        sys.exit(3)
    if how == "raise":
        raise RuntimeError("the program's own failure")


if __name__ == "__main__":
    main()
