"""Keeping checkpoints in memory: every 40th step the loop keeps copy.deepcopy(model.state_dict())
in the module-level SNAPSHOTS list (for "pick the best one at the end"). deepcopy of a CUDA state dict
stays on the GPU: 32 MiB every 40th step. --clean copies the state to the CPU.
    python checkpoint_snapshots.py TRUTH.json [--clean] [--steps N] [--every K] [--step-ms MS]"""
import copy

import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

SNAPSHOTS = []


def main():
    p = parser(__doc__, steps=200, step_ms=14)
    p.add_argument("--every", type=int, default=40)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list SNAPSHOTS (GPU state dicts)", unit=every(a.every),
                                     released="never", shape=f"sparse-k{a.every}"),
              clean=dict(holder="list SNAPSHOTS (CPU state dicts)", unit=every(a.every),
                         released="never", shape="flat"))
    model = mlp(1024, 2048, 1024)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = torch.randn(8, 64, 1024, device=DEV)
    for step in range(a.steps):
        x = data[step % 8]
        loss = F.mse_loss(model(x), x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % a.every == a.every - 1:
            if a.clean:
                state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
            else:
                state = copy.deepcopy(model.state_dict())  # ALLOC-SITE: a full copy of the weights on the GPU
            SNAPSHOTS.append((step, loss.item(), state))  # HOLD-SITE: every snapshot is kept
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
