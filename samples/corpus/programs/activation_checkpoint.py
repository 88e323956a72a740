"""Activation checkpointing (torch.utils.checkpoint, use_reentrant=False) over the blocks of a small
transformer: the forward keeps only each block's input and the backward recomputes the rest.
Clean: per-step memory is freed at the end of each step.
    python activation_checkpoint.py TRUTH.json [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from corpus_common import DEV, parser, pause, tiny_lm, truth


def forward(model, ids):
    x = model.tok(ids) + model.pos(torch.arange(ids.size(1), device=ids.device))
    for blk in model.blocks:
        x = checkpoint(lambda h, b=blk: b(h)[0], x, use_reentrant=False)
    return model.head(model.ln(x))


def main():
    a = parser(__doc__, steps=100, step_ms=25, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="none", unit="per step", released="at step end",
                                      shape="activation-checkpointing"))
    model = tiny_lm(vocab=2048, layers=4).train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for step in range(a.steps):
        ids = torch.randint(0, 2048, (16, 257), device=DEV)
        logits = forward(model, ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 2048), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
