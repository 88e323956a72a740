"""The recorder's GIL-free Python stack reader (vramscope/_py_frames.cpp, used for the stacks of
allocator events instead of PyTorch's gather) reads exactly the frames PyTorch's gather walks
(PyEval_GetFrame, PyFrame_GetBack, PyFrame_GetLasti), wherever the allocation happens: deep calls,
generators, coroutines, threads, exception handlers, finalizers, with the GIL released; says -1 when
the stack is deeper than its room, and 0 on a thread without Python.
    VRAMSCOPE_FRAMES_MODULE=build/tests/vramscope_py_frames...so python3 test_py_frames.py -v"""
import asyncio
import contextlib
import os
import sys
import threading
import unittest

import built_module

probe = built_module.load("VRAMSCOPE_FRAMES_MODULE", "vramscope_py_frames")
if probe is None:
    sys.exit("VRAMSCOPE_FRAMES_MODULE: the built probe module (tests/CMakeLists.txt) is needed")
READS = sys.version_info[:2] in ((3, 11), (3, 12), (3, 13))  # the versions the reader knows


def deep(n, fn):
    return deep(n - 1, fn) if n else fn()


class ReaderMatchesPyTorchsWalk(unittest.TestCase):
    def same(self):
        mine, theirs, n = probe.both()
        if not READS:
            self.assertEqual(n, -1)
            return 0
        self.assertEqual(mine, theirs)
        self.assertEqual(n, len(theirs))
        self.assertGreater(n, 0)
        return n

    def test_nested_calls(self):
        if READS:
            self.assertEqual(deep(20, self.same), deep(0, self.same) + 20)
        else:
            self.assertEqual(deep(20, self.same), 0)

    def test_generators_and_yield_from(self):
        def gen():
            yield self.same()

        def outer():
            yield from gen()
        next(gen())
        next(outer())

    def test_coroutines(self):
        async def inner():
            return self.same()

        async def outer():
            return await inner()
        asyncio.run(outer())

    def test_comprehension_lambda_eval(self):
        [self.same() for _ in range(2)]
        sorted([2, 1], key=lambda x: self.same())
        eval("self.same()", {"self": self})

    def test_exception_handler_and_context_manager(self):
        try:
            raise ValueError("x")
        except ValueError:
            self.same()

        @contextlib.contextmanager
        def cm():
            yield self.same()
        with cm():
            pass

    def test_finalizer(self):
        test = self

        class Finalized:
            def __del__(self):
                test.same()
        Finalized()

    def test_other_python_thread(self):
        errors = []

        def body():
            try:
                deep(5, self.same)
            except AssertionError as e:
                errors.append(e)
        t = threading.Thread(target=body)
        t.start()
        t.join()
        self.assertEqual(errors, [])

    def test_gil_released_reads_the_same_frames(self):
        mine, n = probe.without_gil()
        if READS:
            self.assertGreater(n, 0)
            self.assertEqual(len(mine), n)

    def test_too_deep_says_so(self):
        self.assertEqual(deep(80, lambda: probe.both()[2]), -1)  # the probe's room is 64 frames

    def test_thread_without_python(self):
        self.assertEqual(probe.on_foreign_thread(), 0 if READS else -1)


if __name__ == "__main__":
    unittest.main()
