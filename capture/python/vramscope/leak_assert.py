"""vramscope.assert_no_leak(step): run one function many times under the recorder and raise with the
finding when memory grows steadily. Any test framework (it raises AssertionError's subclass).

    def test_train_step_does_not_leak():
        vramscope.assert_no_leak(lambda: train_step(model, batch), iterations=200, warmup=10)

The warm-up runs unrecorded (optimizer state, cuBLAS workspaces and caches filled on first use are
not growth); then `iterations` calls, each marked as a "step" in the capture. The judge is
vramscope-cli's findings when the CLI is there (the same as `vramscope-cli check --max-growth`), else
the floor of allocated memory: the least allocated over the last quarter of the calls against the
least over the first quarter. The capture is named after the test and kept when it fails."""
import os

from . import cli, figures, limits, recording, sizes


class LeakError(AssertionError):
    """Memory kept across the calls of assert_no_leak's step; .capture is the recording's path."""

    def __init__(self, text, capture=None, findings=()):
        super().__init__(text)
        self.capture = capture
        self.findings = tuple(findings)


def _name(step):
    """The current pytest test's node id (PYTEST_CURRENT_TEST), else the step's qualified name."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    if current:
        return current.rsplit(" (", 1)[0]
    return getattr(step, "__qualname__", None) or getattr(step, "__name__", None) or "step"


def floor_rise(samples):
    """How much the floor of allocated memory rose: least of the last quarter minus least of the first."""
    q = max(1, len(samples) // 4)
    return min(samples[-q:]) - min(samples[:q])


def _run(step, iterations, torch):
    import vramscope
    samples = []
    for i in range(iterations):
        vramscope.mark("step", i)
        step()
        samples.append(sum(figures.read(torch).current))
    return samples


def assert_no_leak(step, iterations=200, warmup=10, *, max_growth=0, name=None, directory=None, keep="failed",
                   cli_path=None):
    """Calls step() warmup times, then `iterations` times recorded; raises LeakError when memory is
    kept: a finding of vramscope-cli over `max_growth` bytes ("16 MiB" works too), or without the CLI
    a rise of the allocated floor over it. The capture goes to `directory` (default $VRAMSCOPE_DIR,
    else ./vramscope-captures), named after the test; kept when it fails, or always with keep="all"."""
    import torch
    import vramscope
    if iterations < 4:
        raise ValueError("assert_no_leak needs at least 4 iterations to tell growth from noise")
    limit = sizes.parse(max_growth)
    for _ in range(warmup):
        step()
    name = name or _name(step)
    if vramscope._active is not None and not getattr(vramscope._active, "gives_way", False):
        # recorded already (python -m vramscope record): that capture has the loop
        samples = _run(step, iterations, torch)
        return _judge_floor(name, samples, limit, None, vramscope._active.path, " (the recording in progress)")
    folder = directory or os.environ.get("VRAMSCOPE_DIR") or "vramscope-captures"
    rec = recording.Recording(os.path.join(folder, recording.capture_name(name)), torch).start()
    try:
        samples = _run(step, iterations, torch)
    finally:
        rec.stop()
    found = cli.find(cli_path)
    analysis = cli.analyse(found, rec.path) if found else None
    try:
        if analysis is not None and not analysis.error:
            _judge_findings(name, samples, limit, analysis, rec.path)
        else:
            _judge_floor(name, samples, limit, analysis, rec.path)
    except LeakError:
        raise
    else:
        if keep != "all":
            rec.discard()


def _head(name, samples):
    return ("vramscope.assert_no_leak: %s: allocated memory went from %s to %s over %d calls (floor rose %s)"
            % (name, sizes.text(samples[0]), sizes.text(samples[-1]), len(samples), sizes.text(floor_rise(samples))))


def _judge_findings(name, samples, limit, analysis, capture):
    over = [f for f in analysis.leaks() if f.bytes > limit]
    if over:
        text = "\n".join([_head(name, samples)] + [limits.describe(f) for f in over] + ["capture: " + capture])
        raise LeakError(text, capture, over)


def _judge_floor(name, samples, limit, analysis, capture, whose=""):
    rise = floor_rise(samples)
    if rise > limit:
        why = ("judged by the allocator's counters; the test's own capture will name the line" if whose
               else cli.MISSING if analysis is None else analysis.error)
        per = rise / max(1, len(samples) - max(1, len(samples) // 4))
        text = "%s: about %s kept per call\n(%s)\ncapture: %s%s" % (_head(name, samples), sizes.text(int(per)), why,
                                                                   capture, whose)
        raise LeakError(text, capture)
