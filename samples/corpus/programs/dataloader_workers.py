"""A training loop fed by a DataLoader with two worker processes and pinned memory: the workers make
CPU batches, the loop copies them to the GPU with non_blocking=True. Nothing on the GPU outlives a
step. Clean.
    python dataloader_workers.py TRUTH.json [--steps N] [--workers W] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from corpus_common import DEV, mlp, parser, pause, truth


class RandomFeatures(Dataset):
    def __init__(self, n, dim, classes, seed):
        self.n, self.dim, self.classes, self.seed = n, dim, classes, seed

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 100003 + i)
        return torch.randn(self.dim, generator=g), int(torch.randint(0, self.classes, (1,), generator=g))


def main():
    p = parser(__doc__, steps=110, step_ms=22, twin=False)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="none", unit="per step", released="at step end",
                                      shape="dataloader-workers"))
    loader = DataLoader(RandomFeatures(a.steps * 128, 1024, 100, a.seed), batch_size=128, shuffle=True,
                        num_workers=a.workers, pin_memory=DEV.type == "cuda", persistent_workers=a.workers > 0)
    model = mlp(1024, 2048, 100)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step, (x, y) in enumerate(loader):
        x, y = x.to(DEV, non_blocking=True), y.to(DEV, non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
