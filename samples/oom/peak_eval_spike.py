"""A training run with nothing wrong in it whose peak is its evaluation: the model goes to the GPU,
then the data is prepared on the CPU for a few seconds (nothing happens on the GPU), then 4 epochs
of 25 steps, each followed by an evaluation that collects every validation batch's logits on the
GPU and concatenates them for the metrics: ~7x a training step's memory, released when it ends.
Epoch peaks are flat. No OOM.
    python peak_eval_spike.py TRUTH.json [--epochs E] [--steps N] [--idle-s S] [--step-ms MS]"""
import time

import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, mlp, parser, pause
from peak_common import Phases

CLASSES = 4096


def prepare_data(seconds):
    """CPU-side data preparation before the first step (tokenising, shuffling...): the GPU is idle."""
    t0 = time.time()
    data = torch.randn(2000, 512)
    while time.time() - t0 < seconds:
        data = (data @ data.T[:, :512]).tanh()
    return data


def main():
    p = parser(__doc__, step_ms=30)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--steps", type=int, default=25)
    p.add_argument("--idle-s", type=float, default=4.0)
    p.add_argument("--val-batches", type=int, default=24)
    a = p.parse_args()
    t = OomTruth(a, __file__, None, "list outputs (local of evaluate(): GPU logits, then torch.cat)",
                 shape="flat epochs, evaluation spike")
    model = mlp(2048, 2048, CLASSES, depth=2)  # PEAK-ALLOC-SITE (setup): the model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    t.d["setup_end_us"] = time.time_ns() // 1000
    prepare_data(a.idle_s)
    t.d["idle_end_us"] = time.time_ns() // 1000
    x = torch.randn(512, 2048, device=DEV)
    y = torch.randint(0, CLASSES, (512,), device=DEV)
    val_x = torch.randn(2048, 2048, device=DEV)
    ph = Phases(t)

    def train_step(i):
        def run():
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            pause(a)
        return run

    @torch.no_grad()
    def evaluate():
        model.eval()
        outputs = []
        for _ in range(a.val_batches):
            outputs.append(model(val_x))  # PEAK-ALLOC-SITE PEAK-HOLD-SITE: each batch's logits, on the GPU
            pause(a, 0.2)
        probs = torch.cat(outputs).softmax(-1)  # PEAK-ALLOC-SITE: the concatenation (and its softmax)
        model.train()
        return probs.max(-1).values.mean().item()

    for epoch in range(a.epochs):
        ph.epoch(epoch, a.steps, train_step, epoch * a.steps)
        ph.evaluate(epoch, evaluate)
    ph.summary()
    t.write()


if __name__ == "__main__":
    main()
