"""A model wrapped in torch.compile (default mode) whose training loop keeps each step's outputs in
the module-level OUTPUTS dict, keyed by step, for an end-of-run metric. The compiled model's outputs
are kept like any other tensor. --clean is the same compiled loop keeping nothing but loss.item():
the first steps compile (Inductor), then memory is flat.
    python compiled_outputs_cache.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

OUTPUTS = {}
LOSSES = []


def main():
    a = parser(__doc__, steps=120, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="dict OUTPUTS (compiled model outputs)", unit="per step",
                                     released="never", shape="compiled-per-step"),
              clean=dict(holder="list LOSSES (floats)", unit="per step", released="never",
                         shape="compile-warmup-flat"))
    model = torch.compile(mlp(512, 1024, 4096))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(8, 128, 512, device=DEV)
    labels = torch.randint(0, 4096, (8, 128), device=DEV)
    for step in range(a.steps):
        logits = model(data[step % 8])  # ALLOC-SITE: the compiled graph's output, [128, 4096]
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        LOSSES.append(loss.item())
        if not a.clean:
            OUTPUTS[step] = logits  # HOLD-SITE: every step's output
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
