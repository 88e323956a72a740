"""Warm-up then steady state: a language model trained with a sequence-length curriculum (64 tokens
growing to 512 over the first 30 steps, then 512) and Adam, whose state is created at the first
optimizer step. Memory rises during the warm-up (optimizer state, the longer sequences' activations)
and is flat from then on. Clean.
    python warmup_curriculum.py TRUTH.json [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, parser, pause, tiny_lm, truth


def main():
    a = parser(__doc__, steps=110, step_ms=22, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="Adam state (made once)", unit="per step", released="at step end",
                                      shape="warmup-then-flat"))
    model = tiny_lm(vocab=2048, layers=3).train()
    opt = torch.optim.Adam(model.parameters(), lr=3e-4)
    for step in range(a.steps):
        n = min(512, 64 + step * 16)
        ids = torch.randint(0, 2048, (8, n + 1), device=DEV)
        logits, _ = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 2048), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
