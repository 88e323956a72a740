#!/usr/bin/env python3
"""Fails (exit 1, one line per offence) when a source file includes a header of a layer it must not
depend on, or when the include graph between folders has a cycle. Run by the build (target
check_layers) so a wrong dependency breaks it.   check-layers.py ROOT"""
import re, sys
from pathlib import Path

CORE = {"core/util", "core/model", "core/io", "core/analysis", "core/load", "core/compare", "core/sim"}
# folder -> folders it may include (its own always allowed)
ALLOWED = {
    "core/util": set(),
    "core/model": {"core/util"},
    "core/io": {"core/model", "core/util"},
    "core/analysis": {"core/model", "core/util"},
    "core/load": {"core/io", "core/analysis", "core/model", "core/util"},
    "core/compare": {"core/load", "core/analysis", "core/model", "core/util"},
    "core/sim": {"core/analysis", "core/model", "core/util"},
    # ui/ sits on core (any of it); inside ui the layers run common <- session <- models <- views
    # and timeline; live feeds the session; only window knows every folder.
    "ui/common": CORE,
    "ui/session": CORE | {"ui/common"},
    "ui/models": CORE | {"ui/common", "ui/session"},
    "ui/timeline": CORE | {"ui/common", "ui/session", "ui/models"},
    "ui/views": CORE | {"ui/common", "ui/session", "ui/models"},
    "ui/live": CORE | {"ui/common", "ui/session"},
    "ui/window": CORE | {"ui/common", "ui/session", "ui/models", "ui/timeline", "ui/views", "ui/live"},
}
# Inside core/analysis and ui/views, their subfolders are layers of their own (docs/architecture.md);
# from outside, a subfolder counts as its parent.
SUBLAYERS = {
    "core/analysis": {
        "replay": set(),                 # the allocator's state over time: replay, lifetimes, pools
        "stacks": {"replay"},            # call stacks: frame filters, sites, call trees, survivors
        "categories": {"replay", "stacks"},  # what each allocation is: categories, phases, outside torch
        "retention": set(),              # which Python objects keep blocks alive
        "": {"replay", "stacks", "categories"},  # CaptureAnalysis: one capture, analysed
        "composition": {"", "replay", "stacks", "categories"},  # composition over time, bands
        "growth": {"", "replay", "stacks", "categories", "retention"},  # growth regions, leaks
        "peak": {"", "replay", "stacks", "categories", "growth"},  # the peak, the per-phase table
    },
    "ui/views": {
        "panels": set(),                 # the detail panels: block map, stacks, leaks, retention, events
        "timeline": {"panels"},          # the views drawn on the timeline's clock
        "compare": set(),
        "ranks": set(),
        "dialogs": set(),
    },
}

def layer_of(folder, viewer):
    """The layer `folder` counts as, seen from `viewer`'s folder."""
    for parent in SUBLAYERS:
        if folder == parent or folder.startswith(parent + "/"):
            if viewer == parent or viewer.startswith(parent + "/"):
                return folder
            return parent
    return folder

def allowed(mine, dep):
    for parent, subs in SUBLAYERS.items():
        inside = lambda f: f == parent or f.startswith(parent + "/")
        if inside(mine) and inside(dep):
            name = lambda f: f[len(parent) + 1:] if f != parent else ""
            return name(dep) in subs.get(name(mine), set())
    key = layer_of(mine, "")
    return key not in ALLOWED or layer_of(dep, "") in ALLOWED[key]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

def folder_of(header, src, root):
    local = src.parent / header
    if local.exists():
        return str(local.parent.relative_to(root))
    for top in (root / "core" / header, root / "ui" / header):
        if top.exists():
            return str(top.parent.relative_to(root))
    return None

def main():
    root = Path(sys.argv[1]).resolve()
    edges, bad = {}, []
    for src in sorted([*root.glob("core/**/*"), *root.glob("ui/**/*")]):
        if src.suffix not in (".h", ".cpp"):
            continue
        mine = str(src.parent.relative_to(root))
        for header in INCLUDE.findall(src.read_text(errors="replace")):
            dep = folder_of(header, src, root)
            if dep is None or dep == mine:
                continue
            edges.setdefault(mine, set()).add(dep)
            if not allowed(mine, dep):
                bad.append(f"{src.relative_to(root)}: includes {header} ({mine} must not depend on {dep})")
    # cycles between folders (depth-first search)
    state = {}
    def visit(n, path):
        state[n] = 1
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                bad.append("include cycle: " + " -> ".join(path + [n, m]))
            elif m not in state:
                visit(m, path + [n])
        state[n] = 2
    for n in sorted(edges):
        if n not in state:
            visit(n, [])
    for line in bad:
        print(line)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
