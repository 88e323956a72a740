"""Writes the .vscap format (docs/vscap.md in the vramscope repository) from Python.

The hot path - allocator events - is encoded by the native tracker when it is available; this module
frames records into checksummed chunks and encodes everything else (and the events of the
pure-Python fallback). Pure Python: no torch needed, so it is tested without a GPU.
"""
import struct
import zlib

MAGIC = b"VSCAP\x00\r\n"
VERSION = (1, 0)
CHUNK_MAGIC = b"VSCK"
CODEC_NONE, CODEC_ZSTD, CODEC_ZLIB = 0, 1, 2

STRING, FRAME, STACK, STREAM, DEVICE, SETTINGS, EVENTS, ANNOTATION, MARK = 1, 2, 3, 4, 5, 6, 7, 8, 9
CLOCK_SYNC, SEGMENTS, EVENT_TEXT, DROPPED, META, END, RETENTION, RESERVE = 10, 11, 12, 13, 14, 15, 16, 17
TAGS, DRIVER_MEMORY, PART = 18, 19, 20
# Tags' categories (what the recorder saw a tensor to be; docs/categories.md)
TAG_PARAMETER, TAG_GRADIENT, TAG_OPTIMIZER_STATE, TAG_INPUT = 1, 2, 3, 4
PART_NATIVE = 1

ACTIONS = ["alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
           "segment_map", "segment_unmap", "snapshot", "oom"]
ACTION_CODE = {name: i for i, name in enumerate(ACTIONS)}
STATE_CODE = {"inactive": 0, "active_allocated": 1, "active_pending_free": 2}


def varint(n):
    if n < 0:
        raise ValueError("varint of a negative number")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def svarint(n):
    return varint((n << 1) ^ (n >> 63) if n < 0 else n << 1)


def text(s):
    b = s.encode("utf-8", "replace")
    return varint(len(b)) + b


def record(kind, body):
    return varint(kind) + varint(len(body)) + body


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


class Interner:
    """File ids for strings, frames, stacks and streams; new definitions are returned as records.

    The native tracker has the same interface (string/stack/stream/take_records), so exactly one
    interner numbers a file's ids."""

    def __init__(self):
        self._strings = {"": 0}
        self._frames = {}
        self._stacks = {(): 0}
        self._streams = {}
        self._pending = bytearray()

    def string(self, s):
        i = self._strings.get(s)
        if i is None:
            i = self._strings[s] = len(self._strings)
            self._pending += record(STRING, s.encode("utf-8", "replace"))
        return i

    def frame(self, filename, name, line):
        key = (filename, name, line)
        i = self._frames.get(key)
        if i is None:
            body = varint(self.string(name)) + varint(self.string(filename)) + varint(max(0, int(line)))
            i = self._frames[key] = len(self._frames)
            self._pending += record(FRAME, body)
        return i

    def stack(self, frames):
        """frames: [(filename, name, line)], innermost first."""
        ids = tuple(self.frame(f, n, l) for f, n, l in frames)
        i = self._stacks.get(ids)
        if i is None:
            i = self._stacks[ids] = len(self._stacks)
            self._pending += record(STACK, varint(len(ids)) + b"".join(varint(f) for f in ids))
        return i

    def stream(self, raw):
        i = self._streams.get(raw)
        if i is None:
            i = self._streams[raw] = len(self._streams)
            self._pending += record(STREAM, varint(raw))
        return i

    def take_records(self):
        out, self._pending = bytes(self._pending), bytearray()
        return out


def frames_of(entry):
    return [(f.get("filename", ""), f.get("name", ""), f.get("line", 0)) for f in entry.get("frames", [])]


def events_record(device, entries, interner):
    """An Events record from snapshot-style trace entry dicts (the pure-Python path)."""
    n = len(entries)
    if n == 0:
        return b""
    base = int(entries[0]["time_us"])
    cols = [bytearray() for _ in range(6)]
    prev_t, prev_a = base, 0
    for e in entries:
        action = e["action"]
        addr = int(e.get("device_free", 0) if action == "oom" else e.get("addr", 0))
        t = int(e["time_us"])
        cols[0].append(ACTION_CODE.get(action, 9))
        cols[1] += svarint(t - prev_t)
        cols[2] += svarint(addr - prev_a)
        cols[3] += varint(int(e.get("size", 0)))
        cols[4] += varint(interner.stream(int(e.get("stream", 0))))
        cols[5] += varint(interner.stack(frames_of(e)))
        prev_t, prev_a = t, addr
    body = svarint(device) + varint(n) + svarint(base) + b"".join(bytes(c) for c in cols)
    return interner.take_records() + record(EVENTS, body)


def segments_record(device, segments, interner):
    """The allocator's block list (`_snapshot()["segments"]` of one device) as a Segments record."""
    body = bytearray(svarint(device) + varint(len(segments)))
    for s in segments:
        flags = (1 if s.get("is_expandable") else 0) | (2 if s.get("segment_type") == "small" else 0)
        pool = s.get("segment_pool_id", (0, 0)) or (0, 0)
        body += varint(s["address"]) + varint(s["total_size"]) + varint(int(s.get("stream", 0))) + bytes([flags])
        body += varint(int(pool[0])) + varint(int(pool[1])) + varint(interner.stack(frames_of(s)))
        blocks = s.get("blocks", [])
        body += varint(len(blocks))
        for b in blocks:
            body += varint(b["address"] - s["address"]) + varint(b["size"])
            body += varint(b.get("requested_size", b["size"])) + bytes([STATE_CODE.get(b.get("state"), 0)])
            body += varint(interner.stack(frames_of(b)))
    return interner.take_records() + record(SEGMENTS, bytes(body))


def settings_record(s):
    """`_snapshot()["allocator_settings"]` as a Settings record."""
    mss = int(s.get("max_split_size", -1))
    body = bytearray([1 if s.get("expandable_segments") else 0])
    body += varint(2 ** 64 - 1 if mss < 0 else mss)
    body += varint(max(0, int(s.get("max_non_split_rounding", 20 << 20))) or (20 << 20))
    body += struct.pack("<d", float(s.get("garbage_collection_threshold", 0.0)))
    divisions = [0] * 16
    for mib, div in (s.get("roundup_power2_divisions") or {}).items():
        k = max(1, int(mib)).bit_length() - 1
        if 0 <= k < 16:
            divisions[k] = int(div)
    body += b"".join(varint(d) for d in divisions)
    body += text(str(s.get("PYTORCH_CUDA_ALLOC_CONF", "")))
    items = [(str(k), repr(v) if not isinstance(v, str) else v) for k, v in s.items()]
    body += varint(len(items)) + b"".join(text(k) + text(v) for k, v in items)
    return record(SETTINGS, bytes(body))


def device_record(ordinal, name, total_memory):
    return record(DEVICE, svarint(ordinal) + varint(total_memory) + name.encode("utf-8", "replace"))


def meta_record(key, value):
    return record(META, text(key) + str(value).encode("utf-8", "replace"))


def warning_record(text):
    """A recorder's own finding, shown by readers with their warnings (a Meta record, key `warning`)."""
    return meta_record("warning", text)


def mark_record(device, time_us, name_id, value):
    return record(MARK, svarint(device) + svarint(time_us) + varint(name_id) + svarint(int(value)))


def annotation_record(device, time_us, stage, name_id):
    """An Annotation record: stage 0 START, 1 END (e.g. "gc.collect" around a garbage collection)."""
    return record(ANNOTATION, svarint(device) + svarint(time_us) + bytes([stage]) + varint(name_id))


def dropped_record(count):
    return record(DROPPED, varint(count))


def end_record():
    return record(END, b"")


def retention_record(device, time_us, trigger, graph, interner):
    """A Retention record (kind 16) for a retention.Graph; strings go through the interner."""
    body = bytearray(varint(1) + svarint(device) + svarint(time_us) + varint(interner.string(trigger)))
    body += varint(1 if graph.truncated else 0) + varint(graph.objects) + varint(int(graph.seconds * 1000))
    body += varint(len(graph.nodes))
    for kind, tname, label, gpu, addr in graph.nodes:
        body += bytes([kind]) + varint(interner.string(tname)) + varint(interner.string(label))
        body += varint(gpu) + varint(addr)
    body += varint(len(graph.edges))
    for src, dst, kind, label in graph.edges:
        body += varint(src) + varint(dst) + bytes([kind]) + varint(interner.string(label))
    return interner.take_records() + record(RETENTION, bytes(body))


def tags_record(device, time_us, tags):
    """A Tags record (kind 18): (storage address, category) pairs the recorder saw at time_us."""
    body = bytearray(svarint(device) + svarint(time_us) + varint(len(tags)))
    for address, category in tags:
        body += varint(address) + bytes([category])
    return record(TAGS, bytes(body))


def driver_memory_record(device, time_us, device_used, process_used):
    """A DriverMemory record (kind 19): the driver's used bytes on the device (cuMemGetInfo's total
    minus free, 0 = not sampled) and this process's (NVML's, what nvidia-smi lists; 0 = unknown)."""
    return record(DRIVER_MEMORY, svarint(device) + svarint(time_us) + varint(device_used) + varint(process_used))


def part_record(level):
    """A Part record (kind 20): the records after it are another recorder's of the same process
    (level 1: the CUPTI agent's CUDA-level recording); ids restart as at the start of a file."""
    return record(PART, varint(level))
