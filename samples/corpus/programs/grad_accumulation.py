"""Gradient accumulation done right: 8 micro-batches per optimizer step, each loss divided by 8 and
backpropagated at once (its graph freed), the running loss kept as a float. Clean: gradients are
the only thing that persists between micro-batches.
    python grad_accumulation.py TRUTH.json [--steps N] [--micro M] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


def main():
    p = parser(__doc__, steps=20, step_ms=18, twin=False)
    p.add_argument("--micro", type=int, default=8)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="none (gradients only)", unit="per micro-batch",
                                      released="at step end", shape="grad-accumulation"))
    model = mlp(1024, 2048, 1000)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    data = torch.randn(a.micro, 128, 1024, device=DEV)
    labels = torch.randint(0, 1000, (a.micro, 128), device=DEV)
    running = []
    for step in range(a.steps):
        total = 0.0
        for m in range(a.micro):
            loss = F.cross_entropy(model(data[m]), labels[m]) / a.micro
            loss.backward()
            total += loss.item()
            pause(a)
        opt.step()
        opt.zero_grad(set_to_none=True)
        running.append(total)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
