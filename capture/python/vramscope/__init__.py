"""vramscope's PyTorch recorder: every CUDA caching-allocator event, with Python stacks, into a
.vscap file that vramscope (GUI) and vramscope-cli read, and optionally live to a listening viewer.

    import vramscope
    with vramscope.record("run.vscap"):
        train()                      # vramscope.mark("step", i) at each iteration helps the analysis

or from the shell:  python -m vramscope record -o run.vscap -- train.py ARGS
"""
import contextlib

from .recorder import Recorder

__all__ = ["record", "start", "stop", "mark", "collect_retention", "Recorder"]
__version__ = "0.1.0"

_active = None


def start(path=None, live=None, stacks="python", **options):
    """Starts recording to `path` (default vramscope-PID.vscap); `live` is a viewer's socket path
    (default: $VRAMSCOPE_LIVE). Returns the Recorder."""
    global _active
    if _active is not None:
        raise RuntimeError("vramscope is already recording to %s" % _active.path)
    _active = Recorder(path, live=live, stacks=stacks, **options).start()
    return _active


def stop():
    """Stops recording: writes the allocator's final block list and closes the file."""
    global _active
    rec, _active = _active, None
    if rec is not None:
        rec.stop()
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
