"""A training run with progressive resizing: each epoch trains on longer sequences (the batch's
tokens double every epoch), so each epoch's peak is higher than the last; after each epoch an
evaluation at the final length collects its outputs on the GPU, the run's peak. The first seconds
are start-up on the CPU. No OOM.
    python peak_growing_epochs.py TRUTH.json [--epochs E] [--steps N] [--idle-s S] [--step-ms MS]"""
import time

import torch
import torch.nn.functional as F
from torch import nn

from oom_common import DEV, OomTruth, parser, pause
from peak_common import Phases

D, VOCAB = 512, 8192


class TokenMLP(nn.Module):
    """Embedding, a per-token MLP, a vocabulary head: memory linear in the tokens."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.body = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        return self.head(self.body(self.emb(ids)))


def main():
    p = parser(__doc__, step_ms=30)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--idle-s", type=float, default=3.0)
    a = p.parse_args()
    t = OomTruth(a, __file__, None, "list outputs (local of evaluate(): GPU logits, then torch.cat)",
                 shape="growing epochs, evaluation spike")
    model = TokenMLP().to(DEV)  # PEAK-ALLOC-SITE (setup): the model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    t.d["setup_end_us"] = time.time_ns() // 1000
    time.sleep(a.idle_s)  # start-up: reading and tokenising the corpus on the CPU
    t.d["idle_end_us"] = time.time_ns() // 1000
    ph = Phases(t)
    batch, seq0 = 8, 128
    seqs = [seq0 << e for e in range(a.epochs)]
    t.d["seq_per_epoch"] = seqs
    val_ids = torch.randint(0, VOCAB, (batch, seqs[-1]), device=DEV)

    def train_step_of(seq):
        def of_step(i):
            def run():
                ids = torch.randint(0, VOCAB, (batch, seq), device=DEV)
                logits = model(ids)  # PEAK-ALLOC-SITE: activations grow with the epoch's length
                loss = F.cross_entropy(logits.view(-1, VOCAB), ids.view(-1))
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                pause(a)
            return run
        return of_step

    @torch.no_grad()
    def evaluate():
        outputs = []
        for _ in range(6):
            outputs.append(model(val_ids).softmax(-1))  # PEAK-ALLOC-SITE PEAK-HOLD-SITE: kept on the GPU
            pause(a, 0.2)
        return torch.stack(outputs).mean(0).max(-1).values.mean().item()

    for epoch, seq in enumerate(seqs):
        ph.epoch(epoch, a.steps, train_step_of(seq), epoch * a.steps)
        ph.evaluate(epoch, evaluate)
    ph.summary()
    t.write()


if __name__ == "__main__":
    main()
