"""Writes the .vscap format (docs/vscap.md in the vramscope repository) from Python.

Records are encoded by one of two codecs with the same functions: the compiled tracker module's
(core's codec, when native.py could build it; use() selects it) or codec.py, the pure-Python
fallback held to the same bytes. This module frames records into checksummed chunks and maps
PyTorch's dicts (trace entries, segments, settings) and the recorder's objects to the codec's plain
fields. Pure Python: no torch needed, so it is tested without a GPU.
"""
import struct
import zlib

from . import codec as python_codec
from .codec import Interner  # noqa: F401 (the fallback's; the compiled module is its own interner)
from .codec import (ANNOTATION, CLOCK_SYNC, DEVICE, DRIVER_MEMORY, DROPPED, END, EVENT_TEXT,  # noqa: F401
                    EVENTS, FRAME, MARK, META, PART, RESERVE, RETENTION, SEGMENTS, SETTINGS, STACK, STREAM,
                    STRING, TAGS)

MAGIC = b"VSCAP\x00\r\n"
VERSION = (1, 0)
CHUNK_MAGIC = b"VSCK"
CODEC_NONE, CODEC_ZSTD, CODEC_ZLIB = 0, 1, 2

# Tags' categories (what the recorder saw a tensor to be; docs/categories.md)
TAG_PARAMETER, TAG_GRADIENT, TAG_OPTIMIZER_STATE, TAG_INPUT = 1, 2, 3, 4
PART_NATIVE = 1

ACTIONS = ["alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
           "segment_map", "segment_unmap", "snapshot", "oom"]
ACTION_CODE = {name: i for i, name in enumerate(ACTIONS)}
STATE_CODE = {"inactive": 0, "active_allocated": 1, "active_pending_free": 2}

_codec = python_codec


def use(codec):
    """Encodes every record with `codec` from now on: the compiled tracker module, or codec.py."""
    global _codec
    _codec = codec


def active():
    return _codec


def header():
    return MAGIC + struct.pack("<HHI", VERSION[0], VERSION[1], 0)


def chunk(raw, codec=CODEC_ZLIB, compress=None):
    """One chunk around `raw` records. `compress` (bytes -> bytes) overrides the codec's compressor."""
    if codec == CODEC_ZLIB:
        stored = zlib.compress(raw, 3)
    elif compress is not None:
        stored = compress(raw)
    else:
        codec, stored = CODEC_NONE, raw
    return CHUNK_MAGIC + struct.pack("<B3xIII", codec, len(stored), len(raw),
                                     zlib.crc32(stored) & 0xFFFFFFFF) + stored


def frames_of(entry):
    return [(f.get("filename", ""), f.get("name", ""), f.get("line", 0)) for f in entry.get("frames", [])]


def events_record(device, entries, interner):
    """New definitions and an Events record from snapshot-style trace entry dicts (the polling
    source's); nothing for no entries."""
    events = []
    for e in entries:
        action = e["action"]
        addr = int(e.get("device_free", 0) if action == "oom" else e.get("addr", 0))
        events.append((int(e["time_us"]), addr, int(e.get("size", 0)), ACTION_CODE.get(action, 9),
                       int(e.get("stream", 0)), interner.stack(frames_of(e))))
    return interner.events_record(device, events)


def segments_record(device, segments, interner):
    """The allocator's block list (`_snapshot()["segments"]` of one device) as a Segments record."""
    fields = []
    for s in segments:
        pool = s.get("segment_pool_id", (0, 0)) or (0, 0)
        stack = interner.stack(frames_of(s))
        blocks = [(b["address"] - s["address"], b["size"], b.get("requested_size", b["size"]),
                   STATE_CODE.get(b.get("state"), 0), interner.stack(frames_of(b))) for b in s.get("blocks", [])]
        fields.append((s["address"], s["total_size"], int(s.get("stream", 0)), bool(s.get("is_expandable")),
                       s.get("segment_type") == "small", int(pool[0]), int(pool[1]), stack, blocks))
    return interner.take_records() + _codec.segments_record(device, fields)


def settings_record(s):
    """`_snapshot()["allocator_settings"]` as a Settings record."""
    mss = int(s.get("max_split_size", -1))
    divisions = [0] * 16
    for mib, div in (s.get("roundup_power2_divisions") or {}).items():
        k = max(1, int(mib)).bit_length() - 1
        if 0 <= k < 16:
            divisions[k] = int(div)
    items = [(str(k), repr(v) if not isinstance(v, str) else v) for k, v in s.items()]
    return _codec.settings_record(bool(s.get("expandable_segments")), 2 ** 64 - 1 if mss < 0 else mss,
                                  max(0, int(s.get("max_non_split_rounding", 20 << 20))) or (20 << 20),
                                  float(s.get("garbage_collection_threshold", 0.0)), divisions,
                                  str(s.get("PYTORCH_CUDA_ALLOC_CONF", "")), items)


def device_record(ordinal, name, total_memory):
    return _codec.device_record(ordinal, name, total_memory)


def meta_record(key, value):
    return _codec.meta_record(key, str(value))


def warning_record(text):
    """A recorder's own finding, shown by readers with their warnings (a Meta record, key `warning`)."""
    return meta_record("warning", text)


def mark_record(device, time_us, name_id, value):
    return _codec.mark_record(device, time_us, name_id, int(value))


def annotation_record(device, time_us, stage, name_id):
    """An Annotation record: stage 0 START, 1 END (e.g. "gc.collect" around a garbage collection)."""
    return _codec.annotation_record(device, time_us, stage, name_id)


def dropped_record(count):
    return _codec.dropped_record(count)


def end_record():
    return _codec.end_record()


def retention_record(device, time_us, trigger, graph, interner):
    """A Retention record (kind 16) for a retention.Graph; strings go through the interner."""
    trigger_id = interner.string(trigger)
    nodes = [(kind, interner.string(tname), interner.string(label), gpu, addr)
             for kind, tname, label, gpu, addr in graph.nodes]
    edges = [(src, dst, kind, interner.string(label)) for src, dst, kind, label in graph.edges]
    body = _codec.retention_record(device, time_us, trigger_id, graph.truncated, graph.objects,
                                   int(graph.seconds * 1000), nodes, edges)
    return interner.take_records() + body


def tags_record(device, time_us, tags):
    """A Tags record (kind 18): (storage address, category) pairs the recorder saw at time_us."""
    return _codec.tags_record(device, time_us, tags)


def driver_memory_record(device, time_us, device_used, process_used):
    """A DriverMemory record (kind 19): the driver's used bytes on the device (cuMemGetInfo's total
    minus free, 0 = not sampled) and this process's (NVML's, what nvidia-smi lists; 0 = unknown)."""
    return _codec.driver_memory_record(device, time_us, device_used, process_used)


def part_record(level):
    """A Part record (kind 20): the records after it are another recorder's of the same process
    (level 1: the CUPTI agent's CUDA-level recording); ids restart as at the start of a file."""
    return _codec.part_record(level)
