"""Training that collects each step's embeddings on the GPU through the epoch, to rebuild a memory
bank (k-means prototypes) at the epoch's end, then clears the list. The first epochs (12 steps)
fit; after a data refresh the third epoch has four times the steps and its collected features run
out of memory. Cause: accumulation (growth within the epoch, released at its end the times before).
    python accum_epoch_features.py TRUTH.json [--step-ms MS]"""
import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, parser, pause

EPOCH_FEATURES = []  # cleared at each epoch's end


class Encoder(torch.nn.Module):
    def __init__(self, d_in=1024, width=2048, d_emb=4096):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(d_in, width), torch.nn.GELU(), torch.nn.Linear(width, d_emb))
        self.head = torch.nn.Linear(d_emb, 100)

    def forward(self, x):
        emb = self.body(x)
        return emb, self.head(emb)


def main():
    a = parser(__doc__, step_ms=20).parse_args()
    t = OomTruth(a, __file__, "accumulation", "list EPOCH_FEATURES (each step's embeddings, cleared at epoch end)",
                 unit="per step", released="at epoch end")
    free = t.d["start"]["device_free"]
    d_emb = 4096
    rows = int(free // 32 // (d_emb * 4)) // 256 * 256  # a step's embeddings: 1/32 of the device
    epoch_steps = [12, 12, 48]
    t.d.update(rows_per_step=rows, kept_bytes_per_step=rows * d_emb * 4, epoch_steps=epoch_steps)
    model = Encoder(d_emb=d_emb).to(DEV)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = torch.randn(rows, 1024, device=DEV), torch.randint(0, 100, (rows,), device=DEV)
    prototypes = torch.zeros(64, d_emb, device=DEV)
    try:
        for epoch, steps in enumerate(epoch_steps):
            with marker("epoch", epoch):
                for step in range(steps):
                    emb, logits = model(x)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: the step's [rows, 4096] embeddings
                    loss = F.cross_entropy(logits, y)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    EPOCH_FEATURES.append(emb.detach())  # OOM-HOLD-SITE: kept until the epoch ends
                    pause(a)
                    t.step(epoch, step, kept=len(EPOCH_FEATURES))
                bank = torch.cat(EPOCH_FEATURES[-4:])  # a sample of the epoch's features for the prototypes
                prototypes.copy_(bank[:64])
                del bank
                EPOCH_FEATURES.clear()
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, kept_steps=len(EPOCH_FEATURES))
    t.write()


if __name__ == "__main__":
    main()
