#!/usr/bin/env python3
"""Every finding of every real recording (samples/corpus, both halves and both recorders; samples/real)
read as a user reads it (issue 45), and a capture with two things to say (the truth's `second`) lists both: `leaks --json` gives each finding a kind, a sentence, its bytes, the
user's line, how it ends and a span, none of them empty, and no sentence of the diagnosis has a hole
where a site or a cause belongs ("kept until , released", "at ()"). The diagnosis is the first finding
(unless the capture ran out of memory), and the title counts the findings. Prints one line per recording
with findings and the totals; exit 1 when anything is missing.
    corpus_findings.py CLI"""
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from corpus_io import opened

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = (ROOT / "samples" / "corpus" / "recordings", ROOT / "samples" / "real")
# holes: a word that wants an object followed by punctuation, empty parentheses, doubled separators
HOLES = re.compile(r"\b(until|at|from|by|of)\s*[,.;:)]|\s\(\s*\)|,\s*,|\s{2,}")


def problems_of(d):
    out = []
    diag = d["diagnosis"]
    for field in ("summary", "next_step"):
        if not diag.get(field) or HOLES.search(diag[field]):
            out.append(f"diagnosis {field}: {diag.get(field)!r}")
    findings = d.get("findings", [])
    n = len(findings)
    if not d.get("title") or (n and not d["title"].startswith(f"{n} finding")):
        out.append(f"title {d.get('title')!r} for {n} findings")
    for i, f in enumerate(findings):
        where = f"finding {i + 1} ({f.get('kind')})"
        if f.get("kind") not in ("leak", "accumulation", "cycle"):
            out.append(f"{where}: kind")
        if not f.get("bytes") or not f.get("blocks"):
            out.append(f"{where}: no bytes or blocks")
        site = f.get("site") or {}
        if not site.get("filename") or not site.get("name") or not site.get("line"):
            out.append(f"{where}: no user line ({site})")
        for field in ("summary", "released_by"):
            if not f.get(field) or HOLES.search(f[field]):
                out.append(f"{where}: {field} {f.get(field)!r}")
        if not f["to_s"] >= f["from_s"] >= 0:
            out.append(f"{where}: span {f['from_s']} .. {f['to_s']}")
    if findings and diag["kind"] != "oom" and diag["kind"] != findings[0]["kind"]:
        out.append(f"diagnosis {diag['kind']} is not the first finding's {findings[0]['kind']}")
    return out, n


def second_missing(d, path):
    """A capture with two things worth saying (the truth's `second`: an accumulation beside a leak) lists
    both: a finding of the second's kind whose site is one of its lines."""
    name = path.name
    stem = name[: -len(".pickle.xz")] if name.endswith(".pickle.xz") else name[: -len(".vscap")]
    truth = path.with_name(stem + (".truth.json" if name.endswith(".pickle.xz") else ".rec.truth.json"))
    second = json.loads(truth.read_text()).get("second") if truth.exists() else None
    if not second:
        return []
    for f in d.get("findings", []):
        site = f.get("site") or {}
        if f.get("kind") == second["kind"] and site.get("line") in second["leak_lines"] and \
                site.get("filename", "").endswith(second["leak_file"]):
            return []
    return [f"no {second['kind']} finding at {second['leak_file']}:{second['leak_lines']} (the truth's second)"]


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/app/vramscope-cli"
    paths = [p for folder in FOLDERS for p in sorted(folder.glob("*")) if p.name.endswith((".vscap", ".pickle.xz"))]
    failed, findings = [], 0
    with tempfile.TemporaryDirectory(prefix="vs-findings-") as tmp:
        for path in paths:
            r = subprocess.run([cli, "leaks", opened(path, tmp), "--json"], capture_output=True, text=True,
                               timeout=300)
            if r.returncode != 0:
                failed.append(f"{path.name}: exit {r.returncode}: {r.stderr.strip()[:120]}")
                continue
            d = json.loads(r.stdout)
            problems, n = problems_of(d)
            problems += second_missing(d, path)
            findings += n
            if n or problems:
                print(f"{path.name:48s} {n} finding(s) {'ok' if not problems else 'WRONG'}")
            failed += [f"{path.name}: {p}" for p in problems]
    for p in failed:
        print("  " + p)
    if not paths or not findings:
        failed.append("no recording with a finding: nothing was checked")
    print(f"{len(paths)} recordings, {findings} findings; {len(paths) - len({f.split(':')[0] for f in failed})} "
          f"passed, {len({f.split(':')[0] for f in failed})} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
