"""A data-parallel training run in which one rank leaks, recorded per rank with PyTorch's memory
history, as distributed jobs dump one snapshot per rank.

    python ddp_leak.py OUTDIR [--ranks N] [--leaky-rank R] [--steps S] [--backend nccl|gloo]

torch.distributed with one process per rank (torch.multiprocessing.spawn) and
DistributedDataParallel over a 4-layer MLP. With one GPU per rank the backend is NCCL and rank r
uses GPU r; with fewer GPUs than ranks every rank shares GPU 0 and the backend is gloo (NCCL refuses
two ranks on one GPU). Rank R keeps each step's output (its logits, 1 MiB) in a list for "later
metrics" (line marked HOLD-SITE); the output is made at the line marked ALLOC-SITE. Every rank writes
OUTDIR/rank{N}.pickle (enabled="all", stacks="python") and OUTDIR/rank{N}.truth.json:
torch.cuda.memory_allocated()/memory_reserved() and max_memory_allocated() (reset at each step's
start) after every step, max/final allocated at the dump."""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def site_lines():
    lines = open(os.path.abspath(__file__)).read().splitlines()
    return [next(i + 1 for i, l in enumerate(lines) if tag in l) for tag in ("# ALLOC" + "-SITE", "# HOLD" + "-SITE")]


def run(rank, args, device_index, backend):
    torch.cuda.set_device(device_index)
    torch.cuda.init()
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks="python", max_entries=1_000_000)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    dist.init_process_group(backend, rank=rank, world_size=args.ranks)
    torch.manual_seed(0)
    dev = torch.device("cuda", device_index)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 2048),
                                torch.nn.ReLU(), torch.nn.Linear(2048, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 256)).to(dev)
    ddp = DDP(model, device_ids=[device_index] if backend == "nccl" else None)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    kept = []
    truth = {"rank": rank, "world_size": args.ranks, "backend": backend, "device": device_index,
             "leaky_rank": args.leaky_rank, "leak_file": os.path.basename(__file__), "leak_lines": site_lines(),
             "torch": torch.__version__, "steps": []}
    g = torch.Generator(device=dev).manual_seed(rank)
    for step in range(args.steps):
        torch.cuda.reset_peak_memory_stats(dev)
        with torch.profiler.record_function("train_step#%d" % step):
            x = torch.randn(1024, 1024, device=dev, generator=g)
            y = torch.randint(0, 256, (1024,), device=dev, generator=g)
            out = ddp(x)  # ALLOC-SITE
            loss = torch.nn.functional.cross_entropy(out, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if rank == args.leaky_rank:
                kept.append(out.detach())  # HOLD-SITE
            del x, y, out, loss
        torch.cuda.synchronize(dev)
        truth["steps"].append({"step": step, "allocated": torch.cuda.memory_allocated(dev),
                               "reserved": torch.cuda.memory_reserved(dev),
                               "peak": torch.cuda.max_memory_allocated(dev), "time_us": time.time_ns() // 1000})
    dist.barrier()
    torch.cuda.synchronize(dev)
    truth["final_allocated"] = torch.cuda.memory_allocated(dev)
    truth["final_reserved"] = torch.cuda.memory_reserved(dev)
    truth["kept_blocks"] = len(kept)
    torch.cuda.memory._dump_snapshot(os.path.join(args.out, "rank%d.pickle" % rank))
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(os.path.join(args.out, "rank%d.truth.json" % rank), "w") as f:
        json.dump(truth, f, indent=1)
    dist.destroy_process_group()


def worker(rank, args, backend):
    run(rank, args, rank if backend == "nccl" else 0, backend)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--leaky-rank", type=int, default=1)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--backend", choices=["nccl", "gloo"], default=None)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    backend = args.backend or ("nccl" if torch.cuda.device_count() >= args.ranks else "gloo")
    print("ranks %d on %d GPU(s), backend %s" % (args.ranks, torch.cuda.device_count(), backend), flush=True)
    mp.spawn(worker, args=(args, backend), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    sys.exit(main())
