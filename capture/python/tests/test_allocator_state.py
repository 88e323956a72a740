"""The recorder's reader of the allocator's block list and settings (vramscope/_allocator_state.h),
which replaces torch.cuda.memory._snapshot() for the end state and the retention graphs (so that no
stack goes through PyTorch's unwinder, which imports torch._inductor): on a snapshot described here,
through a stand-in for PyTorch's allocator header (tests/torch_headers), it gives _snapshot()'s
"segments" - each block's address the segment's plus the sizes before it, its state
active_allocated / active_pending_free / inactive, "large"/"small", the pool id, the stream, the
frames of each block and segment that has a stack and [] for one without (only when asked) - and
"allocator_settings" with _snapshot()'s keys (max_split_size -1 when unlimited, roundup divisions
keyed "1", "2", "4"...), never asking the allocator for its trace ring. The GPU check against real
PyTorch is tests/gpu/own_symbols_check.py.
    VRAMSCOPE_STATE_MODULE=build/tests/vramscope_state...so python3 test_allocator_state.py -v"""
import os
import sys
import unittest

import built_module

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from vramscope import vscap  # noqa: E402

probe = built_module.load("VRAMSCOPE_STATE_MODULE", "vramscope_state")
if probe is None:
    sys.exit("VRAMSCOPE_STATE_MODULE: the built probe module (tests/CMakeLists.txt) is needed")


def where_allocated():
    return 1


def with_block(x):
    with x:
        return 1


def offset_without_line(code):
    """An instruction offset of `code` that has no line (PyCode_Addr2Line gives -1), if any."""
    return next((start for start, _, line in code.co_lines() if line is None), None)


MiB = 1 << 20
CODE = where_allocated.__code__
STACK = [(CODE, 0)]
FRAMES = [{"filename": __file__, "name": "where_allocated", "line": CODE.co_firstlineno}]
SETTINGS = {"max_split_size": None, "garbage_collection_threshold": 0.6, "expandable_segments": True,
            "conf": "expandable_segments:True", "roundup": [0, 4, 8]}


def block(size, allocated=True, active=True, frames=None, requested=None):
    return {"size": size, "requested_size": requested or size, "allocated": allocated, "active": active,
            "frames": frames}


def segment(address, blocks, large=True, pool=(0, 0), frames=None, device=0, stream=0):
    return {"device": device, "address": address, "total_size": sum(b["size"] for b in blocks), "stream": stream,
            "is_large": large, "is_expandable": False, "pool": pool, "frames": frames, "blocks": blocks}


class AllocatorState(unittest.TestCase):
    def setUp(self):
        probe.set_snapshot([
            segment(0x7f0000000000, [block(MiB, frames=STACK, requested=MiB - 24), block(MiB, allocated=False),
                                     block(2 * MiB, allocated=False, active=False)], frames=STACK),
            segment(0x7f0000400000, [block(512, frames=STACK), block(2 * MiB - 512, allocated=False, active=False)],
                    large=False, pool=(1, 7), device=1, stream=0x5555aaaa0000),
        ], SETTINGS)

    def test_blocks_as_snapshot_gives_them(self):
        state = probe.state(True)
        self.assertFalse(probe.traces_asked())
        first, second = state["segments"]
        self.assertEqual([(b["address"], b["size"], b["state"]) for b in first["blocks"]], [
            (0x7f0000000000, MiB, "active_allocated"),
            (0x7f0000000000 + MiB, MiB, "active_pending_free"),
            (0x7f0000000000 + 2 * MiB, 2 * MiB, "inactive")])
        self.assertEqual(first["blocks"][0]["requested_size"], MiB - 24)
        self.assertEqual((first["device"], first["total_size"], first["allocated_size"], first["segment_type"]),
                         (0, 4 * MiB, MiB, "large"))
        self.assertEqual((second["device"], second["segment_type"], tuple(second["segment_pool_id"]),
                          second["stream"]), (1, "small", (1, 7), 0x5555aaaa0000))
        self.assertEqual(second["blocks"][1]["address"], 0x7f0000400000 + 512)

    def test_frames_only_when_asked_and_empty_without_a_stack(self):
        state = probe.state(True)
        first = state["segments"][0]
        self.assertEqual(first["frames"], FRAMES)
        self.assertEqual(first["blocks"][0]["frames"], FRAMES)
        self.assertEqual(first["blocks"][1]["frames"], [])  # no stack: [] as _snapshot() gives it
        self.assertIs(first["frames"][0], first["blocks"][0]["frames"][0])  # one dict per frame, shared
        bare = probe.state(False)
        self.assertTrue(all("frames" not in b for s in bare["segments"] for b in s["blocks"]))
        self.assertTrue(all("frames" not in s for s in bare["segments"]))

    def test_settings_with_snapshots_keys(self):
        settings = probe.state(False)["allocator_settings"]
        self.assertEqual(settings["max_split_size"], -1)  # unlimited (SIZE_MAX) as int64
        self.assertEqual(settings["garbage_collection_threshold"], 0.6)
        self.assertIs(settings["expandable_segments"], True)
        self.assertEqual(settings["PYTORCH_CUDA_ALLOC_CONF"], "expandable_segments:True")
        self.assertEqual(settings["roundup_power2_divisions"], {"1": 0, "2": 4, "4": 8})
        for key in ("pinned_num_register_threads", "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
                    "graph_capture_record_stream_reuse"):
            self.assertIn(key, settings)
        probe.set_snapshot([], dict(SETTINGS, max_split_size=200 * MiB))
        self.assertEqual(probe.state(False)["allocator_settings"]["max_split_size"], 200 * MiB)

    def test_a_frame_without_a_line_is_minus_one_and_encodes(self):
        code = with_block.__code__
        offset = offset_without_line(code)
        if offset is None:
            self.skipTest("no instruction without a line in this Python's code")
        probe.set_snapshot([segment(0x7f0000000000, [block(512, frames=[(code, offset), (CODE, 0)])])], SETTINGS)
        state = probe.state(True)
        frames = state["segments"][0]["blocks"][0]["frames"]
        self.assertEqual(frames[0], {"filename": __file__, "name": "with_block", "line": -1})  # as _snapshot()
        # the end state's path: the records encode it (a line of 2^64-1 made the compiled codec raise)
        record = vscap.segments_record(0, state["segments"], vscap.Interner())
        self.assertGreater(len(record), 0)

    def test_empty_allocator(self):
        probe.set_snapshot([], SETTINGS)
        self.assertEqual(probe.state(True)["segments"], [])


if __name__ == "__main__":
    unittest.main()
