"""Training on variable-length sequences one sample at a time (no padding): each step encodes 12
sequences of 96-320 tokens, one call of the encoder each, accumulates their gradients, then keeps the
two hardest samples of the step (highest loss) with their hidden states in the module-level
HARD_CASES "to inspect later", on the GPU. The encoder's line allocates 12 hidden states a step; ten
are freed when the step ends, two are kept. --clean keeps CPU copies of the two hidden states.
    python hardest_samples_kept.py TRUTH.json [--clean] [--steps N] [--per-step S] [--keep K] [--step-ms MS]"""
import random

import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth

HARD_CASES = []  # (step, loss, hidden states) of the hardest samples


def main():
    p = parser(__doc__, steps=100, step_ms=25)
    p.add_argument("--per-step", type=int, default=12)
    p.add_argument("--keep", type=int, default=2)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list HARD_CASES (hidden states of each step's 2 hardest samples)",
                                     unit="per step", released="never", shape="churn-topk-per-step"),
              clean=dict(holder="list HARD_CASES (CPU copies)", unit="per step", released="never",
                         shape="churn-flat"))
    rng = random.Random(a.seed + 5)
    d = 768
    embed = nn.Embedding(4096, d).to(DEV)
    encoder = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)).to(DEV)
    head = nn.Linear(d, 64).to(DEV)
    params = list(embed.parameters()) + list(encoder.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=1e-4)
    for step in range(a.steps):
        outputs = []
        for _ in range(a.per_step):
            seq = torch.randint(0, 4096, (rng.randrange(96, 321),), device=DEV)
            hidden = encoder(embed(seq))  # ALLOC-SITE: one sample's [tokens, 768] hidden states (0.3-0.9 MiB)
            loss = F.cross_entropy(head(hidden.mean(0, keepdim=True)), torch.randint(0, 64, (1,), device=DEV))
            (loss / a.per_step).backward()
            outputs.append((loss.item(), hidden.detach()))
        opt.step()
        opt.zero_grad()
        for loss, hidden in sorted(outputs, key=lambda o: -o[0])[:a.keep]:
            if a.clean:
                HARD_CASES.append((step, loss, hidden.cpu()))
            else:
                HARD_CASES.append((step, loss, hidden))  # HOLD-SITE: the hardest samples' hidden states
        del outputs, hidden
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
