"""The recorder's own gatherer of the Python stacks of allocator events (vramscope/_own_stacks.h),
called as PyTorch's allocator calls it (without the GIL): it says where it can read this Python's
frames (its frames must equal PyTorch's gather), hands out one cached traceback per distinct stack
(numbered in the order first seen), a different one for another line or another caller, the same
from another thread for the same frames, and leaves stacks deeper than it reads to PyTorch's
gather (not cached). Built against a stand-in for PyTorch's header (tests/torch_headers); the GPU
check against real PyTorch is tests/gpu/own_stacks_check.py.
    VRAMSCOPE_OWN_STACKS_MODULE=build/tests/vramscope_own_stacks...so python3 test_own_stacks.py -v"""
import sys
import threading
import unittest

import built_module

probe = built_module.load("VRAMSCOPE_OWN_STACKS_MODULE", "vramscope_own_stacks")
if probe is None:
    sys.exit("VRAMSCOPE_OWN_STACKS_MODULE: the built probe module (tests/CMakeLists.txt) is needed")
READS = sys.version_info[:2] in ((3, 11), (3, 12), (3, 13))  # the versions the frame reader knows
MAX_FRAMES = 256


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


def site_a():
    return probe.context(3)[1]


def site_b():
    return probe.context(3)[1]


@unittest.skipUnless(READS, "the frame reader knows CPython 3.11-3.13 only")
class OwnStacks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.why = probe.check()

    def test_frames_read_equal_pytorchs_gather(self):
        self.assertEqual(self.why, "")

    def test_one_cached_stack_per_distinct_stack(self):
        before = probe.size()
        a1, a2 = site_a(), site_a()  # two calls (two instructions) of one line: two raw stacks
        self.assertNotEqual(a1, a2)
        self.assertEqual(probe.size(), before + 2)
        self.assertEqual(sorted((a1, a2)), [before, before + 1])  # numbered in the order first seen
        # one call instruction, repeatedly: one stack once CPython has specialised the call (3.11
        # then records the call's last inline cache entry as the caller's instruction: the same
        # line, another offset - PyTorch's gather sees the same, and both symbolize to one stack)
        again = [site_a() for _ in range(10)]
        self.assertEqual(len(set(again[-5:])), 1)
        self.assertLessEqual(len(set(again)), 2)
        self.assertEqual(probe.size(), before + 2 + len(set(again)))
        b = site_b()
        self.assertNotIn(b, (a1, a2) + tuple(again))
        self.assertEqual(probe.size(), before + 3 + len(set(again)))

    def test_another_thread_same_frames_same_stack(self):
        numbers = []
        for _ in range(5):  # the same frames each time (thread bootstrap, run, site_a)
            t = threading.Thread(target=lambda: numbers.append(site_a()))
            t.start()
            t.join()
        self.assertNotIn(-1, numbers)
        self.assertLessEqual(len(set(numbers)), 2)  # (a call CPython specialises meanwhile: see above)
        self.assertEqual(numbers[-1], numbers[-2])

    def test_deeper_than_read_is_left_to_pytorch(self):
        before = probe.size()
        self.assertEqual(deep(MAX_FRAMES + 10, site_a), -1)  # PyTorch's gather: not cached
        self.assertEqual(probe.size(), before)
        self.assertNotEqual(deep(MAX_FRAMES - 40, site_a), -1)  # within reach: cached
        self.assertEqual(probe.size(), before + 1)

    def test_inside_torchscript_left_to_pytorch(self):
        # PyTorch's stacks="python" gather holds the script's frames too: not ours to read
        before = probe.size()
        probe.script_frames(2)
        try:
            self.assertEqual(site_a(), -1)  # PyTorch's gather: not cached
        finally:
            probe.script_frames(0)
        self.assertEqual(probe.size(), before)
        self.assertNotEqual(site_a(), -1)

    def test_many_calls_report_their_time_and_stack(self):
        # (bench/bench_own_stacks.py prints the figures; no timing is asserted here)
        ns, number = deep(40, lambda: probe.context(1000))
        self.assertGreater(ns, 0.0)
        self.assertNotEqual(number, -1)


class Unreadable(unittest.TestCase):
    @unittest.skipIf(READS, "this Python's frames are read")
    def test_says_why_not(self):
        self.assertIn("cannot be read without the GIL", probe.check())


if __name__ == "__main__":
    unittest.main()
