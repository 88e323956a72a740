#!/usr/bin/env python3
"""Scores `leaks --json` on the real OOM recordings of samples/oom (issue 46): for each recording (both
recorders), whether the diagnosis names the cause the program was written to have (`cause`) and
whether one of the holders it lists, or its sentence, names one of the program's holder lines (the
OOM-ALLOC-SITE / OOM-HOLD-SITE markers). A scorer, not a test: prints one row per recording and the
totals, exit 0 (exit 2 when a recording cannot be read).
    score-oom.py [RECORDINGS] [CLI]"""
import json
import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def diagnosis(cli, path, tmp):
    if path.name.endswith(".xz"):
        plain = Path(tmp) / path.name[:-3]
        plain.write_bytes(lzma.open(path).read())
        path = plain
    r = subprocess.run([cli, "leaks", str(path), "--json"], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return json.loads(r.stdout)["diagnosis"]


def names_a_holder(d, truth):
    lines = set(truth["holder_lines"])
    name = Path(truth["file"]).name
    for h in (d.get("oom") or {}).get("holders", []):
        site = h.get("site") or {}
        if Path(site.get("filename", "")).name == name and site.get("line") in lines:
            return True
    return any(f"{name}:{line})" in d.get("summary", "") for line in lines)


def main():
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "samples" / "oom" / "recordings"
    cli = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "build" / "app" / "vramscope-cli")
    cause_ok = line_ok = total = 0
    with tempfile.TemporaryDirectory(prefix="vs-oom-") as tmp:
        for path in sorted(folder.iterdir()):
            if not path.name.endswith((".vscap", ".pickle.xz")):
                continue
            stem = path.name[: -len(".vscap")] if path.name.endswith(".vscap") else path.name[: -len(".pickle.xz")]
            truth = json.loads((folder / (stem + (".rec.truth.json" if path.name.endswith(".vscap") else ".truth.json"))).read_text())
            if truth.get("kind") != "oom":
                continue
            try:
                d = diagnosis(cli, path, tmp)
            except (RuntimeError, ValueError) as e:
                print(f"{path.name}: {e}")
                return 2
            total += 1
            got = d.get("cause")
            c, l = got == truth["cause"], names_a_holder(d, truth)
            cause_ok += c
            line_ok += l
            print(f"{path.name:36} {truth['cause']:16} {str(got):16} {'cause ok' if c else 'CAUSE WRONG':12} "
                  f"{'line ok' if l else 'LINE MISSED'}")
    print(f"cause right {cause_ok}/{total}, a holder line named {line_ok}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
