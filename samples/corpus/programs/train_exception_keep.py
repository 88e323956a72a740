"""A training loop with a sanity check that fails now and then (every 10th step here) and a handler
that keeps the exception to report at the end (failures.append(e)). The exception's traceback keeps
the failed step's frame, and with it its activations and autograd graph (backward never ran):
4-5 MiB every 10th step, held by the module-level FAILURES until exit. --clean keeps str(e).
    python train_exception_keep.py TRUTH.json [--clean] [--steps N] [--every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

FAILURES = []


def train_step(model, opt, x, y, step, every):
    logits = model(x)  # ALLOC-SITE: the activations the failed step's frame keeps
    loss = F.cross_entropy(logits, y)
    if step % every == every - 1:
        raise FloatingPointError(f"step {step}: loss check failed (loss={loss.item():.3f})")
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def main():
    p = parser(__doc__, steps=150, step_ms=20)
    p.add_argument("--every", type=int, default=10)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list FAILURES (exceptions with tracebacks)",
                                     unit=every(a.every), released="never", shape=f"sparse-k{a.every}"),
              clean=dict(holder="list FAILURES (messages)", unit=every(a.every), released="never",
                         shape="flat"))
    model = mlp(1024, 2048, 10)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 10, (8, 256), device=DEV)
    for step in range(a.steps):
        try:
            train_step(model, opt, data[step % 8], labels[step % 8], step, a.every)
        except FloatingPointError as e:
            if a.clean:
                FAILURES.append(str(e))
            else:
                FAILURES.append(e)  # HOLD-SITE: the traceback keeps train_step's frame and its graph
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
