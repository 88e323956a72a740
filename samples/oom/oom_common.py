"""Shared pieces of the OOM and peak programs of samples/oom: the command line, the device's size, the
truth file (README.md says what is in it), the figures at the OOM (read inside PyTorch's OOM observer,
the moment the allocator gave up, after it had released what it could), and markers that both
recorders see (a `record_function` range for PyTorch's history, `vramscope.mark` for vramscope's).

Every program takes TRUTH.json first, sizes itself from torch.cuda.mem_get_info() (an H200 of 139 GiB
or an H100 of 78 GiB), catches torch.cuda.OutOfMemoryError (the OOM programs), writes the truth and
exits 0. The lines that the truth names are found from markers in the program's source:
    # OOM-ALLOC-SITE    a line whose call allocates what holds the memory at the OOM (one or more)
    # OOM-HOLD-SITE     the line that keeps it (a list append, a dict entry); none for working_set
    # OOM-REQUEST-SITE  the line whose allocation failed (the traceback's last frame in the program
                        is recorded too, as `oom.request_frames`)
    # OOM-SEGMENT-SITE  (fragmentation) the line that made the large segments later split into holes
    # PEAK-ALLOC-SITE / PEAK-HOLD-SITE  (peak programs) the lines that allocate and keep what makes the peak
"""
import argparse
import contextlib
import json
import os
import re
import sys
import time

import torch

DEV = torch.device("cuda")
MiB = 1 << 20
GiB = 1 << 30
ALIGN = 2 * MiB  # the caching allocator rounds a large segment up to 2 MiB


def parser(doc, step_ms=20):
    p = argparse.ArgumentParser(description=doc.strip().splitlines()[0])
    p.add_argument("truth", help="where the truth JSON goes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--step-ms", type=float, default=step_ms, help="pause per step: stands in for data loading")
    return p


def pause(a, scale=1.0):
    if a.step_ms:
        time.sleep(a.step_ms * scale / 1000)


def round_down(n, to=ALIGN):
    return int(n) // to * to


def device_info():
    """{"device_total", "device_free", "allocated", "reserved"} now (mem_get_info: the driver's view)."""
    free, total = torch.cuda.mem_get_info()
    return {"device_total": total, "device_free": free, "allocated": torch.cuda.memory_allocated(),
            "reserved": torch.cuda.memory_reserved()}


def site_lines(path, tag):
    """The lines whose comment names the tag (`# OOM-ALLOC-SITE OOM-REQUEST-SITE: ...` names both)."""
    return [i + 1 for i, line in enumerate(open(path).read().splitlines())
            if "#" in line and re.search(r"\b%s\b" % re.escape(tag), line.split("#", 1)[1])]


def _bytes(text):
    """'26.00 MiB' -> bytes (the message's rounding: two decimals of its unit)."""
    m = re.match(r"([\d.]+)\s*(B|KiB|MiB|GiB|TiB)", text.strip())
    if not m:
        return None
    unit = {"B": 1, "KiB": 1 << 10, "MiB": MiB, "GiB": GiB, "TiB": 1 << 40}[m.group(2)]
    return int(round(float(m.group(1)) * unit))


def parse_message(msg):
    """What PyTorch's OOM message says, as bytes (rounded as the message rounds them)."""
    out = {}
    for key, pattern in (("request", r"Tried to allocate ([\d.]+ \w+)"),
                         ("total_capacity", r"total capacity of ([\d.]+ \w+)"),
                         ("free", r"of which ([\d.]+ \w+) is free"),
                         ("process_in_use", r"this process has ([\d.]+ \w+) memory in use"),
                         ("allocated_by_pytorch", r"([\d.]+ \w+) is allocated by PyTorch"),
                         ("reserved_unallocated", r"([\d.]+ \w+) is reserved by PyTorch but unallocated")):
        m = re.search(pattern, msg)
        out[key] = _bytes(m.group(1)) if m else None
    out["mentions_expandable_segments"] = "expandable_segments" in msg
    return out


class OomTruth:
    """NAME.truth.json of one run. `kind` is "oom" for the OOM programs ("peak" for the peak ones);
    the figures at the OOM come from PyTorch's OOM observer (attached here; vramscope's recorder
    attaches its own beside it) and from the caught error."""

    def __init__(self, a, program, cause, holder, **extra):
        torch.manual_seed(a.seed)
        self.path = a.truth
        self.program = os.path.abspath(program)
        torch.cuda.init()
        torch.cuda.set_device(0)
        self.d = {"kind": "oom" if cause else "peak", "cause": cause, "file": os.path.basename(program),
                  "holder": holder,
                  "alloc_lines": site_lines(self.program, "OOM-ALLOC-SITE"),
                  "hold_lines": site_lines(self.program, "OOM-HOLD-SITE"),
                  "request_lines": site_lines(self.program, "OOM-REQUEST-SITE"),
                  "segment_lines": site_lines(self.program, "OOM-SEGMENT-SITE"),
                  "argv": " ".join(sys.argv), "torch": torch.__version__, "cuda": torch.version.cuda,
                  "device_name": torch.cuda.get_device_name(0),
                  "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
                  "recorder": "vramscope" if "vramscope" in sys.modules else "history",
                  "start": device_info(), "steps": []}
        self.d["holder_lines"] = list(dict.fromkeys(self.d["alloc_lines"] + self.d["hold_lines"]))
        if not cause:  # a peak program: the lines that make its peak
            self.d["peak_alloc_lines"] = site_lines(self.program, "PEAK-ALLOC-SITE")
            self.d["peak_hold_lines"] = site_lines(self.program, "PEAK-HOLD-SITE")
        self.d.update(extra)
        self.t0 = time.time()
        self.observed = None
        if cause:
            torch._C._cuda_attach_out_of_memory_observer(self._on_oom)

    # ---- while it runs
    def step(self, epoch, step, **fields):
        torch.cuda.synchronize()
        e = {"epoch": epoch, "step": step, "allocated": torch.cuda.memory_allocated(),
             "reserved": torch.cuda.memory_reserved(), "time_us": time.time_ns() // 1000}
        e.update(fields)
        self.d["steps"].append(e)

    def _on_oom(self, device, alloc_size, device_total, device_free):
        """PyTorch's OOM observer: called when the allocator gives up, its lock released, after it
        freed its unsplit cached segments and retried cudaMalloc. Nothing is freed yet by the
        exception's unwinding, so these are the figures at the failed request."""
        if self.observed is not None:
            return
        o = {"time_us": time.time_ns() // 1000, "observer_alloc_size": alloc_size,
             "observer_device_total": device_total, "observer_device_free": device_free}
        try:
            s = torch.cuda.memory_stats()
            o.update(allocated=s["allocated_bytes.all.current"], reserved=s["reserved_bytes.all.current"],
                     active=s["active_bytes.all.current"],
                     inactive_split=s["inactive_split_bytes.all.current"],
                     inactive_split_large_pool=s["inactive_split_bytes.large_pool.current"],
                     segments=s["segment.all.current"], max_allocated=s["allocated_bytes.all.peak"],
                     num_alloc_retries=s["num_alloc_retries"])
            o["reserved_free"] = o["reserved"] - o["allocated"]
            free, total = torch.cuda.mem_get_info()
            o.update(device_total=total, device_free=free, outside_pytorch=total - free - o["reserved"])
        except Exception as e:  # never into the allocator's caller
            o["stats_error"] = repr(e)
        try:
            largest, largest_large = 0, 0
            for seg in torch.cuda.memory_snapshot():
                for b in seg["blocks"]:
                    if b["state"] == "inactive":
                        largest = max(largest, b["size"])
                        if seg["segment_type"] == "large":
                            largest_large = max(largest_large, b["size"])
            o.update(largest_free_block=largest, largest_free_block_large_pool=largest_large)
        except Exception as e:
            o["snapshot_error"] = repr(e)
        self.observed = o

    # ---- at the end
    def caught(self, e, **fields):
        """The OOM was caught: its figures into the truth."""
        msg = str(e)
        o = dict(self.observed or {})
        o["message"] = msg
        o["message_figures"] = parse_message(msg)
        o["request_bytes"] = o["message_figures"]["request"]  # rounded as the message rounds it
        frames, tb = [], e.__traceback__
        while tb is not None:
            if os.path.abspath(tb.tb_frame.f_code.co_filename) == self.program:
                frames.append({"function": tb.tb_frame.f_code.co_name, "line": tb.tb_lineno})
            tb = tb.tb_next
        o["request_frames"] = frames  # the program's frames of the traceback, outermost first
        o["num_ooms"] = torch.cuda.memory_stats().get("num_ooms")
        o.update(fields)
        self.d["oom"] = o

    def write(self):
        torch.cuda.synchronize()
        if self.d["cause"] and "oom" not in self.d:
            self.d["oom"] = None  # no OOM came: check.py fails such a run
        self.d["final_allocated"] = torch.cuda.memory_allocated()
        self.d["final_reserved"] = torch.cuda.memory_reserved()
        self.d["max_allocated"] = torch.cuda.max_memory_allocated()
        self.d["seconds"] = round(time.time() - self.t0, 2)
        with open(self.path, "w") as f:
            json.dump(self.d, f, indent=1)


@contextlib.contextmanager
def marker(name, value):
    """A phase both recorders see: a `record_function` range (PyTorch's history keeps them as
    external_annotations) and a `vramscope.mark(name, value)` when vramscope's recorder runs."""
    vs = sys.modules.get("vramscope")
    if vs is not None:
        vs.mark(name, value)
    with torch.profiler.record_function(name):
        yield


def mlp(d_in, width, d_out, depth):
    layers = [torch.nn.Linear(d_in, width), torch.nn.GELU()]
    for _ in range(depth - 1):
        layers += [torch.nn.Linear(width, width), torch.nn.GELU()]
    layers.append(torch.nn.Linear(width, d_out))
    return torch.nn.Sequential(*layers).to(DEV)


def train_epoch(model, opt, x, y, steps, a, t, epoch, loss_fn):
    """One marked epoch of plain training steps on one batch (the programs whose OOM comes elsewhere)."""
    with marker("epoch", epoch):
        for step in range(steps):
            loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            pause(a)
            t.step(epoch, step)
