"""Logging every 3rd step: the loop keeps a record of the loss and the logits for a dashboard that is
written at the end, in the module-level LOG list. The leaking run stores the tensors themselves
(loss and logits, 2 MiB a record); --clean stores loss.item() and a few floats about the logits.
    python train_logging_keeps.py TRUTH.json [--clean] [--steps N] [--log-every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, every, mlp, parser, pause, truth

LOG = []


def main():
    p = parser(__doc__, steps=150, step_ms=20)
    p.add_argument("--log-every", type=int, default=3)
    a = p.parse_args()
    k = a.log_every
    t = truth(a, __file__, leak=dict(holder="list LOG (loss and logits tensors)", unit=every(k),
                                     released="never", shape=f"sparse-k{k}"),
              clean=dict(holder="list LOG (floats)", unit=every(k), released="never", shape="flat"))
    model = mlp(768, 1024, 4096)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = torch.randn(8, 128, 768, device=DEV)
    labels = torch.randint(0, 4096, (8, 128), device=DEV)
    for step in range(a.steps):
        logits = model(data[step % 8])  # ALLOC-SITE: [128, 4096] logits
        loss = F.cross_entropy(logits, labels[step % 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % k == 0:
            if a.clean:
                LOG.append({"step": step, "loss": loss.item(), "logit_std": logits.detach().std().item()})
            else:
                LOG.append({"step": step, "loss": loss, "logits": logits})  # HOLD-SITE: tensors, not numbers
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
