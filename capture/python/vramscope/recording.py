"""One stretch of a program recorded into a capture of its own (a test's call, an assert_no_leak
loop), with the allocator's counters around it: what the pytest plugin and assert_no_leak share.

The retention graph (who holds the memory) is walked at the end only when the stretch ended with
more allocated than it began with: a stretch that kept nothing has no holder to name, and the walk
is most of a recording's fixed cost (0.1-0.2 s). It is not charged to the program's pause budget:
it runs after the stretch, not inside it.

A recording made with gives_way=True (the plugin's) ends where the program starts one of its own
(vramscope.start, vramscope.record, assert_no_leak): the program's recording comes first, and this
capture holds the stretch up to that moment (`given_way` says so)."""
import hashlib
import os
import re

from . import figures, pauses

RETENTION_BUDGET_S = 10.0
_polling = [False]  # the compiled tracker could not be built here: later recordings poll without asking again


def capture_name(nodeid):
    """A file name for a test's capture: its node id, readable, unique (parametrized ids included)."""
    name = re.sub(r"[^A-Za-z0-9_.\-\[\]]+", "_", nodeid).strip("_")
    if len(name) > 120:
        name = name[:100] + "-" + hashlib.sha1(nodeid.encode()).hexdigest()[:12]
    return name + ".vscap"


class Recording:
    def __init__(self, path, torch, gives_way=False):
        self.path = path
        self.torch = torch
        self.gives_way = gives_way
        self.given_way = False
        self.before = None
        self.stretch = None
        self.recorder = None

    def start(self):
        import vramscope  # the package's one active recording: vramscope.mark() in the stretch reaches it
        d = os.path.dirname(self.path)
        if d:
            os.makedirs(d, exist_ok=True)
        self.recorder = vramscope.start(self.path, auto_retention=False, retention_budget_s=RETENTION_BUDGET_S,
                                        pause_budget=pauses.PauseBudget(None), use_native=not _polling[0])
        _polling[0] = getattr(self.recorder.source, "mode", "") == "polling"
        self.recorder.gives_way = self.gives_way
        self.before = figures.read(self.torch)
        return self

    def stop(self):
        """Ends the recording; returns the stretch's figures (figures.Stretch)."""
        import vramscope
        after = figures.read(self.torch)
        self.stretch = figures.between(self.before, after)
        if vramscope._active is self.recorder:
            vramscope.stop(walk=self.stretch.growth > 0)
        else:  # the program began its own recording, which stopped this one (and may still run)
            self.given_way = True
        return self.stretch

    def discard(self):
        try:
            os.unlink(self.path)
        except OSError:
            pass
