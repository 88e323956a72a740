#!/usr/bin/env python3
"""Draws split.json ONCE: the corpus's programs, at random, into a develop half and a scored half.
A program's runs (its leak and its clean twin) go to the same half, so that neither half holds the
fixed version of a program whose leak the other half scores. Programs are drawn in two strata (those
with a leaking run, clean look-alikes), each shuffled and dealt alternately to the halves, so that each
half has about half of the leaks and half of the clean runs. The seed comes from os.urandom and is
written into the file. Refuses to run when split.json exists: never re-draw it (to move a case,
edit the file by hand and say why in its "moves")."""
import json
import os
import random
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))


def read_programs():
    """runs.txt's programs, in order, each with its run names."""
    programs = OrderedDict()
    for line in open(os.path.join(HERE, "runs.txt")):
        if line.strip() and not line.startswith("#"):
            name, program = line.split()[:2]
            programs.setdefault(program, []).append(name)
    return programs


def deal(programs, rng):
    """The draw: (program -> half, half -> its runs), the strata dealt alternately (see the docstring)."""
    halves = {"develop": [], "scored": []}
    assigned = {}
    leaking = [p for p, runs in programs.items() if any(not r.endswith("_clean") for r in runs)]
    lookalike = [p for p in programs if p not in leaking]
    first = rng.choice(["develop", "scored"])
    order = [first, "scored" if first == "develop" else "develop"]
    for stratum in (leaking, lookalike):
        stratum = sorted(stratum)
        rng.shuffle(stratum)
        for i, p in enumerate(stratum):
            half = order[i % 2]
            assigned[p] = half
            halves[half] += programs[p]
        order.reverse()  # the stratum with an odd count does not favour the same half twice
    return assigned, halves


def main():
    out = os.path.join(HERE, "split.json")
    if os.path.exists(out):
        sys.exit("split.json exists: it is drawn once and never re-drawn")
    programs = read_programs()
    seed = int.from_bytes(os.urandom(8), "little")
    assigned, halves = deal(programs, random.Random(seed))
    split = {"seed": seed, "method": __doc__.split("\n")[0] + " random.Random(seed); see draw_split.py",
             "develop": sorted(halves["develop"]), "scored": sorted(halves["scored"]),
             "programs": dict(sorted(assigned.items())), "moves": []}
    with open(out, "w") as f:
        json.dump(split, f, indent=1)
        f.write("\n")
    for half in ("develop", "scored"):
        runs = split[half]
        print(half, len(runs), "runs:", sum(not r.endswith("_clean") for r in runs), "leaking,",
              sum(r.endswith("_clean") for r in runs), "clean")


if __name__ == "__main__":
    main()
