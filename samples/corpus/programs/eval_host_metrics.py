"""Clean look-alike of an evaluation that accumulates: training with an evaluation after every epoch
written like the Hugging Face Trainer's prediction loop with eval_accumulation_steps=2: each
validation batch's logits are gathered on the GPU for two batches, then moved to the host and the GPU
buffer dropped, so the evaluation's GPU memory stays within two batches' logits (small teeth, no
climb); the metrics are computed on the host. Kind none.
    python eval_host_metrics.py TRUTH.json [--epochs E] [--steps N] [--val-batches V] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, phase_step, truth


@torch.no_grad()
def evaluation_loop(model, val_x, val_y, a, t, epoch, accumulation_steps=2):
    model.eval()
    gpu_logits, host_logits = None, []
    for i, x in enumerate(val_x):
        logits = model(x)
        gpu_logits = logits if gpu_logits is None else torch.cat([gpu_logits, logits])
        if (i + 1) % accumulation_steps == 0:
            host_logits.append(gpu_logits.cpu())
            gpu_logits = None
        pause(a, 0.25)
        phase_step(t, epoch, i, "eval")
    if gpu_logits is not None:
        host_logits.append(gpu_logits.cpu())
    preds = torch.cat(host_logits).argmax(-1)
    model.train()
    return (preds == val_y.flatten()).float().mean().item()


def main():
    p = parser(__doc__, steps=30, step_ms=20, twin=False)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--val-batches", type=int, default=24)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="list host_logits (local of evaluation_loop(), CPU)",
                                      unit="per evaluation batch", released="every 2nd evaluation batch",
                                      shape="eval-phase-offloaded"))
    model = mlp(1024, 2048, 2048)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 2048, (8, 256), device=DEV)
    val_x = torch.randn(a.val_batches, 1024, 1024, device=DEV)
    val_y = torch.randint(0, 2048, (a.val_batches, 1024))
    history = []
    for epoch in range(a.epochs):
        for step in range(a.steps):
            loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
        history.append(evaluation_loop(model, val_x, val_y, a, t, epoch))
    t.d["val_acc"] = history
    t.write()


if __name__ == "__main__":
    main()
