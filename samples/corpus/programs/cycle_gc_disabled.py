"""A training loop that turns the garbage collector off for speed (gc.disable(), collecting once per
epoch) and makes a small StepRecord per step whose done-callback is a bound method of itself
(self.on_done = self.finish): a reference cycle that keeps the step's activations until the epoch's
gc.collect(). Memory climbs during each epoch and falls at its end, inside the collector.
--clean holds the callback through weakref.WeakMethod (no cycle; each record dies with its step).
    python cycle_gc_disabled.py TRUTH.json [--clean] [--epochs E] [--steps N] [--step-ms MS]"""
import gc
import weakref

import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


class StepRecord:
    def __init__(self, step, hidden, clean):
        self.step, self.hidden = step, hidden
        if clean:
            self.on_done = weakref.WeakMethod(self.finish)
        else:
            self.on_done = self.finish  # HOLD-SITE: a bound method of itself: a reference cycle

    def finish(self):
        return self.step, float(self.hidden.float().mean())


def main():
    p = parser(__doc__, steps=40, step_ms=25)
    p.add_argument("--epochs", type=int, default=3)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(kind="cycle", holder="reference cycle StepRecord.on_done -> StepRecord",
                                     unit="per step", released="by gc (at epoch end)", shape="gc-disabled-epoch"),
              clean=dict(holder="StepRecord with a WeakMethod", unit="per step", released="at step end",
                         shape="flat"))
    gc.disable()
    model = mlp(512, 2048, 10, depth=1)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 10, (8, 256), device=DEV)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            hidden = model[1](model[0](data[step % 8]))  # ALLOC-SITE: the hidden activation the record keeps
            loss = F.cross_entropy(model[2](hidden), labels[step % 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            rec = StepRecord(step, hidden, a.clean)
            callback = rec.on_done() if a.clean else rec.on_done
            callback()
            del rec, callback, hidden, loss
            pause(a)
            t.step(epoch, step)
        gc.collect()
    gc.enable()
    t.write()


if __name__ == "__main__":
    main()
