"""Writes the hand-built snapshots of samples/newest (plain Python, no torch needed):

    python3 make_hand_built.py [OUTDIR]

- newest_hand_overflow.pickle: every newest field at once. Device 0's ring buffer overflowed
  (allocator_settings.trace_alloc_overflowed, trace_alloc_max_entries = the 7 entries kept); entries
  carry user_metadata (a string, and a dict as newer memory_viz accepts); an 'annotate' entry labels a
  live block after the fact (torch.cuda.memory._annotate_memory); a block allocated before the trace
  is seen only being freed (a ghost); external_annotations hold a record_function range; pinned host
  memory is in host_segments / host_traces (host_traces as a list of per-device lists).
- newest_hand_late.pickle: the same device trace with trace_alloc_overflowed False (recording started
  late, nothing was overwritten) and host_traces as one flat list.
- newest_hand_badtypes.pickle: the same fields with wrong types everywhere a newer or broken writer
  could put them; a reader must load it, say what it ignored, and not crash.
"""
import os
import pickle
import sys

MiB = 1 << 20
T0 = 1_764_000_000_000_000  # µs since 1970, as PyTorch stamps entries
A = 0x7F0000000000  # device segment
H = 0x7E0000000000  # pinned host memory
TRAIN = [{"name": "train_step", "filename": "train.py", "line": 10}]
TAG = [{"name": "keep_for_logging", "filename": "train.py", "line": 12}]


def entry(action, addr, size, t, frames=(), **extra):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": T0 + t, "frames": list(frames)}
    e.update(extra)
    return e


def device_trace():
    return [
        entry("free_requested", A + 6 * MiB, 2 * MiB, 0),  # a block from before the trace: a ghost
        entry("free_completed", A + 6 * MiB, 2 * MiB, 1),
        entry("alloc", A + 2 * MiB, 4 * MiB, 2, TRAIN, user_metadata="phase=train"),
        entry("annotate", A + 2 * MiB, 0, 3, TAG, user_metadata="kept for logging"),
        entry("alloc", A + 6 * MiB, 3 * MiB, 4, TRAIN, user_metadata={"step": 3, "pool": "comm"}),
        entry("free_requested", A + 6 * MiB, 3 * MiB, 5, TRAIN),
        entry("free_completed", A + 6 * MiB, 3 * MiB, 6, TRAIN),
    ]


def block(addr, size, state, frames=()):
    return {"address": addr, "size": size, "requested_size": size, "state": state, "frames": list(frames)}


def segments():
    return [{"device": 0, "address": A, "total_size": 20 * MiB, "allocated_size": 6 * MiB, "active_size": 6 * MiB,
             "requested_size": 6 * MiB, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
             "is_expandable": False, "frames": [],
             "blocks": [block(A, 2 * MiB, "active_allocated"), block(A + 2 * MiB, 4 * MiB, "active_allocated", TRAIN),
                        block(A + 6 * MiB, 14 * MiB, "inactive")]}]


def host_segments():
    return [{"device": -1, "address": H, "total_size": 2 * MiB, "stream": 0, "segment_type": "large",
             "segment_pool_id": (0, 0), "is_expandable": False, "frames": [],
             "blocks": [block(H, 2 * MiB, "active_allocated", TRAIN)]}]


def host_trace():
    h2 = H + 16 * MiB
    return [
        entry("segment_alloc", H, 2 * MiB, 0, TRAIN), entry("alloc", H, 2 * MiB, 0, TRAIN),
        entry("segment_alloc", h2, 1 * MiB, 2, TRAIN), entry("alloc", h2, 1 * MiB, 2, TRAIN),
        entry("free_requested", h2, 1 * MiB, 4, TRAIN), entry("free_completed", h2, 1 * MiB, 4, TRAIN),
        entry("segment_free", h2, 1 * MiB, 5, TRAIN),
    ]


def settings(overflowed, max_entries):
    return {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1, "garbage_collection_threshold": 0.0,
            "expandable_segments": False, "trace_alloc_overflowed": overflowed,
            "trace_alloc_max_entries": max_entries}


def annotations():
    return [{"stage": "START", "name": "train", "device": 0, "time_us": T0 + 2},
            {"stage": "END", "name": "train", "device": 0, "time_us": T0 + 6}]


def overflow():
    return {"segments": segments(), "device_traces": [device_trace()], "allocator_settings": settings(True, 7),
            "external_annotations": annotations(), "host_segments": host_segments(), "host_traces": [host_trace()]}


def late():
    return {"segments": segments(), "device_traces": [device_trace()], "allocator_settings": settings(False, 100000),
            "external_annotations": annotations(), "host_segments": host_segments(), "host_traces": host_trace()}


def badtypes():
    trace = device_trace()
    trace[2]["user_metadata"] = 5  # neither a string nor a dict
    trace[4]["user_metadata"] = {"nested": {"a": 1}, 7: "x"}  # a dict of what cannot be shown
    trace[3] = {"action": "annotate", "time_us": "late", "user_metadata": None}  # no address, bad time
    return {"segments": segments(), "device_traces": [trace],
            "allocator_settings": dict(settings("yes", [1]), trace_alloc_overflowed="yes"),
            "external_annotations": annotations(), "host_segments": 7, "host_traces": {"a": 1}}


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, make in (("overflow", overflow), ("late", late), ("badtypes", badtypes)):
        with open(os.path.join(out, f"newest_hand_{name}.pickle"), "wb") as f:
            pickle.dump(make(), f, protocol=4)
