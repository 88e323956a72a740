"""Multi-scale training of a small convolutional network: every 10 steps the input resolution changes
(160-320 pixels, drawn at random), as detection models do. The allocator's cached segments change
with the sizes, but everything a step allocates it frees. Clean.
    python multiscale_conv.py TRUTH.json [--steps N] [--step-ms MS]"""
import random

import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth


def main():
    a = parser(__doc__, steps=110, step_ms=20, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="none", unit="per step", released="at step end",
                                      shape="multiscale-varsize"))
    rng = random.Random(a.seed)
    model = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                          nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
                          nn.Conv2d(64, 128, 3, 2, 1), nn.BatchNorm2d(128), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 20)).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    size = 224
    for step in range(a.steps):
        if step % 10 == 0:
            size = rng.choice([160, 192, 224, 256, 288, 320])
        x = torch.randn(16, 3, size, size, device=DEV)
        y = torch.randint(0, 20, (16,), device=DEV)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
