"""The real suite of issue 48 for `pytest --vramscope -n 4` on a GPU: 12 tests, every one under
vramscope_no_leak. Four keep memory, each in its own way (a kept output, a cache, a hook, a kept
exception) and must fail naming their line; eight do not (training, inference, a high but constant
peak, a large model, a bounded cache, a parametrized one) and must pass. Unrecorded, all 12 pass."""
import collections

import pytest
import torch

pytestmark = pytest.mark.vramscope_no_leak

STEPS = 40
HISTORY = []                 # the kept output
CACHE = {}                   # the cache keyed by something that never repeats
ACTIVATIONS = []             # filled by a forward hook nobody removes
ERRORS = []                  # exceptions kept with their tracebacks
RECENT = collections.deque(maxlen=4)  # bounded: not a leak


def mlp(width=1024, depth=4):
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers).cuda()


def batch(n=256, width=1024):
    return torch.randn(n, width, device="cuda")


# ---- four leaks
def test_kept_output():
    model = mlp()
    for _ in range(STEPS):
        out = model(batch())
        out.sum().backward()
        HISTORY.append(out)                       # leak: the output, with its autograd graph


def test_cache_keyed_by_step():
    model = mlp()
    with torch.no_grad():
        for step in range(STEPS):
            CACHE[("features", step)] = model(batch())   # leak: a cache whose keys never repeat


def test_forward_hook_never_removed():
    model = mlp()
    model[-1].register_forward_hook(lambda module, args, out: ACTIVATIONS.append(out))  # leak: the hook keeps
    with torch.no_grad():
        for _ in range(STEPS):
            model(batch())


def failing_step(model, x):
    hidden = model(x) * 2                         # leak: alive in the traceback of every kept error
    raise ValueError("bad batch (norm %.1f)" % 1.0)


def test_kept_exception():
    model = mlp()
    for _ in range(STEPS):
        try:
            failing_step(model, batch())
        except ValueError as e:
            ERRORS.append(e)


# ---- eight that keep nothing
def test_training_steps():
    model = mlp()
    opt = torch.optim.Adam(model.parameters())
    for _ in range(STEPS):
        loss = model(batch()).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


def test_inference_no_grad():
    model = mlp().eval()
    with torch.no_grad():
        for _ in range(STEPS):
            model(batch()).argmax(dim=1).cpu()


def test_high_constant_peak():
    # 4 GiB made and freed every step: a high peak, the same at every step
    for _ in range(STEPS // 2):
        big = torch.empty(1 << 30, dtype=torch.float32, device="cuda")
        big.fill_(1.0)
        del big


def test_large_model_constant():
    model = mlp(width=8192, depth=4)              # 1 GiB of weights, loaded once
    with torch.no_grad():
        for _ in range(STEPS // 2):
            model(batch(64, 8192))


def test_bounded_cache():
    model = mlp()
    with torch.no_grad():
        for _ in range(STEPS):
            RECENT.append(model(batch()))         # the deque drops the oldest: bounded


@pytest.mark.parametrize("size", [32, 256, 1024])
def test_batch_sizes(size):
    model = mlp()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for _ in range(STEPS):
        loss = model(batch(size)).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
