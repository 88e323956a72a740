"""The stand-in torch of tests/faketorch, plus what the pytest plugin and the callbacks read: each
tensor's free (free_requested, free_completed) in the allocator history and the allocator's counters
(memory_stats: current and peak allocated bytes, allocations made). A tensor owns a segment of its
own, cached when it is freed (reused by the next tensor of its size), so the history replays exactly. FAKE_TORCH_NO_CUDA=1: torch.cuda.is_available() is False.

The base's code runs in this module's namespace (one module, one set of globals); the code below is
compiled under the base's file name so that the base's "first frame outside torch" is still the
caller's, for the allocations' stacks."""
import builtins
import os

_BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "faketorch", "torch", "__init__.py")
_BASE = os.path.normpath(_BASE)
__file__ = _BASE
with open(_BASE) as _f:
    exec(compile(_f.read(), _BASE, "exec"), globals())

_EXTRA = r'''
import sys as _sys
import time as _time
import weakref as _weakref

_TRACE = None  # the base's own alloc-only trace stays off: this history has every event
_HISTORY = []
_counters = {"current": 0, "peak": 0, "allocations": 0}
_SEGMENT = 1 << 30  # a tensor's own segment: addresses 1 GiB apart, any fake size fits
_addresses = itertools.count()


def _user_frames():
    """The caller's stack, innermost first, without this module's frames (as PyTorch's python stacks)."""
    out, f = [], _sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename != __file__:
            out.append({"filename": f.f_code.co_filename, "line": f.f_lineno, "name": f.f_code.co_name})
        f = f.f_back
    return out[:24]


_history = [False]  # as PyTorch's: events are kept only while the history is on


def _event(action, addr, size, frames):
    if _history[0]:
        _HISTORY.append({"action": action, "addr": addr, "size": size, "stream": 0,
                   "time_us": _time.time_ns() // 1000, "frames": frames})


def _freed(ptr, size):
    _counters["current"] -= size
    _event("free_requested", ptr, size, [])
    _event("free_completed", ptr, size, [])
    _free_segments.setdefault(_segment_size(size), []).append(ptr)  # cached, as PyTorch's allocator


def _segment_size(size):
    """PyTorch's pools: a request up to 1 MiB is split off a 2 MiB small segment; a larger one gets a
    large segment of exactly its size here (so the allocator's split rules never disagree)."""
    return 2 << 20 if size <= 1 << 20 else size


_segments = {}       # address -> size of every segment reserved (never given back: no empty_cache)
_free_segments = {}  # size -> addresses of segments whose block is free


def _place(size, frames):
    """The address of a new block: a cached segment of its size, else a new segment."""
    free = _free_segments.get(_segment_size(size))
    if free:
        return free.pop()
    ptr = 0x100000000000 + next(_addresses) * _SEGMENT
    _segments[ptr] = _segment_size(size)
    _event("segment_alloc", ptr, _segment_size(size), frames)
    return ptr


_base_init = Tensor.__init__


def _init(self, size=1024, requires_grad=False):
    _base_init(self, size, requires_grad)
    _live.pop(self.ptr, None)
    frames = _user_frames()
    self.ptr = _place(self.size, frames)
    _live[self.ptr] = self
    _event("alloc", self.ptr, self.size, frames)
    _counters["current"] += self.size
    _counters["allocations"] += 1
    _counters["peak"] = max(_counters["peak"], _counters["current"])
    _weakref.finalize(self, _freed, self.ptr, self.size)


Tensor.__init__ = _init


def _segment(ptr, total):
    t = _live.get(ptr)
    blocks = [{"address": ptr, "size": t.size, "requested_size": t.size, "state": "active_allocated"}] if t else []
    used = t.size if t else 0
    if total > used:  # the rest of the segment, free
        blocks.append({"address": ptr + used, "size": total - used, "requested_size": 0, "state": "inactive"})
    return {"device": 0, "address": ptr, "total_size": total, "stream": 0,
            "segment_type": "small" if total == 2 << 20 and (not t or t.size <= 1 << 20) else "large",
            "blocks": blocks}


def _switch_history(enabled="all", context=None, stacks="python", max_entries=0):
    if _fail("history"):
        raise RuntimeError("fake torch: no memory history (FAKE_TORCH_FAIL=history)")
    _history[0] = bool(enabled)
    if not enabled:
        del _HISTORY[:]


def _snapshot():
    segments = [_segment(a, total) for a, total in sorted(_segments.items())]
    return {"segments": segments, "device_traces": [list(_HISTORY)], "allocator_settings": {}}


def _memory_stats(device=None):
    return {"allocated_bytes.all.current": _counters["current"], "allocated_bytes.all.peak": _counters["peak"],
            "allocation.all.allocated": _counters["allocations"]}


def _nested(device=None):
    return {"allocated_bytes": {"all": {"current": _counters["current"], "peak": _counters["peak"]}}}


memory._snapshot = _snapshot
memory._record_memory_history = _switch_history
cuda.memory_stats = memory.memory_stats = _memory_stats
cuda.memory_stats_as_nested_dict = _nested
cuda.memory_allocated = lambda device=None: _counters["current"]
cuda.max_memory_allocated = lambda device=None: _counters["peak"]
cuda.is_initialized = lambda: True


def _reset_peak(device=None):
    _counters["peak"] = _counters["current"]


cuda.reset_peak_memory_stats = _reset_peak
if os.environ.get("FAKE_TORCH_NO_CUDA") == "1":
    cuda.is_available = lambda: False
'''
exec(builtins.compile(_EXTRA, _BASE, "exec"), globals())  # the base defines torch.compile
