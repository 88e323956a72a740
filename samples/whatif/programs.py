"""The deterministic workloads that samples/whatif records under several allocator settings:
two public scenarios of samples/make_samples.py and two third-party training programs (a torchvision
ResNet-18 and a transformers GPT-2, both randomly initialised, trained a few steps on random data)."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # samples/
import make_samples  # noqa: E402


def scenario(name):
    make_samples.HISTORY.clear()
    getattr(make_samples, name)(make_samples.Truth(name, 0))


def resnet18(steps=6):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(steps):
        x = torch.randn(48, 3, 160, 160, device="cuda")
        y = torch.randint(0, 100, (48,), device="cuda")
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()


def gpt2(steps=6):
    from transformers import GPT2Config, GPT2LMHeadModel
    torch.manual_seed(0)
    cfg = GPT2Config(n_layer=4, n_embd=384, n_head=6, vocab_size=8192, n_positions=256)
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(steps):
        ids = torch.randint(0, 8192, (12 + 2 * step, 192), device="cuda")  # batch grows: new sizes
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()


PROGRAMS = {
    "mixed_sizes": lambda: scenario("mixed_sizes"),
    "clean_loop": lambda: scenario("clean_loop"),
    "resnet18": resnet18,
    "gpt2": gpt2,
}
