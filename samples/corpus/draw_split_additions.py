#!/usr/bin/env python3
"""Draws the split of programs ADDED to the corpus after split.json was drawn, ONCE per addition: the
programs of runs.txt that split.json does not assign yet, and only those, go at random into the
develop and the scored half, the way draw_split.py drew the first ones (two strata, programs with a
leaking run and clean look-alikes, each sorted, shuffled with random.Random(seed) and dealt
alternately to the halves, the first half drawn, the order reversed for the second stratum; a
program's runs in the same half). The seed comes from os.urandom. The runs are appended to
split.json's "develop" and "scored", the programs to its "programs", and the draw to its "additions"
list ({"seed", "programs", "develop", "scored"}). Programs already assigned are never re-drawn: it
refuses when there is nothing new, and never touches an assigned program's half (to move a case, edit
the file by hand and say why in its "moves").
    draw_split_additions.py"""
import json
import os
import random
import sys
from collections import OrderedDict

from draw_split import deal, read_programs

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    path = os.path.join(HERE, "split.json")
    if not os.path.exists(path):
        sys.exit("no split.json: draw the first split with draw_split.py")
    split = json.load(open(path))
    programs = read_programs()
    assigned_runs = set(split["develop"]) | set(split["scored"])
    new = OrderedDict((p, runs) for p, runs in programs.items() if p not in split["programs"])
    for p, runs in new.items():
        if any(r in assigned_runs for r in runs):
            sys.exit(f"{p}: a run of it is already in a half, but the program is not assigned: fix split.json by hand")
    for p, runs in programs.items():
        if p in split["programs"] and any(r not in assigned_runs for r in runs):
            sys.exit(f"{p} is assigned, but a run of it is in no half: add it to {split['programs'][p]!r} by hand "
                     "(an assigned program is never re-drawn)")
    if not new:
        sys.exit("nothing to draw: every program of runs.txt is already assigned (and none is re-drawn)")
    seed = int.from_bytes(os.urandom(8), "little")
    drawn, halves = deal(new, random.Random(seed))
    for p, half in drawn.items():
        split["programs"][p] = half
    for half in ("develop", "scored"):
        split[half] += halves[half]
    split["programs"] = dict(sorted(split["programs"].items()))
    split.setdefault("additions", []).append(
        {"seed": seed, "method": "draw_split_additions.py: only the programs not yet assigned, drawn as draw_split.py",
         "programs": sorted(new), "develop": halves["develop"], "scored": halves["scored"]})
    with open(path, "w") as f:
        json.dump(split, f, indent=1)
        f.write("\n")
    for half in ("develop", "scored"):
        runs = halves[half]
        print(f"{half}: {len(runs)} new runs: {sum(not r.endswith('_clean') for r in runs)} leaking,",
              f"{sum(r.endswith('_clean') for r in runs)} clean; the half now has {len(split[half])} runs")


if __name__ == "__main__":
    main()
