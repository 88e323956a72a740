"""Make vramscope's bundled sample captures on a machine with a CUDA GPU.

Run one sample per process (allocator settings are read once per process):
    python3 make_samples.py NAME OUTDIR
or all of them:
    python3 make_samples.py all OUTDIR
Each writes OUTDIR/NAME.pickle (exactly what torch.cuda.memory._dump_snapshot writes) and
OUTDIR/NAME.truth.json: what PyTorch itself reported while the sample ran, which the tests compare
vramscope's numbers against. Lines that allocate memory that is never freed end in '# LEAK-SITE'.
"""
import json
import os
import subprocess
import sys
import time

import torch
from torch import nn

DEV = "cuda"
THIS = os.path.abspath(__file__)

# name -> (PYTORCH_CUDA_ALLOC_CONF, stacks, max_entries, snapshot the block list every N steps)
SAMPLES = {
    "clean_loop": ("", "python", 100000, 4),
    "leak_list": ("", "python", 100000, 5),
    "leak_cut": ("", "python", 260, 3),
    "mixed_sizes": ("", "python", 100000, 6),
    "expandable": ("expandable_segments:True", "python", 100000, 4),
    "side_stream": ("", "python", 100000, 3),
    "oom": ("", "python", 100000, 0),
    "stacks_all": ("", "all", 100000, 0),
}


class Truth:
    def __init__(self, name, mid_every):
        self.mid_every = mid_every
        self.d = {"name": name, "torch": torch.__version__, "steps": [], "mid_states": [],
                  "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")}

    def step(self, i):
        torch.cuda.synchronize()
        self.d["steps"].append({"step": i, "t_us": time.time_ns() // 1000,
                                "allocated": torch.cuda.memory_allocated(),
                                "reserved": torch.cuda.memory_reserved()})
        if self.mid_every and i % self.mid_every == self.mid_every - 1:
            # the allocator's own block list now; the call leaves a 'snapshot' entry in the trace
            segs = torch.cuda.memory._snapshot()["segments"]
            self.d["mid_states"].append({
                "step": i, "allocated": torch.cuda.memory_allocated(),
                "blocks": sorted([b["address"], b["size"], b["state"]] for g in segs for b in g["blocks"])})


def mlp():
    return nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256)).to(DEV)


def clean_loop(t):
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(12):
        loss = model(torch.randn(64, 256, device=DEV)).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()
        t.step(step)
    torch.cuda.empty_cache()
    t.step(12)
    t.d.update(kind="none")


HISTORY = []


def train_and_keep(model, x):
    loss = model(x).pow(2).mean()  # LEAK-SITE
    loss.backward()
    HISTORY.append(loss)  # HOLDER: the loss tensor keeps its graph's saved activations
    return loss


def leak_list(t):
    model = mlp()
    for step in range(15):
        train_and_keep(model, torch.randn(64, 256, device=DEV))
        model.zero_grad(set_to_none=True)
        t.step(step)
    t.d.update(kind="leak", holder="module global HISTORY (list of loss tensors)")


CACHE = {}


def leak_cut(t):
    before = torch.empty(3 * 1024 * 1024 + 5, dtype=torch.uint8, device=DEV)  # predates the window
    model = mlp()
    pending = torch.empty(700 * 1024, dtype=torch.uint8, device=DEV)
    for step in range(24):
        x = torch.randn(96, 256, device=DEV)
        with torch.no_grad():
            CACHE[step] = model(x)  # LEAK-SITE
        if step == 20:
            del pending
        t.step(step)
    t.d.update(kind="leak", holder="module global CACHE (dict)", keep=before.numel())


def mixed_sizes(t):
    g = torch.Generator().manual_seed(1)
    keep = []
    for step in range(18):
        sizes = torch.randint(1, 6000, (25,), generator=g).tolist()
        blocks = [torch.empty(s * 1024 + (s % 7) * 100 + 1, dtype=torch.uint8, device=DEV) for s in sizes]
        keep.extend(blocks[::6])
        del blocks
        big = torch.empty((step % 4 + 1) * 11 * 1024 * 1024 + 12345, dtype=torch.uint8, device=DEV)
        del big
        keep = keep[-20:]
        if step == 12:
            torch.cuda.empty_cache()
        t.step(step)
    del keep
    torch.cuda.empty_cache()
    t.step(18)
    t.d.update(kind="cache")


def expandable(t):
    mixed = []
    model = mlp()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(10):
        loss = model(torch.randn(512, 256, device=DEV)).pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        mixed.append(torch.empty(1 + step * 333333, dtype=torch.uint8, device=DEV))
        if step == 6:
            mixed.clear()
            torch.cuda.empty_cache()
        t.step(step)
    del mixed
    torch.cuda.empty_cache()
    t.step(10)
    t.d.update(kind="none")


def side_stream(t):
    s = torch.cuda.Stream()
    for step in range(9):
        x = torch.randn(1024, 1024, device=DEV)
        with torch.cuda.stream(s):
            y = x @ x
        x.record_stream(s)
        del x
        torch.cuda.current_stream().wait_stream(s)
        y.sum().item()
        del y
        t.step(step)
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)  # keep the side stream busy so the last free stays pending
    x = torch.randn(1024, 1024, device=DEV)
    x.record_stream(s)
    del x
    t.d.update(kind="none", note="x's frees wait for the side stream; the last one is pending at dump")


def oom(t):
    torch.cuda.set_per_process_memory_fraction(0.003)
    hold = []
    try:
        for step in range(1000):
            hold.append(torch.empty(24 * 1024 * 1024 + step, dtype=torch.uint8, device=DEV))  # LEAK-SITE
            t.step(step)
    except torch.cuda.OutOfMemoryError as e:
        t.d["oom_message"] = str(e)[:300]
    t.d.update(kind="oom")


def stacks_all(t):
    a = torch.randn(300, 300, device=DEV)
    for step in range(3):
        b = (a @ a).relu()
        t.step(step)
    t.d.update(kind="none")


def run_one(name, outdir):
    conf, stacks, max_entries, mid_every = SAMPLES[name]
    torch.cuda.init()
    t = Truth(name, mid_every)
    t.d.update(stacks=stacks, max_entries=max_entries, file=THIS,
               leak_site_lines=[i + 1 for i, l in enumerate(open(THIS)) if l.rstrip().endswith("# LEAK-SITE")])
    torch.cuda.memory._record_memory_history(enabled="all", context="all", stacks=stacks, max_entries=max_entries)
    globals()[name](t)
    t.d["final_allocated"] = torch.cuda.memory_allocated()
    t.d["final_reserved"] = torch.cuda.memory_reserved()
    t.d["max_memory_allocated"] = torch.cuda.max_memory_allocated()
    t.d["max_memory_reserved"] = torch.cuda.max_memory_reserved()
    stats = torch.cuda.memory_stats()
    t.d["final_active"] = stats["active_bytes.all.current"]
    t.d["num_ooms"] = stats["num_ooms"]
    t.d["summary"] = torch.cuda.memory_summary()
    torch.cuda.memory._dump_snapshot(os.path.join(outdir, name + ".pickle"))
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(os.path.join(outdir, name + ".truth.json"), "w") as f:
        json.dump(t.d, f, indent=1)


def main():
    name, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    if name != "all":
        return run_one(name, outdir)
    for n, (conf, *_) in SAMPLES.items():
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
        r = subprocess.run([sys.executable, THIS, n, outdir], env=env)
        print(n, "exit", r.returncode, flush=True)


if __name__ == "__main__":
    main()
