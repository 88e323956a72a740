"""Clean look-alike of a leak under an epoch sawtooth: every step's embeddings (detached, [512, 3072],
6 MiB) are collected for the epoch and dropped at its end (a 150 MiB sawtooth); at each epoch end a
memory bank of every 4th collected row is built from them and REPLACES the previous epoch's bank
(MEMORY_BANK = new bank: one epoch's worth, 38 MiB, from the first epoch on), and the class
prototypes are recomputed in place. Training uses the bank as extra negatives. Flat floor.
    python epoch_prototypes_swap.py TRUTH.json [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

MEMORY_BANK = None  # the latest epoch's bank (replaced each epoch)


def main():
    global MEMORY_BANK
    p = parser(__doc__, steps=25, step_ms=15, twin=False)
    p.add_argument("--epochs", type=int, default=8)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="MEMORY_BANK (the latest epoch's, replaced) and prototypes (in place)",
                                      unit="per epoch", released="at epoch end", shape="epoch-sawtooth-bank-replaced"))
    encoder = mlp(512, 2048, 3072)
    opt = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    prototypes = torch.zeros(64, 3072, device=DEV)
    data = torch.randn(a.steps, 512, 512, device=DEV)
    labels = torch.randint(0, 64, (a.steps, 512), device=DEV)
    for epoch in range(a.epochs):
        collected = []
        for step in range(a.steps):
            z = F.normalize(encoder(data[step]), dim=-1)
            logits = z @ prototypes.T
            if MEMORY_BANK is not None:
                logits = torch.cat([logits, z @ MEMORY_BANK[:2048].T], dim=1)
            loss = F.cross_entropy(logits / 0.1, labels[step]) + (z - prototypes[labels[step]]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            collected.append(z.detach())
            pause(a)
            t.step(epoch, step)
        with torch.no_grad():
            sums = torch.zeros_like(prototypes)
            for i, z in enumerate(collected):
                sums.index_add_(0, labels[i], z)
            prototypes.copy_(F.normalize(sums, dim=-1))
            MEMORY_BANK = torch.cat([z[::4] for z in collected])  # replaces the previous epoch's bank
        collected.clear()
        del z, logits, loss
    t.write()


if __name__ == "__main__":
    main()
