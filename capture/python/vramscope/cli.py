"""vramscope-cli from Python: where it is (an explicit path, $VRAMSCOPE_CLI, else PATH) and what it
says about a capture. The analysis lives in the CLI (one growth analysis, the same as the GUI's and
`vramscope-cli check`'s); the Python side only reads its JSON."""
import dataclasses
import json
import os
import shutil
import subprocess

ENV = "VRAMSCOPE_CLI"
LEAK_KINDS = ("leak", "cycle", "accumulation")  # what `check --max-growth` gates: memory kept
TIMEOUT_S = 300


def find(explicit=None):
    """The CLI's path, or None: `explicit`, then $VRAMSCOPE_CLI, then vramscope-cli on PATH."""
    for candidate in (explicit, os.environ.get(ENV)):
        if candidate:
            found = shutil.which(candidate) or (candidate if os.access(candidate, os.X_OK) else None)
            if found:
                return os.path.abspath(found)
    return shutil.which("vramscope-cli")


MISSING = ("findings need vramscope-cli (not found: --vramscope-cli, $%s or PATH); "
           "peak and growth come from the allocator's counters" % ENV)


@dataclasses.dataclass(frozen=True)
class Finding:
    kind: str
    summary: str        # "a leak of 29.00 MiB at process_and_cache (scenarios.py:73)"
    sentence: str       # the diagnosis' sentence when it explains this finding, else summary and rate
    bytes: int
    line: str           # the user's line: "scenarios.py:73 in process_and_cache", "" when unknown
    holder: str         # from the retention graph, "" when none was recorded
    device: int

    @property
    def keeps_memory(self):
        return self.kind in LEAK_KINDS and self.bytes > 0


@dataclasses.dataclass(frozen=True)
class Analysis:
    findings: tuple = ()
    peak: int = None    # the highest device's peak allocated in the capture
    error: str = ""     # why the CLI said nothing ("" when it did)

    def leaks(self):
        return [f for f in self.findings if f.keeps_memory]


def run(cli, *args):
    p = subprocess.run([cli, *args], capture_output=True, text=True, timeout=TIMEOUT_S)
    return p.returncode, p.stdout, p.stderr


def objects(text):
    """Every JSON object in `text` (one per device when a capture has several)."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)


def _line(site):
    if not site or not site.get("filename"):
        return ""
    return "%s:%s in %s" % (site["filename"], site.get("line", 0), site.get("name", "?"))


def findings_of(report):
    """Finding objects of one device's `leaks --json` report."""
    diagnosis = report.get("diagnosis") or {}
    out = []
    for f in report.get("findings") or []:
        explained = diagnosis.get("region") == f.get("region") and diagnosis.get("summary")
        parts = [f.get("summary", ""), f.get("rate", ""), f.get("released_by", "")]
        sentence = diagnosis["summary"] if explained else "; ".join(p for p in parts if p)
        out.append(Finding(f.get("kind", ""), f.get("summary", ""), sentence, int(f.get("bytes") or 0),
                           _line(f.get("site")), f.get("holder") or "", int(report.get("device", 0))))
    return out


def analyse(cli, capture):
    """What the CLI finds in `capture`: its findings (every device) and its peak."""
    try:
        rc, out, err = run(cli, "summary", capture, "--json")
        if rc != 0:
            return Analysis(error="vramscope-cli summary: %s" % (err.strip() or "exit %d" % rc))
        peak = max((d.get("peak_allocated", 0) for d in json.loads(out).get("devices", [])), default=0)
        rc, out, err = run(cli, "leaks", capture, "--json")
        if rc != 0:
            return Analysis(peak=peak, error="vramscope-cli leaks: %s" % (err.strip() or "exit %d" % rc))
        found = [f for report in objects(out) for f in findings_of(report)]
        return Analysis(tuple(found), peak)
    except (OSError, ValueError, subprocess.SubprocessError) as e:
        return Analysis(error="vramscope-cli: %s: %s" % (type(e).__name__, e))
