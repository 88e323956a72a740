"""pytest --vramscope, vramscope.assert_no_leak, EpochPeaks and the training-loop callbacks, without a
GPU: each case runs a small test suite in a pytest of its own (pytester) on the stand-in torch of
tests/plugin_fake (its allocator history and counters are the recorder's events and figures), and
reads what the user would read: the table, the failures, the files kept, the JUnit XML.

    python3 -m pytest capture/python/tests/test_pytest_plugin.py   (VRAMSCOPE_CLI: vramscope-cli)"""
import os
import shutil
import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
FAKE_TORCH = os.path.join(HERE, "plugin_fake")
CLI = os.environ.get("VRAMSCOPE_CLI") or shutil.which("vramscope-cli") or os.path.join(
    PACKAGE, "..", "..", "build", "app", "vramscope-cli")
MiB = 1 << 20

# A suite with every kind of test the plugin meets. KEPT outlives its test: a leak, with a holder.
SUITE = """
import pytest, torch

KEPT = []

def test_no_gpu():
    assert sum(range(4)) == 6

def keep_some():
    for i in range(40):
        x = torch.Tensor(1 << 20)
        KEPT.append(torch.Tensor(1 << 16))   # the leaking line

@pytest.mark.vramscope_no_leak
def test_leaks():
    keep_some()

@pytest.mark.vramscope_no_leak
@pytest.mark.parametrize("mib", [1, 3])
def test_clean(mib):
    for i in range(40):
        x = torch.Tensor(mib << 20)

@pytest.mark.vramscope_limit(peak="4 MiB")
def test_high_peak():
    x = torch.Tensor(8 << 20)
"""


@pytest.fixture
def run(pytester, monkeypatch):
    """run(*args, cli=True, source=SUITE): the suite in a pytest of its own, the plugin loaded."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([FAKE_TORCH, PACKAGE]))
    monkeypatch.delenv("FAKE_TORCH_NO_CUDA", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no vramscope-cli on it: only what a test gives counts

    def go(*args, cli=True, source=SUITE, env=None):
        if cli:
            monkeypatch.setenv("VRAMSCOPE_CLI", os.path.abspath(CLI))
        else:
            monkeypatch.delenv("VRAMSCOPE_CLI", raising=False)
        for k, v in (env or {}).items():
            monkeypatch.setenv(k, v)
        pytester.makepyfile(test_suite=source)
        return pytester.runpytest_subprocess("-p", "vramscope.pytest_plugin", "-p", "no:cacheprovider", *args)
    return go


def table(result):
    """{test id: line} of the plugin's table."""
    lines = result.stdout.lines
    start = [i for i, l in enumerate(lines) if "vramscope: CUDA memory per test" in l]
    if not start:
        return {}
    rows = {}
    for line in lines[start[0] + 2:]:
        if not line.startswith("test_suite.py::"):
            break
        rows[line.split()[0]] = line
    return rows


def printed(result, tag):
    """What the inner test printed after `tag` (pytest -s puts it after the file's name)."""
    lines = [l for l in result.stdout.lines if tag + " " in l]
    assert lines, result.stdout.str()
    return lines[0][lines[0].index(tag):]


def test_without_the_option_nothing_happens(run, pytester):
    r = run("--strict-markers", "-p", "no:randomly")
    r.assert_outcomes(passed=5)  # the leak and the peak over its limit fail nothing
    assert table(r) == {}
    assert "vramscope" not in r.stdout.str()
    assert not [f for f in os.listdir(pytester.path) if f.endswith(".vscap")]


def test_each_gpu_test_gets_a_line_with_its_figures(run):
    r = run("--vramscope")
    rows = table(r)
    # no line for the test that used no GPU; one line per parameter
    assert sorted(rows) == ["test_suite.py::test_clean[1]", "test_suite.py::test_clean[3]",
                            "test_suite.py::test_high_peak", "test_suite.py::test_leaks"]
    assert "a leak of 2.50 MiB at keep_some (test_suite.py:11)" in rows["test_suite.py::test_leaks"]
    assert rows["test_suite.py::test_leaks"].split()[3:5] == ["2.50", "MiB"]  # its growth: 40 x 64 KiB
    # the peak is the device's: test_leaks' 2.50 MiB still there and two 1 MiB blocks at once (a new high)
    assert rows["test_suite.py::test_clean[1]"].split()[1:3] == ["4.50", "MiB"]
    assert rows["test_suite.py::test_clean[1]"].split()[3:5] == ["0", "B"]


def test_no_leak_mark_fails_with_the_sentence_the_line_the_holder_and_the_capture(run, pytester):
    r = run("--vramscope", "--vramscope-dir", "caps")
    r.assert_outcomes(passed=3, failed=2)
    out = r.stdout.str()
    assert "memory kept: 2.50 MiB from keep_some (test_suite.py:11)" in out
    assert "line: %s:11 in keep_some" % (pytester.path / "test_suite.py") in out
    assert "held by: module test_suite → .KEPT → list len=40" in out
    capture = pytester.path / "caps" / "test_suite.py_test_leaks.vscap"
    assert "capture: %s" % capture in out
    assert capture.stat().st_size > 1000
    # the clean parametrized test under the same mark passes
    assert "test_suite.py::test_clean[1] PASSED" in out or "FAILED test_suite.py::test_clean" not in out


def test_limit_mark_fails_the_peak_over_it(run):
    r = run("--vramscope")
    out = r.stdout.str()
    assert "peak 10.50 MiB exceeds the limit 4.00 MiB" in out  # 8 MiB, and test_leaks' 2.50 MiB still held
    assert "FAILED test_suite.py::test_high_peak" in out
    assert "[over its limit]" in table(r)["test_suite.py::test_high_peak"]


def test_growth_limit_judges_the_finding_against_the_size(run):
    source = SUITE.replace("@pytest.mark.vramscope_no_leak\ndef test_leaks",
                           "@pytest.mark.vramscope_limit(growth='{limit}')\ndef test_leaks")
    loose = run("--vramscope", "-k", "test_leaks", source=source.format(limit="16 MiB"))
    loose.assert_outcomes(passed=1, deselected=4)
    tight = run("--vramscope", "-k", "test_leaks", source=source.format(limit="1 MiB"))
    tight.assert_outcomes(failed=1, deselected=4)
    tight.stdout.fnmatch_lines(["*a leak of 2.50 MiB at keep_some (test_suite.py:11) exceeds the growth limit 1.00 MiB*"])
    bad = run("--vramscope", "-k", "test_leaks", source=source.format(limit="lots"))
    bad.assert_outcomes(failed=1, deselected=4)
    bad.stdout.fnmatch_lines(["*vramscope_limit: not a size: 'lots'*"])


def test_keep_failed_keeps_only_failing_captures_and_keep_all_every_gpu_test(run, pytester):
    run("--vramscope", "--vramscope-dir", "failed")
    assert sorted(os.listdir(pytester.path / "failed")) == ["test_suite.py_test_high_peak.vscap",
                                                             "test_suite.py_test_leaks.vscap"]
    run("--vramscope", "--vramscope-dir", "all", "--vramscope-keep", "all")
    assert sorted(os.listdir(pytester.path / "all")) == [
        "test_suite.py_test_clean[1].vscap", "test_suite.py_test_clean[3].vscap",
        "test_suite.py_test_high_peak.vscap", "test_suite.py_test_leaks.vscap"]


def test_junit_xml_has_each_tests_figures(run, pytester):
    run("--vramscope", "--vramscope-dir", "caps", "--junitxml", "out.xml")
    cases = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}
             for c in ET.parse(pytester.path / "out.xml").iter("testcase")}
    assert cases["test_no_gpu"] == {}
    leak = cases["test_leaks"]
    assert leak["vramscope_growth_bytes"] == str(40 * 65536)
    assert leak["vramscope_finding"] == "a leak of 2.50 MiB at keep_some (test_suite.py:11)"
    assert leak["vramscope_findings"] == "1"
    assert leak["vramscope_capture"].endswith("caps/test_suite.py_test_leaks.vscap")
    assert leak["vramscope_failed"].startswith("memory kept: 2.50 MiB from keep_some")
    assert cases["test_high_peak"]["vramscope_peak_bytes"] == str(8 * MiB + 40 * 65536)  # KEPT is still there
    assert cases["test_high_peak"]["vramscope_peak_exact"] == "true"
    assert "vramscope_capture" not in cases["test_clean[1]"]  # passed: not kept
    assert cases["test_clean[1]"]["vramscope_finding"] == ""


def test_xdist_one_capture_per_test_wherever_it_runs(run, pytester):
    r = run("--vramscope", "-n", "2", "--vramscope-dir", "caps", "--vramscope-keep", "all")
    r.assert_outcomes(passed=3, failed=2)
    rows = table(r)
    assert sorted(rows) == ["test_suite.py::test_clean[1]", "test_suite.py::test_clean[3]",
                            "test_suite.py::test_high_peak", "test_suite.py::test_leaks"]
    assert "a leak of 2.50 MiB at keep_some (test_suite.py:11)" in rows["test_suite.py::test_leaks"]
    assert len(os.listdir(pytester.path / "caps")) == 4
    assert r.stdout.str().count("vramscope: each test recorded") == 1


def test_without_cuda_the_option_says_it_is_skipped_once(run):
    r = run("--vramscope", "-n", "2", env={"FAKE_TORCH_NO_CUDA": "1"})
    r.assert_outcomes(passed=5)
    out = r.stdout.str()
    assert out.count("vramscope: skipped: CUDA is not available; no test is recorded") == 1
    assert table(r) == {}


def test_without_the_cli_peak_and_growth_still_come_and_findings_are_said_missing(run):
    r = run("--vramscope", "-W", "always", cli=False)
    out = r.stdout.str()
    assert "findings need vramscope-cli (not found: --vramscope-cli, $VRAMSCOPE_CLI or PATH)" in out
    rows = table(r)
    assert "2.50 MiB" in rows["test_suite.py::test_leaks"] and "(findings need vramscope-cli)" in rows[
        "test_suite.py::test_leaks"]
    # the peak over its limit is still known from the counters (a new high); no_leak cannot be judged
    r.assert_outcomes(passed=4, failed=1)
    assert "FAILED test_suite.py::test_high_peak" in out
    assert "vramscope_no_leak was not checked: it needs vramscope-cli's findings" in out


def test_the_cli_option_wins_over_the_environment(run, pytester):
    r = run("--vramscope", "--vramscope-cli", os.path.abspath(CLI), "-k", "test_leaks", cli=False)
    r.assert_outcomes(failed=1, deselected=4)
    assert "findings by %s" % os.path.abspath(CLI) in r.stdout.str()


ASSERT_SUITE = """
import os, pytest, torch, vramscope

KEPT = []

def step_that_keeps():
    x = torch.Tensor(1 << 20)
    KEPT.append(torch.Tensor(1 << 15))      # kept every call

def clean_step():
    x = torch.Tensor(1 << 20)
    y = torch.Tensor(1 << 15)

def test_leaking_step():
    with pytest.raises(vramscope.LeakError) as e:
        vramscope.assert_no_leak(step_that_keeps, iterations=60, warmup=5, directory="caps")
    text = str(e.value)
    print("LEAK-TEXT", text.replace(chr(10), " | "))
    assert os.path.exists(e.value.capture)

def test_clean_step():
    vramscope.assert_no_leak(clean_step, iterations=60, warmup=5, directory="caps")
"""


def test_assert_no_leak_raises_with_the_line_and_keeps_only_the_failing_capture(run, pytester):
    r = run("-s", source=ASSERT_SUITE)
    r.assert_outcomes(passed=2)
    text = printed(r, "LEAK-TEXT")
    assert "vramscope.assert_no_leak: test_suite.py::test_leaking_step" in text
    assert "from step_that_keeps (test_suite.py:7) made over" in text
    assert "32.00 KiB per 'step' iteration" in text
    assert "line: %s:7 in step_that_keeps" % (pytester.path / "test_suite.py") in text
    assert "held by: module test_suite → .KEPT" in text
    assert os.listdir(pytester.path / "caps") == ["test_suite.py_test_leaking_step.vscap"]


def test_assert_no_leak_without_the_cli_judges_the_floor(run):
    r = run("-s", source=ASSERT_SUITE, cli=False)
    r.assert_outcomes(passed=2)
    text = printed(r, "LEAK-TEXT")
    assert "about 32.00 KiB kept per call" in text
    assert "findings need vramscope-cli" in text


def test_assert_no_leak_inside_a_recorded_test_records_its_own_loop(run, pytester):
    # the test's own recording comes first: the plugin's capture ends there, the figures are the test's
    r = run("-s", "--vramscope", source=ASSERT_SUITE)
    r.assert_outcomes(passed=2)
    text = printed(r, "LEAK-TEXT")
    assert "from step_that_keeps (test_suite.py:7) made over" in text
    assert os.listdir(pytester.path / "caps") == ["test_suite.py_test_leaking_step.vscap"]
    row = table(r)["test_suite.py::test_leaking_step"]
    assert "a leak of 160.00 KiB at step_that_keeps (test_suite.py:7)" in row  # the 5 warm-up calls, before it
    assert row.split()[3:5] == ["2.03", "MiB"]  # its growth: warm-up and loop, 65 x 32 KiB


def test_a_test_that_records_itself_is_not_disturbed(run, pytester):
    source = """
import os, torch, vramscope

def test_records_itself(tmp_path):
    with vramscope.record(str(tmp_path / "own.vscap")):
        x = [torch.Tensor(1 << 20) for _ in range(3)]
    assert (tmp_path / "own.vscap").stat().st_size > 100
    assert vramscope._active is None
"""
    r = run("--vramscope", source=source)
    r.assert_outcomes(passed=1)
    assert "test_suite.py::test_records_itself" in table(r)


EPOCH_SUITE = """
import warnings, pytest, torch, vramscope

KEPT = []

def train_epoch(epoch, keep):
    for i in range(20):
        x = torch.Tensor(1 << 20)
        if keep:
            KEPT.append(torch.Tensor(1 << 19))   # grows the next epoch's peak

def evaluate():
    x = torch.Tensor(1 << 18)

def test_flat_epochs_never_warn(tmp_path):   # first: the process's peak counter is still this test's
    for reset in (False, True):
        peaks = vramscope.EpochPeaks(threshold=5, record=str(tmp_path / "flat.vscap"), reset_peak=reset)
        with warnings.catch_warnings():
            warnings.simplefilter("error", vramscope.PeakGrowthWarning)
            for epoch in range(4):
                with peaks.phase("epoch", epoch):
                    train_epoch(epoch, keep=False)
                with peaks.phase("evaluation", epoch):
                    evaluate()
            peaks.close()
        print("FLAT", reset, [p.text() for p in peaks.peaks["epoch"]], [p.text() for p in peaks.peaks["evaluation"]])

def test_growing_epochs_warn_once_with_the_line(tmp_path):
    peaks = vramscope.EpochPeaks(threshold=5, record=str(tmp_path / "run.vscap"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for epoch in range(4):
            with peaks.phase("epoch", epoch):
                train_epoch(epoch, keep=epoch >= 1)
        peaks.close()
    grew = [w for w in caught if issubclass(w.category, vramscope.PeakGrowthWarning)]
    assert len(grew) == 1, [str(w.message) for w in caught]
    print("GROWTH-TEXT", str(grew[0].message).replace(chr(10), " | "))
    assert [p.index for p in peaks.peaks["epoch"]] == [0, 1, 2, 3]
"""


def test_epoch_peaks_warn_once_naming_the_line_and_never_on_flat_epochs(run):
    r = run("-s", source=EPOCH_SUITE)
    r.assert_outcomes(passed=2)
    text = printed(r, "GROWTH-TEXT")
    # epoch 1 keeps 20 x 512 KiB: at its last step 9.50 MiB kept and two 1 MiB blocks, over epoch 0's two
    assert "the peak of epoch 1 is 11.50 MiB, 475.0 % over epoch 0's 2.00 MiB (threshold 5 %)" in text
    assert "train_epoch (test_suite.py:9)" in text
    assert "capture so far: " in text
    flat = [l[l.index("FLAT"):] for l in r.stdout.lines if "FLAT " in l]
    # the counter left alone: the first epoch sets the high, the others' peaks are at most it, and so
    # are the evaluations'; reset at each phase (reset_peak=True), every peak is exact
    assert flat == ["FLAT False ['2.00 MiB', '<= 2.00 MiB', '<= 2.00 MiB', '<= 2.00 MiB'] "
                    "['<= 2.00 MiB', '<= 2.00 MiB', '<= 2.00 MiB', '<= 2.00 MiB']",
                    "FLAT True ['2.00 MiB', '2.00 MiB', '2.00 MiB', '2.00 MiB'] "
                    "['256.00 KiB', '256.00 KiB', '256.00 KiB', '256.00 KiB']"]


CALLBACK_SUITE = """
import types, warnings, pytest, torch, vramscope

KEPT = []

def epochs(callback, begin, end, keep):
    for epoch in range(3):
        begin(epoch)
        for i in range(10):
            x = torch.Tensor(1 << 20)
            if keep:
                KEPT.append(torch.Tensor(1 << 19))
        end(epoch)

@pytest.mark.parametrize("keep", [True, False])
def test_transformers_callback(keep, tmp_path):
    from vramscope.callbacks import TransformersCallback
    cb = TransformersCallback(threshold=5, record=str(tmp_path / "hf.vscap"))
    state = types.SimpleNamespace(epoch=0.0, log_history=[])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        epochs(cb, lambda e: cb.on_epoch_begin(None, state, None), lambda e: cb.on_epoch_end(None, state, None), keep)
        cb.on_train_end(None, state, None)
    grew = [w for w in caught if issubclass(w.category, vramscope.PeakGrowthWarning)]
    assert len(grew) == (1 if keep else 0)
    assert [p.index for p in cb.peaks.peaks["epoch"]] == [0, 1, 2]
    assert state.log_history == []      # the Trainer's state is left alone

@pytest.mark.parametrize("keep", [True, False])
def test_lightning_callback(keep, tmp_path):
    from vramscope.callbacks import LightningCallback
    cb = LightningCallback(threshold=5, record=str(tmp_path / "pl.vscap"))
    trainer = types.SimpleNamespace(current_epoch=0, sanity_checking=True)
    cb.on_validation_epoch_start(trainer, None)   # the sanity check: not counted
    cb.on_validation_epoch_end(trainer, None)
    trainer.sanity_checking = False
    def begin(e):
        trainer.current_epoch = e
        cb.on_train_epoch_start(trainer, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        epochs(cb, begin, lambda e: cb.on_train_epoch_end(trainer, None), keep)
        cb.on_fit_end(trainer, None)
    grew = [w for w in caught if issubclass(w.category, vramscope.PeakGrowthWarning)]
    assert len(grew) == (1 if keep else 0)
    assert "evaluation" not in cb.peaks.peaks
    assert [p.index for p in cb.peaks.peaks["epoch"]] == [0, 1, 2]
"""


def test_callbacks_drive_epoch_peaks_and_import_their_framework_only_when_asked(run, pytester):
    # stand-ins for the frameworks' base classes: the callbacks' own logic is what is tested here
    pytester.makepyfile(transformers="class TrainerCallback:\n    pass\n")
    pkg = pytester.mkpydir("lightning")
    (pkg / "pytorch.py").write_text("class Callback:\n    pass\n")
    r = run(source=CALLBACK_SUITE)
    r.assert_outcomes(passed=4)
    check = pytester.runpython_c("import sys, vramscope, vramscope.callbacks; "
                                 "print('frameworks', sorted(m for m in sys.modules if m in ('transformers', 'lightning')))")
    check.stdout.fnmatch_lines(["frameworks []"])
