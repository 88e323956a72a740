"""What a test (or an assert_no_leak loop) may do with GPU memory, and the verdict in words a reader
acts on: the finding's sentence, the user's line, the holder, the capture's path."""
import dataclasses

from . import sizes


@dataclasses.dataclass(frozen=True)
class Limits:
    peak: int = None      # bytes; the stretch's peak allocated may not exceed it
    growth: int = None    # bytes; no finding (or, without the CLI, the stretch's growth) may exceed it
    no_leak: bool = False  # no finding that keeps memory at all

    def any(self):
        return self.peak is not None or self.growth is not None or self.no_leak


@dataclasses.dataclass
class Verdict:
    failures: list = dataclasses.field(default_factory=list)  # paragraphs, each one broken limit
    notes: list = dataclasses.field(default_factory=list)     # what could not be checked, and why

    @property
    def failed(self):
        return bool(self.failures)


def peak_of(stretch, analysis):
    """(bytes, exact): the counters' peak when the stretch set a new high, else the capture's (exact,
    from the replay) when the CLI read it, else the counters' bound."""
    if stretch.peak_exact or analysis is None or analysis.peak is None:
        return stretch.peak, stretch.peak_exact
    return analysis.peak, True


def peak_text(stretch, analysis):
    value, exact = peak_of(stretch, analysis)
    return sizes.text(value) if exact else "<= " + sizes.text(value)


def describe(finding):
    """A finding as a failure shows it: the sentence, then the user's line and the holder."""
    lines = [finding.sentence or finding.summary]
    if finding.line:
        lines.append("  line: " + finding.line)
    if finding.holder:
        lines.append("  held by: " + finding.holder)
    return "\n".join(lines)


def judge(limits, stretch, analysis):
    """The Verdict of `limits` on a stretch (figures.Stretch) and what the CLI found in its capture
    (cli.Analysis, or None without the CLI)."""
    v = Verdict()
    usable = analysis is not None and not analysis.error
    if limits.peak is not None:
        value, exact = peak_of(stretch, analysis if usable else None)
        if value > limits.peak and exact:
            v.failures.append("peak %s exceeds the limit %s" % (sizes.text(value), sizes.text(limits.peak)))
        elif value > limits.peak:
            v.notes.append("the peak could not be checked against %s: the allocator's counter only says it was "
                           "at most %s (vramscope-cli reads it exactly)" % (sizes.text(limits.peak), sizes.text(value)))
    if limits.growth is not None:
        if usable:
            for f in analysis.leaks():
                if f.bytes > limits.growth:
                    v.failures.append("%s exceeds the growth limit %s:\n%s"
                                      % (f.summary, sizes.text(limits.growth), describe(f)))
        elif stretch.growth > limits.growth:
            v.failures.append("allocated memory grew by %s, over the limit %s (what grew and where: vramscope-cli)"
                              % (sizes.text(stretch.growth), sizes.text(limits.growth)))
    if limits.no_leak:
        if usable:
            v.failures.extend("memory kept: %s" % describe(f) for f in analysis.leaks())
        else:
            v.notes.append("vramscope_no_leak was not checked: it needs vramscope-cli's findings%s"
                           % (" (%s)" % analysis.error if analysis is not None and analysis.error else ""))
    return v


def failure_text(name, verdict, stretch, analysis, capture):
    head = "vramscope: %s: peak %s, growth %s" % (name, peak_text(stretch, analysis), sizes.text(stretch.growth))
    body = "\n".join(verdict.failures)
    tail = "capture: %s (open it: vramscope %s)" % (capture, capture) if capture else "capture: not kept"
    return "\n".join((head, body, tail))
