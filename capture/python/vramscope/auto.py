"""What the recorder does by itself while a program runs: it marks garbage collections (gc.callbacks)
and decides when memory growth deserves a retention graph. Pure Python, no torch: tested offline.

Garbage collections
    Each collection that collected something becomes an Annotation START named "gc.collect" at the
    moment the collection started and an Annotation END named "gc.collect" when it stopped, on the
    CUDA device current in the collecting thread, in the allocator events' clock (Unix µs). Frees
    between the two were made by the garbage collector (a reference cycle released). Collections
    that found nothing to collect free nothing and are not written (a training loop runs hundreds
    of generation-0 collections a second). The callback only reads two clocks and appends a tuple;
    the writer thread turns the queue into records.

Automatic retention graphs (GrowthTrigger)
    Training loops allocate per-iteration temporaries (activations, gradients) that go back to a
    floor after each step; a leak or an accumulation raises the floor itself. The writer thread
    samples memory_allocated() at each of its ticks (every 100 ms) and takes the floor of each
    window of `window_s` seconds (the smallest sample in it). Nothing counts until the program has
    freed something (a sample below its predecessor: it is iterating, no longer only loading a
    model). Then a window counts as growth when its floor is a new maximum of all floors so far.
    After `rises` such windows in a row that together raised the floor by at least `min_bytes`
    (measured from the highest floor before the run), a retention graph is asked for
    (collected on the writer thread, the program paused meanwhile), at most once every `every_s`
    seconds and `max_count` times per run. A clean loop's floor is flat after its first steps; an
    accumulation released at each epoch's end triggers once (the next epochs reach no new
    maximum unless they hold more); a leak that keeps growing triggers again every `every_s`.
    VRAMSCOPE_AUTO_RETENTION=0 turns this off; "window=1,rises=5,min_mb=16,every=30,max=3" sets
    the parameters (any subset).
"""
import collections
import time

GC_NAME = "gc.collect"
START, END = 0, 1


def now_us():
    return time.time_ns() // 1000


class GcAnnotations:
    """A gc.callbacks hook queueing (device, start µs, end µs) of collections that collected."""

    def __init__(self, device_of=None, clock=now_us):
        self.device_of = device_of or (lambda: 0)
        self.clock = clock
        self.queue = collections.deque()  # append/popleft are atomic: no lock (a collection can
        self._started = None              # start while the writer thread holds the recorder's lock)
        self.installed = False
        self.failures = 0

    def __call__(self, phase, info):
        # A gc callback that raises is printed by the interpreter ("Exception ignored in") into the
        # program's stderr: nothing here may raise (a failure counts, and is said in the capture).
        try:
            if phase == "start":
                self._started = self.clock()
                return
            t0, self._started = self._started, None
            if t0 is None or not (info.get("collected") or info.get("uncollectable")):
                return
            t1 = self.clock()
            try:
                device = self.device_of()
            except Exception:
                device = 0
            self.queue.append((device, t0, t1))
        except Exception:
            self.failures += 1

    def install(self):
        import gc
        if not self.installed:
            gc.callbacks.append(self)
            self.installed = True

    def remove(self):
        import gc
        if self.installed:
            try:
                gc.callbacks.remove(self)
            except ValueError:
                pass
            self.installed = False

    def drain(self):
        """[(device, time µs, stage)] of the queued collections, START then END of each."""
        out = []
        while True:
            try:
                device, t0, t1 = self.queue.popleft()
            except IndexError:
                return out
            out.append((device, t0, START))
            out.append((device, t1, END))


DEFAULTS = {"window": 1.0, "rises": 5, "min_mb": 16.0, "every": 30.0, "max": 3}


def parse_setting(value):
    """VRAMSCOPE_AUTO_RETENTION -> None (off) or the parameters (DEFAULTS overridden)."""
    params = dict(DEFAULTS)
    v = (value or "").strip().lower()
    if v in ("0", "off", "no", "false", "none"):
        return None
    if v in ("", "1", "on", "yes", "true"):
        return params
    for item in v.split(","):
        if "=" not in item:
            continue
        k, x = (s.strip() for s in item.split("=", 1))
        if k in params:
            params[k] = type(params[k])(float(x)) if k in ("rises", "max") else float(x)
    return params


class GrowthTrigger:
    """Fed (monotonic seconds, allocated bytes) at each tick; sample() says when to collect."""

    def __init__(self, window=1.0, rises=5, min_mb=16.0, every=30.0, max=3):
        self.window_s = float(window)
        self.rises = int(rises)
        self.min_bytes = int(min_mb * (1 << 20))
        self.every_s = float(every)
        self.max_count = int(max)
        self.count = 0
        self.reason = ""
        self._last_fire = None
        self._reset_window(None)
        self._best = None      # the highest window floor so far
        self._run = 0          # growth windows in a row
        self._run_base = None  # the floor before the run began
        self._armed = False    # the program has freed something: it is iterating

    def _reset_window(self, t):
        self._w_start = t
        self._w_min = None
        self._w_prev = None

    def restart(self, t):
        """After a collection (the program was paused): begin a fresh window."""
        self._reset_window(t)

    def sample(self, t, allocated):
        if self.count >= self.max_count:
            return False
        if self._w_start is None:
            self._w_start = t
        if self._w_prev is not None and allocated < self._w_prev:
            self._armed = True
        self._w_prev = allocated
        self._w_min = allocated if self._w_min is None else min(self._w_min, allocated)
        if t - self._w_start < self.window_s:
            return False
        floor = self._w_min
        self._reset_window(t)
        self._w_prev = allocated
        if self._best is not None and floor > self._best and self._armed:
            if self._run == 0:
                self._run_base = self._best
            self._run += 1
        else:
            self._run = 0
        self._best = floor if self._best is None else max(self._best, floor)
        if self._run < self.rises or floor - self._run_base < self.min_bytes:
            return False
        if self._last_fire is not None and t - self._last_fire < self.every_s:
            return False
        self.reason = "auto: allocated floor rose %.1f MiB over %d windows of %g s" % (
            (floor - self._run_base) / (1 << 20), self._run, self.window_s)
        self._last_fire = t
        self.count += 1
        self._run = 0
        return True
