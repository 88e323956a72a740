"""The pure-Python .vscap record encoders: the fallback for when the tracker module cannot be
compiled. The compiled module encodes with core's codec (_codec.cpp: the same functions, taking the
same plain fields); test_codec_parity.py holds the two to the same bytes, and test_vscap_golden.py
this one to core's golden files. vscap.py picks one of them and maps PyTorch's dicts to fields.
"""
import struct

STRING, FRAME, STACK, STREAM, DEVICE, SETTINGS, EVENTS, ANNOTATION, MARK = 1, 2, 3, 4, 5, 6, 7, 8, 9
CLOCK_SYNC, SEGMENTS, EVENT_TEXT, DROPPED, META, END, RETENTION, RESERVE = 10, 11, 12, 13, 14, 15, 16, 17
TAGS, DRIVER_MEMORY, PART = 18, 19, 20


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


def int64(n):
    """n wrapped to a signed 64-bit integer, as the compiled codec's deltas are."""
    return (n + 2 ** 63) % 2 ** 64 - 2 ** 63


def utf8(s):
    return s.encode("utf-8", "replace")


def text(s):
    b = utf8(s)
    return varint(len(b)) + b


def record(kind, body):
    return varint(kind) + varint(len(body)) + body


class Interner:
    """File ids for strings, frames, stacks and streams; new definitions are returned as records.
    The compiled module is an interner with the same functions (its own, one per process)."""

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
            self._pending += record(STRING, utf8(s))
        return i

    def _frame(self, filename, name, line):
        line = max(0, int(line))
        key = (filename, name, line)
        i = self._frames.get(key)
        if i is None:
            body = varint(self.string(name)) + varint(self.string(filename)) + varint(line)
            i = self._frames[key] = len(self._frames)
            self._pending += record(FRAME, body)
        return i

    def stack(self, frames):
        """frames: [(filename, name, line)], innermost first."""
        ids = tuple(self._frame(f, n, l) for f, n, l in frames)
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

    def events_record(self, device, events):
        """New definitions and an Events record: events are (time_us, addr, size, action, raw stream,
        stack id), in order; nothing for no events."""
        if not events:
            return b""
        streams = [self.stream(e[4]) for e in events]
        cols = [bytearray() for _ in range(6)]
        prev_t, prev_a = events[0][0], 0
        for (t, addr, size, action, _, stack), stream in zip(events, streams):
            cols[0].append(action)
            cols[1] += svarint(int64(t - prev_t))
            cols[2] += svarint(int64(addr - prev_a))
            cols[3] += varint(size)
            cols[4] += varint(stream)
            cols[5] += varint(stack)
            prev_t, prev_a = t, addr
        body = svarint(device) + varint(len(events)) + svarint(events[0][0]) + b"".join(bytes(c) for c in cols)
        return self.take_records() + record(EVENTS, body)


def device_record(ordinal, name, total_memory):
    return record(DEVICE, svarint(ordinal) + varint(total_memory) + utf8(name))


def meta_record(key, value):
    return record(META, text(key) + utf8(value))


def mark_record(device, time_us, name_id, value):
    return record(MARK, svarint(device) + svarint(time_us) + varint(name_id) + svarint(value))


def annotation_record(device, time_us, stage, name_id):
    return record(ANNOTATION, svarint(device) + svarint(time_us) + bytes([stage]) + varint(name_id))


def clock_sync_record(monotonic_ns, realtime_ns):
    return record(CLOCK_SYNC, svarint(monotonic_ns) + svarint(realtime_ns))


def event_text_record(device, index, kind, text_id):
    return record(EVENT_TEXT, svarint(device) + varint(index) + bytes([kind]) + varint(text_id))


def dropped_record(count):
    return record(DROPPED, varint(count))


def reserve_record(device, events):
    return record(RESERVE, svarint(device) + varint(events))


def end_record():
    return record(END, b"")


def part_record(level):
    return record(PART, varint(level))


def tags_record(device, time_us, tags):
    body = bytearray(svarint(device) + svarint(time_us) + varint(len(tags)))
    for address, category in tags:
        body += varint(address) + bytes([category])
    return record(TAGS, bytes(body))


def driver_memory_record(device, time_us, device_used, process_used):
    return record(DRIVER_MEMORY, svarint(device) + svarint(time_us) + varint(device_used) + varint(process_used))


def settings_record(expandable, max_split, max_non_split_rounding, gc_threshold, divisions, alloc_conf, items):
    body = bytearray([1 if expandable else 0])
    body += varint(max_split) + varint(max_non_split_rounding) + struct.pack("<d", gc_threshold)
    body += b"".join(varint(d) for d in divisions)
    body += text(alloc_conf)
    body += varint(len(items)) + b"".join(text(k) + text(v) for k, v in items)
    return record(SETTINGS, bytes(body))


def segments_record(device, segments):
    """segments: (address, total, raw stream, expandable, small, pool0, pool1, stack id, blocks),
    blocks: (offset, size, requested, state, stack id)."""
    body = bytearray(svarint(device) + varint(len(segments)))
    for address, total, stream, expandable, small, pool0, pool1, stack, blocks in segments:
        body += varint(address) + varint(total) + varint(stream) + bytes([(1 if expandable else 0) | (2 if small else 0)])
        body += varint(pool0) + varint(pool1) + varint(stack) + varint(len(blocks))
        for offset, size, requested, state, block_stack in blocks:
            body += varint(offset) + varint(size) + varint(requested) + bytes([state]) + varint(block_stack)
    return record(SEGMENTS, bytes(body))


def retention_record(device, time_us, trigger_id, truncated, objects, millis, nodes, edges):
    """nodes: (kind, type id, label id, gpu bytes, address); edges: (src, dst, kind, label id)."""
    body = bytearray(varint(1) + svarint(device) + svarint(time_us) + varint(trigger_id))
    body += varint(1 if truncated else 0) + varint(objects) + varint(millis) + varint(len(nodes))
    for kind, type_id, label_id, gpu, addr in nodes:
        body += bytes([kind]) + varint(type_id) + varint(label_id) + varint(gpu) + varint(addr)
    body += varint(len(edges))
    for src, dst, kind, label_id in edges:
        body += varint(src) + varint(dst) + bytes([kind]) + varint(label_id)
    return record(RETENTION, bytes(body))
