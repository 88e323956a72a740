"""pytest --vramscope: each test recorded into a capture of its own, a table of every test's peak,
growth and finding at the end, marks that fail a test over its limits, the figures as JUnit
properties. Registered through the `pytest11` entry point; without --vramscope it only declares its
marks (so --strict-markers accepts them) and changes nothing.

    pytest --vramscope [--vramscope-dir DIR] [--vramscope-keep failed|all] [--vramscope-cli PATH]

    @pytest.mark.vramscope_limit(peak="2 GiB", growth="16 MiB")
    @pytest.mark.vramscope_no_leak

The recording runs around the test's call phase (with --vramscope-setup, from its fixtures' setup
on). Each test's figures travel in report.user_properties: that is how pytest-xdist brings them from
the workers to the table, and how junitxml writes them. Docs: docs/testing.md."""
import dataclasses
import os
import shutil
import tempfile

import pytest

from . import cli, limits, recording, sizes

MARK_LIMIT = "vramscope_limit"
MARK_NO_LEAK = "vramscope_no_leak"
PEAK, PEAK_EXACT, GROWTH, FINDING, FINDINGS, CAPTURE, FAILED = (
    "vramscope_peak_bytes", "vramscope_peak_exact", "vramscope_growth_bytes", "vramscope_finding",
    "vramscope_findings", "vramscope_capture", "vramscope_failed")


def pytest_addoption(parser):
    g = parser.getgroup("vramscope", "GPU memory of each test (vramscope)")
    g.addoption("--vramscope", action="store_true", default=False,
                help="record each test's CUDA memory into a capture of its own; print peak, growth and findings")
    g.addoption("--vramscope-dir", metavar="DIR", default=None,
                help="where the captures go (default: a temporary folder; failing tests' captures stay)")
    g.addoption("--vramscope-keep", choices=("failed", "all"), default="failed",
                help="keep the captures of failing tests (default) or of all tests that used the GPU")
    g.addoption("--vramscope-cli", metavar="PATH", default=None,
                help="vramscope-cli for the findings (default: $VRAMSCOPE_CLI, else PATH)")
    g.addoption("--vramscope-setup", action="store_true", default=False,
                help="record from the test's fixtures' setup on, not only its call")


def pytest_configure(config):
    config.addinivalue_line("markers", "%s(peak=None, growth=None): with --vramscope, fail the test when its peak "
                            "allocated CUDA memory or its steady growth exceeds these sizes ('2 GiB', '16 MiB')"
                            % MARK_LIMIT)
    config.addinivalue_line("markers", "%s: with --vramscope, fail the test when vramscope finds memory it keeps "
                            "(a leak, an accumulation, a cycle)" % MARK_NO_LEAK)
    if config.getoption("vramscope"):
        config.pluginmanager.register(Session(config), "vramscope-session")


def limits_of(item):
    """The test's Limits from its marks (the closest mark's value wins); ValueError on a bad size."""
    peak = growth = None
    for m in item.iter_markers(MARK_LIMIT):
        if peak is None and m.kwargs.get("peak") is not None:
            peak = sizes.parse(m.kwargs["peak"])
        if growth is None and m.kwargs.get("growth") is not None:
            growth = sizes.parse(m.kwargs["growth"])
    return limits.Limits(peak, growth, item.get_closest_marker(MARK_NO_LEAK) is not None)


@dataclasses.dataclass
class Result:
    capture: str
    stretch: object   # figures.Stretch
    analysis: object  # cli.Analysis, or None without the CLI
    given_way: bool = False  # the test began its own recording: this capture holds the test up to it


@dataclasses.dataclass
class Row:
    nodeid: str
    peak: str
    growth: str
    finding: str
    capture: str
    failed: bool


def _cuda():
    """(torch, None) when CUDA can be recorded here, else (None, why not)."""
    try:
        import torch
    except Exception as e:  # torch missing or broken: the tests that need it say so themselves
        return None, "torch cannot be imported (%s: %s)" % (type(e).__name__, e)
    try:
        if not torch.cuda.is_available():
            return None, "CUDA is not available"
    except Exception as e:
        return None, "CUDA cannot be queried (%s)" % e
    import vramscope
    if vramscope._active is not None:
        return None, "this process is already recorded as a whole (%s)" % vramscope._active.path
    return torch, None


class Session:
    def __init__(self, config):
        self.config = config
        self.keep = config.getoption("vramscope_keep")
        self.record_setup = config.getoption("vramscope_setup")
        self.cli = cli.find(config.getoption("vramscope_cli"))
        given = config.getoption("vramscope_dir")
        self.dir = os.path.abspath(given) if given else None
        self.own_dir = None      # the temporary folder made here, removed at the end if left empty
        self.torch, self.skipped = _cuda()
        self.recordings = {}     # nodeid -> recording.Recording while a test runs
        self.results = {}        # nodeid -> Result between the call and its report
        self.rows = []

    # ---- what the session says, once
    def pytest_report_header(self, config):
        if self.skipped:
            return "vramscope: skipped: %s; no test is recorded" % self.skipped
        where = self.dir or "a temporary folder"
        found = "findings by %s" % self.cli if self.cli else cli.MISSING
        return "vramscope: each test recorded (captures in %s, kept: %s); %s" % (where, self.keep, found)

    # ---- recording around each test
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        if self.record_setup:
            self._begin(item)
        yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        if not self.record_setup:
            self._begin(item)
        yield
        self._end(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item):
        self._end(item)  # a setup that failed (--vramscope-setup) never reached the call's end
        yield

    def _folder(self):
        if self.dir is None:
            self.own_dir = self.dir = tempfile.mkdtemp(prefix="vramscope-pytest-")
        return self.dir

    def _begin(self, item):
        import vramscope
        if self.torch is None or vramscope._active is not None:  # recorded already (a fixture's recording)
            return
        rec = recording.Recording(os.path.join(self._folder(), recording.capture_name(item.nodeid)), self.torch,
                                  gives_way=True)
        try:
            rec.start()
        except Exception as e:  # the test runs as it would unrecorded
            item.warn(pytest.PytestWarning("vramscope: not recorded: %s: %s" % (type(e).__name__, e)))
            return
        self.recordings[item.nodeid] = rec

    def _end(self, item):
        rec = self.recordings.pop(item.nodeid, None)
        if rec is None:
            return
        stretch = rec.stop()
        if not stretch.used_gpu:  # a test without GPU work: nothing recorded, nothing said
            rec.discard()
            return
        analysis = cli.analyse(self.cli, rec.path) if self.cli else None
        self.results[item.nodeid] = Result(rec.path, stretch, analysis, rec.given_way)

    # ---- the verdict of the marks, the report's properties
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if call.when != "call":
            return
        result = self.results.pop(item.nodeid, None)
        if result is None:
            return
        report = outcome.get_result()
        try:
            verdict = limits.judge(limits_of(item), result.stretch, result.analysis)
        except ValueError as e:
            verdict = limits.Verdict(failures=["%s: %s" % (MARK_LIMIT, e)])
        for note in verdict.notes:
            item.warn(pytest.PytestWarning("vramscope: " + note))
        kept = self.keep == "all" or report.failed or verdict.failed
        if not kept:
            recording.Recording(result.capture, None).discard()
        if verdict.failed:
            text = limits.failure_text(item.nodeid, verdict, result.stretch, result.analysis,
                                       result.capture if kept else None)
            if report.passed:
                report.outcome, report.longrepr = "failed", text
            else:  # failed anyway: the memory verdict is shown beside the test's own error
                report.sections.append(("vramscope", text))
        props = self._properties(result, verdict, kept)
        report.user_properties.extend(props)  # the table's (this report reaches the xdist controller)
        item.user_properties.extend(props)    # junitxml's: it reads the teardown report's, made from the item's

    def _properties(self, result, verdict, kept):
        peak, exact = limits.peak_of(result.stretch, result.analysis)
        a = result.analysis
        finding = ("(findings need vramscope-cli)" if a is None else "(vramscope-cli: %s)" % a.error if a.error
                   else a.findings[0].summary if a.findings
                   else "(the test's own recording has the rest)" if result.given_way else "")
        props = [(PEAK, peak), (PEAK_EXACT, "true" if exact else "false"), (GROWTH, result.stretch.growth),
                 (FINDING, finding), (FINDINGS, len(a.findings) if a is not None else "")]
        if kept:
            props.append((CAPTURE, result.capture))
        if verdict.failed:
            props.append((FAILED, verdict.failures[0].splitlines()[0]))
        return props

    # ---- the table (in the controlling process under pytest-xdist)
    def pytest_runtest_logreport(self, report):
        if report.when != "call":
            return
        props = {}
        for p in report.user_properties:
            if isinstance(p, (tuple, list)) and len(p) == 2 and str(p[0]).startswith("vramscope_"):
                props[p[0]] = p[1]
        if PEAK not in props:
            return
        peak = sizes.text(int(props[PEAK]))
        self.rows.append(Row(report.nodeid, peak if props.get(PEAK_EXACT) == "true" else "<= " + peak,
                             sizes.text(int(props[GROWTH])), props.get(FINDING) or "-",
                             props.get(CAPTURE, ""), FAILED in props))

    def pytest_terminal_summary(self, terminalreporter):
        if not self.rows:
            return
        tr = terminalreporter
        tr.write_sep("=", "vramscope: CUDA memory per test")
        rows = sorted(self.rows, key=lambda r: r.nodeid)
        width = min(70, max(len("test"), *(len(r.nodeid) for r in rows)))
        tr.write_line("%-*s  %12s  %12s  %s" % (width, "test", "peak", "growth", "finding"))
        for r in rows:
            mark = "  [over its limit]" if r.failed else ""
            tr.write_line("%-*s  %12s  %12s  %s%s" % (width, r.nodeid, r.peak, r.growth, r.finding, mark))
        kept = [r.capture for r in rows if r.capture]
        if kept:  # one folder per worker under pytest-xdist without --vramscope-dir: each path in full
            tr.write_line("captures kept (open one: vramscope FILE):")
            for path in kept:
                tr.write_line("  " + path)
        if not self.cli:
            tr.write_line("vramscope: " + cli.MISSING)

    def pytest_sessionfinish(self, session):
        if self.own_dir and os.path.isdir(self.own_dir) and not os.listdir(self.own_dir):
            shutil.rmtree(self.own_dir, ignore_errors=True)
