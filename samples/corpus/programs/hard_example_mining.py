"""Keeping "bad batches" for inspection: when a step's gradient norm spikes (corrupted inputs arrive
at random, about one batch in seven), the loop skips the update and keeps the batch and its logits
in the module-level BAD_BATCHES list to look at later. The leak grows at irregular, data-dependent
steps. --clean keeps only the step, the batch index and the two norms.
    python hard_example_mining.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import random

import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

BAD_BATCHES = []


def main():
    a = parser(__doc__, steps=150, step_ms=20).parse_args()
    t = truth(a, __file__, leak=dict(holder="list BAD_BATCHES", unit="irregular (gradient-norm spikes)", released="never",
                                     shape="irregular-random"),
              clean=dict(holder="list BAD_BATCHES (indices and floats)", unit="irregular (gradient-norm spikes)",
                         released="never", shape="flat"))
    rng = random.Random(a.seed + 11)
    model = mlp(2048, 1024, 1000)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    pool = torch.randn(16, 512, 2048, device=DEV)
    labels = torch.randint(0, 1000, (16, 512), device=DEV)
    ema = None
    for step in range(a.steps):
        j = rng.randrange(16)
        scale = 40.0 if rng.random() < 0.14 else 1.0  # a corrupted batch now and then
        x = pool[j] * scale  # ALLOC-SITE: the batch as the model saw it (4 MiB)
        logits = model(x)
        loss = F.cross_entropy(logits, labels[j])
        opt.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        if ema is not None and norm > 3 * ema:  # a spike: skip the update, keep the batch to look at
            if a.clean:
                BAD_BATCHES.append((step, j, norm, ema))
            else:
                BAD_BATCHES.append({"step": step, "x": x, "logits": logits})  # HOLD-SITE: kept for later
        else:
            opt.step()
            ema = norm if ema is None else 0.9 * ema + 0.1 * norm
        pause(a)
        t.step(0, step)
    t.d["bad_batches"] = len(BAD_BATCHES)
    t.write()


if __name__ == "__main__":
    main()
