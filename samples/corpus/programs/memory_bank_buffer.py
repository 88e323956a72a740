"""Contrastive training with a memory bank of past keys (MoCo-style), kept in a registered buffer.
The leaking bank grows with torch.cat onto the buffer every step (self.bank = torch.cat([self.bank,
keys])), so the buffer, held by the module-level MODEL, grows by a batch of keys per step. --clean
is the usual fixed-size queue: a preallocated buffer written in place at a moving pointer.
    python memory_bank_buffer.py TRUTH.json [--clean] [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, mlp, parser, pause, truth

MODEL = None


class MoCo(nn.Module):
    def __init__(self, dim, bank_size, clean):
        super().__init__()
        self.q_enc = mlp(256, 1024, dim)
        self.k_enc = mlp(256, 1024, dim)
        self.k_enc.load_state_dict(self.q_enc.state_dict())
        for prm in self.k_enc.parameters():
            prm.requires_grad_(False)
        self.clean, self.ptr = clean, 0
        self.register_buffer("bank", torch.randn(bank_size if clean else 256, dim, device=DEV))

    @torch.no_grad()
    def push(self, keys):
        if self.clean:
            n = keys.size(0)
            self.bank[self.ptr:self.ptr + n] = keys
            self.ptr = (self.ptr + n) % self.bank.size(0)
        else:
            grown = torch.cat([self.bank, keys])  # ALLOC-SITE: a new, larger bank every step
            self.bank = grown  # HOLD-SITE: the registered buffer only grows

    def forward(self, x_q, x_k):
        q = F.normalize(self.q_enc(x_q), dim=1)
        with torch.no_grad():
            for pk, pq in zip(self.k_enc.parameters(), self.q_enc.parameters()):
                pk.mul_(0.99).add_(pq, alpha=0.01)
            k = F.normalize(self.k_enc(x_k), dim=1)
        pos = (q * k).sum(1, keepdim=True)
        neg = q @ self.bank.clone().detach().t()  # as MoCo does: the bank changes before backward
        logits = torch.cat([pos, neg], 1) / 0.07
        loss = F.cross_entropy(logits, torch.zeros(q.size(0), dtype=torch.long, device=q.device))
        self.push(k)
        return loss


def main():
    global MODEL
    a = parser(__doc__, steps=110, step_ms=25).parse_args()
    t = truth(a, __file__, leak=dict(holder="registered buffer MODEL.bank (torch.cat every step)", unit="per step",
                                     released="never", shape="buffer-cat-growth"),
              clean=dict(holder="registered buffer MODEL.bank (fixed-size queue)", unit="per step",
                         released="never", shape="flat"))
    MODEL = MoCo(1024, 8192, a.clean)
    opt = torch.optim.SGD(MODEL.q_enc.parameters(), lr=0.03, momentum=0.9)
    data = torch.randn(16, 256, 256, device=DEV)
    for step in range(a.steps):
        x = data[step % 16]
        loss = MODEL(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
