"""Records small PyTorch snapshots that use the newest snapshot fields, one scenario per process.

    python record_newest.py SCENARIO OUTDIR     (SCENARIO: metadata, ring, late, pinned)

Each run writes OUTDIR/newest_SCENARIO.pickle.gz (what torch.cuda.memory._dump_snapshot writes,
gzip-compressed) and OUTDIR/newest_SCENARIO.truth.json: the torch version, which APIs it has, the
snapshot's top-level keys and allocator_settings, and memory_allocated()/memory_reserved() at the
dump. A field this torch does not write is simply absent; the truth file says so.
"""
import collections
import gzip
import inspect
import json
import os
import pickle
import sys

import torch

MiB = 1 << 20
mem = torch.cuda.memory


def enable(**kw):
    """_record_memory_history with the keywords this torch knows (older ones lack the newer keywords)."""
    known = inspect.signature(mem._record_memory_history).parameters
    kw = {k: v for k, v in dict(enabled="all", context="all", stacks="python", **kw).items() if k in known}
    mem._record_memory_history(**kw)
    return kw


def dump(name, out, truth):
    torch.cuda.synchronize()
    s = mem._snapshot()
    truth["torch"] = torch.__version__
    truth["allocated"] = torch.cuda.memory_allocated()
    truth["reserved"] = torch.cuda.memory_reserved()
    truth["keys"] = sorted(s.keys())
    truth["allocator_settings"] = {k: repr(v) for k, v in s.get("allocator_settings", {}).items()}
    truth["entries_per_device"] = [len(t) for t in s.get("device_traces", [])]
    acts = collections.Counter(e["action"] for t in s.get("device_traces", []) for e in t)
    truth["actions"] = dict(acts)
    truth["user_metadata"] = sorted({repr(e.get("user_metadata")) for t in s.get("device_traces", []) for e in t
                                     if e.get("user_metadata")})
    truth["external_annotations"] = len(s.get("external_annotations", []))
    for k in ("host_segments", "host_traces"):
        if k in s:
            v = s[k]
            truth[k + "_shape"] = type(v).__name__ + (f"[{len(v)}]" if hasattr(v, "__len__") else "")
            if isinstance(v, list) and v:
                truth[k + "_first"] = repr(v[0])[:400]
    with gzip.open(os.path.join(out, f"newest_{name}.pickle.gz"), "wb", 9) as f:
        pickle.dump(s, f)
    with open(os.path.join(out, f"newest_{name}.truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
    print(name, json.dumps({k: truth[k] for k in ("keys", "actions", "entries_per_device")}))


def metadata(out):
    """User metadata on entries, post-hoc annotations of live blocks, record_function annotations, and
    blocks the trace sees only being freed (allocated before recording)."""
    before = [torch.empty(MiB // 4, device="cuda") for _ in range(3)]  # 1 MiB each, before recording
    kw = enable(max_entries=100000, global_record_annotations=True)
    truth = {"scenario": "metadata", "record_kw": sorted(kw)}
    del before[0]  # freed in the trace, never allocated in it
    kept = []
    with torch.profiler.record_function("warmup"):
        if hasattr(mem, "_set_memory_metadata"):
            mem._set_memory_metadata("phase=warmup")
        kept.append(torch.empty(2 * MiB // 4, device="cuda"))
    with torch.profiler.record_function("train"):
        if hasattr(mem, "_set_memory_metadata"):
            mem._set_memory_metadata("phase=train")
        for i in range(4):
            x = torch.randn(256, 256, device="cuda")
            kept.append(x @ x)
        if hasattr(mem, "_annotate_memory"):
            mem._annotate_memory(kept[1].untyped_storage().data_ptr(), "kept for logging")
    if hasattr(mem, "_set_memory_metadata"):
        mem._set_memory_metadata("")
    truth["kept_blocks"] = len(kept)
    dump("metadata", out, truth)


def ring(out):
    """A ring buffer far smaller than the run: the oldest entries are overwritten."""
    kw = enable(max_entries=64)
    truth = {"scenario": "ring", "record_kw": sorted(kw), "max_entries": 64}
    kept = []
    for i in range(200):
        t = torch.empty((i % 7 + 1) * 1024, device="cuda")
        if i % 10 == 0:
            kept.append(t)
    truth["kept_blocks"] = len(kept)
    dump("ring", out, truth)


def late(out):
    """Recording starts late, with room to spare: nothing is overwritten, blocks predate the trace."""
    early = [torch.empty((i + 1) * 4096, device="cuda") for i in range(10)]
    kw = enable(max_entries=100000)
    truth = {"scenario": "late", "record_kw": sorted(kw)}
    for i in range(20):
        early.append(torch.empty(8192, device="cuda"))
    dump("late", out, truth)


def pinned(out):
    """Pinned host memory recorded beside the device's (torch with record_pinned_host_memory)."""
    kw = enable(max_entries=100000, record_pinned_host_memory=True)
    truth = {"scenario": "pinned", "record_kw": sorted(kw)}
    host = [torch.empty(MiB * (i + 1), dtype=torch.uint8, pin_memory=True) for i in range(3)]
    dev = [h.to("cuda", non_blocking=True) for h in host]
    del host[1]
    truth["pinned_kept"] = len(host)
    dump("pinned", out, truth)


if __name__ == "__main__":
    torch.cuda.init()
    {"metadata": metadata, "ring": ring, "late": late, "pinned": pinned}[sys.argv[1]](sys.argv[2])
