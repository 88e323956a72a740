"""Clean look-alike of a leak: a linear probe on a frozen encoder caches each training batch's
features on the GPU the first time it is seen (keyed by the batch index only, [512, 2048], 4 MiB):
the cache fills during the first of six epochs (120 MiB) and every later epoch reads it. Growth for
a sixth of the run, then flat. Kind none.
    python frozen_feature_cache.py TRUTH.json [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

FEATURE_CACHE = {}  # batch index -> frozen features


def main():
    p = parser(__doc__, steps=30, step_ms=20, twin=False)
    p.add_argument("--epochs", type=int, default=6)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="dict FEATURE_CACHE (keyed by batch index)", unit="per step",
                                      released="never", shape="cache-fills-first-epoch"))
    encoder = mlp(768, 2048, 2048).eval().requires_grad_(False)
    probe = torch.nn.Linear(2048, 500).to(DEV)
    opt = torch.optim.SGD(probe.parameters(), lr=0.05, momentum=0.9)
    images = torch.randn(a.steps, 512, 768, device=DEV)
    labels = torch.randint(0, 500, (a.steps, 512), device=DEV)
    for epoch in range(a.epochs):
        for step in range(a.steps):
            if step not in FEATURE_CACHE:
                with torch.no_grad():
                    FEATURE_CACHE[step] = encoder(images[step])
            loss = F.cross_entropy(probe(FEATURE_CACHE[step]), labels[step])
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
    t.write()


if __name__ == "__main__":
    main()
