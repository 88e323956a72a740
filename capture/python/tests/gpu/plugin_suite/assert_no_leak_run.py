"""vramscope.assert_no_leak on the GPU, outside pytest: a step that keeps its output raises LeakError
naming the line; a clean training step passes."""
import sys

import torch

import vramscope

KEPT = []
model = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024)).cuda()
opt = torch.optim.Adam(model.parameters())


def clean_step():
    loss = model(torch.randn(256, 1024, device="cuda")).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


def leaking_step():
    out = model(torch.randn(256, 1024, device="cuda"))
    KEPT.append(out.detach())                                 # the leak: 1 MiB per call
    out.mean().backward()


folder = sys.argv[1]
vramscope.assert_no_leak(clean_step, iterations=200, warmup=10, directory=folder, name="clean_step")
print("assert_no_leak clean_step: passed")
try:
    vramscope.assert_no_leak(leaking_step, iterations=200, warmup=10, directory=folder, name="leaking_step")
    print("assert_no_leak leaking_step: NOT RAISED")
except vramscope.LeakError as e:
    print("assert_no_leak leaking_step: raised:\n    " + str(e).replace("\n", "\n    "))
