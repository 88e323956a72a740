"""Where allocator events come from. NativeSource: the compiled tracker (every event, as it happens).
PollingSource: the pure-Python fallback, which reads new entries of PyTorch's own trace ring through
`torch.cuda.memory._snapshot()` - no compiler needed, but each poll costs a snapshot."""
from . import vscap


class NativeSource:
    mode = "native"

    def __init__(self, module, max_buffered, python_stacks_only=True, own_stacks=None, not_own=None):
        self.m = module
        self.python_stacks_only = python_stacks_only
        # own_stacks: "all" or "alloc" to gather the Python stacks of those events in the tracker
        # (_own_stacks.h) rather than in PyTorch; None leaves them to PyTorch (not_own: why, when
        # PyTorch gathers any). After start(): self.stack_gatherer says which gathers them, and why
        # not ours (the file's stack_gatherer fact).
        self.own_stacks = own_stacks
        self.not_own = not_own
        self.stack_gatherer = None
        self.interner = module  # one numbering of ids per file: the tracker's
        self.max_buffered = max_buffered

    def history_entries(self):
        return 1  # PyTorch's ring only has to exist for stacks to be gathered; the tracker sees all

    def start(self):
        self.m.start(self.max_buffered, self.python_stacks_only)
        if self.own_stacks is None:
            self.stack_gatherer = "pytorch (%s)" % self.not_own if self.not_own else None
            return
        why = self.m.use_own_stacks(self.history_entries(), self.own_stacks == "all")
        self.stack_gatherer = "vramscope" if not why else "pytorch (%s)" % why

    def stop(self):
        self.m.stop()

    def allocator_state(self, stacks):
        """_snapshot()'s "segments" and "allocator_settings" without PyTorch's symbolization (which
        imports torch._inductor) and without the trace ring; the blocks' stacks only if asked."""
        return self.m.allocator_state(stacks)

    def drain(self):
        return self.m.drain()

    def dropped(self):
        return self.m.dropped()

    def compress(self):
        if not self.m.has_zstd():
            return None
        return lambda raw: self.m.compress(raw, 3)


def entry_key(e):
    return (e.get("time_us"), e.get("action"), e.get("addr"), e.get("size"), e.get("stream"))


def new_entries(trace, last_key, last_count):
    """Entries of `trace` (PyTorch's ring, oldest first) after the one seen last.
    Returns (entries, lost): lost is True when the ring overran since the last poll."""
    if last_key is None or not trace:
        return list(trace), False  # an empty ring (history switched off at the end) loses nothing
    if last_count <= len(trace) and last_count > 0 and entry_key(trace[last_count - 1]) == last_key:
        return list(trace[last_count:]), False  # the ring has not wrapped
    for i in range(len(trace) - 1, -1, -1):
        if entry_key(trace[i]) == last_key:
            return list(trace[i + 1:]), False
    return list(trace), True


class PollingSource:
    mode = "polling"

    def __init__(self, torch, max_entries=1_000_000):
        self.torch = torch
        self.interner = vscap.Interner()
        self.max_entries = max_entries
        self._last = {}
        self._lost = 0

    def history_entries(self):
        return self.max_entries

    def start(self):
        pass

    def stop(self):
        pass

    def drain(self):
        snap = self.torch.cuda.memory._snapshot()
        out = bytearray()
        for device, trace in enumerate(snap.get("device_traces", [])):
            key, count = self._last.get(device, (None, 0))
            entries, lost = new_entries(trace, key, count)
            self._lost += lost
            if trace:
                self._last[device] = (entry_key(trace[-1]), len(trace))
            out += vscap.events_record(device, entries, self.interner)
        return bytes(out)

    def dropped(self):
        return self._lost  # polls that found the ring overrun (events lost: unknown number)

    def compress(self):
        return None
