"""A small Vision Transformer whose attention modules save their attention maps for visualisation.
The leaking version appends each forward's map to self.attn_maps (a list on the module, a common
pattern in research code), so every training step adds one map per block to the model held by the
module-level MODEL. --clean keeps only the latest map, detached (self.last_attn = attn.detach()).
    python vit_attention_maps.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, parser, pause, truth

MODEL = None


class Attention(nn.Module):
    def __init__(self, d, heads, clean):
        super().__init__()
        self.h, self.scale, self.clean = heads, (d // heads) ** -0.5, clean
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.attn_maps, self.last_attn = [], None

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(-1)  # ALLOC-SITE: [b, heads, n, n] attention map
        if self.clean:
            self.last_attn = attn.detach()
        else:
            self.attn_maps.append(attn)  # HOLD-SITE: one map per forward, never cleared
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, d))


class ViT(nn.Module):
    def __init__(self, clean, d=192, depth=2, heads=4, patch=4, classes=100):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, 65, d) * 0.02)
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(2 * depth))
        self.attn = nn.ModuleList(Attention(d, heads, clean) for _ in range(depth))
        self.mlp = nn.ModuleList(nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d)) for _ in range(depth))
        self.head = nn.Linear(d, classes)

    def forward(self, img):
        x = self.patch(img).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.size(0), -1, -1), x], 1) + self.pos
        for i, (attn, ff) in enumerate(zip(self.attn, self.mlp)):
            x = x + attn(self.norms[2 * i](x))
            x = x + ff(self.norms[2 * i + 1](x))
        return self.head(x[:, 0])


def main():
    global MODEL
    a = parser(__doc__, steps=90, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="list MODEL.attn[i].attn_maps", unit="per step (one map per block)",
                                     released="never", shape="module-attribute-list"),
              clean=dict(holder="MODEL.attn[i].last_attn (latest map)", unit="per step", released="never",
                         shape="flat"))
    MODEL = ViT(a.clean).to(DEV)
    opt = torch.optim.AdamW(MODEL.parameters(), lr=3e-4)
    images = torch.randn(8, 16, 3, 32, 32, device=DEV)
    labels = torch.randint(0, 100, (8, 16), device=DEV)
    for step in range(a.steps):
        loss = F.cross_entropy(MODEL(images[step % 8]), labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
