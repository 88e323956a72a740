"""The pure-Python fallback (codec.py, through vscap.py) writes the same bytes as vramscope's one
.vscap encoder (core/io/VscapEncode*.h).

tests/golden/vscap/*.bin are what that encoder writes for fixed inputs (tests/tst_vscap_codec.cpp,
which also holds the torch extension's interner to them); the same inputs are spelled here in Python
and each record must come out byte for byte. No torch, no GPU: run it directly
(python3 capture/python/tests/test_vscap_golden.py) or with pytest. After a deliberate layout
change, regenerate the files with scripts/regen-vscap-golden.sh and update both tests."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from vramscope import retention, vscap  # noqa: E402

GOLDEN = os.environ.get("VRAMSCOPE_GOLDEN_DIR", os.path.join(HERE, "..", "..", "..", "tests", "golden", "vscap"))

T0 = 1_700_000_000_000_000  # µs
STREAM_A, ADDR = 0x7F0000001000, 0x7F0000000000
F1 = [("a.py", "f", 10), ("b.py", "g", 70000)]
F2 = [("b.py", "g", 70000)]


def golden(name):
    with open(os.path.join(GOLDEN, name + ".bin"), "rb") as f:
        return f.read()


def frames(fs):
    return [{"filename": f, "name": n, "line": l} for f, n, l in fs]


def interned(*stacks, streams=(), strings=()):
    """An interner that already holds these ids, its definitions taken (they are the tables case)."""
    i = vscap.Interner()
    for s in stacks:
        i.stack(s)
    for s in streams:
        i.stream(s)
    for s in strings:
        i.string(s)
    i.take_records()
    return i


def event(action, t, addr, size, stream, fs):
    e = {"action": action, "time_us": t, "size": size, "stream": stream, "frames": frames(fs)}
    e["device_free" if action == "oom" else "addr"] = addr
    return e


class MatchesTheCodec(unittest.TestCase):
    def same(self, got, name):
        self.assertEqual(got.hex(" "), golden(name).hex(" "), name)

    def test_tables(self):
        i = vscap.Interner()
        self.assertEqual(i.stack(F1), 1)
        self.assertEqual(i.stack(F2), 2)
        self.assertEqual(i.stack([]), 0)
        self.assertEqual(i.stack(F1), 1)
        self.assertEqual(i.string("h\u00e9llo \u2713"), 5)
        self.assertEqual([i.stream(STREAM_A), i.stream(0), i.stream(STREAM_A)], [0, 1, 0])
        self.assertEqual(i.stack([("a.py", "f", 11)]), 3)
        self.same(i.take_records(), "tables")

    def test_events(self):
        entries = [
            event("alloc", T0, ADDR + 0x200000, 512, STREAM_A, F1),
            event("segment_alloc", T0 + 5, ADDR, 2 << 20, 0, []),
            event("free_requested", T0 + 4, ADDR + 0x200000, 512, STREAM_A, F1),  # time and address go back
            event("free_completed", T0 + 9, ADDR + 0x200000, 512, STREAM_A, []),
            event("segment_free", T0 + 9, ADDR, 2 << 20, 0, []),
            event("segment_map", T0 + 20, ADDR + (1 << 30), 1 << 21, 0, F1),
            event("segment_unmap", T0 + 21, ADDR + (1 << 30), 1 << 21, 0, []),
            event("snapshot", T0 + 30, 0, 0, 0, []),
            event("oom", T0 + 100, 1234567, 1 << 30, 0, F1),  # the address is the free device memory
            event("from_the_future", T0 + 101, 0, 0, 0, []),
        ]
        i = interned(F1, streams=(STREAM_A, 0))
        self.same(vscap.events_record(1, entries, i), "events")

    def test_device(self):
        self.same(vscap.device_record(0, "NVIDIA H200", 150754820096) + vscap.device_record(3, "GPU \u00e9", 0),
                  "device")

    def test_meta(self):
        got = vscap.meta_record("recorder", "vramscope-python") + vscap.meta_record("argv", "train.py --lr=1e-3 \u2713")
        self.same(got + vscap.meta_record("empty", ""), "meta")

    def test_marks(self):
        got = vscap.annotation_record(0, T0, 0, 3) + vscap.annotation_record(0, T0 + 10, 1, 3)
        got += vscap.mark_record(1, T0 + 20, 4, 42) + vscap.mark_record(1, T0 + 30, 4, -7)
        self.same(got, "marks")

    def test_levels(self):
        got = vscap.tags_record(0, T0 + 40, [(0x7F0000000000, 1), (0x7F0000200000, 2), (0x7F0000400000, 3),
                                             (0x7F0000600000, 4)])
        got += vscap.driver_memory_record(0, T0 + 50, 3313893376, 2373976064)
        got += vscap.driver_memory_record(1, T0 + 60, 1 << 20, 0) + vscap.part_record(vscap.PART_NATIVE)
        self.same(got, "levels")

    def test_segments(self):
        segments = [
            {"address": ADDR, "total_size": 2 << 20, "stream": 0, "segment_type": "large", "frames": frames(F1),
             "blocks": [{"address": ADDR, "size": 1024, "requested_size": 1000, "state": "active_allocated",
                         "frames": frames(F2)},
                        {"address": ADDR + 0x400, "size": (2 << 20) - 1024, "state": "inactive"}]},
            {"address": ADDR + 0x400000, "total_size": 20 << 20, "stream": STREAM_A, "segment_type": "small",
             "is_expandable": True, "segment_pool_id": (1, 2),
             "blocks": [{"address": ADDR + 0x400000, "size": 512, "requested_size": 512,
                         "state": "active_pending_free"}]},
            {"address": ADDR + 0x2000000, "total_size": 2 << 20, "blocks": []},
        ]
        self.same(vscap.segments_record(1, segments, interned(F1, F2)), "segments")

    def test_settings(self):
        s = {"expandable_segments": True, "max_split_size": -1, "max_non_split_rounding": 1 << 20,
             "garbage_collection_threshold": 0.6, "roundup_power2_divisions": {1: 4, 256: 8},
             "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
        self.same(vscap.settings_record(s), "settings")

    def test_retention(self):
        g = retention.Graph()
        g.truncated, g.objects, g.seconds = True, 1234, 0.25
        g.nodes = [(2, "block", "", 1 << 20, ADDR), (1, "Tensor", "t", 0, 0), (0, "Tensor", "", 0, 0)]
        g.edges = [(1, 0, 5, ""), (2, 1, 6, ".x")]
        i = interned(strings=("oom", "Tensor", "t", "block", ".x"))
        self.same(vscap.retention_record(0, T0, "oom", g, i), "retention")

    def test_small(self):
        self.same(vscap.dropped_record(12345) + vscap.end_record(), "small")

    def test_container(self):
        raw = vscap.meta_record("recorder", "test") + vscap.end_record()
        self.same(vscap.header() + vscap.chunk(raw, codec=vscap.CODEC_NONE), "container")


if __name__ == "__main__":
    unittest.main()
