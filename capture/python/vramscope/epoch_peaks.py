"""vramscope.EpochPeaks: the check people write by hand in every training loop (log each epoch's
max_memory_allocated(), complain when it grows by more than a few per cent), with the finding that
explains it. Per phase ("epoch", "evaluation") it keeps each one's peak of allocated CUDA memory,
marks each phase in the recording (the GUI draws the markers) and warns once, with a
PeakGrowthWarning, when a phase's peak grows more than `threshold` per cent over the previous one of
the same kind: the warning names what grew and at which line, from the recording so far (read by
vramscope-cli), and says where the capture is.

    peaks = vramscope.EpochPeaks(threshold=5)
    for epoch in range(epochs):
        with peaks.phase("epoch", epoch):
            train_one_epoch()

The peak counter is left alone unless reset_peak=True (what the hand-written check does: then the
program's own max_memory_allocated() readings change): a phase's peak is exact when it sets a new
high, else known to be at most the high before it (shown "<="), and a growing peak always sets one."""
import contextlib
import dataclasses
import os
import warnings

from . import cli, figures, limits, sizes


class PeakGrowthWarning(UserWarning):
    """A phase's peak of allocated CUDA memory grew more than the threshold over the previous one."""


@dataclasses.dataclass(frozen=True)
class Peak:
    phase: str
    index: int
    bytes: int
    exact: bool

    def text(self):
        return sizes.text(self.bytes) if self.exact else "<= " + sizes.text(self.bytes)


class EpochPeaks:
    def __init__(self, threshold=5.0, *, record=None, cli_path=None, reset_peak=False, torch=None):
        """threshold: per cent of growth over the previous phase that warns. record: a capture path to
        record into when nothing records this process yet (stopped by close())."""
        self.threshold = float(threshold)
        self.record_path = record
        self.cli_path = cli_path
        self.reset_peak = reset_peak
        self._torch = torch
        self.peaks = {}      # phase -> [Peak]
        self.warning = None  # the text of the one warning given
        self._open = {}      # phase -> (index, counters at its start)
        self._started = False

    @property
    def torch(self):
        if self._torch is None:
            import torch
            self._torch = torch
        return self._torch

    def begin(self, phase="epoch", index=None):
        import vramscope
        if self.record_path and not self._started and vramscope._active is None:
            vramscope.start(self.record_path)
            self._started = True
        if index is None:
            index = len(self.peaks.get(phase, []))
        vramscope.mark(phase, index)  # the GUI shows each phase's start; the analysis reads iterations
        if self.reset_peak:
            for d in range(self.torch.cuda.device_count()):
                self.torch.cuda.reset_peak_memory_stats(d)
        self._open[phase] = (index, figures.read(self.torch))

    def end(self, phase="epoch"):
        """Ends the phase; returns its Peak (None when it was never begun)."""
        if phase not in self._open:
            return None
        index, before = self._open.pop(phase)
        stretch = figures.between(before, figures.read(self.torch))
        peak = Peak(phase, index, stretch.peak, stretch.peak_exact)
        history = self.peaks.setdefault(phase, [])
        if history and not self.warning:
            self._compare(history[-1], peak)
        history.append(peak)
        return peak

    @contextlib.contextmanager
    def phase(self, phase="epoch", index=None):
        self.begin(phase, index)
        try:
            yield self
        finally:
            self.end(phase)

    def close(self):
        """Stops the recording begun for `record` (the capture is complete then)."""
        import vramscope
        if self._started:
            self._started = False
            vramscope.stop()

    def _compare(self, previous, peak):
        # a phase that set no new high cannot have grown past one that did (see the module's note)
        if not peak.exact or previous.bytes <= 0:
            return
        growth = 100.0 * (peak.bytes - previous.bytes) / previous.bytes
        if growth <= self.threshold:
            return
        self.warning = ("vramscope: the peak of %s %d is %s, %.1f %% over %s %d's %s (threshold %g %%)\n%s"
                        % (peak.phase, peak.index, peak.text(), growth, previous.phase, previous.index,
                           previous.text(), self.threshold, self._what_grew()))
        warnings.warn(PeakGrowthWarning(self.warning), stacklevel=3)

    def _what_grew(self):
        """The recording so far, read by the CLI: its first finding, the line, the holder."""
        import vramscope
        rec = vramscope._active
        if rec is None:
            return "(record the run - python -m vramscope record, or EpochPeaks(record=PATH) - to name what grew)"
        path = os.path.abspath(rec.path)
        found = cli.find(self.cli_path)
        if not found:
            return "(%s)\ncapture: %s" % (cli.MISSING, path)
        try:
            rec._flush()  # the events so far into the file (the writer thread does it every 0.5 s)
        except Exception:
            pass
        analysis = cli.analyse(found, path)
        if analysis.error:
            return "(%s)\ncapture so far: %s" % (analysis.error, path)
        kept = analysis.leaks() or list(analysis.findings)
        if not kept:
            return "vramscope-cli finds no memory kept so far (a larger working set?)\ncapture so far: %s" % path
        return "%s\ncapture so far: %s" % (limits.describe(kept[0]), path)
