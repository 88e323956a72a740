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
from vramscope import auto, retention, sources, vscap  # noqa: E402
from vramscope.recorder import Recorder  # noqa: E402
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

    def test_container_edges_say_where(self):
        """An edge from a dict, list or tuple names the key or index of what it holds, also deep in a
        big container (each kept container is looked through once for all its kept items)."""
        class Key:
            pass
        big = [object() for _ in range(20000)]
        big[12345] = FakeTensor(0x70000)
        keyed = {Key(): FakeTensor(0x71000), "opt": FakeTensor(0x72000), 7: FakeTensor(0x73000)}
        pair = (None, FakeTensor(0x74000))
        holder = Holder()
        holder.big, holder.keyed, holder.pair = big, keyed, pair
        blocks = [(0x70000, 0x1000), (0x71000, 0x1000), (0x72000, 0x1000), (0x73000, 0x1000), (0x74000, 0x1000)]
        g = retention.collect(blocks, None, storage_of=lambda o: o.ptr if type(o) is FakeTensor else None)
        self.assertFalse(g.truncated, g.cut)
        labels = {g.nodes[e[0]][1] + e[3] for e in g.edges}
        for want in ("list[12345]", "dict[<Key>]", "dict['opt']", "dict[7]", "tuple[1]", "Holder.big"):
            self.assertIn(want, labels)


def read_records(path):
    """(kind, body) of every record of a zlib/uncompressed .vscap (what the Python writer makes)."""
    import struct
    import zlib
    with open(path, "rb") as f:
        data = f.read()
    pos, out = 16, []
    while pos < len(data):
        codec, stored, _, _ = struct.unpack_from("<B3xIII", data, pos + 4)
        raw = data[pos + 20:pos + 20 + stored]
        pos += 20 + stored
        raw = zlib.decompress(raw) if codec == vscap.CODEC_ZLIB else raw
        i = 0
        while i < len(raw):
            kind, i = _varint(raw, i)
            n, i = _varint(raw, i)
            out.append((kind, raw[i:i + n]))
            i += n
    return out


def _varint(b, i):
    n = shift = 0
    while True:
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i


def _svarint(b, i):
    n, i = _varint(b, i)
    return (n >> 1) ^ -(n & 1), i


class FakeSource:
    """The recorder's event source without torch: no events, a Python interner."""
    mode = "test"

    def __init__(self):
        self.interner = vscap.Interner()

    def drain(self):
        return b""

    def dropped(self):
        return 0

    def compress(self):
        return None


class Cyclic:
    pass


class GcAnnotationsTest(unittest.TestCase):
    """Collections become Annotation START/END "gc.collect" pairs through the recorder's writer."""

    def test_collections_are_annotated(self):
        import gc
        rec = Recorder(os.devnull)
        rec.source = FakeSource()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "gc.vscap")
            with open(path, "wb") as f:
                f.write(vscap.header())
                rec._sinks = [f.write]
                rec._gc = auto.GcAnnotations(lambda: 3)
                rec._gc.install()
                self.addCleanup(rec._gc.remove)
                gc.collect()
                rec._flush()  # nothing collected yet (or whatever was garbage before): drained
                before = auto.now_us()
                a, b = Cyclic(), Cyclic()
                a.other, b.other = b, a
                del a, b
                self.assertGreater(gc.collect(), 0)
                after = auto.now_us()
                gc.collect()  # nothing to collect: no annotation
                rec._gc.remove()
                self.assertNotIn(rec._gc, gc.callbacks)
                rec._flush()
            records = read_records(path)
        strings = [""] + [body.decode() for kind, body in records if kind == vscap.STRING]
        anns = []
        for kind, body in records:
            if kind == vscap.ANNOTATION:
                dev, i = _svarint(body, 0)
                t, i = _svarint(body, i)
                stage = body[i]
                name, _ = _varint(body, i + 1)
                anns.append((dev, t, stage, strings[name]))
        mine = [a for a in anns if a[1] >= before]
        self.assertEqual([(a[0], a[2], a[3]) for a in mine], [(3, 0, "gc.collect"), (3, 1, "gc.collect")])
        self.assertLessEqual(mine[0][1], mine[1][1])
        self.assertLessEqual(mine[1][1], after)
        self.assertEqual(len(anns) % 2, 0)

    def test_nothing_collected_is_not_queued(self):
        g = auto.GcAnnotations(clock=iter(range(100)).__next__)
        g("start", {"generation": 0})
        g("stop", {"generation": 0, "collected": 0, "uncollectable": 0})
        g("start", {"generation": 2})
        g("stop", {"generation": 2, "collected": 5, "uncollectable": 0})
        self.assertEqual(g.drain(), [(0, 1, auto.START), (0, 2, auto.END)])
        self.assertEqual(g.drain(), [])


class AutoRetentionRule(unittest.TestCase):
    """When memory growth asks for a retention graph: fed 10 samples a second, as the writer thread."""

    MiB = 1 << 20

    def run_loop(self, floor_at, seconds, trigger=None, peak=300):
        """A training loop: every 100 ms sample alternates floor and floor + activations."""
        trigger = trigger or auto.GrowthTrigger()
        fired = []
        for k in range(int(seconds * 10)):
            t = k / 10.0
            value = floor_at(t) + (peak * self.MiB if k % 2 else 0)
            if trigger.sample(t, value):
                fired.append(t)
        return fired, trigger

    def test_clean_loop_never_fires(self):
        # model load (monotone, no frees), optimizer state at the first step, then a flat floor
        fired, _ = self.run_loop(lambda t: min(t, 3) * 400 * self.MiB + (200 * self.MiB if t > 4 else 0), 300)
        self.assertEqual(fired, [])

    def test_loading_a_model_slowly_does_not_fire(self):
        trigger = auto.GrowthTrigger()
        fired = [t for t in range(200) if trigger.sample(t / 10.0, t * 10 * self.MiB)]  # no frees
        self.assertEqual(fired, [])

    def test_leak_fires_rate_limited_and_at_most_three_times(self):
        fired, trigger = self.run_loop(lambda t: 1000 * self.MiB + int(t * 8 * self.MiB), 200)
        self.assertEqual(len(fired), 3)
        self.assertGreaterEqual(fired[0], 5.0)
        self.assertLess(fired[0], 8.0)
        self.assertTrue(all(b - a >= 30 for a, b in zip(fired, fired[1:])))
        self.assertTrue(trigger.reason.startswith("auto: allocated floor rose"))

    def test_accumulation_fires_once_per_new_height(self):
        # an epoch of 10 s accumulates 10 MiB/s, released at its end; three equal epochs
        fired, _ = self.run_loop(lambda t: 500 * self.MiB + int((t % 10) * 10 * self.MiB), 30,
                                 auto.GrowthTrigger(every=0))
        self.assertEqual(len(fired), 1)
        self.assertLess(fired[0], 10)

    def test_small_growth_is_ignored(self):
        # warm-up growth of 10 MiB over 10 s (caches filling), then flat: under min_mb
        fired, _ = self.run_loop(lambda t: 500 * self.MiB + int(min(t, 10) * self.MiB), 120)
        self.assertEqual(fired, [])

    def test_slow_leak_fires_once_it_is_large_enough(self):
        fired, _ = self.run_loop(lambda t: 500 * self.MiB + int(t * 0.2 * self.MiB), 120)
        self.assertEqual(len(fired), 1)
        self.assertGreater(fired[0], 80)  # 16 MiB at 0.2 MiB/s

    def test_setting(self):
        self.assertIsNone(auto.parse_setting("0"))
        self.assertEqual(auto.parse_setting(None), auto.DEFAULTS)
        p = auto.parse_setting("window=0.5,rises=3,every=10,max=1,min_mb=4")
        self.assertEqual((p["window"], p["rises"], p["every"], p["max"], p["min_mb"]), (0.5, 3, 10.0, 1, 4.0))
        self.assertIsNone(Recorder(os.devnull, auto_retention=False).auto_params)
        self.assertIsNone(Recorder(os.devnull, retention=False).auto_params)
        self.assertEqual(Recorder(os.devnull, auto_retention={"window": 2.0}).auto_params, {"window": 2.0})


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

    def test_listener_of_another_uid_is_refused_before_sending(self):
        with tempfile.TemporaryDirectory() as d:
            srv, path = self.listen(d)
            with self.assertRaises(PermissionError) as cm:
                LiveSink(path, expected_uid=os.geteuid() + 1)  # as if we were someone else
            self.assertIn("runs as uid %d, not as this user (uid %d)" % (os.geteuid(), os.geteuid() + 1),
                          str(cm.exception))
            srv.settimeout(2)
            conn, _ = srv.accept()
            with conn:
                self.assertEqual(conn.recv(16), b"")  # closed without a byte

    def test_recorder_refuses_a_real_listener_of_another_user(self):
        """A socket planted by another user (here: nobody, uid 65534) gets nothing; the recorder
        says so in one line on stderr and records to its file only."""
        python = "/usr/bin/python3"  # the test's own interpreter may sit where nobody cannot read it
        if os.geteuid() != 0 or not os.path.exists(python):
            self.skipTest("needs root and %s to run a listener as another user" % python)
        import contextlib
        import io
        with tempfile.TemporaryDirectory() as d:
            shared = os.path.join(d, "shared")
            os.mkdir(shared)
            os.chmod(d, 0o711)
            os.chmod(shared, 0o777)
            path = os.path.join(shared, "live.sock")
            listener = ("import socket, sys\n"
                        "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)\n"
                        "print('ready', flush=True); c, _ = s.accept(); print(len(c.recv(64)), flush=True)\n")
            p = subprocess.Popen([python, "-c", listener, path], user=65534, group=65534,
                                 stdout=subprocess.PIPE, text=True)
            self.addCleanup(p.stdout.close)
            self.addCleanup(p.kill)
            self.assertEqual(p.stdout.readline().strip(), "ready")
            rec = Recorder(os.path.join(d, "run.vscap"), live=path)
            rec._sinks = []
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rec._connect_live()
            self.assertIsNone(rec.live)
            self.assertEqual(rec._sinks, [])
            lines = err.getvalue().splitlines()
            self.assertEqual(len(lines), 1, lines)
            self.assertIn("the listener runs as uid 65534", lines[0])
            self.assertEqual(p.stdout.readline().strip(), "0")  # it accepted, and got no byte
            p.wait(5)

    def test_no_viewer_is_an_error_the_recorder_reports(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(OSError):
                LiveSink(os.path.join(d, "nobody"))


if __name__ == "__main__":
    # ctest runs this file: the recorder's robustness suite (test_recorder_robust.py) runs with it
    from test_recorder_robust import *  # noqa: F401,F403,E402
    unittest.main()
