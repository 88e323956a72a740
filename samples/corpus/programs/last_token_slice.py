"""Language-model training that keeps, every 4th step, the next-token prediction of each sequence
"for a calibration plot": PREDICTIONS.append(logits[:, -1].detach()) keeps a [8, 4096] view (128 KiB)
of the step's [8, 32, 4096] logits, and a view keeps its whole storage (4 MiB) alive. The model's line
allocates the logits and every activation each step; all are freed except the kept storages.
--clean keeps a CPU copy of the slice (.cpu()), which owns only its 128 KiB, on the host.
    python last_token_slice.py TRUTH.json [--clean] [--steps N] [--every K] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, TinyLM, every, parser, pause, truth

PREDICTIONS = []  # (step, last-token logits) per kept step


def main():
    p = parser(__doc__, steps=150, step_ms=20)
    p.add_argument("--every", type=int, default=4)
    a = p.parse_args()
    t = truth(a, __file__, leak=dict(holder="list PREDICTIONS (views of whole logits storages)", unit=every(a.every),
                                     released="never", shape=f"churn-view-keeps-storage-k{a.every}"),
              clean=dict(holder="list PREDICTIONS (CPU copies of the slices)", unit=every(a.every), released="never",
                         shape="churn-flat"))
    model = TinyLM(vocab=4096, d=256, layers=2, heads=4, max_len=64).to(DEV).train()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = torch.randint(0, 4096, (16, 8, 33), device=DEV)
    for step in range(a.steps):
        batch = data[step % 16]
        logits, _ = model(batch[:, :-1])  # ALLOC-SITE: [8, 32, 4096] logits (4 MiB) and activations, every step
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % a.every == 0:
            if a.clean:
                PREDICTIONS.append((step, logits[:, -1].detach().cpu()))
            else:
                PREDICTIONS.append((step, logits[:, -1].detach()))  # HOLD-SITE: a view: keeps the whole 4 MiB
        del logits, loss
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
