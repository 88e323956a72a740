#!/usr/bin/env python3
"""Scores the CLI's leak judgement on the corpus of real programs (samples/corpus): every run of the
chosen half of split.json, both recordings (NAME.pickle.xz, PyTorch's own history, with
NAME.truth.json; NAME.vscap, vramscope's recorder, with NAME.rec.truth.json), judged twice:

  leaks   `CLI leaks FILE --json`: a leak, accumulation or cycle is found when the diagnosis kind is
          not one of none/cache/fragmentation/deferred_free and a frame of the first group is the
          truth's leak_file at one of its leak_lines; a clean run passes when the kind is one of those
          and no region of kind leak or accumulation is significant.
  check   `CLI check FILE --json --max-growth BYTES` (README: the CI recipe, 16 MiB): exit 1 for a
          leaking run, 0 for a clean one.

Prints one line per recording and the totals per half and recorder. A score, not a test: exits 0
unless --strict (then 1 when anything is wrong).
    score-corpus.py CORPUS_DIR [CLI] [--half develop|scored|all] [--max-growth BYTES] [--strict]"""
import argparse
import json
import lzma
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

CLEAN_KINDS = {"none", "cache", "fragmentation", "deferred_free"}
RECORDERS = (("history", ".pickle.xz", ".truth.json"), ("vramscope", ".vscap", ".rec.truth.json"))


def materialise(path, tmp):
    if not path.name.endswith(".xz"):
        return str(path)
    out = Path(tmp) / path.name[:-3]
    with lzma.open(path) as s, open(out, "wb") as d:
        shutil.copyfileobj(s, d, 1 << 20)
    return str(out)


def cli_run(cli, args):
    try:
        return subprocess.run([cli] + args, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return None


def judge_leaks(d, truth):
    diag = d["diagnosis"]
    kind = diag["kind"]
    if truth["kind"] != "none":
        if kind in CLEAN_KINDS:
            return f"diagnosis {kind!r}, want {truth['kind']}: {diag.get('summary', '')[:120]}"
        top = (d.get("groups") or [{}])[0].get("frames", [])
        if not any(f["filename"].endswith(truth["leak_file"]) and f["line"] in truth["leak_lines"] for f in top):
            site = (d.get("groups") or [{}])[0].get("site") or {}
            return (f"{kind}, but the top group lacks {truth['leak_file']}:{truth['leak_lines']} "
                    f"(its site: {site.get('filename', '?').split('/')[-1]}:{site.get('line', '?')})")
        return ""
    if kind not in CLEAN_KINDS:
        return f"diagnosis {kind!r} on a clean run: {diag.get('summary', '')[:120]}"
    loud = [r for r in d.get("regions", []) if r["kind"] in ("leak", "accumulation") and r["significant"]]
    if loud:
        return f"clean run with a significant {loud[0]['kind']} region of {loud[0]['growth_bytes']} bytes"
    return ""


def score(path, truth, cli, max_growth):
    """(leaks problem, check problem): '' when right."""
    with tempfile.TemporaryDirectory(prefix="vs-corpus-") as tmp:
        f = materialise(path, tmp)
        r = cli_run(cli, ["leaks", f, "--json"])
        if r is None:
            leaks = "leaks: timed out"
        elif r.returncode != 0:
            leaks = f"leaks: exit {r.returncode}: {r.stderr.strip()[:120]}"
        else:
            try:
                leaks = judge_leaks(json.loads(r.stdout), truth)
            except (ValueError, KeyError, IndexError) as e:
                leaks = f"leaks: unreadable JSON ({e})"
        c = cli_run(cli, ["check", f, "--json", "--max-growth", str(max_growth)])
        want = 0 if truth["kind"] == "none" else 1
        if c is None:
            check = "check: timed out"
        elif c.returncode != want:
            check = f"check exit {c.returncode}, want {want}" + (f": {c.stderr.strip()[:100]}" if c.returncode > 1 else "")
        else:
            check = ""
    return leaks, check


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus")
    p.add_argument("cli", nargs="?", default="build/app/vramscope-cli")
    p.add_argument("--half", choices=["develop", "scored", "all"], default="all")
    p.add_argument("--max-growth", type=int, default=16 << 20)
    p.add_argument("--strict", action="store_true")
    a = p.parse_args()
    if not (Path(a.cli).is_file() or shutil.which(a.cli)):
        sys.exit(f"score-corpus: no CLI at {a.cli} (build it, or name it as the second argument)")
    corpus = Path(a.corpus)
    rec_dir = corpus / "recordings" if (corpus / "recordings").is_dir() else corpus
    split = json.load(open(corpus / "split.json"))
    halves = ["develop", "scored"] if a.half == "all" else [a.half]
    totals = defaultdict(lambda: [0, 0, 0, 0])  # (half, recorder) -> leaks ok, check ok, both ok, n
    by_kind = defaultdict(lambda: [0, 0])  # (half, leaking or clean) -> both ok, n
    wrong = 0
    for half in halves:
        for name in sorted(split[half]):
            for recorder, ext, truth_ext in RECORDERS:
                path, truth_file = rec_dir / (name + ext), rec_dir / (name + truth_ext)
                t = totals[(half, recorder)]
                t[3] += 1
                if not path.exists() or not truth_file.exists():
                    print(f"{half:8s} {recorder:9s} {name:40s} missing {path.name if not path.exists() else truth_file.name}")
                    wrong += 1
                    continue
                truth = json.load(open(truth_file))
                leaks, check = score(path, truth, a.cli, a.max_growth)
                t[0] += not leaks
                t[1] += not check
                t[2] += not leaks and not check
                k = by_kind[(half, "clean" if truth["kind"] == "none" else "leaking")]
                k[0] += not leaks and not check
                k[1] += 1
                wrong += bool(leaks or check)
                print(f"{half:8s} {recorder:9s} {name:40s} {truth['kind']:12s} leaks: {leaks or 'ok':10s}  "
                      f"check: {check or 'ok'}", flush=True)
    print()
    for half in halves:
        for recorder, _, _ in RECORDERS:
            ok_leaks, ok_check, ok_both, n = totals[(half, recorder)]
            print(f"{half:8s} {recorder:9s} leaks {ok_leaks}/{n}  check {ok_check}/{n}  both {ok_both}/{n}")
        ok = [sum(totals[(half, r)][i] for r, _, _ in RECORDERS) for i in range(4)]
        print(f"{half:8s} {'total':9s} leaks {ok[0]}/{ok[3]}  check {ok[1]}/{ok[3]}  both {ok[2]}/{ok[3]}"
              f"  (both right: leaking {by_kind[(half, 'leaking')][0]}/{by_kind[(half, 'leaking')][1]},"
              f" clean {by_kind[(half, 'clean')][0]}/{by_kind[(half, 'clean')][1]})")
    return 1 if a.strict and wrong else 0


if __name__ == "__main__":
    sys.exit(main())
