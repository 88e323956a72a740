"""Two findings in one run. A debugging aid left in: every 2nd step the backbone's activation
(detached, [256, 1536], 1.5 MiB) goes to the module-level DEBUG_ACTS "to dump if the loss diverges",
and nothing ever empties it (a leak, every 2nd step). And the trainer keeps every step's logits
([256, 3072], 3 MiB) in epoch_outputs for an epoch-end metric and clears the list when the epoch ends
(an accumulation, released at epoch end, as intended). No clean twin.
    python debug_acts_epoch_outputs.py TRUTH.json [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, second, truth

DEBUG_ACTS = []  # (step, activation) to dump if the loss diverges


class Trainer:
    def __init__(self):
        self.backbone = mlp(768, 2048, 1536)
        self.head = torch.nn.Linear(1536, 3072).to(DEV)
        self.opt = torch.optim.AdamW(list(self.backbone.parameters()) + list(self.head.parameters()), lr=1e-4)
        self.epoch_outputs = []

    def step(self, step, x, y):
        hidden = self.backbone(x)  # ALLOC-SITE: [256, 1536] activation (1.5 MiB), every step
        logits = self.head(hidden)  # SECOND-ALLOC-SITE: [256, 3072] logits (3 MiB), every step
        loss = F.cross_entropy(logits, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        if step % 2 == 0:
            DEBUG_ACTS.append((step, hidden.detach()))  # HOLD-SITE: never emptied
        self.epoch_outputs.append(logits.detach())  # SECOND-HOLD-SITE: until the epoch ends
        return loss.item()

    def epoch_end(self, labels):
        preds = torch.cat([o.argmax(-1) for o in self.epoch_outputs])
        acc = (preds == labels[:preds.numel()]).float().mean().item()
        self.epoch_outputs.clear()
        return acc


TRAINER = None


def main():
    global TRAINER
    p = parser(__doc__, steps=30, step_ms=20, twin=False)
    p.add_argument("--epochs", type=int, default=5)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list DEBUG_ACTS (every 2nd step's activation)", unit=every(2),
                                     released="never", shape="two-findings-leak-and-epoch-accumulation"))
    second(t, "accumulation", holder="list TRAINER.epoch_outputs (every step's logits)", unit="per step",
           released="at epoch end", shape="epoch-accumulation")
    TRAINER = Trainer()
    data = torch.randn(a.steps, 256, 768, device=DEV)
    labels = torch.randint(0, 3072, (a.steps, 256), device=DEV)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            TRAINER.step(epoch * a.steps + step, data[step], labels[step])
            pause(a)
            t.step(epoch, step)
        TRAINER.epoch_end(labels.flatten())
    t.write()


if __name__ == "__main__":
    main()
