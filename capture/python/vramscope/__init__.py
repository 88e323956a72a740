"""vramscope's PyTorch recorder: every CUDA caching-allocator event, with Python stacks, into a
.vscap file that vramscope (GUI) and vramscope-cli read, and optionally live to a listening viewer.

    import vramscope
    with vramscope.record("run.vscap"):
        train()                      # vramscope.mark("step", i) at each iteration helps the analysis

or from the shell:  python -m vramscope record -o run.vscap -- train.py ARGS

In tests: `pytest --vramscope` (the pytest plugin, pytest_plugin.py), vramscope.assert_no_leak(step)
for one function, vramscope.EpochPeaks and vramscope.callbacks for training loops (docs/testing.md).
"""
import contextlib

from .epoch_peaks import EpochPeaks, PeakGrowthWarning
from .leak_assert import LeakError, assert_no_leak
from .recorder import Recorder

__all__ = ["record", "start", "stop", "mark", "collect_retention", "Recorder", "assert_no_leak", "LeakError",
           "EpochPeaks", "PeakGrowthWarning"]
__version__ = "0.1.0"

_active = None


def start(path=None, live=None, stacks="python", **options):
    """Starts recording to `path` (default vramscope-PID.vscap); `live` is a viewer's socket path
    (default: $VRAMSCOPE_LIVE). Returns the Recorder."""
    global _active
    if _active is not None and getattr(_active, "gives_way", False):
        stop(walk=False)  # a test's recording by pytest --vramscope: the program's own comes first
    if _active is not None:
        raise RuntimeError("vramscope is already recording to %s" % _active.path)
    _active = Recorder(path, live=live, stacks=stacks, **options).start()
    return _active


def stop(walk=True):
    """Stops recording: writes the allocator's final block list and closes the file. walk=False: no
    retention graph at the end (nothing was kept, or nobody will ask who holds it)."""
    global _active
    rec, _active = _active, None
    if rec is not None:
        rec.stop(walk=walk)
    return rec


@contextlib.contextmanager
def record(path=None, live=None, stacks="python", **options):
    rec = start(path, live=live, stacks=stacks, **options)
    try:
        yield rec
    finally:
        stop()


def mark(name, value):
    """An iteration marker ("step", i): vramscope uses it to tell per-iteration growth apart."""
    if _active is not None:
        _active.mark(name, value)


def collect_retention():
    """Records now which Python objects keep the allocated GPU blocks alive (also done at exit)."""
    if _active is not None:
        _active.collect_retention("request")
