"""The recorder's own symbolization of Python stacks (vramscope/_own_symbols.h), which replaces
PyTorch's so that a recording never imports torch._inductor: each frame is its code object's file,
name and the line PyCode_Addr2Line gives for its instruction offset, innermost first as given; after a
frame of inductor-generated code come the frames PyCodeCache.stack_frames_for_code says it stands
for - asked only when torch._inductor.codecache is already imported, and a lookup that fails or
lies costs only those extra frames; TorchScript frames come first, as in PyTorch's symbolize();
tracebacks with C++ frames go to PyTorch's symbolize().
Built against a stand-in for PyTorch's header (tests/torch_headers); the GPU check against real
PyTorch is tests/gpu/own_symbols_check.py.
    VRAMSCOPE_SYMBOLS_MODULE=build/tests/vramscope_symbols...so python3 test_own_symbols.py -v"""
import dis
import sys
import types
import unittest

import built_module

probe = built_module.load("VRAMSCOPE_SYMBOLS_MODULE", "vramscope_symbols")
if probe is None:
    sys.exit("VRAMSCOPE_SYMBOLS_MODULE: the built probe module (tests/CMakeLists.txt) is needed")
CODECACHE = "torch._inductor.codecache"


def sample(x):
    y = x + 1
    if y > 2:
        y = y * 3
    return [y,
            x]


def line_at(code, offset):
    """The line of the instruction at `offset`, from the code object's own table (co_lines from 3.10;
    before, the last line start at or before it)."""
    if not hasattr(code, "co_lines"):
        return [line for start, line in dis.findlinestarts(code) if start <= offset][-1]
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return None


class FakeCodeCache:
    """Stands for torch._inductor.codecache: PyCodeCache.stack_frames_for_code(filename, line)."""

    def __init__(self, answer):
        self.PyCodeCache = types.SimpleNamespace(stack_frames_for_code=answer)


class OwnSymbols(unittest.TestCase):
    def tearDown(self):
        sys.modules.pop(CODECACHE, None)

    def test_every_instruction_gets_its_line(self):
        code = sample.__code__
        offsets = [i.offset for i in dis.get_instructions(code)]
        got = probe.symbolize([[(code, o)] for o in offsets], [False] * len(offsets))
        for o, frames in zip(offsets, got):
            want = line_at(code, o)
            self.assertEqual(frames, [(__file__, "sample", want if want is not None else 2 ** 64 - 1)], o)
        self.assertGreaterEqual(len({f[0][2] for f in got}), 4)  # the lines differ: not one line for all

    def test_frames_keep_their_order_and_repeat(self):
        inner, outer = sample.__code__, OwnSymbols.test_frames_keep_their_order_and_repeat.__code__
        stack = [(inner, 0), (outer, 2), (inner, 0)]
        got = probe.symbolize([stack, stack[:1]], [False, False])
        self.assertEqual([f[1] for f in got[0]], ["sample", "test_frames_keep_their_order_and_repeat", "sample"])
        self.assertEqual(got[0][0], got[0][2])
        self.assertEqual(got[1], got[0][:1])
        self.assertEqual(probe.distinct(), 2)  # each distinct frame symbolized once, as PyTorch's

    def test_generated_code_frames_only_once_codecache_is_loaded(self):
        code = sample.__code__
        before = set(sys.modules)
        plain = probe.symbolize([[(code, 0)]], [False])
        self.assertEqual(len(plain[0]), 1)
        self.assertEqual(set(sys.modules) - before, set())  # nothing imported to ask

        asked = []

        def frames_for(filename, line):
            asked.append((filename, line))
            if filename == __file__:
                return [{"filename": "model.py", "name": "forward", "line": 12},
                        {"filename": "model.py", "name": "block", "line": 30}]
            return None
        sys.modules[CODECACHE] = FakeCodeCache(frames_for)
        got = probe.symbolize([[(code, 0), (code, 0)]], [False])
        self.assertEqual(got[0][0], plain[0][0])
        self.assertEqual(got[0][1:3], [("model.py", "forward", 12), ("model.py", "block", 30)])
        self.assertEqual(got[0][3:], got[0][:3])  # the same frame again: its extras again
        self.assertEqual(asked, [(__file__, plain[0][0][2])])  # asked once per (code, offset)

    def test_a_failing_or_lying_lookup_costs_only_the_extra_frames(self):
        code = sample.__code__
        plain = probe.symbolize([[(code, 0)]], [False])[0]

        def raises(filename, line):
            raise RuntimeError("inductor broke")
        answers = [raises, lambda f, l: 42, lambda f, l: [{"line": "x"}, 7],
                   lambda f, l: [{"filename": b"bytes", "name": None, "line": 3}]]
        results = []
        for answer in answers:
            sys.modules[CODECACHE] = FakeCodeCache(answer)
            results.append(probe.symbolize([[(code, 0)]], [False])[0])
        self.assertEqual(results[0], plain)
        self.assertEqual(results[1], plain)
        self.assertEqual(results[2], plain + [("", "", 0), ("", "", 0)])  # unreadable entries: empty frames
        self.assertEqual(results[3], plain + [("", "", 3)])
        self.assertIsNone(sys.exc_info()[0])
        sys.modules[CODECACHE] = types.SimpleNamespace()  # no PyCodeCache at all
        self.assertEqual(probe.symbolize([[(code, 0)]], [False])[0], plain)

    def test_torchscript_frames_first_then_python(self):
        # as PyTorch's symbolize() orders a stack without C++ frames; TorchScript keeps the function's
        # name where the file goes, and a frame without source is ("??", name, 0)
        code = sample.__code__
        got = probe.symbolize([[(code, 0)], [(code, 0)]], [False, False],
                              [[("forward", "model.py", 12), ("helper", None, 0)], None])
        self.assertEqual(got[0][:2], [("model.py", "forward", 12), ("??", "helper", 0)])
        self.assertEqual(got[0][2:], got[1])
        self.assertEqual(got[1][0][1], "sample")

    def test_stacks_with_cpp_frames_go_to_pytorch(self):
        code = sample.__code__
        got = probe.symbolize([[(code, 0)], [(code, 0), (code, 2)], [(code, 0)]], [False, True, False])
        self.assertEqual(got[1], [("<pytorch>", "symbolize", 2)])  # the stand-in's answer: 2 Python frames
        self.assertEqual(got[0], got[2])
        self.assertEqual(got[0][0][1], "sample")

    def test_bad_arguments(self):
        with self.assertRaises(TypeError):
            probe.symbolize([[("not code", 0)]], [False])
        with self.assertRaises(ValueError):
            probe.symbolize([[]], [])
        self.assertEqual(probe.symbolize([[]], [False]), [[]])


if __name__ == "__main__":
    unittest.main()
