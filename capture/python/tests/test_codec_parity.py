"""The recorder's two codecs write the same bytes: the compiled one (core's codec through _codec.cpp,
what the tracker module encodes with) and codec.py, the pure-Python fallback. One generated stream
covers every record kind: a real snapshot's events, segments and settings as the polling source
writes them, then every other record with values at the edges of their encodings (negative and
64-bit numbers, non-ASCII and unencodable text, empty lists). It is written once through each codec,
selected with vscap.use() as the recorder does, and compared byte for byte.

ctest builds the compiled codec without torch (tests/CMakeLists.txt: vramscope_codec) and names it
in VRAMSCOPE_CODEC_MODULE; run by hand without it, the test is skipped."""
import gzip
import os
import pickle
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from vramscope import codec, retention, vscap  # noqa: E402
import built_module  # noqa: E402

SAMPLES = os.environ.get("VRAMSCOPE_SAMPLES_DIR", os.path.join(HERE, "..", "..", "..", "samples", "captures"))
U64 = 2 ** 64 - 1
S64_MIN, S64_MAX = -2 ** 63, 2 ** 63 - 1


def compiled_codec():
    return built_module.load("VRAMSCOPE_CODEC_MODULE", "vramscope_codec")


def snapshot():
    with gzip.open(os.path.join(SAMPLES, "leak_cut.pickle.gz"), "rb") as f:
        return pickle.load(f)  # a trusted sample of this repository, not user input


def graph():
    g = retention.Graph()
    g.truncated, g.objects, g.seconds = True, U64 // 2, 1.5
    g.nodes = [(2, "block", "", U64, 0x7F0000000000), (1, "Tensor", "t\u00e9", 0, 0), (0, "dict", "\udc80", 1, 2)]
    g.edges = [(1, 0, 5, ""), (2, 1, 6, ".x"), (0, 2, 255, "[3]")]
    return g


def stream(snap, interner):
    """Every record kind through the active codec, in a file's order of dependencies."""
    out = bytearray()
    out += vscap.meta_record("argv", "train.py \u2713 \udc80") + vscap.meta_record("", 12)
    out += vscap.device_record(0, "NVIDIA H200", 150754820096) + vscap.device_record(-1, "", U64)
    for device, trace in enumerate(snap["device_traces"]):
        for i in range(0, len(trace), 97):
            out += vscap.events_record(device, trace[i:i + 97], interner)
    out += vscap.events_record(0, [], interner)
    out += interner.events_record(3, [(S64_MAX, U64, U64, 9, U64, 0), (S64_MIN, 0, 0, 0, 0, 0)])
    gc_name = interner.string("gc.collect")
    out += interner.take_records()
    out += vscap.annotation_record(0, S64_MIN, 0, gc_name) + vscap.annotation_record(0, S64_MAX, 1, gc_name)
    out += vscap.mark_record(-5, -1, gc_name, S64_MIN) + vscap.mark_record(1, 0, 0, True)
    out += vscap.active().clock_sync_record(S64_MIN, S64_MAX) + vscap.active().event_text_record(-3, U64, 1, gc_name)
    out += vscap.active().reserve_record(7, U64)
    out += vscap.tags_record(0, 10, [(U64, 1), (0, 4)]) + vscap.tags_record(1, 11, [])
    out += vscap.driver_memory_record(0, 12, U64, 0)
    out += vscap.retention_record(1, -7, "oom \u2713", graph(), interner)
    out += vscap.settings_record(snap.get("allocator_settings", {}))
    out += vscap.settings_record({"expandable_segments": True, "max_split_size": 1 << 40, "max_non_split_rounding": 0,
                                  "garbage_collection_threshold": -0.0, "roundup_power2_divisions": {1: 4, 32768: 9},
                                  "PYTORCH_CUDA_ALLOC_CONF": "\u00e9", "x": [1, 2]})
    by_device = {}
    for s in snap["segments"]:
        by_device.setdefault(s["device"], []).append(s)
    for device, segments in sorted(by_device.items()):
        out += vscap.segments_record(device, segments, interner)
    out += vscap.segments_record(2, [], interner)
    out += vscap.dropped_record(U64) + vscap.warning_record("recorder: x") + vscap.part_record(vscap.PART_NATIVE)
    out += vscap.end_record()
    return bytes(out)


def record_kinds(raw):
    """The kind of each record of a chunk's raw bytes (kind, length, body)."""
    def varint(i):
        n = shift = 0
        while True:
            b = raw[i]
            n, shift, i = n | (b & 0x7F) << shift, shift + 7, i + 1
            if b < 0x80:
                return n, i
    kinds, i = set(), 0
    while i < len(raw):
        kind, i = varint(i)
        length, i = varint(i)
        kinds.add(kind)
        i += length
    return kinds


class CodecsAgree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compiled = compiled_codec()
        if cls.compiled is None:
            raise unittest.SkipTest("VRAMSCOPE_CODEC_MODULE names no compiled codec (ctest builds it)")
        cls.snap = snapshot()

    def tearDown(self):
        vscap.use(codec)

    def test_every_record_kind_byte_for_byte(self):
        vscap.use(codec)
        fallback = stream(self.snap, codec.Interner())
        vscap.use(self.compiled)
        compiled = stream(self.snap, self.compiled)  # the compiled module is its own interner
        self.assertEqual(record_kinds(fallback), set(range(1, 21)), "the stream misses record kinds")
        self.assertGreater(sum(len(t) for t in self.snap["device_traces"]), 100)  # a real run's events
        for at, (a, b) in enumerate(zip(fallback, compiled)):
            if a != b:
                self.fail("the codecs differ first at byte %d of %d: %s vs %s" % (
                    at, len(fallback), fallback[at:at + 16].hex(" "), compiled[at:at + 16].hex(" ")))
        self.assertEqual(len(compiled), len(fallback))

    def test_bad_fields_raise_not_crash(self):
        for call in (lambda m: m.device_record(0, "x"), lambda m: m.dropped_record(-1),
                     lambda m: m.tags_record(0, 0, [(1,)]), lambda m: m.segments_record(0, [(0,) * 9]),
                     lambda m: m.settings_record(True, 0, 0, 0.5, [0] * 15, "", []),
                     lambda m: m.stack([("a.py", "f")])):
            with self.assertRaises((TypeError, ValueError, OverflowError)):
                call(self.compiled)


if __name__ == "__main__":
    unittest.main()
