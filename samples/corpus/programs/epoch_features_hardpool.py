"""Training with an epoch-end prototype update: every step's backbone features (detached, [512, 3072],
6 MiB) are collected in EPOCH_FEATS and the list is cleared when the epoch ends (a 150 MiB sawtooth,
by design). At each epoch end the three batches with the highest loss join HARD_POOL "to replay
later"; nothing ever removes them, so the floor under the teeth rises by 18 MiB an epoch. --clean
keeps only the latest epoch's three (the pool's contents replaced every epoch).
    python epoch_features_hardpool.py TRUTH.json [--clean] [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

EPOCH_FEATS = []  # this epoch's features (cleared at each epoch end)
HARD_POOL = []  # the hardest batches' features, for replay


def main():
    p = parser(__doc__, steps=25, step_ms=15)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--keep", type=int, default=3)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list HARD_POOL (3 batches' features per epoch, never removed)",
                                     unit="per epoch", released="never", shape="leak-under-epoch-sawtooth"),
              clean=dict(holder="list HARD_POOL (the latest epoch's 3 batches, replaced)", unit="per epoch",
                         released="at epoch end", shape="epoch-sawtooth-flat"))
    backbone = mlp(512, 2048, 3072)
    head = torch.nn.Linear(3072, 100).to(DEV)
    opt = torch.optim.AdamW(list(backbone.parameters()) + list(head.parameters()), lr=1e-4)
    data = torch.randn(a.steps, 512, 512, device=DEV)
    labels = torch.randint(0, 100, (a.steps, 512), device=DEV)
    prototypes = None
    for epoch in range(a.epochs):
        losses = []
        for step in range(a.steps):
            feats = backbone(data[step])  # ALLOC-SITE: [512, 3072] features (6 MiB), every step
            loss = F.cross_entropy(head(feats), labels[step])
            opt.zero_grad()
            loss.backward()
            opt.step()
            EPOCH_FEATS.append(feats.detach())
            losses.append(loss.item())
            pause(a)
            t.step(epoch, step)
        prototypes = torch.stack([f.mean(0) for f in EPOCH_FEATS])
        hardest = sorted(range(len(losses)), key=lambda i: -losses[i])[:a.keep]
        if a.clean:
            HARD_POOL[:] = [EPOCH_FEATS[i] for i in hardest]
        else:
            HARD_POOL.extend(EPOCH_FEATS[i] for i in hardest)  # HOLD-SITE: kept every epoch, never removed
        EPOCH_FEATS.clear()
        del feats
    t.d["prototypes"] = list(prototypes.shape)
    t.write()


if __name__ == "__main__":
    main()
