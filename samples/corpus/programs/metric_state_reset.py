"""A torchmetrics-style metric object that accumulates every batch's predictions (update() appends
to its state lists) and computes at the end of each epoch. Three runs of one program:
  default   reset() is never called: the state grows across epochs for the whole run (a leak);
  --reset   reset() at each epoch end: it grows during an epoch and is released at its end (an
            accumulation, as the metric intends);
  --clean   a binned metric: fixed-size per-class counters updated in place (flat).
    python metric_state_reset.py TRUTH.json [--reset | --clean] [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


class ListMetric:
    def __init__(self):
        self.preds, self.target = [], []

    def update(self, probs, target):
        self.preds.append(probs.detach())  # HOLD-SITE: the metric's state: every batch's probabilities
        self.target.append(target)

    def compute(self):
        return torch.stack([(p.argmax(-1) == t).float().mean() for p, t in zip(self.preds, self.target)]).mean()

    def reset(self):
        self.preds.clear()
        self.target.clear()


class BinnedMetric:
    def __init__(self, classes):
        self.correct = torch.zeros(classes, device=DEV)
        self.total = torch.zeros(classes, device=DEV)

    def update(self, probs, target):
        hit = (probs.argmax(-1) == target).float()
        self.correct.index_add_(0, target, hit)
        self.total.index_add_(0, target, torch.ones_like(hit))

    def compute(self):
        return (self.correct.sum() / self.total.sum().clamp(min=1))

    def reset(self):
        self.correct.zero_()
        self.total.zero_()


METRIC = None


def main():
    global METRIC
    p = parser(__doc__, steps=50, step_ms=20)
    p.add_argument("--reset", action="store_true", help="reset the metric at each epoch end")
    p.add_argument("--epochs", type=int, default=3)
    a = p.parse_args()
    if a.reset:
        leak = dict(kind="accumulation", holder="ListMetric METRIC.preds (reset each epoch)", unit="per step",
                    released="at epoch end", shape="epoch-accumulation")
    else:
        leak = dict(holder="ListMetric METRIC.preds (never reset)", unit="per step", released="never",
                    shape="metric-no-reset")
    t = truth(a, __file__, leak=leak, clean=dict(holder="BinnedMetric METRIC (fixed-size counters)", unit="per step",
                                                 released="never", shape="flat"))
    model = mlp(512, 1024, 1000)
    METRIC = BinnedMetric(1000) if a.clean else ListMetric()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 1000, (8, 256), device=DEV)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            logits = model(data[step % 8])
            loss = F.cross_entropy(logits, labels[step % 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            METRIC.update(logits.softmax(-1), labels[step % 8])  # ALLOC-SITE: the probabilities the state keeps
            pause(a)
            t.step(epoch, step)
        METRIC.compute().item()
        if a.reset or a.clean:
            METRIC.reset()
    t.write()


if __name__ == "__main__":
    main()
