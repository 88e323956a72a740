"""Gradient accumulation in nested loops (epoch > optimizer step > micro-batch) with an epoch-end
metric: every micro-batch's logits are appended to the trainer's epoch_outputs (with their graph) and
the list is cleared at the end of each epoch. Memory rises during each epoch and is released at its
end: an accumulation. --clean keeps only each micro-batch's predicted classes.
    python nested_micro_accumulation.py TRUTH.json [--clean] [--epochs E] [--steps N] [--micro M] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


class Trainer:
    def __init__(self, model, clean):
        self.model, self.clean = model, clean
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.epoch_outputs = []

    def micro_batch(self, x, y, micro):
        logits = self.model(x)  # ALLOC-SITE: [48, 8192] logits, 1.5 MiB per micro-batch
        (F.cross_entropy(logits, y) / micro).backward()
        if self.clean:
            self.epoch_outputs.append(logits.detach().argmax(-1))
        else:
            self.epoch_outputs.append(logits)  # HOLD-SITE: kept until the epoch ends
        return logits

    def epoch_end(self, labels):
        preds = torch.cat([o.argmax(-1) if o.dim() == 2 else o for o in self.epoch_outputs])
        acc = (preds == labels[:preds.numel()]).float().mean().item()
        self.epoch_outputs.clear()
        return acc


TRAINER = None


def main():
    global TRAINER
    p = parser(__doc__, steps=20, step_ms=12)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--micro", type=int, default=4)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(kind="accumulation", holder="list TRAINER.epoch_outputs",
                                     unit="per micro-batch", released="at epoch end",
                                     shape="nested-epoch-step-micro"),
              clean=dict(holder="list TRAINER.epoch_outputs (class ids)", unit="per micro-batch",
                         released="at epoch end", shape="nested-flat"))
    TRAINER = Trainer(mlp(512, 1024, 8192), a.clean)
    data = torch.randn(a.steps * a.micro, 48, 512, device=DEV)
    labels = torch.randint(0, 8192, (a.steps * a.micro, 48), device=DEV)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            for m in range(a.micro):
                i = step * a.micro + m
                TRAINER.micro_batch(data[i], labels[i], a.micro)
                pause(a)
            TRAINER.opt.step()
            TRAINER.opt.zero_grad()
            t.step(epoch, step)
        TRAINER.epoch_end(labels.flatten())
    t.write()


if __name__ == "__main__":
    main()
