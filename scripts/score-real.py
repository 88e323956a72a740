#!/usr/bin/env python3
"""Scores the CLI's diagnosis on a folder of real recordings (NAME.pickle.xz / NAME.vscap with
NAME.truth.json: kind, leak_file, leak_lines), the way ../shared/tools/check-captures scores its
real/ set, plus: a clean run has no significant leak or accumulation region, and an accumulation's
region is released.   score-real.py DIR [CLI]"""
import glob, json, lzma, os, shutil, subprocess, sys, tempfile
from pathlib import Path

KINDS = {"leak": {"leak"}, "cycle": {"cycle"}, "cache": {"cache", "fragmentation"}, "oom": {"oom"},
         "none": {"none", "deferred_free"}, "accumulation": {"accumulation"}}


def materialise(path):
    if not path.endswith(".xz"):
        return path
    out = Path(tempfile.mkdtemp(prefix="vs-score-")) / Path(path[:-3]).name
    with lzma.open(path) as s, open(out, "wb") as d:
        shutil.copyfileobj(s, d, 1 << 20)
    return str(out)


def expected(path, truth):
    """A leak made by an extension's own cudaMalloc (truth: native_site) is outside PyTorch's
    allocator: its history pickle cannot show it, the CUPTI agent's recording shows it at that site."""
    site = truth.get("native_site")
    if not site:
        return truth
    if path.endswith(".pickle.xz"):
        return {**truth, "kind": "none"}
    file, line = site.split("(")[1].split(",")[0].split(")")[0].split(":")
    return {**truth, "leak_file": file, "leak_lines": [int(line)]}


def score(path, truth, cli):
    truth = expected(path, truth)
    d = json.loads(subprocess.run([cli, "leaks", materialise(path), "--json"], capture_output=True,
                                  text=True, check=True).stdout)
    diag = d["diagnosis"]
    kind = diag["kind"]
    if kind not in KINDS[truth["kind"]]:
        return f"diagnosis {kind!r}, want {truth['kind']}: {diag['summary'][:140]}"
    if truth["kind"] != "none":
        top = (d.get("groups") or [{}])[0].get("frames", [])
        if not any(f["filename"].endswith(truth["leak_file"]) and f["line"] in truth["leak_lines"] for f in top):
            return f"top group lacks {truth['leak_file']}:{truth['leak_lines']}"
        if not diag["evidence"]:
            return "empty evidence"
    else:
        loud = [r for r in d["regions"] if r["kind"] in ("leak", "accumulation") and r["significant"]]
        if loud:
            return f"clean run with a significant {loud[0]['kind']} region of {loud[0]['growth_bytes']} bytes"
    return ""


def main():
    folder, cli = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "build/app/vramscope-cli"
    good = total = 0
    for f in sorted(glob.glob(f"{folder}/*.pickle.xz")) + sorted(glob.glob(f"{folder}/*.vscap")):
        name = Path(f).name.split(".")[0]
        rec = Path(folder) / f"{name}.rec.truth.json"
        truth_file = rec if f.endswith(".vscap") and rec.exists() else Path(folder) / f"{name}.truth.json"
        if not truth_file.exists():
            continue
        total += 1
        problem = score(f, json.load(open(truth_file)), cli)
        good += not problem
        print(f"{Path(f).name:44s} {problem or 'ok'}")
    print(f"score: {good}/{total}")
    return 0 if good == total else 1


if __name__ == "__main__":
    sys.exit(main())
