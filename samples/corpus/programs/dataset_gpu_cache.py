"""A Dataset that caches its preprocessed samples on the GPU (a dict in the dataset object, the
module-level DATASET) so that later epochs skip the preprocessing. The leaking cache's key includes
the random augmentation (crop offset) drawn for the sample, so keys almost never repeat and every
fetch adds an entry. --clean caches the un-augmented sample by index (the cache fills during the
first epoch, then stays flat) and applies the augmentation afterwards.
    python dataset_gpu_cache.py TRUTH.json [--clean] [--epochs E] [--steps N] [--step-ms MS]"""
import random

import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth

DATASET = None


class CachedImages(torch.utils.data.Dataset):
    def __init__(self, n, clean, seed):
        self.n, self.clean, self.cache = n, clean, {}
        self.rng = random.Random(seed)
        self.raw = torch.randint(0, 256, (n, 3, 40, 40), dtype=torch.uint8)

    def __len__(self):
        return self.n

    def preprocess(self, i):
        img = self.raw[i].to(DEV, non_blocking=True).float().div_(255)
        return F.interpolate(img[None], size=(64, 64), mode="bilinear", align_corners=False)[0]

    def __getitem__(self, i):
        dy, dx = self.rng.randrange(9), self.rng.randrange(9)
        if self.clean:
            if i not in self.cache:
                self.cache[i] = self.preprocess(i)
            return self.cache[i][:, dy:dy + 56, dx:dx + 56]
        key = (i, dy, dx)
        if key not in self.cache:
            img = self.preprocess(i)  # ALLOC-SITE: the preprocessed, augmented sample
            self.cache[key] = img[:, dy:dy + 56, dx:dx + 56].contiguous()  # HOLD-SITE: keyed by the crop too
        return self.cache[key]


def main():
    global DATASET
    p = parser(__doc__, steps=40, step_ms=18)
    p.add_argument("--epochs", type=int, default=4)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict DATASET.cache (keyed by index and crop)", unit="per sample",
                                     released="never", shape="dataset-cache-never-hits"),
              clean=dict(holder="dict DATASET.cache (keyed by index)", unit="per sample", released="never",
                         shape="cache-fills-first-epoch"))
    DATASET = CachedImages(a.steps * 32, a.clean, a.seed)
    loader = torch.utils.data.DataLoader(DATASET, batch_size=32, shuffle=True, num_workers=0)
    model = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(a.epochs):
        for step, x in enumerate(loader):
            y = torch.randint(0, 10, (x.size(0),), device=DEV)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
    t.write()


if __name__ == "__main__":
    main()
