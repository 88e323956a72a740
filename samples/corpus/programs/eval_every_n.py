"""Training with an evaluation every 25 steps over four large validation batches under
torch.no_grad(), keeping only the validation loss's float. Each evaluation makes a short peak of
temporaries that it frees at once. Clean.
    python eval_every_n.py TRUTH.json [--steps N] [--eval-every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

HISTORY = []


def main():
    p = parser(__doc__, steps=150, step_ms=20, twin=False)
    p.add_argument("--eval-every", type=int, default=25)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="list HISTORY (floats)", unit=every(a.eval_every), released="at eval end",
                                      shape="eval-peaks-flat"))
    model = mlp(1024, 2048, 10)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    data = torch.randn(8, 128, 1024, device=DEV)
    labels = torch.randint(0, 10, (8, 128), device=DEV)
    val_x = torch.randn(4, 2048, 1024, device=DEV)
    val_y = torch.randint(0, 10, (4, 2048), device=DEV)
    for step in range(a.steps):
        loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % a.eval_every == a.eval_every - 1:
            model.eval()
            with torch.no_grad():
                val = sum(F.cross_entropy(model(x), y, reduction="sum").item() for x, y in zip(val_x, val_y))
            model.train()
            HISTORY.append((step, val / val_y.numel()))
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
