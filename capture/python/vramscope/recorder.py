"""The recorder: owns the .vscap file (and the live connection), a writer thread that turns
buffered allocator events into compressed chunks every `interval` seconds, iteration marks,
garbage-collection annotations, automatic retention graphs when memory keeps growing (auto.py),
and the allocator's block list at exit and on OOM."""
import atexit
import gc
import os
import socket
import sys
import threading
import time

from . import auto, driver, native, phases, retention, sources, vscap
from .live import LiveSink

KEEPALIVE_S = 60.0  # an empty chunk to the viewer after this long without one (see _keep_alive)


class Recorder:
    def __init__(self, path=None, live=None, stacks="python", interval=0.1, use_native=True,
                 max_buffered=1 << 22, retention=True, retention_budget_s=30.0, auto_retention=None,
                 gc_annotations=True, phases=True, native_level=None):
        self.path = path or "vramscope-%d.vscap" % os.getpid()
        self.live_path = live if live is not None else os.environ.get("VRAMSCOPE_LIVE") or None
        if stacks not in ("python", "all", "none"):
            raise ValueError("stacks must be 'python', 'all' or 'none'")
        self.stacks = stacks
        self.interval = interval
        self.use_native = use_native
        self.max_buffered = max_buffered
        self.retention = retention
        self.retention_budget_s = retention_budget_s
        self.retention_stats = []
        self.retention_pauses = []  # (trigger, seconds the whole collection took)
        # auto_retention: None = from $VRAMSCOPE_AUTO_RETENTION (on by default), False = off, or a
        # dict of auto.DEFAULTS' keys
        if auto_retention is None:
            auto_retention = auto.parse_setting(os.environ.get("VRAMSCOPE_AUTO_RETENTION"))
        elif auto_retention is True:
            auto_retention = dict(auto.DEFAULTS)
        self.auto_params = auto_retention if retention and auto_retention else None
        self.auto_trigger = None
        self.gc_annotations = gc_annotations
        self._gc = None
        self.track_phases = phases
        self.phases = None
        self.driver = None
        self.native_level = native_level  # nativelevel.NativeLevel, already injected, or None
        self.native_warning = None
        self.source = None
        self.live = None
        self._last_chunk = time.monotonic()
        self.chunks = 0
        self.bytes_written = 0
        self._lock = threading.Lock()  # one writer of chunks at a time
        self._marks = []
        self._dropped_reported = 0
        self._stop = threading.Event()
        self._thread = None
        self._file = None
        self._running = False

    # ---- lifecycle
    def start(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("vramscope: CUDA is not available in this process; nothing to record")
        self.torch = torch
        # torch imports parts of itself lazily (torch._dynamo at an optimizer's first use); stack
        # symbolization on the writer thread can import them too, and two threads importing the
        # same modules cyclically get half-initialised modules. Import them here, once, first.
        try:
            import torch._dynamo  # noqa: F401
        except Exception:
            pass
        self.source = self._make_source()
        self._file = open(self.path, "wb", buffering=0)
        self._sinks = [self._file.write]
        self._connect_live()
        self._emit(vscap.header())
        self._write_chunk(self._preamble())
        ctx = None if self.stacks == "none" else "all"
        torch.cuda.memory._record_memory_history(enabled="all", context=ctx,
                                                 stacks="python" if self.stacks == "none" else self.stacks,
                                                 max_entries=self.source.history_entries())
        self.source.start()
        self._attach_oom_observer()
        if self.auto_params is not None:
            self.auto_trigger = auto.GrowthTrigger(**self.auto_params)
        if self.gc_annotations:
            get_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
            self._gc = auto.GcAnnotations(get_device)
            self._gc.install()
        if self.track_phases:
            get_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
            try:
                self.phases = phases.PhaseTracker(torch, get_device).install()
            except Exception as e:  # a torch without these hooks: record without phases
                print("vramscope: no phase annotations (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
                self.phases = None
        self.driver = driver.DriverSampler(torch)
        self._devices = torch.cuda.device_count()
        self._running = True
        self._thread = threading.Thread(target=self._loop, name="vramscope-writer", daemon=True)
        self._thread.start()
        atexit.register(self.stop)
        return self

    def stop(self):
        if not self._running:
            return
        self._running = False
        self._stop.set()
        self._thread.join()
        if self._gc is not None:
            self._gc.remove()
        if self.phases is not None:
            self.phases.remove()
        self._flush()
        if self.retention:
            self.collect_retention("exit")
        # The final block list must be the state after the last recorded event: stop the tracker,
        # then snapshot, with gc off in between (a collection would free tensors unrecorded).
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            self.source.stop()
            end_state = self._end_state()
            self._flush()  # everything up to the stop (the polling source reads the ring here)
        finally:
            if was_enabled:
                gc.enable()
        self.torch.cuda.memory._record_memory_history(enabled=None)
        self._write_chunk(end_state)
        self._write_chunk(vscap.end_record())
        if self.native_level is not None:
            self.native_warning = self.native_level.finish_into(lambda part, chunks: (self._emit(part), self._emit(chunks)))
            if self.native_warning:
                print("vramscope: %s" % self.native_warning, file=sys.stderr)
        self._file.close()
        if self.live:
            self.live.close()
        try:
            atexit.unregister(self.stop)
        except Exception:
            pass

    def collect_retention(self, trigger="request", budget_s=None):
        """Records which Python objects keep the allocated blocks alive, now (a Retention record)."""
        # _snapshot() allocates thousands of objects: an automatic collection then would free the
        # very cycles that may be the leak before we look at them
        was_enabled = gc.isenabled()
        gc.disable()
        # From the writer thread, the program must stand still while its heap is walked: no thread
        # switch for the length of the collection (the interval is what a thread holding the GIL
        # waits before handing it over; blocking calls still release it).
        other_thread = threading.current_thread() is not threading.main_thread()
        interval = sys.getswitchinterval()
        if other_thread:
            sys.setswitchinterval(max(interval, 1000.0))
        t0 = time.perf_counter()
        try:
            self._collect_retention(trigger, budget_s)
        finally:
            if other_thread:
                sys.setswitchinterval(interval)
            if was_enabled:
                gc.enable()
        self.retention_pauses.append((trigger, time.perf_counter() - t0))

    def _collect_retention(self, trigger, budget_s):
        snap = self.torch.cuda.memory._snapshot()
        by_device = {}
        for s in snap.get("segments", []):
            for b in s.get("blocks", []):
                if b.get("state") == "active_allocated":
                    pool = tuple(s.get("segment_pool_id") or (0, 0))
                    by_device.setdefault(s.get("device", 0), []).append((b["address"], b["size"], pool))
        for device, blocks in sorted(by_device.items()):
            def progress(done, total, t0=time.monotonic()):
                if time.monotonic() - t0 > 2:  # only say something when it takes a while
                    print("vramscope: retention (%s): %d/%d objects" % (trigger, done, total), file=sys.stderr)
            g = retention.collect(blocks, self.torch, budget_s or self.retention_budget_s, progress=progress)
            self.retention_stats.append((trigger, len(blocks), g.objects, len(g.nodes), g.seconds, g.truncated))
            with self._lock:
                raw = vscap.retention_record(device, time.time_ns() // 1000, trigger, g, self.source.interner)
                self._write_chunk(raw)

    def mark(self, name, value):
        with self._lock:
            self._marks.append((time.time_ns() // 1000, str(name), int(value)))

    # ---- internals
    def _make_source(self):
        if self.use_native:
            module, reason = native.load()
            if module is not None:
                return sources.NativeSource(module, self.max_buffered, self.stacks != "all")
            print("vramscope: the native tracker could not be built (%s); falling back to polling "
                  "torch.cuda.memory._snapshot() once a second: slower, and events can be lost when "
                  "PyTorch's ring overruns" % reason, file=sys.stderr)
        self.interval = max(self.interval, 1.0)
        return sources.PollingSource(self.torch)

    def _connect_live(self):
        if not self.live_path:
            return
        try:
            self.live = LiveSink(self.live_path)
            self._sinks.append(self.live.write)
        except OSError as e:
            print("vramscope: no viewer listening at %s (%s); recording to %s only"
                  % (self.live_path, e.strerror or e, self.path), file=sys.stderr)

    def _emit(self, data):
        self.bytes_written += len(data)
        for sink in self._sinks:
            sink(data)

    def _write_chunk(self, raw):
        if not raw:
            self._keep_alive()
            return
        compress = self.source.compress()
        codec = vscap.CODEC_ZSTD if compress else vscap.CODEC_ZLIB
        self._emit(vscap.chunk(raw, codec, compress))
        self.chunks += 1
        self._last_chunk = time.monotonic()

    def _keep_alive(self):
        """A program that allocates nothing for a while (a long evaluation, waiting for data) is still
        alive: the viewer ends a session silent for VRAMSCOPE_LIVE_IDLE_S (10 min), so an empty chunk
        goes to the viewer, only, once a minute. The file gets nothing."""
        now = time.monotonic()
        if self.live and now - self._last_chunk >= KEEPALIVE_S:
            self.live.write(vscap.chunk(b"", vscap.CODEC_NONE))
            self._last_chunk = now

    def _preamble(self):
        t = self.torch
        out = bytearray()
        facts = {"recorder": "vramscope-python/" + self.source.mode, "pid": os.getpid(),
                 "host": socket.gethostname(), "argv": " ".join(sys.argv), "torch": t.__version__,
                 "stacks": self.stacks}
        for k, v in facts.items():
            out += vscap.meta_record(k, v)
        for i in range(t.cuda.device_count()):
            p = t.cuda.get_device_properties(i)
            out += vscap.device_record(i, p.name, p.total_memory)
        return bytes(out)

    def _loop(self):
        while not self._stop.wait(self.interval):
            try:
                self._flush()
                if self.live and self.live.requests:
                    self.live.requests.clear()
                    # asked for by the viewer: collected here, holding the GIL (the program pauses)
                    self.collect_retention("request from the viewer")
                    if self.auto_trigger is not None:
                        self.auto_trigger.restart(time.monotonic())
                elif self.auto_trigger is not None:
                    self._auto_retention()
            except Exception as e:  # never take the program down; say why the recording stopped
                print("vramscope: recording stopped: %s" % e, file=sys.stderr)
                return

    def _allocated(self):
        """memory_allocated() of all devices (the writer thread has no current device of its own)."""
        stats = self.torch.cuda.memory_stats_as_nested_dict
        return sum(stats(d)["allocated_bytes"]["all"]["current"] for d in range(self._devices))

    def _auto_retention(self):
        if self.auto_trigger.sample(time.monotonic(), self._allocated()):
            print("vramscope: collecting a retention graph (%s)" % self.auto_trigger.reason, file=sys.stderr)
            self.collect_retention(self.auto_trigger.reason, budget_s=min(10.0, self.retention_budget_s))
            self.auto_trigger.restart(time.monotonic())

    def _flush(self):
        with self._lock:
            raw = bytearray(self.source.drain())
            marks, self._marks = self._marks, []
            device = self.torch.cuda.current_device() if marks else 0
            ids = [self.source.interner.string(name) for _, name, _ in marks]
            annotations = self._gc.drain() if self._gc is not None else []
            gc_name = self.source.interner.string(auto.GC_NAME) if annotations else 0
            raw += self.source.interner.take_records()
            for (t, _, value), i in zip(marks, ids):
                raw += vscap.mark_record(device, t, i, value)
            for dev, t, stage in annotations:
                raw += vscap.annotation_record(dev, t, stage, gc_name)
            if self.phases is not None:
                raw += self.phases.drain(self.source.interner)
            if self.driver is not None and self._running:
                t = time.time_ns() // 1000
                for dev, device_used, process_used in self.driver.sample():
                    raw += vscap.driver_memory_record(dev, t, device_used, process_used)
            dropped = self.source.dropped()
            if dropped > self._dropped_reported:
                raw += vscap.dropped_record(dropped - self._dropped_reported)
                self._dropped_reported = dropped
            self._write_chunk(bytes(raw))

    def _end_state(self):
        """The allocator's own block list and settings, as the final state to check replay against."""
        snap = self.torch.cuda.memory._snapshot()
        with self._lock:
            raw = bytearray(vscap.settings_record(snap.get("allocator_settings", {})))
            by_device = {}
            for s in snap.get("segments", []):
                by_device.setdefault(s.get("device", 0), []).append(s)
            for device in range(self.torch.cuda.device_count()):
                raw += vscap.segments_record(device, by_device.get(device, []), self.source.interner)
            return bytes(raw)

    def _attach_oom_observer(self):
        def on_oom(device, alloc, device_allocated, device_free):
            try:
                self._flush()
                self._write_chunk(self._end_state())
                if self.retention:
                    self.collect_retention("oom", budget_s=min(10.0, self.retention_budget_s))
            except Exception as e:
                print("vramscope: could not record the state at the OOM: %s" % e, file=sys.stderr)
        try:
            self.torch._C._cuda_attach_out_of_memory_observer(on_oom)
        except Exception:
            pass  # older torch: the state at exit still comes
