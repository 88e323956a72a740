"""A global registry of tensors for a debugging tool ("inspect any activation after the run"): the
model registers its hidden activations under a name. The leaking registry keys them by name and step
(f"{name}@{step}") so every step adds an entry to the module-level REGISTRY; --clean keys them by name
only, so each step replaces the previous step's tensor.
    python debug_tensor_registry.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth

REGISTRY = {}
STATE = {"step": 0, "per_step": True}


def register(name, tensor):
    key = f"{name}@{STATE['step']}" if STATE["per_step"] else name
    REGISTRY[key] = tensor.detach()  # HOLD-SITE: one entry per step when the key has the step in it


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed, self.fc1, self.fc2 = nn.Linear(256, 2048), nn.Linear(2048, 2048), nn.Linear(2048, 1000)

    def forward(self, x):
        h = F.relu(self.fc1(F.relu(self.embed(x))))  # ALLOC-SITE: the hidden activation registered below
        register("fc1", h)
        return self.fc2(h)


def main():
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="dict REGISTRY (keyed by name and step)", unit="per step",
                                     released="never", shape="global-registry"),
              clean=dict(holder="dict REGISTRY (keyed by name)", unit="per step", released="never", shape="flat"))
    STATE["per_step"] = not a.clean
    model = Net().to(DEV)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.randn(8, 128, 256, device=DEV)
    labels = torch.randint(0, 1000, (8, 128), device=DEV)
    for step in range(a.steps):
        STATE["step"] = step
        loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
