"""Knowledge distillation: a frozen teacher runs under torch.no_grad() and a smaller student learns
from its softened outputs (KL divergence plus cross-entropy). Two models, one optimizer; nothing is
kept between steps. Clean.
    python distill_teacher.py TRUTH.json [--steps N] [--step-ms MS]"""
import torch
import torch.nn.functional as F

from corpus_common import DEV, mlp, parser, pause, truth


def main():
    a = parser(__doc__, steps=120, step_ms=22, twin=False).parse_args()
    t = truth(a, __file__, clean=dict(holder="none", unit="per step", released="at step end", shape="distillation"))
    teacher = mlp(1024, 2048, 1000, depth=3).eval()
    for prm in teacher.parameters():
        prm.requires_grad_(False)
    student = mlp(1024, 512, 1000)
    opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 1000, (8, 256), device=DEV)
    for step in range(a.steps):
        x, y = data[step % 8], labels[step % 8]
        with torch.no_grad():
            soft = F.softmax(teacher(x) / 2.0, -1)
        logits = student(x)
        loss = 0.5 * F.cross_entropy(logits, y) + 0.5 * 4.0 * F.kl_div(
            F.log_softmax(logits / 2.0, -1), soft, reduction="batchmean")
        opt.zero_grad()
        loss.backward()
        opt.step()
        pause(a)
        t.step(0, step)
    t.write()


if __name__ == "__main__":
    main()
