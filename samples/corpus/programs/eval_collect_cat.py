"""Training with an evaluation after every epoch that collects each validation batch's logits on the
GPU and concatenates them at the end for the metrics (the usual `outputs.append(model(x))` then
`torch.cat(outputs)`): memory climbs through each evaluation to ~400 MiB, several times a training
step's, and falls when evaluate() returns. Each evaluation is short (about 1/30 of the run) and has
no step of its own (no optimizer step, no marker). An accumulation, released at evaluation end.
--clean moves each batch's logits to the host (.cpu()) as it goes.
    python eval_collect_cat.py TRUTH.json [--clean] [--epochs E] [--steps N] [--val-batches V] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, phase_step, truth


@torch.no_grad()
def evaluate(model, val_x, val_y, a, t, epoch):
    model.eval()
    outputs = []
    for i, x in enumerate(val_x):
        logits = model(x)  # ALLOC-SITE: [1024, 2048] validation logits (8 MiB) per batch
        outputs.append(logits.cpu() if a.clean else logits)  # HOLD-SITE: on the GPU until evaluate() returns
        pause(a, 0.25)
        phase_step(t, epoch, i, "eval")
    all_logits = torch.cat(outputs)
    acc = (all_logits.argmax(-1).to(val_y.device) == val_y.flatten()).float().mean().item()
    model.train()
    return acc


def main():
    p = parser(__doc__, steps=30, step_ms=20)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--val-batches", type=int, default=24)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(kind="accumulation", holder="list outputs (local of evaluate(), GPU logits)",
                                     unit="per evaluation batch", released="at evaluation end",
                                     shape="eval-phase-accumulation"),
              clean=dict(holder="list outputs (local of evaluate(), CPU logits)", unit="per evaluation batch",
                         released="at evaluation end", shape="eval-phase-flat"))
    model = mlp(1024, 2048, 2048)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 2048, (8, 256), device=DEV)
    val_x = torch.randn(a.val_batches, 1024, 1024, device=DEV)
    val_y = torch.randint(0, 2048, (a.val_batches, 1024), device=DEV)
    history = []
    for epoch in range(a.epochs):
        for step in range(a.steps):
            loss = F.cross_entropy(model(data[step % 8]), labels[step % 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
        history.append(evaluate(model, val_x, val_y, a, t, epoch))
    t.d["val_acc"] = history
    t.write()


if __name__ == "__main__":
    main()
