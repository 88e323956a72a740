"""Clean look-alike of a leak: a student trains alone for two epochs, then a frozen teacher is loaded
from a checkpoint (torch.load onto the GPU, load_state_dict; 96 MiB of weights) and kept for
distillation until the end: allocated memory steps up once, a third of the way through the run, and
stays flat after it. Kind none.
    python second_model_loaded.py TRUTH.json [--epochs E] [--teacher-at EPOCH] [--steps N] [--step-ms MS]"""
import os
import tempfile

import torch
import torch.nn.functional as F
from torch import nn

from corpus_common import DEV, mlp, parser, pause, truth


def teacher_net(device):
    return nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(),
                         nn.Linear(4096, 1000)).to(device)


def load_teacher(path):
    teacher = teacher_net(DEV)
    teacher.load_state_dict(torch.load(path, map_location=DEV))
    return teacher.eval().requires_grad_(False)


def main():
    p = parser(__doc__, steps=25, step_ms=20, twin=False)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--teacher-at", type=int, default=2)
    a = p.parse_args()
    t = truth(a, __file__, clean=dict(holder="the teacher model (loaded once, kept)", unit="once",
                                      released="never", shape="step-up-then-flat"))
    ckpt = os.path.join(tempfile.mkdtemp(prefix="corpus-teacher-"), "teacher.pt")
    torch.save(teacher_net("cpu").state_dict(), ckpt)  # a teacher trained elsewhere (here: random)
    student = mlp(1024, 1024, 1000)
    opt = torch.optim.AdamW(student.parameters(), lr=1e-4)
    data = torch.randn(8, 256, 1024, device=DEV)
    labels = torch.randint(0, 1000, (8, 256), device=DEV)
    teacher = None
    for epoch in range(a.epochs):
        if epoch == a.teacher_at:
            teacher = load_teacher(ckpt)
        for step in range(a.steps):
            x, y = data[step % 8], labels[step % 8]
            logits = student(x)
            loss = F.cross_entropy(logits, y)
            if teacher is not None:
                with torch.no_grad():
                    soft = teacher(x).softmax(-1)
                loss = loss + F.kl_div(logits.log_softmax(-1), soft, reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
    os.remove(ckpt)
    os.rmdir(os.path.dirname(ckpt))
    t.write()


if __name__ == "__main__":
    main()
