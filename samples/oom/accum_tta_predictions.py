"""Training with an evaluation after each epoch that uses test-time augmentation: every validation
batch is predicted under four flips and each prediction is kept on the GPU, in a dict keyed by the
augmentation, to be averaged at the end (released when validate() returns). The per-epoch validation
on a subset fits; the final validation on the full set (six times the batches) runs out of memory
part-way. Cause: accumulation (growth within the validation phase, released at its end the times
before). Held out: never used to change a rule.
    python accum_tta_predictions.py TRUTH.json [--step-ms MS]"""
import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, mlp, parser, pause, train_epoch

CLASSES = 4096
AUGMENTATIONS = ("none", "flip", "negate", "roll")


def augment(x, name):
    return {"none": x, "flip": x.flip(-1), "negate": -x, "roll": x.roll(1, -1)}[name]


@torch.no_grad()
def validate(model, val_x, batches, a, t, epoch):
    model.eval()
    preds = {name: [] for name in AUGMENTATIONS}
    for i in range(batches):
        for name in AUGMENTATIONS:
            p = model(augment(val_x, name)).softmax(-1)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: one view's predictions
            preds[name].append(p)  # OOM-HOLD-SITE: every view of every batch kept until the average
        pause(a, 0.25)
        t.step(epoch, i, phase="eval")
    mean = torch.stack([torch.cat(v) for v in preds.values()]).mean(0)
    model.train()
    return mean.argmax(-1).float().mean().item()


def main():
    a = parser(__doc__, step_ms=20).parse_args()
    t = OomTruth(a, __file__, "accumulation", "dict preds (lists of every view's predictions, local of validate())",
                 unit="per validation batch", released="at validation end")
    free = t.d["start"]["device_free"]
    rows = int(free // 160 // (CLASSES * 4)) // 256 * 256  # one view's predictions: 1/160 of the device
    subset, full = 6, 40  # 4 views x 6 batches = 15 % of the device (with the stack, ~30 %); the full set: more than all
    t.d.update(val_rows=rows, bytes_per_view=rows * CLASSES * 4, subset_batches=subset, full_batches=full)
    model = mlp(512, 1024, CLASSES, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x, y = torch.randn(256, 512, device=DEV), torch.randint(0, CLASSES, (256,), device=DEV)
    val_x = torch.randn(rows, 512, device=DEV)
    try:
        for epoch in range(3):
            final = epoch == 2
            if not final:
                train_epoch(model, opt, x, y, 15, a, t, epoch, F.cross_entropy)
            with marker("validate", epoch):
                validate(model, val_x, full if final else subset, a, t, epoch)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, phase="final validation")
    t.write()


if __name__ == "__main__":
    main()
