"""The recorder's pure-Python parts, without torch or a GPU: the .vscap writer (checked by reading
its output back with vramscope-cli against the same snapshot), the ring-buffer polling logic, and
the live sink against real Unix sockets (a fast viewer, a stalled one, one that is gone)."""
import gzip
import json
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from vramscope import retention, sources, vscap  # noqa: E402
from vramscope.live import LiveSink  # noqa: E402

CLI = os.environ.get("VRAMSCOPE_CLI", "build/app/vramscope-cli")
SAMPLES = os.environ.get("VRAMSCOPE_SAMPLES_DIR", "samples/captures")


def cli(*args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def write_like_the_agent(snapshot, path, chunk_events=97):
    """What the polling recorder writes: events in small batches, then settings and segments."""
    interner = vscap.Interner()
    with open(path, "wb") as f:
        f.write(vscap.header())
        f.write(vscap.chunk(vscap.meta_record("recorder", "test")))
        for device, trace in enumerate(snapshot["device_traces"]):
            for i in range(0, len(trace), chunk_events):
                f.write(vscap.chunk(vscap.events_record(device, trace[i:i + chunk_events], interner)))
        raw = vscap.settings_record(snapshot.get("allocator_settings", {}))
        by_device = {}
        for s in snapshot["segments"]:
            by_device.setdefault(s["device"], []).append(s)
        for device in range(len(snapshot["device_traces"])):
            raw += vscap.segments_record(device, by_device.get(device, []), interner)
        f.write(vscap.chunk(raw + vscap.end_record()))


def strip(text):
    return "\n".join(l for l in text.splitlines() if '"file"' not in l and '"format"' not in l)


class WriterMatchesSnapshot(unittest.TestCase):
    def check(self, name):
        src = os.path.join(SAMPLES, name)
        with gzip.open(src, "rb") as f:
            snapshot = pickle.load(f)  # a trusted sample of this repository, not user input
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "x.vscap")
            write_like_the_agent(snapshot, out)
            for cmd in (["summary", "--json"], ["series", "--csv"], ["state", "--json"], ["leaks", "--json"]):
                want = cli(cmd[0], src, *cmd[1:])
                got = cli(cmd[0], out, *cmd[1:])
                self.assertEqual(got[0], 0, got[2])
                self.assertGreater(len(want[1]), 20)
                self.assertEqual(strip(got[1]), strip(want[1]), cmd)

    def test_leak_cut(self):
        self.check("leak_cut.pickle.gz")

    def test_side_stream(self):
        self.check("side_stream.pickle.gz")

    def test_oom(self):
        self.check("oom.pickle.gz")

    def test_marks_become_iterations(self):
        interner = vscap.Interner()
        entries = [{"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "time_us": 1000, "frames": []}]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "m.vscap")
            with open(out, "wb") as f:
                f.write(vscap.header())
                raw = vscap.events_record(0, entries, interner)
                step = interner.string("step")
                raw += interner.take_records()
                for i in range(3):
                    raw += vscap.mark_record(0, 1000 + 10 * i, step, i)
                f.write(vscap.chunk(raw))
            code, text, err = cli("summary", "--json", out)
            self.assertEqual(code, 0, err)
            doc = json.loads(text)
            self.assertIn("did not finish cleanly", " ".join(doc.get("warnings", [])))


class FakeTensor:
    """Stands in for a CUDA tensor: owns the block starting at `ptr`."""

    def __init__(self, ptr):
        self.ptr = ptr


class Holder:
    pass


class Node:
    pass


FAKE_CACHE = {}


class RetentionCollector(unittest.TestCase):
    """The collector on a pure-Python heap, its record, and vramscope-cli's analysis of it."""

    def test_holders_are_found_and_named(self):
        import ctypes
        import types
        mod = types.ModuleType("fake_training")
        mod.CACHE = FAKE_CACHE
        sys.modules["fake_training"] = mod
        self.addCleanup(sys.modules.pop, "fake_training")
        for k in range(3):
            FAKE_CACHE[1000 + k] = FakeTensor(0x10000 + k * 0x1000)
        held = Holder()
        held.t = FakeTensor(0x20000)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(held))  # as if C++ held it
        self.addCleanup(ctypes.pythonapi.Py_DecRef, ctypes.py_object(held))
        del held
        a, b = Node(), Node()
        a.sibling, b.sibling, a.data = b, a, FakeTensor(0x40000)
        del a, b
        blocks = [(0x10000, 0x1000), (0x11000, 0x1000), (0x12000, 0x1000), (0x20000, 0x1000),
                  (0x30000, 0x1000), (0x40000, 0x1000), (0x50000, 0x1000), (0x60000, 0x1000, (1, 7))]
        import gc
        gc.disable()  # the cycle must survive until the collector looks
        self.addCleanup(gc.enable)

        progress = []

        def training_step():
            outputs = [FakeTensor(0x30000)]  # noqa: F841 (held by this frame)
            return retention.collect(blocks, None, storage_of=lambda o: o.ptr if type(o) is FakeTensor else None,
                                     progress=lambda done, total: progress.append((done, total)))
        g = training_step()
        self.assertFalse(g.truncated)
        self.assertGreater(g.objects, 1000)
        interner = vscap.Interner()
        entries = [{"action": "alloc", "addr": b[0], "size": b[1], "stream": 0, "time_us": 1000 + i, "frames": []}
                   for i, b in enumerate(blocks)]
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.vscap")
            with open(out, "wb") as f:
                f.write(vscap.header())
                raw = vscap.events_record(0, entries, interner)
                raw += vscap.retention_record(0, 2000, "request", g, interner)
                f.write(vscap.chunk(raw + vscap.end_record()))
            code, text, err = cli("retention", out, "--json")
            self.assertEqual(code, 0, err)
        groups = json.loads(text)["graphs"][0]["groups"]
        by_verdict = {}
        for grp in groups:
            by_verdict.setdefault(grp["verdict"], []).append(grp)
        cache = by_verdict["held by a module global"][0]
        self.assertEqual(cache["blocks"], 3)
        self.assertIn("module fake_training", cache["path"])
        self.assertIn(".CACHE", cache["path"])
        self.assertIn("[*]", cache["signature"])
        self.assertTrue(cache["suspicious"])
        local = by_verdict["held by a local variable"][0]
        self.assertIn("frame training_step", local["path"])
        self.assertIn("local 'outputs'", local["path"])
        cpp = by_verdict["held from C/C++"][0]
        self.assertIn("Holder", cpp["path"])
        self.assertIn(".t", cpp["path"])
        cycle = by_verdict["held only by an unreachable reference cycle"][0]
        self.assertIn(".data", cycle["path"])
        unowned = [g for g in groups if g["verdict"].startswith("no Python object")]
        self.assertEqual(unowned[0]["blocks"], 1)  # 0x50000: nothing refers to it
        self.assertFalse(unowned[0]["suspicious"])
        pool = by_verdict["held by a CUDA graph's private pool (freed with the graph)"][0]
        self.assertIn("CUDA graph pool (1, 7)", pool["path"])
        self.assertFalse(pool["suspicious"])
        self.assertTrue(progress and progress[0][1] == g.objects)  # progress reported over the scan


class RingPolling(unittest.TestCase):
    def e(self, t):
        return {"time_us": t, "action": "alloc", "addr": t, "size": 1, "stream": 0}

    def test_first_poll_takes_all(self):
        ring = [self.e(1), self.e(2)]
        self.assertEqual(sources.new_entries(ring, None, 0), (ring, False))

    def test_growing_ring(self):
        ring = [self.e(i) for i in range(5)]
        got, lost = sources.new_entries(ring, sources.entry_key(ring[2]), 3)
        self.assertEqual(got, ring[3:])
        self.assertFalse(lost)

    def test_wrapped_ring(self):
        ring = [self.e(i) for i in range(3, 8)]  # 0..2 fell out; 4 was the last seen
        got, lost = sources.new_entries(ring, sources.entry_key(self.e(4)), 5)
        self.assertEqual(got, ring[2:])
        self.assertFalse(lost)

    def test_history_switched_off_is_not_a_loss(self):
        self.assertEqual(sources.new_entries([], sources.entry_key(self.e(4)), 5), ([], False))

    def test_overrun_is_reported(self):
        ring = [self.e(i) for i in range(10, 15)]
        got, lost = sources.new_entries(ring, sources.entry_key(self.e(4)), 5)
        self.assertEqual(got, ring)
        self.assertTrue(lost)


class LiveSinkTest(unittest.TestCase):
    def listen(self, d):
        path = os.path.join(d, "s")
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(1)
        self.addCleanup(srv.close)
        return srv, path

    def test_viewer_receives_the_stream(self):
        with tempfile.TemporaryDirectory() as d:
            srv, path = self.listen(d)
            got = bytearray()

            def serve():
                c, _ = srv.accept()
                with c:
                    while True:
                        b = c.recv(65536)
                        if not b:
                            break
                        got.extend(b)
            t = threading.Thread(target=serve)
            t.start()
            sink = LiveSink(path)
            payload = [os.urandom(1000) for _ in range(200)]
            for p in payload:
                sink.write(p)
            sink.close()
            t.join(5)
            self.assertEqual(bytes(got), b"".join(payload))

    def test_stalled_viewer_never_blocks_the_writer(self):
        with tempfile.TemporaryDirectory() as d:
            srv, path = self.listen(d)  # accepts nothing, reads nothing
            sink = LiveSink(path, max_queued=1 << 20)
            t0 = time.monotonic()
            for _ in range(64):
                sink.write(b"x" * 65536)  # 4 MiB: far more than the socket buffer and the queue
            self.assertLess(time.monotonic() - t0, 1.0)
            self.assertTrue(sink.closed)
            sink.close(timeout=0.5)

    def test_viewer_requests_a_retention_graph(self):
        with tempfile.TemporaryDirectory() as d:
            srv, path = self.listen(d)
            sink = LiveSink(path)
            conn, _ = srv.accept()
            with conn:
                conn.sendall(b"R")
                deadline = time.monotonic() + 5
                while not sink.requests and time.monotonic() < deadline:
                    time.sleep(0.01)
                self.assertEqual(list(sink.requests), ["retention"])
            sink.close(timeout=1)

    def test_no_viewer_is_an_error_the_recorder_reports(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(OSError):
                LiveSink(os.path.join(d, "nobody"))


if __name__ == "__main__":
    unittest.main()
