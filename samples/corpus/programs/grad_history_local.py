"""Gradient-noise analysis: train() keeps a copy of one layer's gradient every step in a local list,
to compute gradient statistics once training is done. The copies stay on the GPU until train()
returns at the end of the program. --clean keeps the gradient's norm (a float) instead.
    python grad_history_local.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


def train(a, t):
    model = mlp(512, 1024, 10)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 10, (8, 256), device=DEV)
    grad_history = []
    for step in range(a.steps):
        loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        if a.clean:
            grad_history.append(model[2].weight.grad.norm().item())
        else:
            g = model[2].weight.grad.clone()  # ALLOC-SITE: a copy of the 1024x1024 gradient (4 MiB)
            grad_history.append(g)  # HOLD-SITE: a local list, alive until train() returns
        opt.step()
        pause(a)
        t.step(0, step)
    if not a.clean:
        flat = torch.stack([g.flatten()[:4096] for g in grad_history])
        noise = flat.std(0).mean().item()
    else:
        noise = float(torch.tensor(grad_history).std())
    t.write()
    return noise


def main():
    a = parser(__doc__, steps=60, step_ms=45).parse_args()
    t = truth(a, __file__, leak=dict(holder="list grad_history (local of train())", unit="per step",
                                     released="at program end", shape="released-at-end"),
              clean=dict(holder="list grad_history (floats)", unit="per step", released="at program end",
                         shape="flat"))
    return train(a, t)


if __name__ == "__main__":
    main()
