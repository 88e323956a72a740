"""Contrastive training with hard negatives mined once per epoch: every step's query embeddings
(detached, [1024, 1536], 6 MiB) are collected in EPOCH_EMBS; at the epoch end they are concatenated
into a bank, the 3072 rows nearest the class centres are gathered as next epoch's hard negatives, and
the epoch's list and bank are dropped (a 150-300 MiB sawtooth, by design). The gathered negatives go
to NEGATIVES "for a curriculum later", and every epoch's stay: the floor rises by 18 MiB an epoch.
Training uses only the latest epoch's. --clean replaces NEGATIVES with the latest epoch's each epoch.
    python epoch_negatives_bank.py TRUTH.json [--clean] [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

EPOCH_EMBS = []  # this epoch's embeddings
NEGATIVES = []  # hard negatives mined at each epoch end


def main():
    p = parser(__doc__, steps=25, step_ms=15)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--mined", type=int, default=3072)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list NEGATIVES (every epoch's mined negatives)", unit="per epoch",
                                     released="never", shape="leak-under-epoch-sawtooth"),
              clean=dict(holder="list NEGATIVES (the latest epoch's, replaced)", unit="per epoch",
                         released="at epoch end", shape="epoch-sawtooth-flat"))
    encoder = mlp(256, 1024, 1536)
    opt = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    queries = torch.randn(a.steps, 1024, 256, device=DEV)
    keys = queries + 0.1 * torch.randn_like(queries)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            q = F.normalize(encoder(queries[step]), dim=-1)
            k = F.normalize(encoder(keys[step]), dim=-1)
            logits = q @ k.T
            if NEGATIVES:
                logits = torch.cat([logits, q @ NEGATIVES[-1].T], dim=1)
            loss = F.cross_entropy(logits / 0.05, torch.arange(q.size(0), device=DEV))
            opt.zero_grad()
            loss.backward()
            opt.step()
            EPOCH_EMBS.append(q.detach())
            pause(a)
            t.step(epoch, step)
        bank = torch.cat(EPOCH_EMBS)
        centres = F.normalize(bank[torch.randint(0, bank.size(0), (64,), device=DEV)], dim=-1)
        nearest = (bank @ centres.T).max(1).values.topk(a.mined).indices
        mined = bank[nearest]  # ALLOC-SITE: [3072, 1536] mined negatives (18 MiB) per epoch
        if a.clean:
            NEGATIVES[:] = [mined]
        else:
            NEGATIVES.append(mined)  # HOLD-SITE: every epoch's negatives stay
        EPOCH_EMBS.clear()
        del bank, mined, q, k, logits, loss
    t.write()


if __name__ == "__main__":
    main()
