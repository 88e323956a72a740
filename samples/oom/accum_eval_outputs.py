"""Training with an evaluation after each epoch that keeps every validation batch's logits on the GPU
and concatenates them at the end for the metrics (`outputs.append(model(x))`, then `torch.cat`). The
per-epoch evaluation on a validation subset fits (its outputs reach ~1/3 of the device and are
released when evaluate() returns); the final evaluation on the full validation set, five times
larger, runs out of memory half-way. Cause: accumulation (growth within the evaluation phase,
released at its end the times before).
    python accum_eval_outputs.py TRUTH.json [--epochs E] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, mlp, parser, pause

CLASSES = 8192


@torch.no_grad()
def evaluate(model, val_x, batches, a, t, epoch):
    model.eval()
    outputs = []
    for i in range(batches):
        logits = model(val_x)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: [rows, 8192] logits per validation batch
        outputs.append(logits)  # OOM-HOLD-SITE: on the GPU until evaluate() returns
        pause(a, 0.25)
        t.step(epoch, i, phase="eval")
    preds = torch.cat(outputs).argmax(-1)
    model.train()
    return preds.float().mean().item()


def main():
    p = parser(__doc__, step_ms=20)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    a = p.parse_args()
    t = OomTruth(a, __file__, "accumulation", "list outputs (local of evaluate(), GPU logits)",
                 unit="per evaluation batch", released="at evaluation end")
    free = t.d["start"]["device_free"]
    rows = int(free // 40 // (CLASSES * 4)) // 256 * 256  # a validation batch's logits: 1/40 of the device
    subset_batches, full_batches = 10, 50  # 1/4 of the device, then (with the concatenation) more than all of it
    t.d.update(val_rows=rows, logits_bytes_per_batch=rows * CLASSES * 4, subset_batches=subset_batches,
               full_batches=full_batches)
    model = mlp(1024, 2048, CLASSES, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x, y = torch.randn(256, 1024, device=DEV), torch.randint(0, CLASSES, (256,), device=DEV)
    val_x = torch.randn(rows, 1024, device=DEV)
    try:
        for epoch in range(a.epochs + 1):
            final = epoch == a.epochs
            if not final:
                with marker("epoch", epoch):
                    for step in range(a.steps):
                        loss = F.cross_entropy(model(x), y)
                        opt.zero_grad(set_to_none=True)
                        loss.backward()
                        opt.step()
                        pause(a)
                        t.step(epoch, step)
            with marker("evaluate", epoch):
                evaluate(model, val_x, full_batches if final else subset_batches, a, t, epoch)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, phase="final evaluation")
    t.write()


if __name__ == "__main__":
    main()
