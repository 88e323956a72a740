"""The recorder: owns the .vscap file (and the live connection), a writer thread that turns
buffered allocator events into compressed chunks every `interval` seconds, iteration marks,
garbage-collection annotations, automatic retention graphs when memory keeps growing (auto.py),
and the allocator's block list at exit and on OOM.

It runs inside the user's program and never fails it: every part that runs there (hooks, tagging,
retention walks, the writer thread, the stop at exit) catches what it raises and writes it into the
capture as a warning (a Meta record with key `warning`, text beginning "recorder: "), which the
viewer shows with its own warnings; the program's exit code and output stay as they would be
unrecorded. The only lines it prints are its own, beginning "vramscope: " (none with
VRAMSCOPE_QUIET=1). The pauses it causes (retention graphs) come out of one budget (pauses.py)
and are written as Annotation pairs named pauses.PAUSE."""
import atexit
import collections
import gc
import os
import socket
import sys
import threading
import time

from . import auto, codec, cost, driver, history_guard, native, pauses, phases, retention, sources, vscap
from .live import LiveSink

MAX_WARNINGS = 200  # distinct warnings written into one capture; later ones are only counted

KEEPALIVE_S = 60.0  # an empty chunk to the viewer after this long without one (see _keep_alive)
# How often the writer thread wakes (it takes the GIL from the program each time; on the H200 a
# 1.2 ms training step was a few per cent slower at 0.1 s than at 1 s, overhead_inproc.py rec_slow):
# a viewer watching live gets its events within 0.1 s; a file needs them only in order.
LIVE_INTERVAL_S, FILE_INTERVAL_S = 0.1, 0.5
DRIVER_EVERY_S = 1.0  # the driver's figures (NVML asks the driver for every process) at most this often
# The switch interval during a retention walk on the writer thread (collect_retention): the longest a
# thread of the program that took the GIL keeps it from the walk, and the walk from the program.
WALK_SWITCH_INTERVAL_S = 0.25


class Recorder:
    def __init__(self, path=None, live=None, stacks="python", interval=None, use_native=True,
                 max_buffered=1 << 22, retention=True, retention_budget_s=30.0, auto_retention=None,
                 gc_annotations=True, phases=True, native_level=None, pause_budget=None, free_stacks=True,
                 before_program=False):
        self.path = path or "vramscope-%d.vscap" % os.getpid()
        self.live_path = live if live is not None else os.environ.get("VRAMSCOPE_LIVE") or None
        if stacks not in ("python", "all", "none"):
            raise ValueError("stacks must be 'python', 'all' or 'none'")
        self.stacks = stacks
        self.free_stacks = free_stacks  # False: PyTorch gathers stacks at allocations only (context="alloc")
        self.before_program = before_program  # True: started before any of the program's code ran
        self.interval = interval if interval is not None else LIVE_INTERVAL_S if self.live_path else FILE_INTERVAL_S
        self._driver_at = -DRIVER_EVERY_S  # when the driver was last sampled (monotonic)
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
        self._pid = os.getpid()
        self.quiet = os.environ.get("VRAMSCOPE_QUIET", "") not in ("", "0")
        self.warnings = []                   # every warning written (or to be written), in order
        self._pending_warnings = collections.deque()
        self._warned = {}                    # key -> times seen
        self.warnings_dropped = 0
        self._pause_marks = collections.deque()  # (start µs, end µs) of each pause, for the writer
        self.pause_budget = pause_budget      # pauses.PauseBudget; made at start() when None
        self.retention_skipped = []           # triggers whose graph the budget did not allow
        self._real_os_exit = None
        self._exit_hook = None
        self.cost = cost.RecorderCost()  # what the recorder's own start, stop and writer took
        self._writer_walks_s = 0.0  # retention graphs walked on the writer thread (pauses, not its cost)

    # ---- what the recorder says
    def say(self, text):
        """One line of the recorder's own on stderr (never with VRAMSCOPE_QUIET=1); never raises."""
        if self.quiet:
            return
        try:
            print(text, file=sys.stderr, flush=True)
        except Exception:
            pass

    def warn(self, text, key=None):
        """A recorder warning, written into the capture at the next flush (never raises)."""
        try:
            key = key or text
            n = self._warned.get(key, 0)
            self._warned[key] = n + 1
            if n:
                return
            if len(self.warnings) >= MAX_WARNINGS:
                self.warnings_dropped += 1
                return
            line = text if text.startswith("recorder: ") else "recorder: " + text
            self.warnings.append(line)
            self._pending_warnings.append(line)
        except Exception:
            pass

    def _failed(self, where, e):
        self.warn("%s failed (%s: %s); the program went on" % (where, type(e).__name__, _text(e)),
                  key=(where, type(e).__name__))

    def _step(self, where, fn, *args):
        """fn(*args), or a warning that says where it failed; None then."""
        try:
            return fn(*args)
        except Exception as e:
            self._failed(where, e)
            return None

    # ---- lifecycle
    def start(self):
        t0, run_started = time.perf_counter(), time.monotonic()
        import torch  # python -m vramscope record: the program's own import, done here first
        t1 = time.perf_counter()
        if not torch.cuda.is_available():
            raise RuntimeError("vramscope: CUDA is not available in this process; nothing to record")
        # what the history switch below would do lazily: timed apart, as the program's first CUDA
        # call does it anyway (0.2 s on the H200)
        init = getattr(torch.cuda, "init", None)
        if init is not None:
            init()
        self.cost.import_s, self.cost.cuda_init_s = t1 - t0, time.perf_counter() - t1
        self.torch = torch
        if self.pause_budget is None:
            self.pause_budget = pauses.PauseBudget.from_env(started=run_started)
            if getattr(self.pause_budget, "problem", None):
                self.warn(self.pause_budget.problem)
        self.source = self._make_source()
        self._file = open(self.path, "wb", buffering=0)
        history = False
        try:
            self._sinks = [self._file.write]
            self._connect_live()
            self._emit(vscap.header())
            self._write_chunk(self._preamble())
            ctx = None if self.stacks == "none" else "all" if self.free_stacks else "alloc"
            torch.cuda.memory._record_memory_history(enabled="all", context=ctx,
                                                     stacks="python" if self.stacks == "none" else self.stacks,
                                                     max_entries=self.source.history_entries())
            history = True
            self.source.start()
            gatherer = getattr(self.source, "stack_gatherer", None)
            if gatherer:
                self._write_chunk(vscap.meta_record("stack_gatherer", gatherer))
            self._import_what_symbolizing_would()
            self._devices = torch.cuda.device_count()
        except BaseException:
            if history:
                self._step("switching PyTorch's memory history off", torch.cuda.memory._record_memory_history, None)
            self._step("closing the file", self._file.close)
            if self.live:
                self._step("closing the live connection", self.live.close)
            raise
        self._step("attaching the OOM observer", self._attach_oom_observer)
        if self.auto_params is not None:
            self.auto_trigger = auto.GrowthTrigger(**self.auto_params)
        get_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
        if self.gc_annotations:
            try:
                self._gc = auto.GcAnnotations(get_device)
                self._gc.install()
            except Exception as e:
                self._failed("installing the garbage-collection annotations", e)
                self._gc = None
        if self.track_phases:
            try:
                self.phases = phases.PhaseTracker(torch, get_device, not self.before_program).install()
            except Exception as e:  # a torch without these hooks: record without phases
                self._failed("installing the phase hooks (no phase annotations)", e)
                self.phases = None
        self.capture_watch = self._step("watching CUDA graph captures", driver.CaptureWatch().install, torch)
        self._guard = self._step("guarding PyTorch's history switch", history_guard.HistoryGuard().install, torch)
        self.driver = self._step("starting the driver memory sampler", driver.DriverSampler, torch, self.capture_watch)
        self._running = True
        self._thread = threading.Thread(target=self._loop, name="vramscope-writer", daemon=True)
        self._thread.start()
        atexit.register(self.stop)
        self._hook_os_exit()
        self.cost.start_s = time.perf_counter() - t0
        return self

    def _hook_os_exit(self):
        """os._exit skips atexit: the recording is finished first (no retention graph), in this
        process only (a forked child inherits the wrapper and goes straight through)."""
        real = os._exit

        def _exit(code):
            if os.getpid() == self._pid and self._running:
                try:
                    self.stop(walk=False)
                except BaseException:
                    pass
            real(code)
        self._real_os_exit, self._exit_hook = real, _exit
        os._exit = _exit

    def _unhook_os_exit(self):
        if self._exit_hook is not None and os._exit is self._exit_hook:
            os._exit = self._real_os_exit
        self._exit_hook = None

    def stop(self, walk=True):
        """Finishes the recording: the retention graph at exit (unless walk=False), the allocator's
        final block list, the warnings, the End record. Never raises; each part that fails is a
        warning in the file and the rest still runs."""
        if not self._running or os.getpid() != self._pid:  # a forked child: the file is the parent's
            return
        self._running = False
        self.cost.stopping()
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            # the writer may be in a retention walk: it ends by its deadline
            self._step("waiting for the writer thread", self._thread.join, self.retention_budget_s + 10)
        if self._gc is not None:
            self._step("removing the garbage-collection annotations", self._gc.remove)
        if self.phases is not None:
            self._step("removing the phase hooks", self.phases.remove)
        self._step("writing the last events", self._flush)
        if walk and self.retention:
            try:
                self.collect_retention("exit")
            except KeyboardInterrupt:
                self.warn("the retention graph at exit was interrupted (Ctrl-C)")
        # The final block list must be the state after the last recorded event: stop the tracker,
        # then snapshot, with gc off in between (a collection would free tensors unrecorded). The
        # last events (and the pause of the walk above) are written before the block list is read:
        # ids are numbered in the order they are interned and a reader numbers them in the order
        # their definitions come, so definitions interned for the block list and held back until
        # the last chunk must not have any interned after them written first (the pause's name was,
        # and every later string of the file read as the one before it).
        was_enabled = gc.isenabled()
        gc.disable()
        end_state = b""
        try:
            self._step("stopping the event source", self.source.stop)
            self._step("writing the last events", self._flush)
            end_state = self._step("reading the allocator's final block list", self._end_state) or b""
        finally:
            if was_enabled:
                gc.enable()
        self._step("switching PyTorch's memory history off", self.torch.cuda.memory._record_memory_history, None)
        if getattr(self, "capture_watch", None) is not None:
            self._step("restoring torch.cuda.CUDAGraph", self.capture_watch.remove)
        if getattr(self, "_guard", None) is not None:
            self._step("restoring torch.cuda.memory._record_memory_history", self._guard.remove)
        if self._gc is not None and self._gc.failures:
            self.warn("the garbage-collection annotation failed %d times" % self._gc.failures)
        self._step("writing the end of the recording", self._finish, end_state)
        if self.native_level is not None:
            self.native_warning = self._step("appending the CUDA-level recording", self.native_level.finish_into,
                                             lambda part, chunks: (self._emit(part), self._emit(chunks)))
            if self.native_warning:
                self.say("vramscope: %s" % self.native_warning)
        self._step("closing the file", self._file.close)
        if self.live:
            self._step("closing the live connection", self.live.close)
        try:
            atexit.unregister(self.stop)
        except Exception:
            pass
        self._unhook_os_exit()

    def _finish(self, end_state):
        """The last chunk: the final block list, the warnings not yet written, a line on the pauses,
        the End record."""
        locked = self._lock.acquire(timeout=10)
        try:
            raw = bytearray(end_state)
            if self.phases is not None:
                for line in self.phases.failure_summary():
                    self.warn(line)
            for key, n in list(self._warned.items()):
                if n > 1:
                    self.warn("the warning %r came %d times in all" % (_short(key), n), key=("count", repr(key)))
            if self.warnings_dropped:
                self._pending_warnings.append("recorder: %d more warnings were not written" % self.warnings_dropped)
            raw += self._warning_records()
            raw += self._pause_records()
            if self.pause_budget is not None:
                raw += vscap.meta_record("pauses", self.pause_budget.summary())
            raw += self._cost_record()
            raw += vscap.end_record()
            self._write_chunk(bytes(raw))
        finally:
            if locked:
                self._lock.release()

    def _cost_record(self):
        try:
            self.cost.stopped()
            self.cost.exit_graph_s = sum(s for trigger, s in self.retention_pauses if trigger == "exit") or None
            return vscap.meta_record("recorder_cost", self.cost.line())
        except Exception as e:  # never at the End record's expense
            self._failed("timing the recorder's own cost", e)
            return b""

    def _warning_records(self):
        out = bytearray()
        if self.phases is not None:
            while self.phases.problems:
                self.warn(self.phases.problems.popleft())
        while self._pending_warnings:
            out += vscap.warning_record(self._pending_warnings.popleft())
        return bytes(out)

    def _pause_records(self):
        out = bytearray()
        if not self._pause_marks:
            return b""
        name = self.source.interner.string(pauses.PAUSE)
        records = bytearray()
        while self._pause_marks:
            t0, t1 = self._pause_marks.popleft()
            for dev in range(max(1, getattr(self, "_devices", 1))):
                records += vscap.annotation_record(dev, t0, 0, name)
                records += vscap.annotation_record(dev, t1, 1, name)
        out += self.source.interner.take_records()
        out += records
        return bytes(out)

    def collect_retention(self, trigger="request", budget_s=None, final=None):
        """Records which Python objects keep the allocated blocks alive, now (a Retention record),
        within what is left of the pause budget (pauses.py). `final`: may use the budget's reserve
        (the graph at exit, and graphs the user asked for). Never raises for the recorder's sake."""
        if final is None:
            final = trigger == "exit" or trigger.startswith("request")
        budget = self.pause_budget or pauses.PauseBudget(None)
        allowance = budget.allowance(final)
        cap = min(allowance, budget_s or self.retention_budget_s)
        if cap < pauses.MIN_WALK_S:
            self.retention_skipped.append(trigger)
            why = budget.why_short(final) if hasattr(budget, "why_short") else "the pause budget is spent"
            self.warn("retention graph (%s) skipped: %s (%s; %s sets it)"
                      % (trigger, why, budget.summary(), pauses.ENV), key=("skipped", trigger.split(":")[0]))
            return
        # reading the block list allocates thousands of objects: an automatic collection then would
        # free the very cycles that may be the leak before we look at them
        was_enabled = gc.isenabled()
        gc.disable()
        # From the writer thread, the program should stand still while its heap is walked: a longer
        # switch interval (how long a thread waiting for the GIL waits before it makes the holder hand
        # it over). Bounded: the interval is the whole interpreter's, so whenever the walk releases the
        # GIL (a blocking call, a finalizer's I/O) a busy thread of the program that takes it holds it
        # that long while the walk waits - with 1000 s, a hostile-heap run on the H200 hung there.
        other_thread = threading.current_thread() is not threading.main_thread()
        interval = sys.getswitchinterval()
        if other_thread:
            sys.setswitchinterval(max(interval, WALK_SWITCH_INTERVAL_S))
        us0 = vscap_now_us()
        t0 = time.perf_counter()
        try:
            self._collect_retention(trigger, cap, t0)
        except Exception as e:
            self._failed("the retention graph (%s)" % trigger, e)
        finally:
            if other_thread:
                sys.setswitchinterval(interval)
            if was_enabled:
                gc.enable()
            seconds = time.perf_counter() - t0
            if threading.current_thread() is self._thread:
                self._writer_walks_s += seconds
            budget.charge(seconds)
            self._pause_marks.append((us0, vscap_now_us()))
            self.retention_pauses.append((trigger, seconds))

    def _import_what_symbolizing_would(self):
        """PyTorch's stack symbolization imports torch._inductor (torch imports it lazily, ~4.5 s): on
        the writer thread that import would race the program's own, and two threads importing the
        same modules cyclically get half-initialised modules. So it is done here, before the writer
        starts - unless PyTorch will symbolize nothing: with the tracker loaded, every stack without
        C++ frames (stacks="python", whoever gathered it: the tracker or PyTorch) is symbolized by
        the tracker (_own_symbols.h), and the block list is read without PyTorch (allocator_state).
        Only C++ frames (stacks="all") and the polling source (_snapshot()) need PyTorch's."""
        if self.stacks == "none" or (self.stacks == "python" and hasattr(self.source, "allocator_state")):
            return
        history_guard.import_inductor()

    def _allocator_state(self, stacks):
        """_snapshot()'s segments and settings: from the tracker when loaded (no trace ring, no import
        of torch._inductor; the stacks only if asked), else from _snapshot()."""
        reader = getattr(self.source, "allocator_state", None)
        return reader(stacks) if reader else self.torch.cuda.memory._snapshot()

    def _collect_retention(self, trigger, cap, t0):
        snap = self._allocator_state(False)
        by_device = {}
        for s in snap.get("segments", []):
            for b in s.get("blocks", []):
                if b.get("state") == "active_allocated":
                    pool = tuple(s.get("segment_pool_id") or (0, 0))
                    by_device.setdefault(s.get("device", 0), []).append((b["address"], b["size"], pool))
        for device, blocks in sorted(by_device.items()):
            left = cap - (time.perf_counter() - t0)
            if left < pauses.MIN_WALK_S:
                self.warn("retention graph (%s) of device %d skipped: its pause budget (%.2f s) was spent"
                          % (trigger, device, cap))
                continue

            def progress(done, total, start=time.monotonic()):
                if time.monotonic() - start > 2:  # only say something when it takes a while
                    self.say("vramscope: retention (%s): %d/%d objects" % (trigger, done, total))
            # the tracker's compiled heap index when it is loaded (~10x faster than the Python one)
            native = getattr(self.source, "m", None)
            native = native if hasattr(native, "heap_index") else None
            g = retention.collect(blocks, self.torch, left, progress=progress, native=native)
            self.retention_stats.append((trigger, len(blocks), g.objects, len(g.nodes), g.seconds, g.truncated))
            if g.truncated:
                slow = "" if native else "; the heap was indexed in Python (~10x slower: the tracker is not built)"
                # the budget's rule, not its running totals: those do not count this walk yet (the
                # Meta "pauses" line at the end has them)
                self.warn("retention graph (%s) of device %d is partial: %s; the pause budget allowed %.2f s "
                          "(%s; %s sets it)%s" % (trigger, device, g.cut or "cut short", cap,
                                                  self.pause_budget.rule() if self.pause_budget else "no limit",
                                                  pauses.ENV, slow))
            if g.skipped:
                self.warn("retention graph (%s): %d objects could not be read and were left out"
                          % (trigger, g.skipped), key=("unreadable", trigger))
            with self._lock:
                raw = vscap.retention_record(device, time.time_ns() // 1000, trigger, g, self.source.interner)
                self._write_chunk(raw)

    def mark(self, name, value):
        try:
            with self._lock:
                self._marks.append((time.time_ns() // 1000, str(name), int(value)))
        except Exception as e:
            self._failed("vramscope.mark()", e)

    # ---- internals
    def _own_stacks(self):
        """(which events' Python stacks the tracker gathers itself, sources.NativeSource: those PyTorch
        would, all or allocations only; or None and why PyTorch gathers them, None if nobody does)."""
        if self.stacks == "all":
            return None, "--stacks all: C++ frames, which only PyTorch gathers"
        if self.stacks != "python":
            return None, None
        if os.environ.get("VRAMSCOPE_OWN_STACKS", "1") == "0":
            return None, "VRAMSCOPE_OWN_STACKS=0"
        return "all" if self.free_stacks else "alloc", None

    def _make_source(self):
        if self.use_native:
            module, reason = native.load(say=self.say)
            if module is not None:
                module.reset()  # ids from 0 again: an earlier recording in this process numbered its own
                vscap.use(module)  # every record through core's codec, compiled into the module
                return sources.NativeSource(module, self.max_buffered, self.stacks != "all", *self._own_stacks())
            self.say("vramscope: the native tracker could not be built (%s); falling back to polling "
                     "torch.cuda.memory._snapshot() once a second: slower, and events can be lost when "
                     "PyTorch's ring overruns" % reason)
            self.warn("the native tracker could not be built (%s): events polled from PyTorch's ring" % reason)
        self.interval = max(self.interval, 1.0)
        vscap.use(codec)  # the pure-Python fallback, held to the compiled codec's bytes
        return sources.PollingSource(self.torch)

    def _connect_live(self):
        if not self.live_path:
            return
        try:
            self.live = LiveSink(self.live_path)
            self._sinks.append(self.live.write)
        except OSError as e:
            self.say("vramscope: no viewer listening at %s (%s); recording to %s only"
                     % (self.live_path, e.strerror or e, self.path))

    def _emit(self, data):
        self.bytes_written += len(data)
        for sink in self._sinks:
            try:
                sink(data)
            except OSError as e:
                # the file cannot hold a warning about itself: this is said on stderr, once
                if not getattr(self, "_write_error", None):
                    self._write_error = e
                    self.say("vramscope: cannot write %s (%s); the recording is incomplete" % (self.path, _text(e)))
                raise

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
                 "stacks": self.stacks if self.free_stacks else self.stacks + ", allocations only"}
        for k, v in facts.items():
            out += vscap.meta_record(k, v)
        for i in range(t.cuda.device_count()):
            p = t.cuda.get_device_properties(i)
            out += vscap.device_record(i, p.name, p.total_memory)
        return bytes(out)

    def _loop(self):
        try:
            self._loop_until_stopped()
        finally:
            # this thread's CPU seconds, less its retention graphs (pauses of the program, counted there)
            self.cost.writer_cpu_s = max(0.0, time.thread_time() - self._writer_walks_s)

    def _loop_until_stopped(self):
        failures = 0
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
                failures = 0
            except Exception as e:  # never take the program down; say why in the file
                failures += 1
                self._failed("the writer thread", e)
                if failures >= 5:
                    self.warn("the writer thread stopped after %d failures in a row: events after this "
                              "moment are missing" % failures)
                    self.say("vramscope: recording stopped: %s: %s" % (type(e).__name__, _text(e)))
                    return

    def _allocated(self):
        """memory_allocated() of all devices (the writer thread has no current device of its own)."""
        stats = self.torch.cuda.memory_stats_as_nested_dict
        return sum(stats(d)["allocated_bytes"]["all"]["current"] for d in range(self._devices))

    def _auto_retention(self):
        if self.auto_trigger.sample(time.monotonic(), self._allocated()):
            self.say("vramscope: collecting a retention graph (%s)" % self.auto_trigger.reason)
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
            raw += self._warning_records()
            raw += self._pause_records()
            if self.driver is not None and self._running and time.monotonic() - self._driver_at >= DRIVER_EVERY_S:
                self._driver_at = time.monotonic()
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
        snap = self._allocator_state(True)
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
                self._failed("recording the state at the OOM", e)
        try:
            self.torch._C._cuda_attach_out_of_memory_observer(on_oom)
        except Exception:
            pass  # older torch: the state at exit still comes


def vscap_now_us():
    return time.time_ns() // 1000


def _text(e):
    try:
        return str(e)
    except Exception:
        return "(its message could not be read)"


def _short(key):
    try:
        text = key if isinstance(key, str) else " ".join(str(k) for k in key)
    except Exception:
        text = "?"
    return text if len(text) <= 120 else text[:117] + "..."
