"""Training that keeps every 5th step's output "to plot later": the model's line allocates a
[256, 4096] logits tensor (4 MiB) and its hidden activations every step, and all of them are freed
within the step or by the next one, except every 5th step's logits, which the loop appends (detached,
still on the GPU) to the module-level PLOT_SAMPLES. The allocating line churns (five blocks a step,
freed) and leaks (one block in 25 kept). --clean keeps a CPU copy of the first 8 rows instead.
    python plot_every_kth_logits.py TRUTH.json [--clean] [--steps N] [--every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

PLOT_SAMPLES = []  # (step, logits) to draw a calibration plot after training


def main():
    p = parser(__doc__, steps=150, step_ms=20)
    p.add_argument("--every", type=int, default=5)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder=f"list PLOT_SAMPLES ({every(a.every)}'s logits)", unit=every(a.every),
                                     released="never", shape=f"churn-sparse-k{a.every}"),
              clean=dict(holder="list PLOT_SAMPLES (CPU copies of 8 rows)", unit=every(a.every), released="never",
                         shape="churn-flat"))
    model = mlp(1024, 2048, 4096)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 4096, (8, 256), device=DEV)
    for step in range(a.steps):
        logits = model(data[step % 8])  # ALLOC-SITE: [256, 4096] logits (4 MiB) and hidden activations, every step
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % a.every == 0:
            if a.clean:
                PLOT_SAMPLES.append((step, logits.detach()[:8].cpu()))
            else:
                PLOT_SAMPLES.append((step, logits.detach()))  # HOLD-SITE: the whole logits, on the GPU
        pause(a)
        t.step(0, step)
    t.d["kept"] = len(PLOT_SAMPLES)
    t.write()


if __name__ == "__main__":
    main()
