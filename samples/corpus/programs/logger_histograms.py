"""A TensorBoard-style logger object (module-level LOGGER) that buffers histogram data in memory
until flush() at the end of the run. Every 5th step the training loop logs two layers' activations;
the leaking logger buffers the activation tensors themselves (detached, still on the GPU). --clean
buffers torch.histc(...) of them, moved to the CPU (64 numbers).
    python logger_histograms.py TRUTH.json [--clean] [--steps N] [--log-every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, every, parser, pause, truth


class HistogramLogger:
    def __init__(self, clean):
        self.clean, self.pending = clean, []

    def histogram(self, tag, values, step):
        if self.clean:
            self.pending.append((tag, step, torch.histc(values.detach().float(), bins=64).cpu()))
        else:
            self.pending.append((tag, step, values.detach()))  # HOLD-SITE: raw activations until flush()

    def flush(self):
        self.pending.clear()


LOGGER = None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(512, 2048), nn.Linear(2048, 2048), nn.Linear(2048, 10)

    def forward(self, x):
        h1 = F.gelu(self.fc1(x))  # ALLOC-SITE: an activation the logger keeps
        h2 = F.gelu(self.fc2(h1))  # ALLOC2-SITE: the other one
        return self.fc3(h2), (h1, h2)


def main():
    global LOGGER
    p = parser(__doc__, steps=150, step_ms=20)
    p.add_argument("--log-every", type=int, default=5)
    a = p.parse_args()
    k = a.log_every
    t = truth(a, __file__, leak=dict(holder="list LOGGER.pending (activation tensors)", unit=every(k),
                                     released="never", shape=f"sparse-k{k}"),
              clean=dict(holder="list LOGGER.pending (CPU histograms)", unit=every(k), released="never",
                         shape="flat"))
    LOGGER = HistogramLogger(a.clean)
    model = Net().to(DEV)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 10, (8, 256), device=DEV)
    for step in range(a.steps):
        logits, (h1, h2) = model(data[step % 8])
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % k == 0:
            LOGGER.histogram("fc1", h1, step)
            LOGGER.histogram("fc2", h2, step)
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
