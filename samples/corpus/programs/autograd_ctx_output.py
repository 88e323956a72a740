"""A custom autograd Function (a tanh with a hand-written backward) that stores its output as a ctx
attribute (ctx.out = out) instead of ctx.save_for_backward(out). The output's grad_fn is the ctx, and
the ctx refers back to the output: a reference cycle, so each step's activations outlive the step
and are freed only when Python's cyclic garbage collector runs (a sawtooth). --clean uses
ctx.save_for_backward(out).
    python autograd_ctx_output.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import gc

import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth


class Tanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, clean):
        out = torch.tanh(x)  # ALLOC-SITE: the activation the cycle keeps
        ctx.clean = clean
        if clean:
            ctx.save_for_backward(out)
        else:
            ctx.out = out  # HOLD-SITE: out.grad_fn is this ctx, and ctx.out is out: a reference cycle
        return out

    @staticmethod
    def backward(ctx, grad):
        out = ctx.saved_tensors[0] if ctx.clean else ctx.out
        return grad * (1 - out * out), None


class Net(nn.Module):
    def __init__(self, clean):
        super().__init__()
        self.clean = clean
        self.fc1, self.fc2 = nn.Linear(512, 8192), nn.Linear(8192, 10)

    def forward(self, x):
        return self.fc2(Tanh.apply(self.fc1(x), self.clean))


def main():
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(kind="cycle", holder="reference cycle: tensor -> grad_fn (ctx) -> ctx.out",
                                     unit="per step", released="by gc", shape="gc-sawtooth"),
              clean=dict(holder="ctx.save_for_backward", unit="per step", released="at step end", shape="flat"),
              gc_threshold=gc.get_threshold())
    model = Net(a.clean).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 10, (8, 256), device=DEV)
    for step in range(a.steps):
        loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
