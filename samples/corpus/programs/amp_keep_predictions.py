"""Mixed-precision training (torch.autocast + GradScaler). The leaking run keeps every step's fp16
logits in the module-level PREDICTIONS list for an end-of-run calibration plot; --clean is the plain
AMP loop (and keeps the loss's float).
    python amp_keep_predictions.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth

PREDICTIONS = []
LOSSES = []


def main():
    a = parser(__doc__, steps=120, step_ms=22).parse_args()
    t = truth(a, __file__, leak=dict(holder="list PREDICTIONS (fp16 logits)", unit="per step", released="never",
                                     shape="amp-per-step"),
              clean=dict(holder="list LOSSES (floats)", unit="per step", released="never", shape="amp-flat"))
    model = mlp(512, 1024, 4096)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler(DEV.type)
    data = torch.randn(8, 256, 512, device=DEV)
    labels = torch.randint(0, 4096, (8, 256), device=DEV)
    for step in range(a.steps):
        with torch.autocast(DEV.type, dtype=torch.float16):
            logits = model(data[step % 8])  # ALLOC-SITE: [256, 4096] fp16 logits, 2 MiB
            loss = F.cross_entropy(logits.float(), labels[step % 8])
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        LOSSES.append(loss.item())
        if not a.clean:
            PREDICTIONS.append(logits)  # HOLD-SITE: every step's logits
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
