"""Runs one workload of programs.py under the PYTORCH_CUDA_ALLOC_CONF in the environment (and an
optional memory fraction) and writes what PyTorch itself reported: OUTDIR/NAME.truth.json; with
--pickle also the memory history, OUTDIR/NAME.pickle.gz (torch.cuda.memory._dump_snapshot, gzipped).
    python3 run_one.py PROGRAM NAME OUTDIR [--fraction F] [--pickle]"""
import argparse
import gzip
import json
import os
import shutil

import torch

from programs import PROGRAMS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("program")
    ap.add_argument("name")
    ap.add_argument("outdir")
    ap.add_argument("--fraction", type=float, default=0.0)
    ap.add_argument("--pickle", action="store_true")
    a = ap.parse_args()
    torch.cuda.init()
    total = torch.cuda.mem_get_info()[1]
    if a.fraction:
        torch.cuda.set_per_process_memory_fraction(a.fraction)
    if a.pickle:
        torch.cuda.memory._record_memory_history(enabled="all", context="alloc", stacks="python", max_entries=2_000_000)
    oom = None
    try:
        PROGRAMS[a.program]()
    except torch.cuda.OutOfMemoryError as e:
        oom = str(e)[:300]
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    truth = {
        "program": a.program, "name": a.name, "torch": torch.__version__,
        "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
        "memory_fraction": a.fraction, "device_total": total,
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "final_reserved": torch.cuda.memory_reserved(), "final_allocated": torch.cuda.memory_allocated(),
        "num_ooms": stats.get("num_ooms", 0), "oom": oom is not None, "oom_message": oom,
    }
    if a.pickle:
        path = os.path.join(a.outdir, a.name + ".pickle")
        torch.cuda.memory._dump_snapshot(path)
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(path)
    with open(os.path.join(a.outdir, a.name + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print(a.name, "peak reserved", truth["max_memory_reserved"], "oom" if oom else "")


if __name__ == "__main__":
    main()
