"""Continual learning with a fresh classification head for every task (every 15th step here). The
leaking run adds each new head to the same Adam optimizer (opt.add_param_group): the optimizer keeps
the old heads' parameters and their Adam state (exp_avg, exp_avg_sq) forever, although the model no
longer uses them. --clean replaces the head's parameter group and drops the old head's state.
    python optimizer_new_heads.py TRUTH.json [--clean] [--steps N] [--every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, every, mlp, parser, pause, truth

OPT = None


def main():
    global OPT
    p = parser(__doc__, steps=135, step_ms=22)
    p.add_argument("--every", type=int, default=15)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="Adam optimizer OPT (param_groups and state of old heads)",
                                     unit=every(a.every), released="never", shape=f"sparse-k{a.every}"),
              clean=dict(holder="Adam optimizer OPT (one head group)", unit=every(a.every),
                         released="never", shape="flat"))
    backbone = mlp(512, 1024, 1024)
    head = nn.Linear(1024, 2048).to(DEV)
    OPT = torch.optim.Adam([{"params": backbone.parameters()}, {"params": head.parameters()}], lr=1e-3)
    data = torch.randn(8, 128, 512, device=DEV)
    labels = torch.randint(0, 2048, (8, 128), device=DEV)
    for step in range(a.steps):
        if step and step % a.every == 0:  # a new task: a new head
            old = head
            head = nn.Linear(1024, 2048).to(DEV)  # ALLOC-SITE: the new head's parameters
            if a.clean:
                for prm in old.parameters():
                    OPT.state.pop(prm, None)
                OPT.param_groups[1]["params"] = list(head.parameters())
            else:
                OPT.add_param_group({"params": head.parameters()})  # HOLD-SITE: the old heads stay in it
            del old
        loss = F.cross_entropy(head(backbone(data[step % 8])), labels[step % 8])
        OPT.zero_grad()
        loss.backward()
        OPT.step()  # ALLOC2-SITE: Adam's state for the new head's parameters
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
