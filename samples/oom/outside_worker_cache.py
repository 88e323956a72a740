"""Training whose data pipeline runs in a worker process that keeps a cache of decoded batches on the
GPU (its own torch, its own CUDA context: memory this process's allocator never sees). The worker
fills most of the free memory; training at a small batch fits beside it; the evaluation at a larger
batch needs new memory and finds none. Cause: outside_pytorch (another process). The worker is
stopped at the end. Held out: never used to change a rule.
    python outside_worker_cache.py TRUTH.json [--step-ms MS]"""
import multiprocessing as mp

import torch
import torch.nn.functional as F

from oom_common import DEV, MiB, OomTruth, marker, mlp, parser, pause


def worker(keep, ready, stop):
    import torch as wt
    free, _ = wt.cuda.mem_get_info()
    n = max(0, free - keep) // (64 * MiB)
    cache = [wt.empty(64 * MiB, dtype=wt.uint8, device="cuda") for _ in range(n)]  # the worker's batch cache
    ready.put(n * 64 * MiB)
    stop.wait(600)
    del cache


def main():
    a = parser(__doc__, step_ms=30).parse_args()
    t = OomTruth(a, __file__, "outside_pytorch", "a data-loading worker process's GPU batch cache")
    total = t.d["start"]["device_total"]
    ctx = mp.get_context("spawn")
    ready, stop = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=worker, args=(1024 * MiB, ready, stop), daemon=True)  # OOM-ALLOC-SITE
    proc.start()
    t.d["worker_bytes"] = ready.get(timeout=300)
    model = mlp(1024, 2048, 1024, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    x, y = torch.randn(1024, 1024, device=DEV), torch.randn(1024, 1024, device=DEV)
    eval_rows = int(0.04 * total // (2048 * 4)) // 1024 * 1024  # one hidden layer: 4 % of the device
    t.d.update(eval_rows=eval_rows)
    try:
        for step in range(6):
            with marker("step", step):
                loss = F.mse_loss(model(x), y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            pause(a)
            t.step(0, step)
        with marker("evaluate", 0), torch.no_grad():
            vx = torch.randn(eval_rows, 1024, device=DEV)  # OOM-REQUEST-SITE: the evaluation batch
            pred = model(vx)  # OOM-REQUEST-SITE: its activations
            t.step(0, 6, phase="eval", metric=pred.mean().item())
    except torch.cuda.OutOfMemoryError as e:
        t.caught(e)
    finally:
        stop.set()
        proc.join(30)
        if proc.is_alive():
            proc.kill()
    t.write()


if __name__ == "__main__":
    main()
