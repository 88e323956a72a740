#!/usr/bin/env python3
"""The leak shapes issue 29 names, each on recorded real programs (samples/corpus, samples/real; both
recorders): a leak every k-th step (k = 1, 3, 10, 40), on irregular errors, in nested loops (request
containing tokens), released when the program ends; each found, with the leaking line in the top group
and the repeat in the program's unit in the summary. And one judgement: wherever the recorder's own
trigger took an automatic retention graph (the allocated floor rose over five 1-second windows), the
diagnosis finds growth.
    corpus_shapes.py CLI"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from corpus_io import opened

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "samples" / "corpus" / "recordings"
CLEAN = {"none", "cache", "fragmentation", "deferred_free"}

# recording -> a pattern the summary must match (the unit that repeats)
SHAPES = {
    "train_forward_hook_leak": r"",                                  # k = 1
    "train_logging_keeps_leak": r"every 3rd",                        # k = 3
    "train_exception_keep_leak": r"every (9th|10th|11th)",           # k = 10
    "checkpoint_snapshots_leak": r"every (39th|40th|41st)",          # k = 40
    "retry_exc_info_leak": r"irregularly",                           # on errors
    "serve_session_cache_leak": r"every \d+(st|nd|rd|th) '",         # request > token
    "grad_history_local_leak": r"",                                  # released at the program's end
}


def run(cli, *args):
    r = subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def check_shape(cli, name, pattern, tmp):
    problems = []
    for rec, truth_ext in ((".vscap", ".rec.truth.json"), (".pickle.xz", ".truth.json")):
        truth = json.load(open(CORPUS / (name + truth_ext)))
        d = run(cli, "leaks", opened(CORPUS / (name + rec), tmp), "--json")
        diag = d["diagnosis"]
        frames = (d.get("groups") or [{}])[0].get("frames", [])
        where = f"{name}{rec}"
        if diag["kind"] != "leak":
            problems.append(f"{where}: diagnosis {diag['kind']}: {diag['summary'][:100]}")
        elif not any(f["filename"].endswith(truth["leak_file"]) and f["line"] in truth["leak_lines"] for f in frames):
            problems.append(f"{where}: top group lacks {truth['leak_file']}:{truth['leak_lines']}")
        elif not re.search(pattern, diag["summary"]):
            problems.append(f"{where}: summary lacks /{pattern}/: {diag['summary'][:160]}")
    return problems


def check_trigger(cli, path):
    r = subprocess.run([cli, "retention", str(path), "--json"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:  # no retention graph in this recording: no trigger fired
        return None
    graphs = json.loads(r.stdout).get("graphs", [])
    fired = [g["trigger"] for g in graphs if str(g.get("trigger", "")).startswith("auto:")]
    if not fired:
        return None
    kind = run(cli, "leaks", str(path), "--json")["diagnosis"]["kind"]
    return f"{path.name}: the recorder's trigger fired ({fired[0]}) but the diagnosis says {kind}" if kind in CLEAN else ""


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/app/vramscope-cli"
    problems = []
    with tempfile.TemporaryDirectory(prefix="vs-shapes-") as tmp:
        for name, pattern in SHAPES.items():
            found = check_shape(cli, name, pattern, tmp)
            print(f"{name:34s} {'ok' if not found else 'WRONG'}")
            problems += found
    fired = agreed = 0
    for path in sorted(CORPUS.glob("*.vscap")) + sorted((ROOT / "samples" / "real").glob("*.vscap")):
        verdict = check_trigger(cli, path)
        if verdict is None:
            continue
        fired += 1
        agreed += not verdict
        if verdict:
            problems.append(verdict)
    print(f"trigger and diagnosis agree on {agreed} of the {fired} recordings where the trigger fired")
    if fired == 0:
        problems.append("no recording where the recorder's trigger fired: nothing to compare")
    for p in problems:
        print("  " + p)
    print(f"{len(SHAPES) * 2 + fired - len(problems)} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
