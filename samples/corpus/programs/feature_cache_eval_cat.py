"""Two findings in one run. A linear probe on a frozen encoder caches the encoder's features on the
GPU in the module-level FEATURE_CACHE, keyed by the batch index and the random crop applied to it, so
the key never repeats and every step adds an entry ([256, 768], 0.75 MiB) nothing evicts (a leak,
per step). And after every epoch an evaluation collects each validation batch's probabilities on the
GPU and concatenates them (an accumulation in a phase without steps, released when it returns).
No clean twin.
    python feature_cache_eval_cat.py TRUTH.json [--epochs E] [--steps N] [--val-batches V] [--step-ms MS]"""
import random

import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, phase_step, second, truth

FEATURE_CACHE = {}  # (batch index, crop) -> frozen features


@torch.no_grad()
def features(encoder, images, i, crop):
    key = (i, crop)
    if key not in FEATURE_CACHE:
        x = images[i, :, crop:crop + 896]
        f = encoder(x)  # ALLOC-SITE: [256, 768] features (0.75 MiB)
        FEATURE_CACHE[key] = f  # HOLD-SITE: keyed by the crop too: never hits
    return FEATURE_CACHE[key]


@torch.no_grad()
def evaluate(encoder, probe, val_x, val_y, a, t, epoch):
    outputs = []
    for i, x in enumerate(val_x):
        probs = probe(encoder(x)).softmax(-1)  # SECOND-ALLOC-SITE: [1024, 1000] probabilities (4 MiB) per batch
        outputs.append(probs)  # SECOND-HOLD-SITE: until evaluate() returns
        pause(a, 0.25)
        phase_step(t, epoch, i, "eval")
    preds = torch.cat(outputs).argmax(-1)
    return (preds == val_y.flatten()).float().mean().item()


def main():
    p = parser(__doc__, steps=30, step_ms=20, twin=False)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--val-batches", type=int, default=20)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="dict FEATURE_CACHE (keyed by batch index and crop)", unit="per step",
                                     released="never", shape="two-findings-leak-and-eval-accumulation"))
    second(t, "accumulation", holder="list outputs (local of evaluate(), GPU probabilities)",
           unit="per evaluation batch", released="at evaluation end", shape="eval-phase-accumulation")
    rng = random.Random(a.seed + 3)
    encoder = mlp(896, 2048, 768).eval().requires_grad_(False)
    probe = torch.nn.Linear(768, 1000).to(DEV)
    opt = torch.optim.SGD(probe.parameters(), lr=0.1, momentum=0.9)
    images = torch.randn(a.steps, 256, 1024, device=DEV)
    labels = torch.randint(0, 1000, (a.steps, 256), device=DEV)
    val_x = torch.randn(a.val_batches, 1024, 896, device=DEV)
    val_y = torch.randint(0, 1000, (a.val_batches, 1024), device=DEV)
    history = []
    for epoch in range(a.epochs):
        for step in range(a.steps):
            feats = features(encoder, images, step, rng.randrange(128))
            loss = F.cross_entropy(probe(feats), labels[step])
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
        history.append(evaluate(encoder, probe, val_x, val_y, a, t, epoch))
    t.d["val_acc"] = history
    t.d["cache_entries"] = len(FEATURE_CACHE)
    t.write()


if __name__ == "__main__":
    main()
