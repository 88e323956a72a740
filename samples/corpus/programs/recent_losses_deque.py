"""Monitoring with bounded history: a deque(maxlen=20) of recent losses (detached 0-d tensors) for a
smoothed loss, and a deque(maxlen=8) of recent detached logits for a drift check. Both fill in the
first steps and then stay the same size. Clean.
    python recent_losses_deque.py TRUTH.json [--steps N] [--step-ms MS]"""
from collections import deque

import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

RECENT_LOSSES = deque(maxlen=20)
RECENT_LOGITS = deque(maxlen=8)


def main():
    a = parser(__doc__, steps=130, step_ms=22, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="deques RECENT_LOSSES (maxlen 20), RECENT_LOGITS (maxlen 8)",
                                      unit="per step", released="never", shape="bounded-deque"))
    model = mlp(512, 1024, 4096)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(8, 128, 512, device=DEV)
    labels = torch.randint(0, 4096, (8, 128), device=DEV)
    for step in range(a.steps):
        logits = model(data[step % 8])
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        RECENT_LOSSES.append(loss.detach())
        RECENT_LOGITS.append(logits.detach())
        if step % 10 == 9:
            smooth = torch.stack(list(RECENT_LOSSES)).mean().item()
            drift = (RECENT_LOGITS[-1] - RECENT_LOGITS[0]).abs().mean().item()
            del smooth, drift
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
