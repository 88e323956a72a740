"""Deferred logging with closures: each step queues a callback that will compute statistics of the
step's logits "when the progress bar refreshes". The leaking run only runs the queue after the
training loop, so every queued closure keeps its step's logits alive until then: the memory is held
by a local list of main() and released at the end of the program. --clean runs the queue every 5
steps.
    python train_closure_pending.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


def deferred_stats(step, logits):
    return lambda: (step, float(logits.float().std()))  # HOLD-SITE: the closure captures the logits


def main():
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="list pending (local of main: closures capturing logits)", unit="per step",
                                     released="at program end", shape="released-at-end"),
              clean=dict(holder="list pending (run every 5 steps)", unit="per step", released="every 5 steps",
                         shape="flat-sawtooth-5"))
    model = mlp(512, 1024, 4096)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(8, 128, 512, device=DEV)
    labels = torch.randint(0, 4096, (8, 128), device=DEV)
    pending, stats = [], []
    for step in range(a.steps):
        logits = model(data[step % 8])  # ALLOC-SITE: [128, 4096] logits, 2 MiB a step
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pending.append(deferred_stats(step, logits))
        if a.clean and len(pending) >= 5:
            stats += [f() for f in pending]
            pending.clear()
        pause(a)
        t.step(0, step)
    stats += [f() for f in pending]
    t.write()
    return len(stats)


if __name__ == "__main__":
    main()
