#!/usr/bin/env python3
"""The real OOMs of samples/oom/recordings and recordings-scored (issue 46), both recorders: `leaks --json` names the cause
each program was written to have and one of its holder lines, and the advice never contradicts the
cause. The misses that follow from what a file cannot tell are listed with why; one that starts to
pass must be taken off the list (the list stays true).
    oom_causes.py CLI"""
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the develop half, and the held-out half recorded once the rules were written (never used to change one)
FOLDERS = [ROOT / "samples" / "oom" / "recordings", ROOT / "samples" / "oom" / "recordings-scored"]
spec = importlib.util.spec_from_file_location("score_oom", ROOT / "scripts" / "score-oom.py")
score = importlib.util.module_from_spec(spec)
spec.loader.exec_module(score)

# PyTorch's snapshots carry no device capacity: memory outside PyTorch cannot be measured there.
NO_CAPACITY = "a PyTorch snapshot names no device capacity: what lies outside PyTorch is unknown"
KNOWN_CAUSE_MISSES = {
    "outside_other_process.pickle.xz": NO_CAPACITY,
    "outside_raw_cudamalloc.pickle.xz": NO_CAPACITY,
    "outside_worker_cache.pickle.xz": NO_CAPACITY,
}
# Memory outside PyTorch has no PyTorch stack (record --native names the library or cudaMalloc line).
KNOWN_LINE_MISSES = {p + s for p in ("outside_other_process", "outside_raw_cudamalloc", "outside_worker_cache")
                     for s in (".vscap", ".pickle.xz")}
# How to stop keeping what grows (the retention holder's hints): advice only where growth caused the OOM.
HOLDER_HINTS = [".detach()", "list/dict", "gc.collect()"]
# What the next step must say (all of) and must not say (none of), by cause.
ADVICE = {
    "leak": (["alive"], ["batch size", "expandable_segments", "nvidia-smi"]),
    "accumulation": (["CPU"], ["batch size", "expandable_segments", "nvidia-smi"]),
    "fragmentation": (["expandable_segments"], ["batch size", "keeps growing", "alive (a list"] + HOLDER_HINTS),
    "working_set": (["batch size"], ["list or dict", "expandable_segments"] + HOLDER_HINTS),
    "outside_pytorch": (["nvidia-smi"], ["batch size", "list or dict"] + HOLDER_HINTS),
}


def check(cli):
    problems, rows = [], 0
    with tempfile.TemporaryDirectory(prefix="vs-oom-test-") as tmp:
        for path in sorted(p for folder in FOLDERS for p in folder.iterdir()):
            if not path.name.endswith((".vscap", ".pickle.xz")):
                continue
            vscap = path.name.endswith(".vscap")
            stem = path.name[: -len(".vscap")] if vscap else path.name[: -len(".pickle.xz")]
            truth = json.loads((path.parent / (stem + (".rec.truth.json" if vscap else ".truth.json"))).read_text())
            if truth.get("kind") != "oom":
                continue
            rows += 1
            d = score.diagnosis(cli, path, tmp)
            got, want = d.get("cause"), truth["cause"]
            if (got == want) == (path.name in KNOWN_CAUSE_MISSES):
                problems.append(f"{path.name}: cause {got}, the program's {want}"
                                + (" (listed as a known miss: take it off)" if got == want else ""))
            if score.names_a_holder(d, truth) == (path.name in KNOWN_LINE_MISSES):
                problems.append(f"{path.name}: holder line {'named' if path.name in KNOWN_LINE_MISSES else 'missed'}"
                                f" ({d.get('summary')})")
            must, never = ADVICE[got]
            advice = d.get("next_step", "")
            for word in must:
                if word not in advice:
                    problems.append(f"{path.name}: {got} advice lacks {word!r}: {advice}")
            for word in never:
                if word in advice:
                    problems.append(f"{path.name}: {got} advice says {word!r}: {advice}")
            if not d.get("oom", {}).get("decided_by"):
                problems.append(f"{path.name}: no decided_by in the evidence")
    return rows, problems


def main():
    rows, problems = check(sys.argv[1])
    for p in problems:
        print("FAIL", p)
    print(f"{rows} OOM recordings, {len(problems)} problems")
    return 1 if problems or rows < 30 else 0


if __name__ == "__main__":
    sys.exit(main())
