"""Training an MLP whose batch-size schedule jumps after warm-up: four steps at batch 1024 fit with
room to spare (allocated returns to the same level after each), then the schedule's target batch
needs activations half as large again as the whole device: the forward pass of that one step runs
out of memory. Nothing is kept across steps. Cause: working_set (one step too big for the device).
    python ws_mlp_batch_ramp.py TRUTH.json [--warmup-steps N] [--step-ms MS]"""
import math

import torch
import torch.nn.functional as F

from oom_common import DEV, OomTruth, marker, mlp, parser, pause

D_IN, WIDTH, DEPTH = 1024, 8192, 6


def train_step(model, opt, batch, t, step):
    x = torch.randn(batch, D_IN, device=DEV)
    y = torch.randn(batch, D_IN, device=DEV)
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    out = model(x)  # OOM-ALLOC-SITE OOM-REQUEST-SITE: every layer's activations for the batch
    activations = torch.cuda.memory_allocated() - before
    loss = F.mse_loss(out, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return activations, torch.cuda.max_memory_allocated() - before


def main():
    p = parser(__doc__, step_ms=30)
    p.add_argument("--warmup-steps", type=int, default=4)
    p.add_argument("--batch", type=int, default=1024)
    a = p.parse_args()
    t = OomTruth(a, __file__, "working_set", "the forward pass's activations of one step (all layers of model(x))")
    model = mlp(D_IN, WIDTH, D_IN, depth=DEPTH)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    t.d["parameter_bytes"] = sum(q.numel() * q.element_size() for q in model.parameters())
    per_sample = []
    try:
        step = 0
        for step in range(a.warmup_steps):
            with marker("step", step):
                act, peak = train_step(model, opt, a.batch, t, step)
            per_sample.append(act / a.batch)
            pause(a)
            t.step(0, step, batch=a.batch, activation_bytes=act, step_peak_above_start=peak)
        bps = per_sample[-1]
        free, _ = torch.cuda.mem_get_info()
        room = free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        big = int(math.ceil(1.5 * room / bps / 1024)) * 1024
        t.d.update(small_batch=a.batch, batch_size=big, bytes_per_sample=int(bps),
                   bytes_per_sample_means="forward activations: allocated after model(x) minus before, per sample",
                   needed_activation_bytes=int(big * bps), room_before_big_step=room)
        with marker("step", step + 1):
            train_step(model, opt, big, t, step + 1)
        t.step(0, step + 1, batch=big)
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e, batch=t.d.get("batch_size"))
    t.write()


if __name__ == "__main__":
    main()
