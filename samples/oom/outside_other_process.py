"""Training that shares its GPU: after a few steps another process (started here, standing in for a
colleague's notebook or a stale job) takes nearly all the device's free memory with its own torch
allocation and sleeps. This program's own memory is small (its model and a step's activations, a few
per cent of the device); its next evaluation, at a larger batch, needs new memory and finds none.
Cause: outside_pytorch (memory held by another process). The holder is killed at the end.
    python outside_other_process.py TRUTH.json [--step-ms MS]"""
import select
import subprocess
import sys

import torch
import torch.nn.functional as F

from oom_common import DEV, MiB, OomTruth, marker, mlp, parser, pause

HOLDER = r"""
import sys, time, torch
keep = int(sys.argv[1])
free, total = torch.cuda.mem_get_info()
block = torch.empty(max(0, free - keep) // (2 << 20) * (2 << 20), dtype=torch.uint8, device="cuda")
print("ready", block.numel(), flush=True)
time.sleep(600)
"""


def start_holder(keep):
    """The other process: returns it once it holds its memory."""
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(keep)], stdout=subprocess.PIPE, text=True)  # OOM-ALLOC-SITE
    ready, _, _ = select.select([child.stdout], [], [], 180)
    line = child.stdout.readline() if ready else ""
    if not line.startswith("ready"):
        child.kill()
        raise RuntimeError("the holder process did not start: %r" % line)
    return child, int(line.split()[1])


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "outside_pytorch", "another process (a torch.empty of nearly all free memory, then sleep)")
    total = t.d["start"]["device_total"]
    model = mlp(1024, 4096, 1024, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    x, y = torch.randn(4096, 1024, device=DEV), torch.randn(4096, 1024, device=DEV)
    eval_rows = int(0.05 * total // (4096 * 4)) // 1024 * 1024  # one hidden layer's output: 5 % of the device
    t.d.update(eval_rows=eval_rows)
    child = None
    try:
        for epoch in range(2):
            with marker("epoch", epoch):
                for step in range(5):
                    loss = F.mse_loss(model(x), y)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    pause(a)
                    t.step(epoch, step)
            if epoch == 0:
                child, held = start_holder(keep=256 * MiB)
                t.d.update(other_process_pid=child.pid, other_process_bytes=held)
                t.step(epoch, 5, phase="other process started")
            with marker("evaluate", epoch), torch.no_grad():
                vx = torch.randn(eval_rows, 1024, device=DEV)  # OOM-REQUEST-SITE: the evaluation batch
                pred = model(vx)  # OOM-REQUEST-SITE: the evaluation batch's activations
                t.step(epoch, 6, phase="eval", metric=pred.mean().item())
                del vx, pred
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e)
    finally:
        if child is not None:
            child.kill()
            child.wait()
    t.write()


if __name__ == "__main__":
    main()
