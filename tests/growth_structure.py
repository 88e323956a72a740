#!/usr/bin/env python3
"""The growth analysis stays one analysis (issue 45): in core/analysis/growth no two files include each
other, no function is over 100 lines, and no kind is decided outside the analysis (LeakDiagnosis and
RegionDiagnosis explain the findings: they never assign LeakKind::Leak, Accumulation or Cycle to a
region). Prints what is wrong; exit 1 when anything is.
    growth_structure.py [ROOT]"""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
GROWTH = ROOT / "core" / "analysis" / "growth"
LIMIT = 100


def functions(text):
    """(first line, length) of each function body at namespace level."""
    depth = ns = 0
    start = None
    for i, line in enumerate(text.split("\n")):
        code = re.sub(r'"(\\.|[^"\\])*"', '""', re.sub(r"//.*", "", line))
        code = re.sub(r"'.'", "''", code)
        if re.match(r"\s*namespace\b.*\{", code):
            ns += 1
            depth += 1
            continue
        opens, closes = code.count("{"), code.count("}")
        if depth == ns and opens > closes and start is None:
            start = i
        depth += opens - closes
        if start is not None and depth == ns:
            yield start + 1, i - start + 1
            start = None
        ns = min(ns, depth)


def main():
    problems = []
    includes = {}
    for f in sorted(GROWTH.glob("*")):
        text = f.read_text()
        includes.setdefault(f.stem, set()).update(
            m for m in re.findall(r'#include "analysis/growth/(\w+)\.h"', text) if m != f.stem)
        if f.suffix == ".cpp":
            problems += [f"{f.name}:{line}: a function of {n} lines (at most {LIMIT})"
                         for line, n in functions(text) if n > LIMIT]
    for a, deps in sorted(includes.items()):
        problems += [f"{a} and {b} include each other" for b in sorted(deps) if a < b and a in includes.get(b, ())]
    for name in ("LeakDiagnosis.cpp", "RegionDiagnosis.cpp"):
        for n, line in enumerate((GROWTH / name).read_text().split("\n"), 1):
            if re.search(r"\.kind\s*=\s*LeakKind::(Leak|Accumulation|Cycle)\b", line) and "rep.kind" not in line:
                problems.append(f"{name}:{n}: decides a region's kind: {line.strip()}")
    for p in problems:
        print(p)
    print(f"{len(list(GROWTH.glob('*')))} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
